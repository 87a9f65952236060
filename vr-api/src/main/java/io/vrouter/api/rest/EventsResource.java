package io.vrouter.api.rest;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import io.vrouter.core.model.VrEvent;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.sse.OutboundSseEvent;
import jakarta.ws.rs.sse.Sse;
import jakarta.ws.rs.sse.SseBroadcaster;
import jakarta.ws.rs.sse.SseEventSink;

/** Server-sent events: one per VR change, named after its type, with the VrEvent as JSON data. */
@Path("api/v1/events")
@Tag(name = "events")
@Singleton
public class EventsResource {
    private final Sse sse;
    private final SseBroadcaster broadcaster;

    @Inject
    public EventsResource(@Context Sse sse, EventRelay relay) {
        this.sse = sse;
        this.broadcaster = sse.newBroadcaster();
        relay.attach(this::broadcast);
    }

    @GET
    @Produces(MediaType.SERVER_SENT_EVENTS)
    @Operation(operationId = "subscribeEvents", summary = "Stream VR state changes as server-sent events")
    public void subscribe(@Context SseEventSink sink) {
        broadcaster.register(sink);
        // A comment makes the response start now, so the client knows it is subscribed.
        sink.send(sse.newEventBuilder().comment("subscribed").build());
    }

    private void broadcast(VrEvent event) {
        OutboundSseEvent out = sse.newEventBuilder()
                .id(Long.toString(event.sequence))
                .name(event.type.label())
                .mediaType(MediaType.APPLICATION_JSON_TYPE)
                .data(VrEvent.class, event)
                .build();
        broadcaster.broadcast(out);
    }
}
