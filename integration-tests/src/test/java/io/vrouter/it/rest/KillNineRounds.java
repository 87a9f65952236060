package io.vrouter.it.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vrouter.it.ServerProcess;
import io.vrouter.it.snmp.NewVmmOids;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * Rounds of {@code kill -9} under load (issue 39): two tenants' operators create VRs as fast as they
 * can over REST (answered 202 accepted, or 201 after waiting), REST's idempotent batch, RESTCONF,
 * NETCONF (ncclient) and SNMPv3 (net-snmp), and remove some of theirs over REST; after a random
 * moment the server is killed, started again on the same data directory, and every acknowledgement
 * is checked: each VR whose creation was answered as done exists, with its vmIndex and tenant; each
 * VR whose removal was answered is gone or still shutting down. A batch left without an answer is
 * sent again with its Idempotency-Key after the restart, as a client that never saw the answer does.
 *
 * <p>Every acknowledgement is kept with the status it was given, so that a loss names its interface,
 * status, round and vmIndex, and what the data directory's files hold about it.
 */
final class KillNineRounds {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Users of the two tenants on every interface, and the provider who checks. */
    static final List<String> SETTINGS = List.of(
            "user.admin = operator:admin",
            "user.alice = operator@acme:alice-secret",
            "user.bob = operator@bravo:bob-secret",
            "tenant.acme = vrs=100000",
            "tenant.bravo = vrs=100000",
            "snmp.user.alice = SHA:alice-auth-pass:AES:alice-priv-pass:write@acme",
            "snmp.user.bob = SHA:bob-auth-pass:AES:bob-priv-pass:write@bravo");
    /** The tenants' operators: user, password, tenant. */
    private static final List<String[]> OPERATORS = List.of(
            new String[] {"alice", "alice-secret", "acme"}, new String[] {"bob", "bob-secret", "bravo"});
    private static final String RESTCONF_TABLE = "/restconf/data/NEW-VMM-MIB:NEW-VMM-MIB/vmConfigTable";
    private static final String NEXT_INDEX = NewVmmOids.MIB + ".1.14.0";
    private static final String NETCONF_SCRIPT = "src/test/python/netconf_tenants.py";

    /** One acknowledged operation: what was created (or removed), how, and what the answer said. */
    record Ack(String name, int vmIndex, String tenant, String via, String status, int round) {
        @Override
        public String toString() {
            return via + " " + status + " round " + round + ": VR " + vmIndex + " '" + name + "' of " + tenant;
        }
    }

    /** What the rounds came to. */
    record Figures(int kills, int creates, int removals, int unanswered, Map<String, Integer> byStatus,
                   Map<String, Integer> retries, int snapshots, List<String> lost, List<String> resentRefused, long millis) {
        String summary() {
            return kills + " kills (" + snapshots + " of them after a new snapshot), " + creates + " acknowledged creates " + byStatus + ", " + removals
                    + " acknowledged removals, " + unanswered + " requests left without an answer by a kill, idempotent"
                    + " batches sent again " + retries + "; lost: " + (lost.isEmpty() ? "none" : lost.size() + " " + lost)
                    + "; batches sent again and refused: " + (resentRefused.isEmpty() ? "none" : resentRefused)
                    + "; " + millis / 1000 + " s";
        }
    }

