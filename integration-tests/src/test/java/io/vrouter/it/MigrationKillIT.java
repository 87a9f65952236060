package io.vrouter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A kill -9 of either router in the middle of a move (ADR 0023, decision 10), on two servers as
 * bin/vrouter starts them, A knowing B as peer b. B's simulated host takes long to make a VM
 * ({@code sim.provision-delay}), so the move can be caught where it matters: the VR journaled on B and
 * being made there, still held (migrating) on A. Then the source is killed (and restarted), or the
 * destination (and restarted without the delay); after the restart exactly one copy runs, on B, with
 * its vmName and vmUUID, nothing is left migrating, and neither router keeps the move on disk.
 */
class MigrationKillIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Long enough that the kill surely comes while B is still making the VR, even on a loaded machine. */
    private static final String SLOW_HOST = "sim.provision-delay = 20s";

    @TempDir
    Path dir;

    @Test
    void aSourceKilledAfterTheDestinationMadeTheVrRemovesItsCopyAtItsRestart() throws Exception {
        try (ServerProcess b = ServerProcess.start(dir.resolve("b"), "--config", config("b", SLOW_HOST).toString());
             ServerProcess a = ServerProcess.start(dir.resolve("a"), "--config", config("a", peerB(b)).toString())) {
            MidMove m = moveUntilMidway(a, b);

            killJvm(a);
            assertThat(operState(b, "mover")).as("B still making the VR when A died").isEqualTo("preparing");
            a.restart();

            await(() -> copies(a, "mover") == 0, "A to remove its copy of mover", a);
            assertOneCopyOnB(a, b, m.uuid());
            assertThat(m.answer()).isCompletedExceptionally(); // its caller died with A
        }
    }

    @Test
    void aDestinationKilledBeforeItAnsweredKeepsTheVrAndTheSourceRemovesItsCopy() throws Exception {
        Path configB = config("b", SLOW_HOST);
        try (ServerProcess b = ServerProcess.start(dir.resolve("b"), "--config", configB.toString());
             ServerProcess a = ServerProcess.start(dir.resolve("a"), "--config", config("a", peerB(b)).toString())) {
            MidMove m = moveUntilMidway(a, b);

            killJvm(b);
            // A did not hear the answer: it keeps its copy held, neither removed nor let go
            HttpResponse<String> cut = m.answer().get(60, TimeUnit.SECONDS);
            assertThat(cut.statusCode()).as(cut.body()).isEqualTo(502);
            assertThat(cut.body()).contains("is not known", "stays migrating here");
            assertThat(ServerProcess.operState(a.router(m.vmIndex()))).isEqualTo("migrating");

            Files.write(configB, List.of("user.admin = operator:admin")); // B's host now makes VMs at once
            b.restart();

            await(() -> copies(a, "mover") == 0, "A to remove its copy of mover", a);
            assertOneCopyOnB(a, b, m.uuid());
        }
    }

    private Path config(String name, String... lines) throws Exception {
        List<String> all = new ArrayList<>(List.of("user.admin = operator:admin"));
        all.addAll(List.of(lines));
        Path file = dir.resolve(name + ".properties");
        Files.write(file, all);
        return file;
    }

    private static String peerB(ServerProcess b) {
        return "peer.b = " + b.restBase() + "\npeer.b.user = admin\npeer.b.password = admin";
    }

    private static int create(ServerProcess server, String name) throws Exception {
        HttpResponse<String> made = server.post("/api/v1/routers?wait=30s", "{\"vmName\":\"" + name + "\"}");
        assertThat(made.statusCode()).as(made.body()).isEqualTo(201);
        return JSON.readTree(made.body()).get("vmIndex").asInt();
    }

    /** A move caught midway: the VR's vmIndex and vmUUID on A, and A's answer to come. */
    private record MidMove(int vmIndex, String uuid, CompletableFuture<HttpResponse<String>> answer) {
    }

    /**
     * Makes VR mover on A and moves it to B until the moment that matters: the VR exists on B (journaled
     * there, its VM being made) and A holds its own, migrating.
     */
    private static MidMove moveUntilMidway(ServerProcess a, ServerProcess b) throws Exception {
        int vmIndex = create(a, "mover");
        String uuid = a.router(vmIndex).at("/vmEntry/vmUUID").asText();
        CompletableFuture<HttpResponse<String>> answer = CompletableFuture.supplyAsync(() -> {
            try {
                return a.post("/api/v1/routers/" + vmIndex + "/migrate?wait=3m", "{\"peer\":\"b\"}");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        await(() -> copies(b, "mover") == 1 && "migrating".equals(operState(a, "mover")), "mover journaled on B, migrating on A", b);
        return new MidMove(vmIndex, uuid, answer);
    }

    /** kill -9 of the server's JVM itself (the launcher execs it): no shutdown hook runs, nothing is flushed. */
    private static void killJvm(ServerProcess server) throws Exception {
        ProcessHandle jvm = ProcessHandle.of(server.pid()).orElseThrow();
        assertThat(jvm.info().command().orElse("")).as("the server's process is its JVM").endsWith("java");
        server.kill9();
        assertThat(jvm.isAlive()).isFalse();
    }

    private static void assertOneCopyOnB(ServerProcess a, ServerProcess b, String uuid) throws Exception {
        await(() -> "running".equals(operState(b, "mover")), "mover running on B", b);
        JsonNode onB = find(b, "mover").orElseThrow();
        assertThat(onB.at("/vmEntry/vmUUID").asText()).isEqualTo(uuid);
        assertThat(copies(a, "mover")).isZero();
        assertThat(copies(b, "mover")).isOne();
        for (ServerProcess s : List.of(a, b)) {
            for (JsonNode vr : routers(s)) assertThat(ServerProcess.operState(vr)).isNotEqualTo("migrating");
        }
        // the moves settled on both sides: nothing left to finish at a later restart
        await(() -> settled(a) && settled(b), "both routers to forget the move", a);
    }

    private static boolean settled(ServerProcess s) {
        try {
            Path file = s.dataDir.resolve("migrations.json");
            if (!Files.exists(file)) return true;
            JsonNode j = JSON.readTree(file.toFile());
            return j.get("format").asInt() == 1 && j.get("leaving").isEmpty() && j.get("arriving").isEmpty();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<JsonNode> routers(ServerProcess s) throws Exception {
        List<JsonNode> all = new ArrayList<>();
        JSON.readTree(s.get("/api/v1/routers").body()).path("virtualRouter").forEach(all::add);
        return all;
    }

    private static Optional<JsonNode> find(ServerProcess s, String name) throws Exception {
        return routers(s).stream().filter(vr -> name.equals(vr.path("vmName").asText())).findFirst();
    }

    private static long copies(ServerProcess s, String name) {
        try {
            return routers(s).stream().filter(vr -> name.equals(vr.path("vmName").asText())).count();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static String operState(ServerProcess s, String name) {
        try {
            return find(s, name).map(ServerProcess::operState).orElse(null);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Waits for the state (two minutes at most: a loaded machine), else fails with the server's log. */
    private static void await(BooleanSupplier done, String what, ServerProcess logOf) throws Exception {
        long end = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > end) throw new AssertionError("waited 2 minutes for " + what + "; log:\n" + logOf.log());
            Thread.sleep(100);
        }
    }
}
