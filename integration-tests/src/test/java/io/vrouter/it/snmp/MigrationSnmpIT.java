package io.vrouter.it.snmp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vrouter.it.ServerProcess;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A VR moved through NEW-VMM-MIB's vmMigrationTable with net-snmp's snmpset, between two servers as
 * bin/vrouter starts them (A knowing B as peer b, through a gate this test opens when it has seen the
 * move under way): the SET is answered while the move waits for B, vmMigrationStatus reads migrating,
 * and the VR's migrating state is told as the operator's tools see it, on A: snmptrapd gets vmMigrating
 * for the VR and a NETCONF subscriber (ncclient) its vmMigrating; a second move and a peer that is
 * none are refused in SNMP's terms. Once the gate opens, the status reads moved with the VR's vmIndex
 * on B, B runs it (its snmptrapd and NETCONF subscriber told of its creation, vmRunning) and A tells
 * its deletion (vmDeleted).
 */
class MigrationSnmpIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String MIB = "1.3.6.1.3.7666";
    private static final String PEER = MIB + ".1.21.1.1.", STATUS = MIB + ".1.21.1.2.", PEER_INDEX = MIB + ".1.21.1.3.",
            RESULT = MIB + ".1.21.1.4.";
    private static final String VM_RUNNING = "." + MIB + ".0.1", VM_MIGRATING = "." + MIB + ".0.8",
            VM_DELETED = "." + MIB + ".0.10";
    private static final Pattern TRAP_OID = Pattern.compile("\\.1\\.3\\.6\\.1\\.6\\.3\\.1\\.1\\.4\\.1\\.0 = OID: (\\S+)");
    private static final String NAME = "snmp-mover";

    @TempDir
    Path dir;

    @Test
    void aVrMovesThroughVmMigrationPeerAndItsMigratingStateIsToldAsTrapAndNetconfNotification() throws Exception {
        Files.createDirectories(dir.resolve("trap-a"));
        Files.createDirectories(dir.resolve("trap-b"));
        Path configB = dir.resolve("b.properties");
        Files.write(configB, List.of("user.admin = operator:admin"));
        try (Snmptrapd trapA = Snmptrapd.start(dir.resolve("trap-a")); Snmptrapd trapB = Snmptrapd.start(dir.resolve("trap-b"));
             ServerProcess b = ServerProcess.start(dir.resolve("b"), "--config", configB.toString(),
                     "--snmp-trap-target", trapB.target());
             Gate gate = Gate.to(URI.create(b.restBase()))) {
            Path configA = dir.resolve("a.properties");
            Files.write(configA, List.of("user.admin = operator:admin", "peer.b = http://127.0.0.1:" + gate.port(),
                    "peer.b.user = admin", "peer.b.password = admin"));
            try (ServerProcess a = ServerProcess.start(dir.resolve("a"), "--config", configA.toString(),
                    "--snmp-trap-target", trapA.target())) {
                SnmpCliIT.awaitAgent(a);
                HttpResponse<String> made = a.post("/api/v1/routers?wait=30s", "{\"vmName\":\"" + NAME + "\"}");
                assertThat(made.statusCode()).as(made.body()).isEqualTo(201);
                int i = JSON.readTree(made.body()).get("vmIndex").asInt();
                assertThat(snmp(a, "snmpget", STATUS + i).out()).contains("INTEGER: 1"); // none
                try (Watcher onA = Watcher.start(a, "vmDeleted"); Watcher onB = Watcher.start(b, "vmRunning")) {
                    moveAndWatch(a, b, i, gate, trapA, trapB, onA, onB);
                }
            }
        }
    }

    /** The move, watched from both routers while A holds it and after B has it. */
    private static void moveAndWatch(ServerProcess a, ServerProcess b, int i, Gate gate, Snmptrapd trapA, Snmptrapd trapB,
                                     Watcher onA, Watcher onB) throws Exception {
        // Refused in SNMP's terms, nothing changed: a peer that is none.
        ServerProcess.Result noPeer = snmp(a, "snmpset", PEER + i, "s", "nope");
        assertThat(noPeer.exit()).isNotZero();
        assertThat(noPeer.err() + noPeer.out()).contains("wrongValue");
        assertThat(snmp(a, "snmpget", STATUS + i).out()).contains("INTEGER: 1");
        assertThat(ServerProcess.operState(router(a, i))).isEqualTo("running");

        // The SET is answered while B is held behind the gate: the move is under way.
        ServerProcess.Result set = snmp(a, "snmpset", PEER + i, "s", "b");
        assertThat(set.exit()).as(set.toString()).isZero();
        assertThat(snmp(a, "snmpget", STATUS + i).out()).as("migrating").contains("INTEGER: 2");
        await("A's VR migrating", () -> ServerProcess.operState(router(a, i)).equals("migrating"));
        ServerProcess.Result again = snmp(a, "snmpset", PEER + i, "s", "b");
        assertThat(again.err() + again.out()).contains("resourceUnavailable");
        // Its migrating state as the operator's receivers see it, while it still migrates.
        await("vmMigrating at A's snmptrapd", () -> trapsOf(trapA).contains(VM_MIGRATING));
        await("vmMigrating at A's NETCONF subscriber", () -> onA.seen().contains("\"vmMigrating\""));
        assertThat(onA.seen()).contains("\"state\": \"migrating\"");

        gate.open();
        await("the move ended", () -> !snmpQuiet(a, STATUS + i).contains("INTEGER: 2"));
        assertThat(snmp(a, "snmpget", STATUS + i).out()).as("moved").contains("INTEGER: 3");
        Matcher peerIndex = Pattern.compile("INTEGER: (\\d+)").matcher(snmp(a, "snmpget", PEER_INDEX + i).out());
        assertThat(peerIndex.find()).isTrue();
        int onBIndex = Integer.parseInt(peerIndex.group(1));
        assertThat(snmp(a, "snmpget", RESULT + i).out()).contains("moved to peer b as vmIndex " + onBIndex);
        assertThat(a.get("/api/v1/routers/" + i).statusCode()).isEqualTo(404);
        // The row outlives the VR, to say where it went: a walk of the status column finds it.
        assertThat(snmp(a, "snmpwalk", MIB + ".1.21.1.2").out()).contains("." + STATUS + i + " = INTEGER: 3");
        JsonNode there = JSON.readTree(b.get("/api/v1/routers/" + onBIndex).body());
        assertThat(there.get("vmName").asText()).isEqualTo(NAME);
        assertThat(there.at("/vmEntry/vmOperState").asText()).isEqualTo("running");

        // The end on both routers: A tells the VR's deletion, B its creation.
        await("vmDeleted at A's snmptrapd", () -> trapsOf(trapA).contains(VM_DELETED));
        await("vmRunning at B's snmptrapd", () -> trapsOf(trapB).contains(VM_RUNNING));
        assertThat(kinds(onA.result())).containsSubsequence("vmMigrating", "vmDeleted");
        assertThat(kinds(onB.result())).contains("vmRunning");
        assertThat(trapsOf(trapA)).containsSubsequence(VM_MIGRATING, VM_DELETED);
    }

    private static JsonNode router(ServerProcess s, int vmIndex) {
        try {
            return s.router(vmIndex);
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The notification OIDs snmptrapd logged about the VR, in order. */
    private static List<String> trapsOf(Snmptrapd trapd) {
        List<String> out = new ArrayList<>();
        for (String line : trapd.log().split("\n")) {
            if (!line.contains("\"" + NAME + "\"")) continue;
            Matcher m = TRAP_OID.matcher(line);
            if (m.find()) out.add(m.group(1));
        }
        return out;
    }

    private static List<String> kinds(JsonNode watched) {
        List<String> out = new ArrayList<>();
        watched.path("notifications").forEach(n -> out.add(n.get("kind").asText()));
        return out;
    }

    /** net-snmp's tool at the server's agent, v2c with the development communities, numeric OIDs. */
    static ServerProcess.Result snmp(ServerProcess server, String tool, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(tool, "-v2c", "-c", tool.equals("snmpset") ? "private" : "public",
                "-On", "-t", "8", "-r", "0", SnmpCliIT.agent(server)));
        cmd.addAll(List.of(args));
        return ServerProcess.run(cmd);
    }

    static String snmpQuiet(ServerProcess server, String oid) {
        try {
            return snmp(server, "snmpget", oid).out();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static void await(String what, Supplier<Boolean> condition) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (System.nanoTime() < end) {
            if (condition.get()) return;
            Thread.sleep(100);
        }
        throw new AssertionError("timed out waiting for " + what);
    }

    /** A NETCONF subscriber (migration_scenarios.py watch) collecting the VR's notifications until one of a kind. */
    private record Watcher(Process process, StringBuilder out, Thread reader) implements AutoCloseable {
        static Watcher start(ServerProcess server, String until) throws Exception {
            Process p = new ProcessBuilder("python3", "src/test/python/migration_scenarios.py", "watch", "--port",
                    Integer.toString(server.netconfPort), "--name", NAME, "--until", until).redirectErrorStream(true).start();
            StringBuilder out = new StringBuilder();
            CountDownLatch subscribed = new CountDownLatch(1);
            Thread reader = new Thread(() -> {
                try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String line = in.readLine(); line != null; line = in.readLine()) {
                        synchronized (out) {
                            out.append(line).append('\n');
                        }
                        if (line.equals("subscribed")) subscribed.countDown();
                    }
                } catch (IOException ended) {
                    // the process ended
                }
            });
            reader.start();
            assertThat(subscribed.await(60, TimeUnit.SECONDS)).as("the NETCONF subscription").isTrue();
            return new Watcher(p, out, reader);
        }

        /** What it printed so far: a line per notification as it comes. */
        String seen() {
            synchronized (out) {
                return out.toString();
            }
        }

        @Override
        public void close() {
            process.destroy();
        }

        JsonNode result() throws Exception {
            assertThat(process.waitFor(120, TimeUnit.SECONDS)).as("the subscriber ended").isTrue();
            reader.join(10_000);
            String[] lines = out.toString().strip().split("\n");
            return JSON.readTree(lines[lines.length - 1]);
        }
    }

    /**
     * A TCP forwarder to B's REST interface that holds every connection until opened: A's move waits
     * there, migrating, for as long as the test needs to look at it.
     */
    private static final class Gate implements AutoCloseable {
        private final ServerSocket listening;
        private final CountDownLatch open = new CountDownLatch(1);
        private final List<Socket> sockets = new java.util.concurrent.CopyOnWriteArrayList<>();

        private Gate(ServerSocket listening) {
            this.listening = listening;
        }

        static Gate to(URI target) throws IOException {
            Gate g = new Gate(new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress()));
            Thread accepting = new Thread(() -> {
                try {
                    while (true) {
                        Socket client = g.listening.accept();
                        g.sockets.add(client);
                        new Thread(() -> g.forward(client, target)).start();
                    }
                } catch (IOException closed) {
                    // the gate is closed
                }
            });
            accepting.setDaemon(true);
            accepting.start();
            return g;
        }

        int port() {
            return listening.getLocalPort();
        }

        void open() {
            open.countDown();
        }

        private void forward(Socket client, URI target) {
            try {
                open.await();
                Socket server = new Socket(target.getHost(), target.getPort());
                sockets.add(server);
                Thread back = new Thread(() -> pump(server, client));
                back.setDaemon(true);
                back.start();
                pump(client, server);
            } catch (IOException | InterruptedException e) {
                // a side closed
            }
        }

        private static void pump(Socket from, Socket to) {
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                in.transferTo(out);
            } catch (IOException closed) {
                // a side closed
            }
        }

        @Override
        public void close() throws IOException {
            open.countDown();
            listening.close();
            for (Socket s : sockets) s.close();
        }
    }
}
