package io.vrouter.it.netconf;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.vrouter.it.ServerProcess;
import io.vrouter.it.Sockets;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Idle connections that never log in must not keep an operator out (issue 12): they have a short
 * login grace time and a cap of their own, apart from netconf.max-sessions; and attackers on a few
 * addresses filling that cap do not keep out an operator from another one (issue 23 item 9).
 */
class NetconfLimitsIT {
    @TempDir
    Path dir;

    @Test
    void idleUnauthenticatedConnectionsDoNotKeepTheOperatorOut() throws Exception {
        Path config = dir.resolve("vrouter.properties");
        Files.writeString(config, "netconf.login-grace-time=5s\nnetconf.max-sessions=2\n");
        List<Socket> idle = new ArrayList<>();
        try (ServerProcess server = ServerProcess.start(dir, "--config", config.toString())) {
            try {
                for (int k = 0; k < 16; k++) {
                    idle.add(Sockets.connectFrom("127.0.0.2", server.netconfPort));
                }
                // Four not logged in yet from one address at most (the default): the others go at once,
                // well before the login grace time.
                List<Socket> open = new ArrayList<>(idle);
                long end = System.nanoTime() + 2_500_000_000L;
                while (open.size() > 4 && System.nanoTime() < end) {
                    for (Socket s : List.copyOf(open)) {
                        if (Sockets.closedWithin(s, 10)) open.remove(s);
                    }
                }
                assertThat(open).hasSize(4);
                // The operator logs in meanwhile, twice over (netconf.max-sessions counts logged-in sessions only);
                // not how fast: a machine under load took 14 s for the two.
                assertThat(Ncclient.scenario(server, "hello").get("get_config_ok").asBoolean()).isTrue();
                assertThat(Ncclient.scenario(server, "hello").get("get_config_ok").asBoolean()).isTrue();
                assertThat(server.get("/health").statusCode()).isEqualTo(200);
                // The four left are closed once the login grace time has passed.
                for (Socket s : idle) assertThat(Sockets.closedWithin(s, 5_000)).isTrue();
            } finally {
                for (Socket s : idle) s.close();
            }
        }
    }

    /**
     * As the testers attacked: 8 addresses, each holding the 4 connections not logged in that one
     * address may have (32, all the places), opening another as soon as the server closes one. The
     * operator, from a ninth address, logs in every time.
     */
    @Test
    void attackersOnEightAddressesFillingThePlacesDoNotKeepTheOperatorOut() throws Exception {
        try (ServerProcess server = ServerProcess.start(dir)) {
            List<Squatter> squatters = new ArrayList<>();
            try {
                for (int k = 2; k <= 9; k++) squatters.add(new Squatter("127.0.0." + k, server.netconfPort, 4));
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (squatters.stream().mapToInt(q -> q.held.get()).sum() < 32 && System.nanoTime() < end) {
                    Thread.sleep(20);
                }
                assertThat(squatters.stream().mapToInt(q -> q.held.get()).sum()).as("connections the attackers hold")
                        .isEqualTo(32);
                for (int login = 1; login <= 5; login++) {
                    assertThat(Ncclient.scenario(server, "hello").get("get_config_ok").asBoolean()).as("login " + login).isTrue();
                }
                assertThat(squatters.stream().mapToInt(q -> q.opened.get()).sum()).as("connections the attackers opened")
                        .isGreaterThan(32);
            } finally {
                for (Squatter q : squatters) q.close();
            }
        }
    }

    /**
     * As the testers found it (issue 23 item 7): legal messages of 15 MB, under the old 16 MiB limit,
     * from four sessions of a viewer at once, on the launcher's 64 MB heap. Each is answered with an
     * rpc-error too-big, each session then reads, a new one too, and the heap never ran out.
     */
    @Test
    void largeMessagesFromSeveralSessionsAtOnceAreRefusedWithoutExhaustingTheHeap() throws Exception {
        try (ServerProcess server = ServerProcess.start(dir)) {
            JsonNode r = Ncclient.scenario(server, "large_messages", "--user", "viewer", "--password", "viewer",
                    "--count", "4", "--megabytes", "15");
            assertThat(r.get("sessions")).hasSize(4);
            for (JsonNode s : r.get("sessions")) {
                assertThat(s.get("big").path("tag").asText()).as("%s", s).isEqualTo("too-big");
                assertThat(s.get("after").asBoolean()).as("%s", s).isTrue();
            }
            assertThat(r.get("fresh_get_ok").asBoolean()).isTrue();
            assertThat(server.get("/health").statusCode()).isEqualTo(200);
            assertThat(server.log()).doesNotContain("OutOfMemoryError");
        }
    }

    /**
     * Messages under the limit share the memory kept for requests: sent at once by four sessions,
     * each is answered (data, or resource-denied when the others hold the memory), never an Error.
     */
    @Test
    void messagesUnderTheLimitFromSeveralSessionsAtOnceAreAnsweredWithoutExhaustingTheHeap() throws Exception {
        try (ServerProcess server = ServerProcess.start(dir)) {
            JsonNode r = Ncclient.scenario(server, "large_messages", "--user", "viewer", "--password", "viewer",
                    "--count", "4", "--megabytes", "1");
            assertThat(r.get("bytes").asLong()).isLessThan(1 << 20);
            for (JsonNode s : r.get("sessions")) {
                JsonNode big = s.get("big");
                assertThat(big.path("ok").asBoolean() || big.path("tag").asText().equals("resource-denied")).as("%s", s).isTrue();
                assertThat(s.get("after").asBoolean()).as("%s", s).isTrue();
            }
            assertThat(r.get("fresh_get_ok").asBoolean()).isTrue();
            assertThat(server.log()).doesNotContain("OutOfMemoryError");
        }
    }

    /** Holds connections that never log in from one address, opening another whenever the server closes one. */
    private static final class Squatter implements AutoCloseable {
        final AtomicInteger held = new AtomicInteger();
        final AtomicInteger opened = new AtomicInteger();
        private final Thread thread;
        private volatile boolean stop;

        Squatter(String address, int port, int connections) {
            thread = new Thread(() -> hold(address, port, connections), "squatter-" + address);
            thread.setDaemon(true);
            thread.start();
        }

        private void hold(String address, int port, int connections) {
            List<Socket> open = new ArrayList<>();
            try {
                while (!stop) {
                    boolean closed = false;
                    for (Socket s : List.copyOf(open)) {
                        if (Sockets.closedWithin(s, 10)) {
                            open.remove(s);
                            s.close();
                            closed = true;
                        }
                    }
                    if (closed) Thread.sleep(20); // pace the reconnections a little, as not to take the machine
                    if (open.size() < connections) {
                        try {
                            open.add(Sockets.connectFrom(address, port));
                            opened.incrementAndGet();
                        } catch (java.io.IOException refused) {
                            Thread.sleep(50); // not listening or backlog full: try again shortly
                        }
                    }
                    held.set(open.size());
                }
            } catch (Exception e) {
                if (!stop) throw new IllegalStateException(e);
            } finally {
                for (Socket s : open) {
                    try {
                        s.close();
                    } catch (java.io.IOException ignored) {
                        // closing anyway
                    }
                }
            }
        }

        @Override
        public void close() throws InterruptedException {
            stop = true;
            thread.join(10_000);
        }
    }
}
