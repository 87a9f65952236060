package io.vrouter.api.rest;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.tags.Tag;
import io.vrouter.core.model.ModelJson;
import io.vrouter.core.model.VrEvent;
import io.vrouter.core.service.EventBus;
import io.vrouter.core.spi.Events;
import io.vrouter.core.spi.ValidationException;
import io.vrouter.core.spi.VirtualRouters;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.StreamingOutput;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Server-sent events: one per VR change, named after its type, with the VrEvent as JSON data and its
 * sequence number as the event id. Each subscriber holds one worker thread, which writes its events
 * as they come and a keep-alive comment every 15 seconds, and notices a client that went away when a
 * write fails. A client that reconnects with Last-Event-ID (as EventSource does by itself) is first
 * sent what it missed, from the replay log the NETCONF replay reads too.
 */
@Path("api/v1/events")
@Tag(name = "events")
public class EventsResource {
    /** Events a slow subscriber may fall behind by before it is disconnected. */
    static final int BACKLOG = 10_000;
    private static final ObjectMapper JSON = ModelJson.mapper();
    /** More than Jersey's response buffer (jersey.config.contentLength.buffer, 8192 by default). */
    private static final int COMMIT_PADDING = 8192;

    @Inject
    private VirtualRouters service;

    @GET
    @Produces(MediaType.SERVER_SENT_EVENTS)
    @Operation(operationId = "subscribeEvents", summary = "Stream VR state changes as server-sent events; with"
            + " Last-Event-ID, first the events after that one from the replay log (a replayGap event says when some"
            + " are too old to be kept), then a replayComplete event, then live ones")
    public Response subscribe(@Parameter(description = "The id of the last event the client saw: the stream resumes"
            + " after it") @HeaderParam("Last-Event-ID") String lastEventId) {
        Long resumeAfter = resumeAfter(lastEventId);
        Events events = service.events(); // the caller's: its tenant's VRs only, live and replayed
        StreamingOutput stream = out -> {
            // Unbounded while the replay is queued (it comes at once); live events may fall BACKLOG behind.
            BlockingQueue<Object> queue = new LinkedBlockingQueue<>();
            boolean[] replaying = {resumeAfter != null};
            boolean[] overflow = {false};
            EventBus.Subscriber subscriber = new EventBus.Subscriber() {
                @Override
                public void event(VrEvent e) {
                    if (!replaying[0] && queue.size() >= BACKLOG) {
                        overflow[0] = true;
                    } else {
                        queue.add(e);
                    }
                }

                @Override
                public void replayGap(long firstAskedFor, Optional<Long> oldestKept) {
                    queue.add(new ReplayGap(firstAskedFor, oldestKept.orElse(null)));
                }

                @Override
                public void replayComplete() {
                    queue.add(REPLAY_COMPLETE);
                    replaying[0] = false;
                }
            };
            try (AutoCloseable subscription = resumeAfter == null
                    ? events.subscribe(subscriber::event)
                    : events.subscribe(new EventBus.Replay.After(resumeAfter), subscriber)) {
                Writer w = new OutputStreamWriter(out, StandardCharsets.UTF_8);
                // A comment makes the response start now, so the client knows it is subscribed. Jersey
                // buffers up to 8 KiB of a response to learn its length; the comment fills that buffer,
                // so the stream goes out at once and every later flush reaches the client.
                w.write(": subscribed" + " ".repeat(COMMIT_PADDING) + "\n\n");
                w.flush();
                while (!overflow[0]) {
                    Object next = queue.poll(15, TimeUnit.SECONDS);
                    if (next == null) {
                        w.write(": keep-alive\n\n");
                    } else if (next instanceof VrEvent e) {
                        w.write("event: " + e.type.label() + "\nid: " + e.sequence + "\ndata: "
                                + JSON.writeValueAsString(e) + "\n\n");
                    } else {
                        w.write("event: " + (next == REPLAY_COMPLETE ? "replayComplete" : "replayGap") + "\ndata: "
                                + JSON.writeValueAsString(next) + "\n\n");
                    }
                    // Once per batch of events already queued (a write's events come together): a flush
                    // is a chunk and a socket write each.
                    if (queue.isEmpty()) w.flush();
                }
            } catch (IOException clientGone) {
                // The subscriber closed the connection: nothing to do but unsubscribe.
            } catch (InterruptedException stopping) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                throw new IOException(e);
            }
        };
        return Response.ok(stream, MediaType.SERVER_SENT_EVENTS_TYPE).header("Cache-Control", "no-cache").build();
    }

    /**
     * What a resuming client is told when events it missed are no longer kept (the replay log is
     * bounded by count and age): the first it asked for, and the oldest kept (null when none is).
     * The events from {@code oldestKept} on follow.
     */
    record ReplayGap(long firstMissed, Long oldestKept) {
    }

    /** Every missed event kept has been sent; live ones follow. */
    private static final Map<String, String> REPLAY_COMPLETE = Map.of("replay", "complete");

    private static Long resumeAfter(String lastEventId) {
        if (lastEventId == null || lastEventId.isBlank()) return null;
        try {
            long id = Long.parseLong(lastEventId.trim());
            if (id >= 0) return id;
        } catch (NumberFormatException e) {
            // said below
        }
        throw new ValidationException("Last-Event-ID", "must be the id of an event of this stream, a whole number");
    }
}