    private final ServerProcess server;
    private final Path settings;
    /** How many VRs each tenant keeps; its remover removes its oldest beyond that. */
    private final int keepPerTenant;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    /** Acknowledged creates by name (names are never used twice), until their removal is acknowledged. */
    private final Map<String, Ack> created = new ConcurrentHashMap<>();
    private final Map<String, Ack> removed = new ConcurrentHashMap<>();
    /** Per tenant, the VRs checked present after a restart, oldest first: what its remover may take. */
    private final Map<String, Deque<Ack>> standing = new HashMap<>();
    private final Map<String, Integer> byStatus = new TreeMap<>();
    private final Map<String, Integer> retries = new TreeMap<>();
    private final List<String> lost = Collections.synchronizedList(new ArrayList<>());
    /** Batches sent again with their key after a kill and refused: the key's promise broken. */
    private final List<String> resentRefused = new ArrayList<>();
    /** Batches sent without an answer: their key and body, sent again after the restart. */
    private final ConcurrentLinkedQueue<String[]> unansweredBatches = new ConcurrentLinkedQueue<>();
    private final AtomicInteger unanswered = new AtomicInteger();
    /** What a writer thread failed with: the test fails with it after the round. */
    private final List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
    /** This round's acknowledgements by interface, so that the kill comes once every interface is writing. */
    private final Map<String, AtomicInteger> ackedThisRound = new ConcurrentHashMap<>();
    private int creates;
    private int removals;
    /** Kills that found a snapshot newer than the last kill did: compactions happened under the writers. */
    private int snapshots;
    private long lastSnapshotSeq;
    private int round;

    /** @param settings the file {@link #settings} wrote, which the server was started with */
    KillNineRounds(ServerProcess server, Path settings, int keepPerTenant) {
        this.server = server;
        this.settings = settings;
        this.keepPerTenant = keepPerTenant;
        for (String[] op : OPERATORS) standing.put(op[2], new ArrayDeque<>());
    }

    /** Writes the server's settings file: the two tenants, their operators and SNMPv3 users; no simulated latency. */
    static Path settings(Path dir) throws IOException {
        Files.createDirectories(dir);
        return Files.write(dir.resolve("vrouter.conf"), withLatency("none"));
    }

    private static List<String> withLatency(String profile) {
        List<String> lines = new ArrayList<>(SETTINGS);
        lines.add("sim-latency = " + profile);
        return lines;
    }

    /**
     * Runs the rounds: writers until at least {@code minAcks} acknowledgements of the round, some on
     * every interface (30 s at most), and then a random 0 to {@code jitterMillis} more; kill -9,
     * restart, check.
     */
    Figures run(int kills, int minAcks, int jitterMillis) throws Exception {
        return run(kills, minAcks, jitterMillis, null);
    }

