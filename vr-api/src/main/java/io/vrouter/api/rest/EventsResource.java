package io.vrouter.api.rest;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import io.vrouter.core.model.ModelJson;
import io.vrouter.core.model.VrEvent;
import io.vrouter.core.service.VirtualRouterService;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.StreamingOutput;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Server-sent events: one per VR change, named after its type, with the VrEvent as JSON data. Each
 * subscriber holds one worker thread, which writes its events as they come and a keep-alive comment
 * every 15 seconds, and notices a client that went away when a write fails.
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
    private VirtualRouterService service;

    @GET
    @Produces(MediaType.SERVER_SENT_EVENTS)
    @Operation(operationId = "subscribeEvents", summary = "Stream VR state changes as server-sent events")
    public Response subscribe() {
        StreamingOutput stream = out -> {
            BlockingQueue<VrEvent> queue = new LinkedBlockingQueue<>(BACKLOG);
            boolean[] overflow = {false};
            try (AutoCloseable subscription = service.events().subscribe(e -> {
                if (!queue.offer(e)) overflow[0] = true;
            })) {
                Writer w = new OutputStreamWriter(out, StandardCharsets.UTF_8);
                // A comment makes the response start now, so the client knows it is subscribed. Jersey
                // buffers up to 8 KiB of a response to learn its length; the comment fills that buffer,
                // so the stream goes out at once and every later flush reaches the client.
                w.write(": subscribed" + " ".repeat(COMMIT_PADDING) + "\n\n");
                w.flush();
                while (!overflow[0]) {
                    VrEvent e = queue.poll(15, TimeUnit.SECONDS);
                    if (e == null) {
                        w.write(": keep-alive\n\n");
                    } else {
                        w.write("event: " + e.type.label() + "\nid: " + e.sequence + "\ndata: "
                                + JSON.writeValueAsString(e) + "\n\n");
                    }
                    w.flush();
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
}
