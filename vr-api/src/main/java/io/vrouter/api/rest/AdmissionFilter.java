package io.vrouter.api.rest;

import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.HttpExchange;
import io.vrouter.core.model.ModelJson;
import jakarta.ws.rs.core.Response;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Decides, on the JDK server, which requests are served now: API requests share
 * {@code rest.worker-threads} places, event streams have places of their own (so subscribers never
 * take the API's, and one client address only a few of them), and the probes ({@code /health},
 * {@code /metrics}) need no place, so they answer while the API is saturated.
 *
 * <p>A request's body is read whole before it takes a place: the request time-out covers the head
 * and the body (the JDK server counts a request as read once its body is), and a slow sender holds a
 * thread but no place. Refusals are problem details: 503 with Retry-After when the server is full,
 * 429 when one client has too many streams, 413 for a body over the limit.
 */
final class AdmissionFilter extends Filter {
    /** How long an API request may wait for a place before it is refused. */
    private static final long QUEUE_MILLIS = 2_000;
    static final String EVENTS = "/api/v1/events";
    /** RESTCONF's event streams (RFC 8040 section 6), which hold their connection as REST's events do. */
    static final String RESTCONF_STREAMS = "/restconf/streams/";

    private final Semaphore api;
    private final Semaphore streams;
    private final int streamsPerClient;
    private final BodyLimit maxBody;
    private final Map<InetAddress, AtomicInteger> clientStreams = new ConcurrentHashMap<>();
    private final Consumer<String> onRefusal;

    AdmissionFilter(RestLimits limits, BodyLimit maxBody, Consumer<String> onRefusal) {
        this.api = new Semaphore(limits.workers(), true);
        this.streams = new Semaphore(limits.eventStreams());
        this.streamsPerClient = limits.eventStreamsPerClient();
        this.maxBody = maxBody;
        this.onRefusal = onRefusal;
    }

    @Override
    public String description() {
        return "vrouter admission: places for API requests and event streams";
    }

    @Override
    public void doFilter(HttpExchange exchange, Chain chain) throws IOException {
        ClientAddress.set(exchange.getRemoteAddress().getAddress());
        try {
            admit(exchange, chain);
        } finally {
            ClientAddress.clear();
            CurrentRequest.clear();
        }
    }

    private void admit(HttpExchange exchange, Chain chain) throws IOException {
        String path = exchange.getRequestURI().getPath();
        if (path.equals("/metrics") || path.equals("/health") || path.startsWith("/health/")) {
            chain.doFilter(exchange);
        } else if (path.equals(EVENTS) || path.equals(EVENTS + "/") || path.startsWith(RESTCONF_STREAMS)) {
            stream(exchange, chain);
        } else {
            request(exchange, chain);
        }
    }

    private void request(HttpExchange exchange, Chain chain) throws IOException {
        if (!readBody(exchange)) return;
        boolean admitted;
        try {
            admitted = api.tryAcquire(QUEUE_MILLIS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            admitted = false;
        }
        if (!admitted) {
            refuse(exchange, Response.Status.SERVICE_UNAVAILABLE, "busy", "the server is handling as many requests as "
                    + "it may (rest.worker-threads); try again shortly");
            return;
        }
        try {
            chain.doFilter(exchange);
        } finally {
            api.release();
        }
    }

    private void stream(HttpExchange exchange, Chain chain) throws IOException {
        InetAddress client = exchange.getRemoteAddress().getAddress();
        AtomicInteger mine = clientStreams.computeIfAbsent(client, k -> new AtomicInteger());
        if (mine.incrementAndGet() > streamsPerClient) {
            releaseStream(client);
            refuse(exchange, Response.Status.TOO_MANY_REQUESTS, "streams-per-client", "this address has "
                    + streamsPerClient + " event streams open already (rest.max-event-streams-per-client)");
            return;
        }
        if (!streams.tryAcquire()) {
            releaseStream(client);
            refuse(exchange, Response.Status.SERVICE_UNAVAILABLE, "streams", "the server has as many event streams "
                    + "open as it may (rest.max-event-streams); try again shortly");
            return;
        }
        try {
            chain.doFilter(exchange);
        } finally {
            streams.release();
            releaseStream(client);
        }
    }

    private void releaseStream(InetAddress client) {
        clientStreams.computeIfPresent(client, (k, n) -> n.decrementAndGet() <= 0 ? null : n);
    }

    /**
     * Reads the body into memory; false (the exchange answered with 413) when it is over the limit.
     * The rest of a body too large is read and dropped first, as {@link BodyLimitFilter} does, so that
     * the client gets the answer and the connection stays usable.
     */
    private boolean readBody(HttpExchange exchange) throws IOException {
        String length = exchange.getRequestHeaders().getFirst("Content-Length");
        boolean chunked = exchange.getRequestHeaders().containsKey("Transfer-Encoding");
        if (!chunked && (length == null || length.equals("0"))) return true;
        long declared = chunked ? -1 : Long.parseLong(length);
        long limit = maxBody.bytes();
        ByteArrayOutputStream body = new ByteArrayOutputStream((int) Math.min(Math.max(declared, 1024), limit));
        long total = 0;
        try (InputStream in = exchange.getRequestBody()) {
            byte[] buf = new byte[8192];
            int n;
            while (total < BodyLimitFilter.DRAIN_LIMIT && (n = in.read(buf)) > 0) {
                total += n;
                if (total <= limit) body.write(buf, 0, n);
            }
        }
        if (total > limit) {
            refuse(exchange, Response.Status.REQUEST_ENTITY_TOO_LARGE, "body", "the body is larger than " + limit
                    + " bytes (rest.max-body-bytes)");
            return false;
        }
        exchange.setStreams(new ByteArrayInputStream(body.toByteArray()), null);
        return true;
    }

    private void refuse(HttpExchange exchange, Response.Status status, String reason, String detail) throws IOException {
        onRefusal.accept(reason);
        Problem p = new Problem(status, detail, null);
        p.instance = exchange.getRequestURI().getPath();
        if (status.getStatusCode() >= 500) ProblemMapper.logged(p, null);
        byte[] body = ModelJson.mapper().writeValueAsBytes(p);
        exchange.getResponseHeaders().set("Content-Type", Problem.JSON.toString());
        if (status != Response.Status.REQUEST_ENTITY_TOO_LARGE) exchange.getResponseHeaders().set("Retry-After", "1");
        exchange.sendResponseHeaders(status.getStatusCode(), body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }
}