    /** The same, writing the figures so far to {@code progress} after every round (a long run stopped early keeps them). */
    Figures run(int kills, int minAcks, int jitterMillis, Path progress) throws Exception {
        long t0 = System.nanoTime();
        for (round = 1; round <= kills; round++) {
            ackedThisRound.clear();
            AtomicBoolean stop = new AtomicBoolean();
            List<Thread> writers = new ArrayList<>();
            List<Process> netconf = new ArrayList<>();
            for (String[] op : OPERATORS) {
                writers.add(writer("rest-" + op[2], stop, () -> restCreate(op)));
                writers.add(writer("batch-" + op[2], stop, () -> batchCreate(op)));
                writers.add(writer("restconf-" + op[2], stop, () -> restconfCreate(op)));
                writers.add(writer("snmp-" + op[2], stop, () -> snmpCreate(op)));
                writers.add(writer("remove-" + op[2], stop, () -> removeOldest(op)));
                writers.add(netconfWriter(op, stop, netconf));
            }
            writers.forEach(Thread::start);
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!allWriting(minAcks) && System.nanoTime() < end) Thread.sleep(10);
            Thread.sleep(ThreadLocalRandom.current().nextInt(jitterMillis + 1));
            server.kill9();
            stop.set(true);
            // ncclient may not notice a session cut in its SSH handshake: what it printed is read all the same.
            // (One started after the copy finds nothing listening and ends at once.)
            List<Process> started;
            synchronized (netconf) {
                started = List.copyOf(netconf);
            }
            for (Process p : started) {
                if (!p.waitFor(3, TimeUnit.SECONDS)) p.destroyForcibly();
            }
            for (Thread w : writers) w.join(TimeUnit.SECONDS.toMillis(60));
            if (!failures.isEmpty()) throw new AssertionError("a writer failed", failures.get(0));
            Map<Integer, JsonNode> atKill = rowsOnDisk();
            // Every other round on the paper's timings: hypervisor work (1 s a provision) is under way at the kill.
            Files.write(settings, withLatency(round % 2 == 1 ? "paper" : "none"));
            server.restart();
            check(atKill);
            resendBatches();
            if (progress != null) Files.writeString(progress, figures(round, t0).summary() + "\n");
        }
        return figures(kills, t0);
    }

    private synchronized Figures figures(int kills, long t0) {
        return new Figures(kills, creates, removals, unanswered.get(), new TreeMap<>(byStatus), new TreeMap<>(retries),
                snapshots, List.copyOf(lost), List.copyOf(resentRefused), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
    }

    // ---------------------------------------------------------------- the check after a restart

    /**
     * Every acknowledged create is there with its vmIndex and tenant; every acknowledged removal is
     * gone or shutting down. Read as the provider, in one page, before any writer starts again. And
     * the test's bookkeeping against the server's journal: every acknowledged create was in the
     * journal at the kill (its record written before it was answered), and the server after the
     * restart has what the journal held at the kill (nothing dropped, nothing from nowhere).
     */
    private void check(Map<Integer, JsonNode> atKill) throws Exception {
        Map<String, JsonNode> byName = listOnceRemovalsResumed(atKill);
        for (Ack a : created.values()) {
            JsonNode row = atKill.get(a.vmIndex());
            if (row == null || !a.name().equals(row.path("config").path("vmName").asText())) {
                lost.add(a + " was not in the journal at the kill of round " + round + " (it held " + row + ")");
            }
        }
        for (JsonNode row : atKill.values()) {
            JsonNode vr = byName.get(row.path("config").path("vmName").asText());
            boolean kept = vr != null && vr.path("vmIndex").asInt() == row.path("config").path("vmIndex").asInt();
            if (row.path("removing").asBoolean() ? vr != null && (!kept || !"shuttingdown".equals(ServerProcess.operState(vr))) : !kept) {
                lost.add("the journal at the kill of round " + round + " held " + row + "; after the restart: " + vr);
            }
        }
        for (JsonNode vr : byName.values()) {
            if (!atKill.containsKey(vr.path("vmIndex").asInt())) {
                lost.add("after the restart of round " + round + " VR " + vr.path("vmIndex") + " is there, not in the journal at the kill");
            }
        }
        for (Ack a : created.values()) {
            JsonNode vr = byName.get(a.name());
            if (vr == null || vr.path("vmIndex").asInt() != a.vmIndex() || !a.tenant().equals(vr.path("vmConfigTenant").asText())) {
                lost.add(a + " after the restart of round " + round + ": found " + (vr == null ? "nothing" : vr)
                        + "; " + traces(a));
                created.remove(a.name());
            }
        }
        for (Ack a : removed.values()) {
            JsonNode vr = byName.get(a.name());
            if (vr != null && !"shuttingdown".equals(ServerProcess.operState(vr))) {
                lost.add("removal " + a + " came back after the restart of round " + round + ": " + vr);
            }
        }
        removed.keySet().removeIf(name -> !byName.containsKey(name));
        // What the removers may take next round: the VRs found, acknowledged or not (a create the kill cut short may have been made).
        for (Deque<Ack> d : standing.values()) d.clear();
        byName.values().stream().filter(vr -> !removed.containsKey(vr.path("vmName").asText()))
                .sorted((a, b) -> Integer.compare(a.path("vmIndex").asInt(), b.path("vmIndex").asInt()))
                .forEach(vr -> {
                    Deque<Ack> d = standing.get(vr.path("vmConfigTenant").asText());
                    if (d != null) d.add(new Ack(vr.path("vmName").asText(), vr.path("vmIndex").asInt(),
                            vr.path("vmConfigTenant").asText(), "found", "", round));
                });
    }

    /**
     * Every VR as the provider lists it (in one page), once every removal the journal held at the kill
     * is resumed: a VR being removed shows its host's state until its removal's first step, which may
     * wait for a worker, so the list is read again until each is gone or shutting down (a minute at most).
     */
    private Map<String, JsonNode> listOnceRemovalsResumed(Map<Integer, JsonNode> atKill) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            HttpResponse<String> r = send("admin", "admin", "GET", "/api/v1/routers?limit=100000", null, null);
            if (r.statusCode() != 200) throw new AssertionError("list after restart: " + r.statusCode() + " " + r.body());
            JsonNode list = JSON.readTree(r.body());
            Map<String, JsonNode> byName = new HashMap<>();
            for (JsonNode vr : list.path("virtualRouter")) byName.put(vr.path("vmName").asText(), vr);
            if (byName.size() != list.path("total").asInt()) throw new AssertionError("the list was cut: " + list.path("total"));
            boolean resumed = atKill.values().stream().filter(row -> row.path("removing").asBoolean())
                    .map(row -> byName.get(row.path("config").path("vmName").asText()))
                    .allMatch(vr -> vr == null || "shuttingdown".equals(ServerProcess.operState(vr)));
            if (resumed || System.nanoTime() > end) return byName;
            Thread.sleep(100);
        }
    }

    /**
     * The rows the data directory holds (read while the server is down), as start-up reads them: the
     * snapshot's, then the journal's later records, a torn last line skipped; by vmIndex, each
     * {@code {"config": row, "removing": bool}}.
     */
    private Map<Integer, JsonNode> rowsOnDisk() throws IOException {
        Map<Integer, JsonNode> rows = new HashMap<>();
        long seq = 0;
        Path snapshot = server.dataDir.resolve("config.snapshot.json");
        if (Files.exists(snapshot)) {
            JsonNode s = JSON.readTree(snapshot.toFile());
            seq = s.path("seq").asLong();
            if (seq > lastSnapshotSeq) snapshots++;
            lastSnapshotSeq = seq;
            for (JsonNode row : s.path("rows")) rows.put(row.path("config").path("vmIndex").asInt(), row);
        }
        Path journal = server.dataDir.resolve("config.journal");
        if (!Files.exists(journal)) journal = server.dataDir.resolve("config.journal.prev");
        if (!Files.exists(journal)) return rows;
        for (String line : Files.readAllLines(journal, StandardCharsets.UTF_8)) {
            JsonNode record;
            try {
                record = JSON.readTree(line.substring(9)); // after the CRC-32C and its space
            } catch (IOException | RuntimeException torn) {
                continue;
            }
            if (record.path("seq").asLong() <= seq) continue;
            for (JsonNode op : record.path("ops")) {
                if (op.hasNonNull("put")) {
                    rows.put(op.path("put").path("config").path("vmIndex").asInt(), op.path("put"));
                } else {
                    rows.remove(op.path("remove").asInt());
                }
            }
        }
        return rows;
    }

    /** Where the data directory's files name a lost VR: the journals, snapshots and the simulated host's journal. */
    private String traces(Ack a) {
        StringBuilder out = new StringBuilder("the data directory's files that name it:");
        try (Stream<Path> files = Files.list(server.dataDir)) {
            for (Path f : files.sorted().toList()) {
                if (!Files.isRegularFile(f)) continue;
                List<String> lines = Files.readAllLines(f, StandardCharsets.ISO_8859_1);
                for (int i = 0; i < lines.size(); i++) {
                    if (lines.get(i).contains("\"" + a.name() + "\"")) {
                        out.append("\n  ").append(f.getFileName()).append(" line ").append(i + 1).append(": ")
                                .append(lines.get(i), 0, Math.min(400, lines.get(i).length()));
                    }
                }
            }
        } catch (IOException e) {
            out.append(" unreadable: ").append(e);
        }
        return out.toString();
    }

    // ---------------------------------------------------------------- the writers

    /** One request of a writer: true when it was answered (done or refused), false when the server went away. */
    private interface Request {
        boolean send() throws Exception;
    }

    private Thread writer(String name, AtomicBoolean stop, Request request) {
        Thread t = new Thread(() -> {
            while (!stop.get()) {
                try {
                    if (!request.send()) {
                        unanswered.incrementAndGet();
                        pause();
                    }
                } catch (InterruptedException e) {
                    return;
                } catch (Exception | AssertionError e) {
                    failures.add(new AssertionError(name + " in round " + round + ": " + e, e));
                    return;
                }
            }
        }, "kill9-" + name);
        t.setDaemon(true);
        return t;
    }

    private static void pause() throws InterruptedException {
        Thread.sleep(50);
    }

    private synchronized void acknowledged(Ack a) {
        if (created.putIfAbsent(a.name(), a) != null) throw new AssertionError("acknowledged twice: " + a);
        byStatus.merge(a.via() + " " + a.status(), 1, Integer::sum);
        creates++;
        ackedThisRound.computeIfAbsent(a.via(), v -> new AtomicInteger()).incrementAndGet();
    }

    /** Whether this round has minAcks acknowledgements, some of each interface's creates. */
    private boolean allWriting(int minAcks) {
        int all = ackedThisRound.values().stream().mapToInt(AtomicInteger::get).sum();
        return all >= minAcks && ackedThisRound.keySet().containsAll(List.of("rest", "batch", "restconf", "netconf", "snmp"));
    }

    private final AtomicInteger serial = new AtomicInteger();

    private String newName(String via, String tenant) {
        return via + "-" + tenant + "-" + round + "-" + serial.incrementAndGet();
    }

    /** POST /api/v1/routers: every other one asks to wait (201 once up, else 202); both acknowledge the VR. */
    private boolean restCreate(String[] op) throws Exception {
        String name = newName("rest", op[2]);
        boolean wait = serial.get() % 2 == 0;
        HttpResponse<String> r = sendOrNull(op[0], op[1], "POST", "/api/v1/routers" + (wait ? "?wait=5s" : ""),
                "{\"vmName\":\"" + name + "\"}", null);
        if (r == null) return false;
        if (r.statusCode() == 201 || r.statusCode() == 202) {
            acknowledged(new Ack(name, JSON.readTree(r.body()).path("vmIndex").asInt(), op[2], "rest", "" + r.statusCode(), round));
        }
        return true;
    }

    /** POST /api/v1/routers/batch of three with an Idempotency-Key; without an answer, sent again after the restart. */
    private boolean batchCreate(String[] op) throws Exception {
        StringBuilder body = new StringBuilder("{\"virtualRouter\":[");
        for (int i = 0; i < 3; i++) body.append(i == 0 ? "" : ",").append("{\"vmName\":\"").append(newName("batch", op[2])).append("\"}");
        String key = "kill9-" + round + "-" + serial.incrementAndGet();
        String[] request = {op[0], op[1], op[2], key, body.append("]}").toString()};
        HttpResponse<String> r = sendOrNull(op[0], op[1], "POST", "/api/v1/routers/batch", request[4], key);
        if (r == null) {
            unansweredBatches.add(request);
            return false;
        }
        batchAnswered(request, r, "batch");
        return true;
    }

    private void batchAnswered(String[] request, HttpResponse<String> r, String via) throws IOException {
        if (r.statusCode() != 201 && r.statusCode() != 202) return;
        String status = r.statusCode() + (r.headers().firstValue("Idempotent-Replayed").isPresent() ? " replayed" : "");
        for (JsonNode vr : JSON.readTree(r.body()).path("virtualRouter")) {
            acknowledged(new Ack(vr.path("vmName").asText(), vr.path("vmIndex").asInt(), request[2], via, status, round));
        }
    }

    /**
     * The batches the kill left without an answer, sent again with their key now that the server is
     * back: the first answer again when it was kept, the batch's VRs when it was carried out and its
     * answer not kept (the kill between the two), else the batch carried out now. Never a 409 for
     * the names the batch itself took.
     */
    private void resendBatches() throws Exception {
        for (String[] b; (b = unansweredBatches.poll()) != null; ) {
            HttpResponse<String> r = send(b[0], b[1], "POST", "/api/v1/routers/batch", b[4], b[3]);
            retries.merge(r.statusCode() + (r.headers().firstValue("Idempotent-Replayed").isPresent() ? " replayed" : ""),
                    1, Integer::sum);
            if (r.statusCode() != 201 && r.statusCode() != 202) {
                resentRefused.add("with Idempotency-Key " + b[3] + " after the restart of round " + round
                        + " was answered " + r.statusCode() + " " + r.body());
            }
            batchAnswered(b, r, "batch sent again");
        }
    }

    /** POST of a vmConfigEntry to RESTCONF's vmConfigTable: 201 with its Location. */
    private boolean restconfCreate(String[] op) throws Exception {
        String name = newName("restconf", op[2]);
        HttpResponse<String> r = sendOrNull(op[0], op[1], "POST", RESTCONF_TABLE,
                "{\"NEW-VMM-MIB:vmConfigEntry\":[{\"vmName\":\"" + name + "\"}]}", null);
        if (r == null) return false;
        if (r.statusCode() == 201) {
            String location = r.headers().firstValue("Location").orElseThrow();
            acknowledged(new Ack(name, Integer.parseInt(location.substring(location.lastIndexOf('=') + 1)), op[2],
                    "restconf", "201", round));
        }
        return true;
    }

    /**
     * snmpget of vmConfigNextAvailableVmIndex, then snmpset of a row a little beyond it (the other
     * writers take the next ones while net-snmp's tools start) with createAndGo: noError acknowledges it.
     */
    private boolean snmpCreate(String[] op) throws Exception {
        ServerProcess.Result next = snmp(op[0], "snmpget", "-Oqv", NEXT_INDEX);
        if (next.exit() != 0) return false;
        int vm = Integer.parseInt(next.out().trim()) + 24;
        String name = newName("snmp", op[2]);
        ServerProcess.Result set = snmp(op[0], "snmpset", NewVmmOids.ROW_STATUS + vm, "i", "4", NewVmmOids.NAME + vm, "s", name);
        String said = set.out() + set.err();
        if (set.exit() == 0 && !said.contains("Error")) {
            acknowledged(new Ack(name, vm, op[2], "snmp", "noError", round));
            return true;
        }
        // A refusal (another writer took the index first) is an answer; a timeout is none.
        return said.contains("Reason:");
    }

    private ServerProcess.Result snmp(String user, String tool, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(tool, "-v3", "-l", "authPriv", "-u", user, "-a", "SHA",
                "-A", user + "-auth-pass", "-x", "AES", "-X", user + "-priv-pass", "-t", "3", "-r", "0", "-On",
                "udp:127.0.0.1:" + server.snmpPort));
        cmd.addAll(List.of(args));
        return ServerProcess.run(cmd);
    }

    /** ncclient creating on one session until the server goes away, each answer a line as it comes. */
    private Thread netconfWriter(String[] op, AtomicBoolean stop, List<Process> processes) {
        return writer("netconf-" + op[2], stop, () -> {
            Process p = new ProcessBuilder("python3", NETCONF_SCRIPT, "create-many", "--port", Integer.toString(server.netconfPort),
                    "--user", op[0], "--password", op[1], "--name", newName("netconf", op[2]), "--ahead", "8")
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            synchronized (processes) {
                processes.add(p);
            }
            try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = out.readLine()) != null; ) {
                    JsonNode n = JSON.readTree(line);
                    if (n.path("ok").asBoolean()) {
                        acknowledged(new Ack(n.path("name").asText(), n.path("index").asInt(), op[2], "netconf", "ok", round));
                    }
                }
            }
            p.waitFor();
            return false;
        });
    }

    /**
     * Removes the tenant's oldest VRs beyond what it keeps: by DELETE one at a time, or up to 50 in one
     * transaction (PATCH /api/v1/routers); 202 (or 204) acknowledges each removal. Then a create at the
     * first one's vmIndex, tried until its removal is done and frees it: a create colliding with the
     * removal of its index.
     */
    private boolean removeOldest(String[] op) throws Exception {
        List<Ack> vrs = new ArrayList<>();
        boolean one = serial.incrementAndGet() % 4 == 0;
        synchronized (standing) {
            Deque<Ack> d = standing.get(op[2]);
            while (d.size() > keepPerTenant && vrs.size() < (one ? 1 : 50)) vrs.add(d.poll());
        }
        if (vrs.isEmpty()) {
            pause();
            return true;
        }
        HttpResponse<String> r = one ? sendOrNull(op[0], op[1], "DELETE", "/api/v1/routers/" + vrs.get(0).vmIndex(), null, null)
                : sendOrNull(op[0], op[1], "PATCH", "/api/v1/routers", "{\"remove\":"
                        + vrs.stream().map(v -> Integer.toString(v.vmIndex())).toList() + "}", null);
        if (r == null) {
            // The kill cut the answer off, and the removal may have been carried out (its record written): its
            // VRs are no longer creates to find (counting them lost was this test's own bookkeeping error).
            vrs.forEach(vr -> created.remove(vr.name()));
            return false;
        }
        if (r.statusCode() != 202 && r.statusCode() != 204) throw new AssertionError("removal: " + r.statusCode() + " " + r.body());
        for (Ack vr : vrs) {
            created.remove(vr.name());
            removed.put(vr.name(), new Ack(vr.name(), vr.vmIndex(), op[2], one ? "rest remove" : "rest remove in a batch",
                    "" + r.statusCode(), round));
        }
        synchronized (this) {
            removals += vrs.size();
        }
        return createAt(op, vrs.get(0).vmIndex());
    }

    /**
     * POST of a VR with the vmIndex of one being removed: 409 while the removal is under way, then
     * 201/202, or 403 once another tenant's create has taken the index.
     */
    private boolean createAt(String[] op, int vmIndex) throws Exception {
        String name = newName("reuse", op[2]);
        for (int tries = 0; tries < 100; tries++) {
            HttpResponse<String> r = sendOrNull(op[0], op[1], "POST", "/api/v1/routers",
                    "{\"vmIndex\":" + vmIndex + ",\"vmName\":\"" + name + "\"}", null);
            if (r == null) return false;
            if (r.statusCode() == 201 || r.statusCode() == 202) {
                acknowledged(new Ack(name, vmIndex, op[2], "rest at a removed vmIndex", "" + r.statusCode(), round));
                return true;
            }
            // 403: another tenant's writer took the index first (a VR of another tenant cannot be named)
            if (r.statusCode() == 403) return true;
            if (r.statusCode() != 409) throw new AssertionError("create at vmIndex " + vmIndex + ": " + r.statusCode() + " " + r.body());
            pause();
        }
        return true;
    }

    // ---------------------------------------------------------------- HTTP

    /** The answer, or null when the server went away before answering. */
    private HttpResponse<String> sendOrNull(String user, String password, String method, String path, String body, String key)
            throws InterruptedException {
        try {
            return send(user, password, method, path, body, key);
        } catch (IOException e) {
            return null;
        }
    }

    private HttpResponse<String> send(String user, String password, String method, String path, String body, String key)
            throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(server.restBase() + path)).timeout(Duration.ofSeconds(30))
                .header("Accept", "application/json")
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString((user + ":" + password)
                        .getBytes(StandardCharsets.UTF_8)));
        if (key != null) b.header("Idempotency-Key", key);
        if (body == null) {
            b.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            b.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(body));
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
