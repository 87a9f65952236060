package io.vrouter.it.limits;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vrouter.it.ServerProcess;
import io.vrouter.it.Sockets;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A few sockets must not starve the REST interface (issue 12): slow senders and event streams from
 * other loopback addresses (127.0.0.2 and up, all routed to lo) while /health and an authenticated
 * request from 127.0.0.1 still answer. Small limits keep the test bounded.
 */
class RestLimitsIT {
    /** One server for every case, with small limits: the paper's timings make waits last long enough to see. */
    private static ServerProcess server;
    private final List<Socket> sockets = new ArrayList<>();

    @BeforeAll
    static void start(@TempDir Path dir) throws Exception {
        Path config = dir.resolve("vrouter.properties");
        Files.writeString(config, String.join("\n", "rest.request-timeout=2s", "rest.max-connections-per-client=16",
                "rest.worker-threads=1", "rest.max-event-streams=10", "rest.max-event-streams-per-client=2") + "\n");
        server = ServerProcess.start(dir, "--sim-latency", "paper", "--config", config.toString());
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    @AfterEach
    void closeSockets() {
        for (Socket s : sockets) {
            try {
                s.close();
            } catch (IOException ignored) {
                // already closed by the server
            }
        }
    }

    private Socket connect(String from) throws IOException {
        Socket s = Sockets.connectFrom(from, server.restPort);
        sockets.add(s);
        return s;
    }

    private static void assertServing() throws Exception {
        long t0 = System.nanoTime();
        assertThat(server.get("/health").statusCode()).isEqualTo(200);
        HttpResponse<String> list = server.get("/api/v1/routers");
        assertThat(list.statusCode()).as(list.body()).isEqualTo(200);
        assertThat((System.nanoTime() - t0) / 1_000_000).as("milliseconds for /health and a list").isLessThan(3_000);
    }

    @Test
    void sixtyFourSlowSendersDoNotStarveRest() throws Exception {
        List<Socket> slow = new ArrayList<>();
        for (int k = 0; k < 64; k++) {
            Socket s = connect("127.0.0.2");
            OutputStream out = s.getOutputStream();
            out.write("GET /api/v1/routers HT".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            slow.add(s);
        }
        assertServing();
        // One address has 16 connections being read at most: the rest were closed at once.
        int closedAtOnce = 0;
        for (Socket s : slow) {
            if (Sockets.closedWithin(s, 50)) closedAtOnce++;
        }
        assertThat(closedAtOnce).isGreaterThanOrEqualTo(64 - 16);
        // The others are closed once the request time-out has passed.
        for (Socket s : slow) assertThat(Sockets.closedWithin(s, 6_000)).isTrue();
        assertServing();
        assertThat(server.metrics()).containsPattern(
                "vrouter_rest_refused_total\\{reason=\"connections-per-client\"} [1-9]");
    }

    @Test
    void sixtyFourEventStreamsDoNotStarveRest() throws Exception {
        String viewer = Base64.getEncoder().encodeToString("viewer:viewer".getBytes(StandardCharsets.UTF_8));
        List<String> answers = new ArrayList<>();
        for (int k = 0; k < 64; k++) {
            Socket s = connect("127.0.0." + (2 + k % 4));
            s.getOutputStream().write(("GET /api/v1/events HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n"
                    + "Authorization: Basic " + viewer + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            s.setSoTimeout(5_000);
            answers.add(statusLine(s.getInputStream()));
        }
        // Two streams for each of the four addresses; every other one told why, none left hanging.
        assertThat(answers.stream().filter(a -> a.contains(" 200 "))).hasSize(8);
        assertThat(answers.stream().filter(a -> a.contains(" 429 "))).hasSize(56);
        // Streams have places of their own: the API place and the probes are free.
        assertServing();
        List<CompletableFuture<HttpResponse<String>>> parallel = new ArrayList<>();
        for (int k = 0; k < 4; k++) {
            parallel.add(CompletableFuture.supplyAsync(() -> {
                try {
                    return server.get("/api/v1/hypervisor");
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        for (CompletableFuture<HttpResponse<String>> f : parallel) assertThat(f.get().statusCode()).isEqualTo(200);
        // Another address still subscribes: 9 of 10 places.
        Socket mine = connect("127.0.0.1");
        mine.getOutputStream().write(("GET /api/v1/events HTTP/1.1\r\nHost: localhost\r\nAuthorization: Basic " + viewer
                + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        mine.setSoTimeout(5_000);
        assertThat(statusLine(mine.getInputStream())).contains(" 200 ");
        assertThat(server.post("/api/v1/routers", "{\"vmName\":\"seen\"}").statusCode()).isEqualTo(202);
        assertThat(readUntil(mine.getInputStream(), "\"vmName\":\"seen\"")).isTrue();
    }

    @Test
    void healthAnswersWhileEveryApiPlaceIsTaken() throws Exception {
        int held = json(server.post("/api/v1/routers?wait=30s", "{\"vmName\":\"held\"}")).get("vmIndex").asInt();
        // Removing a VR takes the paper's 3.4 s; waiting for it holds the one API place.
        CompletableFuture<HttpResponse<String>> removal = CompletableFuture.supplyAsync(() -> {
            try {
                return server.delete("/api/v1/routers/" + held + "?wait=30s");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (!server.metrics().contains("vrouter_routers{state=\"shuttingdown\"} 1.0")) {
            assertThat(System.nanoTime()).as("the removal under way").isLessThan(deadline);
            Thread.sleep(20);
        }
        // Answered while the removal still holds the API place: /health does not queue behind it.
        assertThat(server.get("/health").statusCode()).isEqualTo(200);
        assertThat(removal).as("the removal still under way").isNotDone();
        HttpResponse<String> busy = server.get("/api/v1/hypervisor");
        assertThat(busy.statusCode()).as(busy.body()).isEqualTo(503);
        assertThat(busy.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(busy.body()).contains("rest.worker-threads");
        // A 5xx carries an id, and the log says it under the same id.
        String errorId = new ObjectMapper().readTree(busy.body()).path("errorId").asText();
        assertThat(errorId).isNotBlank();
        assertThat(server.log()).contains("(error " + errorId + ")");
        assertThat(removal.get().statusCode()).isEqualTo(204);
        assertThat(server.get("/api/v1/hypervisor").statusCode()).isEqualTo(200);
    }

    private static JsonNode json(HttpResponse<String> r) throws IOException {
        assertThat(r.statusCode()).as(r.body()).isBetween(200, 299);
        return new ObjectMapper().readTree(r.body());
    }


    private static String statusLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0 && c != '\n') line.append((char) c);
        return line.toString();
    }

    private static boolean readUntil(InputStream in, String text) throws IOException {
        StringBuilder seen = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0) {
            seen.append((char) c);
            if (seen.indexOf(text) >= 0) return true;
        }
        return false;
    }
}
