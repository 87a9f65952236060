package io.vrouter.api.rest;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;

/** A tiny HTTP client for the tests: real requests over loopback with the JDK's client. */
final class RestClient {
    final String base;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    RestClient(int port) {
        this.base = "http://127.0.0.1:" + port;
    }

    static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    HttpRequest.Builder request(String path, String auth) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30));
        if (auth != null) b.header("Authorization", auth);
        return b;
    }

    HttpResponse<String> send(HttpRequest.Builder b) throws IOException, InterruptedException {
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> get(String path, String auth, String accept) throws IOException, InterruptedException {
        return send(request(path, auth).header("Accept", accept).GET());
    }

    HttpResponse<String> post(String path, String auth, String contentType, String body)
            throws IOException, InterruptedException {
        return send(request(path, auth).header("Content-Type", contentType).header("Accept", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    HttpResponse<String> delete(String path, String auth) throws IOException, InterruptedException {
        return send(request(path, auth).DELETE());
    }

    HttpClient http() {
        return http;
    }

    /** One server-sent event: its name, id (null when it has none) and data. */
    record Sse(String event, String id, String data) {
    }

    /**
     * Reads the events of /api/v1/events as {@code auth} until {@code enough} holds of those read, or
     * 10 s pass; {@code onSubscribed} runs once the stream has started.
     */
    List<Sse> events(String auth, String lastEventId, Predicate<List<Sse>> enough, Runnable onSubscribed)
            throws Exception {
        HttpRequest.Builder b = request("/api/v1/events", auth).header("Accept", "text/event-stream");
        if (lastEventId != null) b.header("Last-Event-ID", lastEventId);
        HttpResponse<Stream<String>> response = http.sendAsync(b.GET().build(), HttpResponse.BodyHandlers.ofLines())
                .get(10, TimeUnit.SECONDS);
        assertThat(response.statusCode()).isEqualTo(200);
        List<Sse> events = new ArrayList<>();
        try (Stream<String> body = response.body()) {
            Iterator<String> lines = body.iterator();
            assertThat(lines.next()).startsWith(": subscribed");
            onSubscribed.run();
            String event = null;
            String id = null;
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (!enough.test(events) && System.nanoTime() < deadline && lines.hasNext()) {
                String line = lines.next();
                if (line.startsWith("event: ")) event = line.substring(7);
                if (line.startsWith("id: ")) id = line.substring(4);
                if (line.startsWith("data: ")) {
                    events.add(new Sse(event, id, line.substring(6)));
                    event = null;
                    id = null;
                }
            }
        }
        return events;
    }
}
