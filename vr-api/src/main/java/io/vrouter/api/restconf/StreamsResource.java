package io.vrouter.api.restconf;

import com.fasterxml.jackson.core.JsonGenerator;
import io.vrouter.core.model.VrEvent;
import io.vrouter.core.service.EventBus;
import io.vrouter.core.spi.Events;
import io.vrouter.core.spi.VirtualRouters;
import io.vrouter.yang.DataNode;
import io.vrouter.yang.JsonOut;
import io.vrouter.yang.Notifications;
import io.vrouter.yang.Ns;
import io.vrouter.yang.XmlOut;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.StreamingOutput;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * RESTCONF's event stream (RFC 8040 section 6): the NETCONF stream's notifications (NEW-VMM-MIB's
 * vmRunning, vmShutdown, vmDeleted...) as server-sent events, each an {@code ietf-restconf:notification}
 * in JSON or XML, at the locations {@code restconf-state/streams} lists. {@code start-time} (or
 * Last-Event-ID) replays from the service's event log first. One worker thread a subscriber, as
 * REST's events.
 */
@Path("restconf/streams")
public class StreamsResource {
    /** Events a slow subscriber may fall behind by before it is disconnected (REST's figure). */
    static final int BACKLOG = 10_000;
    /** More than Jersey's response buffer, so that the stream starts at once (see REST's EventsResource). */
    private static final int COMMIT_PADDING = 8192;

    @Inject
    private VirtualRouters service;

    @GET
    @Path("{stream}/{encoding}")
    public Response subscribe(@PathParam("stream") String stream, @PathParam("encoding") String encoding,
                              @QueryParam("start-time") String startTime, @HeaderParam("Last-Event-ID") String lastEventId) {
        if (!stream.equals(Datastore.STREAM)) throw RestconfError.notFound("no stream " + stream + ": there is " + Datastore.STREAM);
        Encoding enc = switch (encoding) {
            case "json" -> Encoding.JSON;
            case "xml" -> Encoding.XML;
            default -> throw RestconfError.notFound("stream encodings are json and xml");
        };
        Optional<EventBus.Replay> replay = replay(startTime, lastEventId);
        Events events = service.events(); // the caller's: its tenant's VRs only, live and replayed
        StreamingOutput body = out -> run(out, enc, events, replay);
        return Response.ok(body, MediaType.SERVER_SENT_EVENTS_TYPE).header("Cache-Control", "no-cache").build();
    }

    /** Where a replay starts: after Last-Event-ID (a reconnection), at start-time, or none. */
    private Optional<EventBus.Replay> replay(String start, String lastEventId) {
        if (lastEventId != null) {
            try {
                return Optional.of(new EventBus.Replay.After(Long.parseLong(lastEventId.trim())));
            } catch (NumberFormatException e) {
                throw RestconfError.invalidValue("Last-Event-ID '" + lastEventId + "' is not an event id of this stream");
            }
        }
        if (start == null) return Optional.empty();
        if (service.events().replayLog().isEmpty()) {
            throw RestconfError.invalidValue("this server keeps no event log: start-time cannot be served");
        }
        try {
            Instant at = Instant.parse(start);
            if (at.isAfter(Instant.now())) throw RestconfError.invalidValue("start-time is in the future");
            return Optional.of(new EventBus.Replay.Since(at));
        } catch (DateTimeParseException e) {
            throw RestconfError.invalidValue("start-time '" + start + "' is not a date-and-time (2026-11-23T08:00:00Z)");
        }
    }

    private void run(OutputStream out, Encoding enc, Events events, Optional<EventBus.Replay> replay) throws IOException {
        BlockingQueue<Object> queue = new LinkedBlockingQueue<>(BACKLOG);
        boolean[] overflow = {false};
        EventBus.Subscriber subscriber = new EventBus.Subscriber() {
            @Override
            public void event(VrEvent e) {
                if (!queue.offer(e)) overflow[0] = true;
            }

            /** As the NETCONF stream says it (RFC 5277's replayComplete): the replay is over, live events follow. */
            @Override
            public void replayComplete() {
                if (!queue.offer(REPLAY_COMPLETE)) overflow[0] = true;
            }
        };
        try (AutoCloseable subscription = replay.isPresent() ? events.subscribe(replay.get(), subscriber)
                : events.subscribe(subscriber::event)) {
            out.write((": subscribed" + " ".repeat(COMMIT_PADDING) + "\n\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
            while (!overflow[0]) {
                Object next = queue.poll(15, TimeUnit.SECONDS);
                if (next == null) {
                    out.write(": keep-alive\n\n".getBytes(StandardCharsets.UTF_8));
                } else if (next == REPLAY_COMPLETE) {
                    String data = notification(Instant.now().toString(), DataNode.empty(Ns.STREAMS, "replayComplete"), enc);
                    out.write(("data: " + data.replace("\n", "\ndata: ") + "\n\n").getBytes(StandardCharsets.UTF_8));
                } else if (next instanceof VrEvent e) {
                    Optional<DataNode> content = Notifications.content(e, service);
                    if (content.isPresent()) {
                        String data = notification(e.timestamp, content.get(), enc);
                        out.write(("id: " + e.sequence + "\ndata: " + data.replace("\n", "\ndata: ") + "\n\n")
                                .getBytes(StandardCharsets.UTF_8));
                    }
                }
                // Once per batch of events already queued, as REST's stream (an event that is no
                // notification still ends its batch).
                if (queue.isEmpty()) out.flush();
            }
        } catch (IOException clientGone) {
            // The subscriber closed the connection: nothing to do but unsubscribe.
        } catch (InterruptedException stopping) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            throw new IOException(e);
        }
    }

    /** Queued when the replay asked for has been sent. */
    private static final Object REPLAY_COMPLETE = new Object();

    /** The notification (RFC 8040 section 6.4): eventTime and the event's content. */
    static String notification(String eventTime, DataNode content, Encoding enc) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        if (enc == Encoding.JSON) {
            try (JsonOut json = new JsonOut(b)) {
                JsonGenerator g = json.generator();
                g.writeStartObject();
                g.writeObjectFieldStart("ietf-restconf:notification");
                g.writeStringField("eventTime", eventTime);
                json.members(List.of(content).iterator(), Ns.RESTCONF, DataNode.UNBOUNDED, List.of());
                g.writeEndObject();
                g.writeEndObject();
            }
        } else {
            try (XmlOut xml = new XmlOut(b)) {
                xml.start(Ns.NOTIFICATION, "notification");
                xml.leaf(Ns.NOTIFICATION, "eventTime", eventTime);
                content.write(xml);
                xml.end();
            }
        }
        return b.toString(StandardCharsets.UTF_8);
    }
}
