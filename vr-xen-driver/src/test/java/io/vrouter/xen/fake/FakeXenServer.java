package io.vrouter.xen.fake;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLContext;

/**
 * A XenAPI host in memory, serving XenAPI's JSON-RPC 2.0 wire format at {@code POST /jsonrpc} over
 * real HTTP on 127.0.0.1: sessions, VM, VM_metrics, VIF, VBD, VDI, network, SR, host, task and
 * event (event.from with tokens), the {@code Async.} namespace with tasks, and XenAPI's error codes
 * ({@code SESSION_AUTHENTICATION_FAILED}, {@code SESSION_INVALID}, {@code HANDLE_INVALID},
 * {@code VM_BAD_POWER_STATE}, {@code VM_IS_TEMPLATE}, {@code MAP_DUPLICATE_KEY},
 * {@code DEVICE_ALREADY_EXISTS}, {@code VDI_IN_USE}, {@code MESSAGE_METHOD_UNKNOWN}, ...).
 *
 * <p>It starts with one host, a local SR, two networks, dom0 and a template named {@code vyos}
 * (one disk, one VIF). Tests inject faults ({@link #failNext}, {@link #failAlways},
 * {@link #hangCleanShutdown}, {@link #expireSessions}) and act as another tool on the host would
 * ({@link #setPowerState}, {@link #destroyVm}); {@link #leaks()} lists what exists beyond the
 * initial objects.
 *
 * <p>As xapi does (XenAPI reference: VIF, network, VM.add_to_VCPUs_params_live): a domain's VIFs are
 * plugged while it runs; {@code network.create} makes an internal network (no PIF, bridge
 * {@code xapiN}), {@code network.destroy} refuses one with VIFs ({@code NETWORK_CONTAINS_VIF}); a VIF's
 * {@code ratelimit} ({@code qos_algorithm_params:kbps}, kilobytes per second) reaches the backend only
 * when it is plugged ({@link #appliedRate}), a VM's {@code VCPUs_params:weight} when it starts or
 * through {@code VM.add_to_VCPUs_params_live} on a running VM ({@link #schedulerWeight}).
 *
 * <p>Migration, as XenServer does it: a pool ({@code pool}, its master the first host; more hosts with
 * {@link #addHost}); a running VM resides on a host ({@code resident_on}, the master when started).
 * {@code VM.pool_migrate(vm, host, options)} moves a running VM to another host of the pool, the guest
 * running on. Across pools, the destination's {@code host.migrate_receive(host, network, options)}
 * answers the token (SM, host, xenops, session_id, master) that the source's
 * {@code VM.migrate_send(vm, dest, live, vdi_map, vif_map, options, vgpu_map)} needs: every VDI and
 * VIF of the VM must be mapped ({@code VDI_NOT_IN_MAP}, {@code VIF_NOT_IN_MAP}) to an SR and a network of
 * the destination pool; the VM (its UUID, its disks, VIFs and MACs, its domain's start time) then runs
 * there and is gone here, and the call answers its reference there. The destination is another fake
 * in the same JVM, found by its URL as the token's {@code master} names it.
 */
public final class FakeXenServer implements AutoCloseable {
    public static final String USER = "root";
    public static final String PASSWORD = "xenroot";
    public static final String TEMPLATE = "vyos";
    public static final List<String> NETWORKS = List.of("Pool-wide network associated with eth0", "vr-transit");
    private static final DateTimeFormatter XAPI_DATE = DateTimeFormatter.ofPattern("yyyyMMdd'T'HH:mm:ss'Z'", Locale.ROOT)
            .withZone(ZoneOffset.UTC);

    /** A XenAPI error: the code and its parameters. */
    public static final class Failure extends RuntimeException {
        final String code;
        final List<String> params;

        public Failure(String code, String... params) {
            super(code + " " + List.of(params));
            this.code = code;
            this.params = List.of(params);
        }
    }

    private record Event(long id, String cls, String op, String ref, JsonNode snapshot) {
    }

    private final ObjectMapper json = new ObjectMapper();
    private final HttpServer http;
    private final ExecutorService httpThreads = Executors.newCachedThreadPool(r -> daemon(r, "fake-xapi-http"));
    private final ExecutorService taskThreads = Executors.newCachedThreadPool(r -> daemon(r, "fake-xapi-task"));
    /** class → ref → record. */
    private final Map<String, Map<String, ObjectNode>> db = new LinkedHashMap<>();
    private final List<Event> events = new ArrayList<>();
    private long lastEvent;
    private final Set<String> sessions = ConcurrentHashMap.newKeySet();
    private final Map<String, Deque<Failure>> nextFailures = new ConcurrentHashMap<>();
    private final Map<String, Failure> alwaysFailures = new ConcurrentHashMap<>();
    private final List<String> calls = Collections.synchronizedList(new ArrayList<>());
    private final AtomicInteger logins = new AtomicInteger();
    private final AtomicLong refs = new AtomicLong();
    private final Map<String, Set<String>> initial = new HashMap<>();
    private final Map<String, CountDownLatch> cancels = new ConcurrentHashMap<>();
    /** task → the session that created it: a session's end destroys its tasks, as in XenAPI. */
    private final Map<String, String> taskSessions = new ConcurrentHashMap<>();
    private final boolean tls;
    private boolean eventsLost;
    private volatile boolean hangCleanShutdown;
    private volatile long operationDelayMillis;
    /** Hooks run on a task's thread before its work, and after it (before its status says so), by method. */
    private final Map<String, Runnable> beforeTask = new ConcurrentHashMap<>();
    private final Map<String, Runnable> afterTask = new ConcurrentHashMap<>();
    /** The sessions of clients killed: their calls, and the answers to those under way, hang until {@link #close}. */
    private final Set<String> frozen = ConcurrentHashMap.newKeySet();
    private final CountDownLatch closed = new CountDownLatch(1);
    public final String host;
    public final String pool;
    public final String sr;
    /** Every fake of this JVM by its URL: the pools {@code VM.migrate_send} reaches. */
    private static final Map<String, FakeXenServer> POOLS = new ConcurrentHashMap<>();
    /** The sessions this host's {@code host.migrate_receive} gave, each good for one incoming VM. */
    private final Set<String> receiveTokens = ConcurrentHashMap.newKeySet();
    public final String template;

    static {
        // Without it every reply waits out the client's delayed ACK (about 40 ms a call).
        System.setProperty("sun.net.httpserver.nodelay", "true");
    }

    /** A host on plain HTTP. */
    public FakeXenServer() throws IOException {
        this(null);
    }

    /** A host on HTTPS with the given server context, or on plain HTTP when it is null. */
    public FakeXenServer(SSLContext tls) throws IOException {
        this.tls = tls != null;
        synchronized (this) {
            host = create("host", rec("name_label", "fake-host"));
            ObjectNode h = db.get("host").get(host);
            ObjectNode sw = h.putObject("software_version");
            sw.put("product_brand", "XCP-ng");
            sw.put("product_version", "8.2.1");
            sw.put("platform_version", "3.2.1");
            sw.put("xapi", "1.20");
            h.putObject("other_config").put("boot_time", Long.toString(Instant.now().getEpochSecond() - 3600) + ".0");
            pool = create("pool", rec("name_label", "", "master", host));
            sr = create("SR", rec("name_label", "Local storage"));
            db.get("SR").get(sr).put("type", "ext");
            db.get("pool").get(pool).put("default_SR", sr);
            for (String n : NETWORKS) {
                String net = create("network", rec("name_label", n));
                ObjectNode nr = db.get("network").get(net);
                nr.put("bridge", "xenbr" + (db.get("network").size() - 1)).put("MTU", 1500);
                nr.putArray("VIFs");
                // A host network has its NIC's PIF on it; the PIF objects themselves are not modelled.
                nr.putArray("PIFs").add("OpaqueRef:pif-eth" + (db.get("network").size() - 1));
            }
            String dom0 = newVm("Control domain on host: fake-host", false);
            db.get("VM").get(dom0).put("is_control_domain", true).put("power_state", "Running");
            // One of XenServer's own OS-install templates, as every host has many.
            String builtIn = newVm("Debian Bullseye 11", true);
            ((ObjectNode) db.get("VM").get(builtIn).get("other_config")).put("default_template", "true");
            template = newVm(TEMPLATE, true);
            String vdi = create("VDI", rec("name_label", "vyos disk 0"));
            db.get("VDI").get(vdi).put("SR", sr).put("type", "system").put("virtual_size", 2048 * 1048576L)
                    .put("physical_utilisation", 600 * 1048576L).put("read_only", false).put("sharable", false);
            db.get("VDI").get(vdi).putArray("VBDs");
            newVbd(template, vdi, "0");
            newVif(template, ref("network", NETWORKS.get(0)), "0", "");
            for (Map.Entry<String, Map<String, ObjectNode>> e : db.entrySet()) initial.put(e.getKey(), new HashSet<>(e.getValue().keySet()));
        }
        InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        if (tls == null) {
            http = HttpServer.create(address, 64);
        } else {
            HttpsServer https = HttpsServer.create(address, 64);
            https.setHttpsConfigurator(new HttpsConfigurator(tls));
            http = https;
        }
        http.createContext("/jsonrpc", this::handle);
        http.setExecutor(httpThreads);
        http.start();
        POOLS.put(url().toString(), this);
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /** The URL to give the driver as {@code xen.url}. */
    public URI url() {
        return URI.create((tls ? "https" : "http") + "://127.0.0.1:" + http.getAddress().getPort() + "/");
    }

    // ---------------------------------------------------------------- test controls

    /** The next call of the method (also as {@code Async.}) fails with the XenAPI error. */
    public void failNext(String method, String code, String... params) {
        nextFailures.computeIfAbsent(method, k -> new ArrayDeque<>()).add(new Failure(code, params));
    }

    /** Every call of the method fails with the XenAPI error until {@link #clearFaults()}. */
    public void failAlways(String method, String code, String... params) {
        alwaysFailures.put(method, new Failure(code, params));
    }

    public void clearFaults() {
        nextFailures.clear();
        alwaysFailures.clear();
        hangCleanShutdown = false;
        operationDelayMillis = 0;
    }

    /** A clean shutdown never finishes (the guest ignores it) until its task is cancelled. */
    public void hangCleanShutdown(boolean hang) {
        hangCleanShutdown = hang;
    }

    /** Every VM operation takes this long, as on a real host. */
    public void operationDelay(long millis) {
        operationDelayMillis = millis;
    }

    /**
     * Makes a change whose events are lost: the event.from call waiting and the next one are
     * answered EVENTS_LOST, as by a host whose event queue overflowed.
     */
    public synchronized void withEventsLost(Runnable change) {
        change.run();
        eventsLost = true;
        notifyAll();
    }

    /** Runs {@code hook} on the task's thread before the next task of the method does its work (to hold it, say). */
    public void beforeTask(String method, Runnable hook) {
        beforeTask.put(method, hook);
    }

    /** Runs {@code hook} on the task's thread after the next task of the method did its work, before its status says so. */
    public void afterTask(String method, Runnable hook) {
        afterTask.put(method, hook);
    }

    /**
     * The clients logged in now are killed (a kill -9 of their process): each of their calls, and the
     * answer to each under way, hangs until this fake closes. A client started afresh logs in again.
     */
    public void freezeSessions() {
        frozen.addAll(sessions);
    }

    /** Invalidates every session, as a host restart or a session timeout does. */
    public void expireSessions() {
        for (String s : List.copyOf(sessions)) endSession(s);
    }

    private synchronized void endSession(String session) {
        sessions.remove(session);
        taskSessions.forEach((task, owner) -> {
            if (owner.equals(session) && db.get("task").containsKey(task)) {
                CountDownLatch l = cancels.remove(task);
                if (l != null) l.countDown();
                remove("task", task);
            }
        });
        taskSessions.values().removeIf(session::equals);
    }

    /** Another host in this pool (its master stays the first), for {@code VM.pool_migrate}. */
    public synchronized String addHost(String nameLabel) {
        String h = create("host", rec("name_label", nameLabel));
        db.get("host").get(h).set("software_version", db.get("host").get(host).get("software_version").deepCopy());
        return h;
    }

    /** The name-label of the host the VM runs on, or null when it does not run. */
    public synchronized String residentOn(String vmName) {
        String on = require("VM", ref("VM", vmName)).path("resident_on").asText();
        return db.get("host").containsKey(on) ? db.get("host").get(on).path("name_label").asText() : null;
    }

    public int logins() {
        return logins.get();
    }

    /** The methods called so far, in order. */
    public List<String> calls() {
        synchronized (calls) {
            return List.copyOf(calls);
        }
    }

    /** Changes a VM's power state as another tool on the host would. */
    public synchronized void setPowerState(String vm, String powerState) {
        ObjectNode v = require("VM", vm);
        v.put("power_state", powerState);
        updateMetrics(v);
        modified("VM", vm);
    }

    /** Deletes a VM and its disks as another tool on the host would. */
    public synchronized void destroyVm(String vm) {
        List<String> vdis = new ArrayList<>();
        for (JsonNode vbd : require("VM", vm).path("VBDs")) vdis.add(db.get("VBD").get(vbd.asText()).path("VDI").asText());
        destroyVmNow(vm);
        for (String vdi : vdis) {
            if (db.get("VDI").containsKey(vdi)) remove("VDI", vdi);
        }
    }

    /** Creates a halted VM marked as a VR's, as an earlier run of vrouter left it. */
    public synchronized String addMarkedVm(String name, int vmIndex, String powerState) {
        String vm = clone(template, name, null);
        ObjectNode v = db.get("VM").get(vm);
        v.put("is_a_template", false).put("power_state", powerState);
        ((ObjectNode) v.get("other_config")).put("vrouter-vmIndex", Integer.toString(vmIndex));
        for (JsonNode vbd : v.path("VBDs")) {
            String vdi = db.get("VBD").get(vbd.asText()).path("VDI").asText();
            ((ObjectNode) db.get("VDI").get(vdi).get("other_config")).put("vrouter-vmIndex", Integer.toString(vmIndex));
            modified("VDI", vdi);
        }
        updateMetrics(v);
        modified("VM", vm);
        return vm;
    }

    /** A marked VM whose provisioning never finished, as a vrouter stopped half-way leaves it. */
    public synchronized String addHalfBuiltVm(String name, int vmIndex) {
        String vm = addMarkedVm(name, vmIndex, "Halted");
        ((ObjectNode) db.get("VM").get(vm).get("other_config")).put("vrouter-provisioning", "true");
        modified("VM", vm);
        return vm;
    }

    /** Creates a halted VM that is not vrouter's (no marker), as another tool would. */
    public synchronized String addForeignVm(String name) {
        return copyOfTemplate(name, v -> v.put("is_a_template", false));
    }

    /**
     * A template an operator made (a copy of the vyos one, under another name-label); its
     * other_config key fake-template, which clones keep, names it.
     */
    public synchronized String addTemplate(String name) {
        return copyOfTemplate(name, v -> ((ObjectNode) v.get("other_config")).put("fake-template", name));
    }

    /** A snapshot of the vyos template: a template too in XenAPI, with is_a_snapshot. */
    public synchronized String addSnapshot(String name) {
        return copyOfTemplate(name, v -> v.put("is_a_snapshot", true));
    }

    /** A copy of the vyos template named name, marked as the caller says, announced to event.from. */
    private String copyOfTemplate(String name, java.util.function.Consumer<ObjectNode> mark) {
        String vm = clone(template, name, null);
        mark.accept(db.get("VM").get(vm));
        modified("VM", vm);
        return vm;
    }

    /** The VM (not template, not dom0) refs by name-label. */
    public synchronized Map<String, String> vms() {
        Map<String, String> out = new LinkedHashMap<>();
        db.get("VM").forEach((ref, v) -> {
            if (!v.path("is_a_template").asBoolean() && !v.path("is_control_domain").asBoolean()) {
                out.put(v.path("name_label").asText(), ref);
            }
        });
        return out;
    }

    /** A copy of an object's record. */
    public synchronized ObjectNode record(String cls, String ref) {
        return require(cls, ref).deepCopy();
    }

    /** The records of a class whose field has the value. */
    public synchronized List<ObjectNode> where(String cls, String field, String value) {
        List<ObjectNode> out = new ArrayList<>();
        db.getOrDefault(cls, Map.of()).values().forEach(r -> {
            if (value.equals(r.path(field).asText())) out.add(r.deepCopy());
        });
        return out;
    }

    /** What exists now that did not at start: "VM/OpaqueRef:..." etc. Tasks not destroyed count too. */
    public synchronized List<String> leaks() {
        List<String> out = new ArrayList<>();
        db.forEach((cls, objs) -> {
            if (cls.equals("session")) return;
            for (String ref : objs.keySet()) {
                if (!initial.getOrDefault(cls, Set.of()).contains(ref)) out.add(cls + "/" + ref);
            }
        });
        return out;
    }

    // ---------------------------------------------------------------- the object store

    private synchronized String create(String cls, ObjectNode record) {
        String ref = "OpaqueRef:" + UUID.randomUUID();
        record.put("uuid", UUID.nameUUIDFromBytes((ref + refs.incrementAndGet()).getBytes(StandardCharsets.UTF_8)).toString());
        if (!record.has("other_config")) record.putObject("other_config");
        db.computeIfAbsent(cls, k -> new LinkedHashMap<>()).put(ref, record);
        event(cls, "add", ref, record);
        return ref;
    }

    private void modified(String cls, String ref) {
        event(cls, "mod", ref, db.get(cls).get(ref));
    }

    private void remove(String cls, String ref) {
        ObjectNode r = db.get(cls).remove(ref);
        event(cls, "del", ref, r);
    }

    private void event(String cls, String op, String ref, ObjectNode snapshot) {
        events.add(new Event(++lastEvent, cls.toLowerCase(Locale.ROOT), op, ref, snapshot == null ? null : snapshot.deepCopy()));
        if (events.size() > 10_000) events.subList(0, 5_000).clear();
        notifyAll();
    }

    private ObjectNode require(String cls, String ref) {
        ObjectNode r = db.getOrDefault(cls, Map.of()).get(ref);
        if (r == null) throw new Failure("HANDLE_INVALID", cls, ref);
        return r;
    }

    private String ref(String cls, String nameLabel) {
        for (Map.Entry<String, ObjectNode> e : db.get(cls).entrySet()) {
            if (nameLabel.equals(e.getValue().path("name_label").asText())) return e.getKey();
        }
        throw new IllegalArgumentException(nameLabel);
    }

    private ObjectNode rec(String... kv) {
        ObjectNode r = json.createObjectNode();
        for (int i = 0; i + 1 < kv.length; i += 2) r.put(kv[i], kv[i + 1]);
        return r;
    }

    private String newVm(String name, boolean isTemplate) {
        String metrics = create("VM_metrics", rec());
        ObjectNode m = db.get("VM_metrics").get(metrics);
        m.put("memory_actual", 0).put("VCPUs_number", 0).put("start_time", "19700101T00:00:00Z");
        m.putObject("VCPUs_utilisation");
        m.putObject("VCPUs_CPU");
        ObjectNode vm = rec("name_label", name, "power_state", "Halted", "metrics", metrics);
        vm.put("is_a_template", isTemplate).put("is_a_snapshot", false).put("is_control_domain", false)
                .put("VCPUs_max", 1).put("VCPUs_at_startup", 1)
                .put("memory_static_min", 128 * 1048576L).put("memory_static_max", 512 * 1048576L)
                .put("memory_dynamic_min", 512 * 1048576L).put("memory_dynamic_max", 512 * 1048576L)
                .put("domid", -1).put("resident_on", "OpaqueRef:NULL");
        vm.putObject("VCPUs_params");
        vm.putArray("VBDs");
        vm.putArray("VIFs");
        return create("VM", vm);
    }

    private String newVbd(String vm, String vdi, String userdevice) {
        ObjectNode r = rec("VM", vm, "VDI", vdi, "userdevice", userdevice, "type", "Disk", "mode", "RW");
        r.put("currently_attached", false);
        String vbd = create("VBD", r);
        ((ArrayNode) db.get("VM").get(vm).get("VBDs")).add(vbd);
        modified("VM", vm);
        if (db.get("VDI").containsKey(vdi)) {
            ((ArrayNode) db.get("VDI").get(vdi).get("VBDs")).add(vbd);
            modified("VDI", vdi);
        }
        return vbd;
    }

    private String newVif(String vm, String network, String device, String mac) {
        for (JsonNode v : require("VM", vm).path("VIFs")) {
            if (device.equals(db.get("VIF").get(v.asText()).path("device").asText())) throw new Failure("DEVICE_ALREADY_EXISTS", device);
        }
        require("network", network);
        String m = mac.isEmpty() ? String.format("02:16:3e:%02x:%02x:%02x", refs.get() & 0xff, (refs.get() >> 8) & 0xff,
                ThreadLocalRandomByte.next()) : mac;
        ObjectNode r = rec("VM", vm, "network", network, "device", device, "MAC", m);
        r.put("MTU", 1500).put("currently_attached", "Running".equals(db.get("VM").get(vm).path("power_state").asText()));
        r.putObject("other_config");
        r.put("qos_algorithm_type", "");
        r.putObject("qos_algorithm_params");
        String vif = create("VIF", r);
        ((ArrayNode) db.get("VM").get(vm).get("VIFs")).add(vif);
        modified("VM", vm);
        ((ArrayNode) db.get("network").get(network).get("VIFs")).add(vif);
        modified("network", network);
        return vif;
    }

    private static final class ThreadLocalRandomByte {
        static int next() {
            return java.util.concurrent.ThreadLocalRandom.current().nextInt(256);
        }
    }

    private String clone(String src, String name, String toSr) {
        ObjectNode s = require("VM", src);
        String vm = newVm(name, s.path("is_a_template").asBoolean());
        ObjectNode v = db.get("VM").get(vm);
        for (String f : List.of("VCPUs_max", "VCPUs_at_startup", "memory_static_min", "memory_static_max",
                "memory_dynamic_min", "memory_dynamic_max")) v.set(f, s.get(f));
        v.set("other_config", s.get("other_config").deepCopy());
        v.set("VCPUs_params", s.get("VCPUs_params").deepCopy());
        for (JsonNode vbdRef : s.path("VBDs")) {
            ObjectNode vbd = db.get("VBD").get(vbdRef.asText());
            ObjectNode vdi = db.get("VDI").get(vbd.path("VDI").asText());
            ObjectNode copy = vdi.deepCopy();
            copy.put("name_label", name + " disk " + vbd.path("userdevice").asText());
            if (toSr != null) copy.put("SR", toSr);
            copy.putArray("VBDs");
            copy.remove("uuid");
            String newVdi = create("VDI", copy);
            newVbd(vm, newVdi, vbd.path("userdevice").asText());
        }
        for (JsonNode vifRef : s.path("VIFs")) {
            ObjectNode vif = db.get("VIF").get(vifRef.asText());
            newVif(vm, vif.path("network").asText(), vif.path("device").asText(), "");
        }
        modified("VM", vm);
        return vm;
    }

    private void destroyVmNow(String vm) {
        ObjectNode v = require("VM", vm);
        for (JsonNode vbd : v.path("VBDs")) {
            ObjectNode b = db.get("VBD").get(vbd.asText());
            ObjectNode vdi = db.get("VDI").get(b.path("VDI").asText());
            if (vdi != null) {
                ArrayNode left = json.createArrayNode();
                vdi.path("VBDs").forEach(x -> {
                    if (!x.asText().equals(vbd.asText())) left.add(x);
                });
                vdi.set("VBDs", left);
                modified("VDI", b.path("VDI").asText());
            }
            remove("VBD", vbd.asText());
        }
        // As xapi does, the VM's VIFs go with it (and off their networks).
        for (JsonNode vif : v.path("VIFs")) {
            offNetwork(vif.asText(), db.get("VIF").get(vif.asText()));
            remove("VIF", vif.asText());
        }
        appliedWeights.remove(vm);
        remove("VM_metrics", v.path("metrics").asText());
        remove("VM", vm);
    }

    private void updateMetrics(ObjectNode vm) {
        ObjectNode m = db.get("VM_metrics").get(vm.path("metrics").asText());
        String power = vm.path("power_state").asText();
        boolean up = power.equals("Running") || power.equals("Paused");
        int n = vm.path("VCPUs_at_startup").asInt();
        if (up && m.path("VCPUs_number").asInt() == 0) {
            m.put("start_time", XAPI_DATE.format(Instant.now().minusSeconds(5)));
        }
        m.put("VCPUs_number", up ? n : 0);
        m.put("memory_actual", up ? vm.path("memory_dynamic_max").asLong() : 0);
        ObjectNode util = m.putObject("VCPUs_utilisation");
        ObjectNode cpu = m.putObject("VCPUs_CPU");
        for (int i = 0; up && i < n; i++) {
            util.put(Integer.toString(i), 0.25);
            cpu.put(Integer.toString(i), Integer.toString(i));
        }
        if (!up) m.put("start_time", "19700101T00:00:00Z");
        vm.put("domid", up || power.equals("Suspended") ? 1 : -1);
        for (JsonNode vif : vm.path("VIFs")) {
            ObjectNode f = db.get("VIF").get(vif.asText());
            if (f != null && f.path("currently_attached").asBoolean() != up) {
                f.put("currently_attached", up);
                modified("VIF", vif.asText());
            }
        }
        modified("VM_metrics", vm.path("metrics").asText());
    }

    /** The VM, which must be halted: XenServer changes a VM's CPUs and memory limits only then (a rename it allows always). */
    private ObjectNode requireHalted(String vm) {
        ObjectNode v = require("VM", vm);
        String now = v.path("power_state").asText();
        if (!now.equals("Halted")) throw new Failure("VM_BAD_POWER_STATE", vm, "halted", now.toLowerCase(Locale.ROOT));
        return v;
    }

    private void power(String vm, String expected, String to) {
        ObjectNode v = require("VM", vm);
        if (v.path("is_a_template").asBoolean()) throw new Failure("VM_IS_TEMPLATE", vm);
        String now = v.path("power_state").asText();
        if (!List.of(expected.split("\\|")).contains(now)) {
            throw new Failure("VM_BAD_POWER_STATE", vm, expected.split("\\|")[0].toLowerCase(Locale.ROOT), now.toLowerCase(Locale.ROOT));
        }
        v.put("power_state", to);
        boolean domain = to.equals("Running") || to.equals("Paused");
        // A domain's VIFs are plugged while it exists, and its backend takes their rates and its weight then.
        for (JsonNode vif : v.path("VIFs")) {
            ObjectNode f = db.get("VIF").get(vif.asText());
            if (f.path("currently_attached").asBoolean() == domain) continue;
            f.put("currently_attached", domain);
            if (domain) applyRate(vif.asText(), f); else appliedRates.remove(vif.asText());
            modified("VIF", vif.asText());
        }
        if (domain && !now.equals("Running") && !now.equals("Paused")) appliedWeights.put(vm, weightOf(v));
        if (!domain) v.put("resident_on", "OpaqueRef:NULL");
        else if (!db.get("host").containsKey(v.path("resident_on").asText())) v.put("resident_on", host);
        if (!domain) appliedWeights.remove(vm);
        updateMetrics(v);
        modified("VM", vm);
    }

    // ---------------------------------------------------------------- what the hypervisor enforces

    /** What netback enforces per plugged VIF (kbps, kilobytes per second), set only when the VIF is plugged, as xapi does. */
    private final Map<String, Long> appliedRates = new HashMap<>();
    /** The credit scheduler's weight of each running domain. */
    private final Map<String, Integer> appliedWeights = new HashMap<>();

    private void applyRate(String vifRef, ObjectNode vif) {
        String kbps = vif.path("qos_algorithm_params").path("kbps").asText("");
        if ("ratelimit".equals(vif.path("qos_algorithm_type").asText()) && !kbps.isEmpty()) {
            appliedRates.put(vifRef, Long.parseLong(kbps));
        } else {
            appliedRates.remove(vifRef);
        }
    }

    private static int weightOf(JsonNode vm) {
        String w = vm.path("VCPUs_params").path("weight").asText("");
        return w.isEmpty() ? 256 : Integer.parseInt(w);
    }

    /** The rate (kilobytes per second) the backend holds the VR's interface n (vmNetworkConfigIndex) to, or null for none. */
    public synchronized Long appliedRate(String vmName, int n) {
        String vm = ref("VM", vmName);
        for (JsonNode vif : db.get("VM").get(vm).path("VIFs")) {
            ObjectNode f = db.get("VIF").get(vif.asText());
            if (f.path("other_config").path("vrouter-networkIndex").asText().equals(Integer.toString(n))) return appliedRates.get(vif.asText());
        }
        throw new IllegalArgumentException(vmName + " has no interface " + n);
    }

    /** The running domain's scheduler weight, or null when it does not run. */
    public synchronized Integer schedulerWeight(String vmName) {
        return appliedWeights.get(ref("VM", vmName));
    }

    private void offNetwork(String vifRef, ObjectNode vif) {
        ObjectNode net = db.get("network").get(vif.path("network").asText());
        if (net == null) return;
        ArrayNode left = json.createArrayNode();
        net.path("VIFs").forEach(x -> {
            if (!x.asText().equals(vifRef)) left.add(x);
        });
        net.set("VIFs", left);
        modified("network", vif.path("network").asText());
    }

    // ---------------------------------------------------------------- JSON-RPC

    private void handle(HttpExchange ex) throws IOException {
        ObjectNode reply = json.createObjectNode();
        reply.put("jsonrpc", "2.0");
        int status = 200;
        try (InputStream in = ex.getRequestBody()) {
            if (!"POST".equals(ex.getRequestMethod())) {
                status = 405;
            } else {
                JsonNode req = json.readTree(in);
                String session = req.path("params").path(0).asText();
                hangIfFrozen(session);
                reply.set("id", req.get("id"));
                String method = req.path("method").asText();
                if (req.get("id") == null || req.get("id").isNull() || method.isEmpty() || !req.path("params").isArray()) {
                    status = 500;
                } else {
                    try {
                        reply.set("result", dispatch(method, (ArrayNode) req.get("params")));
                        hangIfFrozen(session);
                    } catch (Failure f) {
                        ObjectNode err = reply.putObject("error");
                        err.put("code", 1);
                        err.put("message", f.code);
                        ArrayNode data = err.putArray("data");
                        f.params.forEach(data::add);
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            status = 500;
        }
        byte[] body = (status == 200 ? reply.toString() : "<html><body><h1>HTTP 500 internal server error</h1></body></html>")
                .getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().add("Content-Type", status == 200 ? "application/json" : "text/html");
        ex.sendResponseHeaders(status, body.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(body);
        }
    }

    private void hangIfFrozen(String session) {
        if (!frozen.contains(session)) return;
        try {
            closed.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        throw new Failure("SESSION_INVALID", session);
    }

    private JsonNode dispatch(String method, ArrayNode params) {
        calls.add(method);
        if (method.equals("session.login_with_password")) {
            if (!USER.equals(params.path(0).asText()) || !PASSWORD.equals(params.path(1).asText())) {
                throw new Failure("SESSION_AUTHENTICATION_FAILED", params.path(0).asText(), "Authentication failure");
            }
            String s = "OpaqueRef:" + UUID.randomUUID();
            sessions.add(s);
            logins.incrementAndGet();
            return json.getNodeFactory().textNode(s);
        }
        String session = params.path(0).asText();
        if (!sessions.contains(session)) throw new Failure("SESSION_INVALID", session);
        if (method.equals("session.logout")) {
            endSession(session);
            return json.getNodeFactory().textNode("");
        }
        List<JsonNode> args = new ArrayList<>();
        for (int i = 1; i < params.size(); i++) args.add(params.get(i));
        boolean async = method.startsWith("Async.");
        String name = async ? method.substring("Async.".length()) : method;
        Deque<Failure> next = nextFailures.get(name);
        Failure injected = next == null ? null : next.poll();
        if (injected == null) injected = alwaysFailures.get(name);
        if (!async) {
            if (injected != null) throw injected;
            return invoke(name, args, null);
        }
        String task;
        synchronized (this) {
            ObjectNode t = rec("name_label", method, "status", "pending", "result", "");
            t.put("progress", 0.0).putArray("error_info");
            task = create("task", t);
            taskSessions.put(task, session);
        }
        Failure fail = injected;
        CountDownLatch cancel = new CountDownLatch(1);
        cancels.put(task, cancel);
        taskThreads.execute(() -> runTask(task, name, args, fail, cancel));
        return json.getNodeFactory().textNode(task);
    }

    private void runTask(String task, String name, List<JsonNode> args, Failure injected, CountDownLatch cancel) {
        String status;
        String result = "";
        List<String> error = List.of();
        try {
            if (operationDelayMillis > 0) Thread.sleep(operationDelayMillis);
            if (name.equals("VM.clean_shutdown") && hangCleanShutdown) {
                cancel.await();
                throw new Failure("TASK_CANCELLED", task);
            }
            if (injected != null) throw injected;
            Runnable before = beforeTask.remove(name);
            if (before != null) before.run();
            JsonNode r = invoke(name, args, task);
            Runnable after = afterTask.remove(name);
            if (after != null) after.run();
            status = "success";
            result = r.isTextual() && !r.asText().isEmpty() ? "<value>" + r.asText() + "</value>" : "";
        } catch (Failure f) {
            status = f.code.equals("TASK_CANCELLED") ? "cancelled" : "failure";
            List<String> e = new ArrayList<>();
            e.add(f.code);
            e.addAll(f.params);
            error = e;
        } catch (InterruptedException e) {
            return;
        }
        synchronized (this) {
            ObjectNode t = db.get("task").get(task);
            if (t == null || !t.path("status").asText().equals("pending")) return;
            t.put("status", status).put("result", result).put("progress", 1.0);
            ArrayNode ei = t.putArray("error_info");
            error.forEach(ei::add);
            modified("task", task);
        }
        cancels.remove(task);
    }

    private JsonNode invoke(String method, List<JsonNode> a, String task) {
        int dot = method.indexOf('.');
        if (dot < 0) throw new Failure("MESSAGE_METHOD_UNKNOWN", method);
        String cls = method.substring(0, dot);
        String op = method.substring(dot + 1);
        if (cls.equals("event") && op.equals("from")) return eventFrom(a);
        if (task == null && operationDelayMillis > 0 && isVmOperation(cls, op)) sleep(operationDelayMillis);
        synchronized (this) {
            return invokeLocked(cls, op, a, method);
        }
    }

    private static boolean isVmOperation(String cls, String op) {
        return cls.equals("VM") && !op.startsWith("get_");
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private JsonNode invokeLocked(String cls, String op, List<JsonNode> a, String method) {
        String self = a.isEmpty() ? "" : a.get(0).asText();
        JsonNode ok = json.getNodeFactory().textNode("");
        switch (cls + "." + op) {
            case "VM.clone": return text(clone(self, a.get(1).asText(), null));
            case "VM.copy": require("SR", a.get(2).asText()); return text(clone(self, a.get(1).asText(), a.get(2).asText()));
            case "VM.provision": require("VM", self); return ok;
            case "VM.start": power(self, "Halted", a.get(1).asBoolean() ? "Paused" : "Running"); return ok;
            case "VM.clean_shutdown": power(self, "Running", "Halted"); return ok;
            case "VM.hard_shutdown": power(self, "Running|Paused|Suspended|Crashed", "Halted"); return ok;
            case "VM.suspend": power(self, "Running", "Suspended"); return ok;
            case "VM.resume": power(self, "Suspended", a.get(1).asBoolean() ? "Paused" : "Running"); return ok;
            case "VM.pause": power(self, "Running", "Paused"); return ok;
            case "VM.unpause": power(self, "Paused", "Running"); return ok;
            case "VM.destroy": {
                ObjectNode v = require("VM", self);
                if (!v.path("power_state").asText().equals("Halted")) {
                    throw new Failure("VM_BAD_POWER_STATE", self, "halted", v.path("power_state").asText().toLowerCase(Locale.ROOT));
                }
                destroyVmNow(self);
                return ok;
            }
            case "VM.set_VCPUs_max": {
                ObjectNode v = requireHalted(self);
                if (a.get(1).asLong() < v.path("VCPUs_at_startup").asLong()) {
                    throw new Failure("VALUE_NOT_SUPPORTED", "VCPU_max", a.get(1).asText(), "VCPU_max must be greater than or equal to VCPU_at_startup");
                }
                v.put("VCPUs_max", a.get(1).asLong());
                modified("VM", self);
                return ok;
            }
            case "VM.set_VCPUs_at_startup": {
                ObjectNode v = requireHalted(self);
                if (a.get(1).asLong() > v.path("VCPUs_max").asLong()) {
                    throw new Failure("VALUE_NOT_SUPPORTED", "VCPU_at_startup", a.get(1).asText(), "value too large");
                }
                v.put("VCPUs_at_startup", a.get(1).asLong());
                modified("VM", self);
                return ok;
            }
            case "VM.set_memory_limits": {
                ObjectNode v = requireHalted(self);
                long smin = a.get(1).asLong(), smax = a.get(2).asLong(), dmin = a.get(3).asLong(), dmax = a.get(4).asLong();
                if (!(smin <= dmin && dmin <= dmax && dmax <= smax)) {
                    throw new Failure("MEMORY_CONSTRAINT_VIOLATION", "Memory limits must satisfy: static_min <= dynamic_min <= dynamic_max <= static_max");
                }
                v.put("memory_static_min", smin).put("memory_static_max", smax).put("memory_dynamic_min", dmin).put("memory_dynamic_max", dmax);
                modified("VM", self);
                return ok;
            }
            case "network.create": {
                JsonNode r = a.get(0);
                for (String f : List.of("name_label", "name_description", "MTU", "other_config")) {
                    if (!r.has(f)) throw new Failure("FIELD_MISSING", f);
                }
                ObjectNode n = rec("name_label", r.path("name_label").asText(), "name_description", r.path("name_description").asText());
                n.put("MTU", r.path("MTU").asLong());
                n.set("other_config", r.get("other_config").deepCopy());
                // xapi names an internal network's bridge xapiN; with no PIF it reaches no NIC.
                n.put("bridge", "xapi" + refs.get());
                n.putArray("VIFs");
                n.putArray("PIFs");
                return text(create("network", n));
            }
            case "network.destroy": {
                ObjectNode n = require("network", self);
                if (n.path("VIFs").size() > 0) {
                    List<String> p = new ArrayList<>();
                    n.path("VIFs").forEach(x -> p.add(x.asText()));
                    throw new Failure("NETWORK_CONTAINS_VIF", p.toArray(String[]::new));
                }
                remove("network", self);
                return ok;
            }
            case "VM.add_to_VCPUs_params_live": {
                ObjectNode v = require("VM", self);
                if (!v.path("power_state").asText().equals("Running")) {
                    throw new Failure("VM_BAD_POWER_STATE", self, "running", v.path("power_state").asText().toLowerCase(Locale.ROOT));
                }
                ((ObjectNode) v.get("VCPUs_params")).put(a.get(1).asText(), a.get(2).asText());
                if (a.get(1).asText().equals("weight")) appliedWeights.put(self, weightOf(v));
                modified("VM", self);
                return ok;
            }
            case "VIF.create": {
                JsonNode r = a.get(0);
                for (String f : List.of("device", "network", "VM", "MAC", "MTU", "other_config", "qos_algorithm_type", "qos_algorithm_params")) {
                    if (!r.has(f)) throw new Failure("FIELD_MISSING", f);
                }
                require("VM", r.path("VM").asText());
                String vif = newVif(r.path("VM").asText(), r.path("network").asText(), r.path("device").asText(), r.path("MAC").asText());
                db.get("VIF").get(vif).set("other_config", r.get("other_config").deepCopy());
                db.get("VIF").get(vif).set("qos_algorithm_type", r.get("qos_algorithm_type").deepCopy());
                db.get("VIF").get(vif).set("qos_algorithm_params", r.get("qos_algorithm_params").deepCopy());
                db.get("VIF").get(vif).put("currently_attached", false);
                modified("VIF", vif);
                return text(vif);
            }
            case "VIF.plug": {
                ObjectNode f = require("VIF", self);
                String vm = f.path("VM").asText();
                if (!db.get("VM").get(vm).path("power_state").asText().equals("Running")) {
                    throw new Failure("VM_BAD_POWER_STATE", vm, "running", db.get("VM").get(vm).path("power_state").asText().toLowerCase(Locale.ROOT));
                }
                f.put("currently_attached", true);
                applyRate(self, f);
                modified("VIF", self);
                return ok;
            }
            case "VIF.unplug": {
                require("VIF", self).put("currently_attached", false);
                appliedRates.remove(self);
                modified("VIF", self);
                return ok;
            }
            case "VIF.destroy": {
                ObjectNode f = require("VIF", self);
                if (f.path("currently_attached").asBoolean()) {
                    throw new Failure("OPERATION_NOT_ALLOWED", "VIF is currently attached");
                }
                ObjectNode vm = db.get("VM").get(f.path("VM").asText());
                ArrayNode left = json.createArrayNode();
                vm.path("VIFs").forEach(x -> {
                    if (!x.asText().equals(self)) left.add(x);
                });
                vm.set("VIFs", left);
                modified("VM", f.path("VM").asText());
                offNetwork(self, f);
                remove("VIF", self);
                return ok;
            }
            case "VDI.destroy": {
                ObjectNode d = require("VDI", self);
                if (d.path("VBDs").size() > 0) throw new Failure("VDI_IN_USE", self, "destroy");
                remove("VDI", self);
                return ok;
            }
            case "task.cancel": {
                ObjectNode t = require("task", self);
                if (t.path("status").asText().equals("pending")) {
                    CountDownLatch l = cancels.remove(self);
                    if (l != null) l.countDown();
                    t.put("status", "cancelled");
                    t.putArray("error_info").add("TASK_CANCELLED").add(self);
                    modified("task", self);
                }
                return ok;
            }
            case "task.destroy": require("task", self); remove("task", self); taskSessions.remove(self); return ok;
            case "VM.pool_migrate": {
                ObjectNode v = require("VM", self);
                require("host", a.get(1).asText());
                String now = v.path("power_state").asText();
                if (!now.equals("Running")) throw new Failure("VM_BAD_POWER_STATE", self, "running", now.toLowerCase(Locale.ROOT));
                // the domain moves with its memory: its start time and its VIFs' state stay
                v.put("resident_on", a.get(1).asText());
                modified("VM", self);
                return ok;
            }
            case "host.migrate_receive": {
                require("host", self);
                require("network", a.get(1).asText());
                String token = "OpaqueRef:" + UUID.randomUUID();
                sessions.add(token);
                receiveTokens.add(token);
                ObjectNode dest = json.createObjectNode();
                dest.put("SM", url() + "services/SM?session_id=" + token);
                dest.put("host", self);
                dest.put("xenops", url() + "services/xenops?session_id=" + token);
                dest.put("session_id", token);
                dest.put("master", url().toString());
                return dest;
            }
            case "VM.migrate_send": return text(migrateSend(self, a));
            default: return generic(cls, op, a, method);
        }
    }

    private JsonNode generic(String cls, String op, List<JsonNode> a, String method) {
        Map<String, ObjectNode> table = db.get(cls);
        if (table == null) throw new Failure("MESSAGE_METHOD_UNKNOWN", method);
        String self = a.isEmpty() ? "" : a.get(0).asText();
        switch (op) {
            case "get_all": {
                ArrayNode out = json.createArrayNode();
                table.keySet().forEach(out::add);
                return out;
            }
            case "get_all_records": {
                ObjectNode out = json.createObjectNode();
                table.forEach((k, v) -> out.set(k, v.deepCopy()));
                return out;
            }
            case "get_record": return require(cls, self).deepCopy();
            case "get_by_name_label": {
                ArrayNode out = json.createArrayNode();
                table.forEach((k, v) -> {
                    if (v.path("name_label").asText().equals(self)) out.add(k);
                });
                return out;
            }
            case "get_by_uuid": {
                for (Map.Entry<String, ObjectNode> e : table.entrySet()) {
                    if (e.getValue().path("uuid").asText().equals(self)) return text(e.getKey());
                }
                throw new Failure("UUID_INVALID", cls, self);
            }
            default:
                break;
        }
        if (op.startsWith("get_")) {
            JsonNode v = require(cls, self).get(op.substring(4));
            if (v == null) throw new Failure("MESSAGE_METHOD_UNKNOWN", method);
            return v.deepCopy();
        }
        if (op.startsWith("set_")) {
            ObjectNode r = require(cls, self);
            String field = op.substring(4);
            if (!r.has(field)) throw new Failure("MESSAGE_METHOD_UNKNOWN", method);
            r.set(field, a.get(1));
            modified(cls, self);
            return text("");
        }
        if (op.startsWith("add_to_")) {
            ObjectNode map = (ObjectNode) require(cls, self).get(op.substring(7));
            if (map == null) throw new Failure("MESSAGE_METHOD_UNKNOWN", method);
            String key = a.get(1).asText();
            if (map.has(key)) throw new Failure("MAP_DUPLICATE_KEY", cls, op.substring(7), self, key);
            map.put(key, a.get(2).asText());
            modified(cls, self);
            return text("");
        }
        if (op.startsWith("remove_from_")) {
            ObjectNode map = (ObjectNode) require(cls, self).get(op.substring(12));
            if (map == null) throw new Failure("MESSAGE_METHOD_UNKNOWN", method);
            map.remove(a.get(1).asText());
            modified(cls, self);
            return text("");
        }
        throw new Failure("MESSAGE_METHOD_UNKNOWN", method);
    }

    /** The source's side of a migration to another pool: checks as xapi does, then hands the VM over whole. */
    private String migrateSend(String vm, List<JsonNode> a) {
        ObjectNode v = require("VM", vm);
        JsonNode dest = a.get(1);
        boolean live = a.get(2).asBoolean();
        JsonNode vdiMap = a.get(3);
        JsonNode vifMap = a.get(4);
        String now = v.path("power_state").asText();
        if (live && !now.equals("Running")) throw new Failure("VM_BAD_POWER_STATE", vm, "running", now.toLowerCase(Locale.ROOT));
        FakeXenServer there = POOLS.get(dest.path("master").asText());
        if (there == null || there == this) throw new Failure("CANNOT_CONTACT_HOST", dest.path("master").asText());
        List<ObjectNode> disks = new ArrayList<>();
        for (JsonNode vbd : v.path("VBDs")) {
            String vdi = db.get("VBD").get(vbd.asText()).path("VDI").asText();
            if (!db.get("VDI").containsKey(vdi)) continue;
            if (!vdiMap.has(vdi)) throw new Failure("VDI_NOT_IN_MAP", vdi);
            ObjectNode d = db.get("VDI").get(vdi).deepCopy();
            d.put("SR", vdiMap.get(vdi).asText()).put("userdevice", db.get("VBD").get(vbd.asText()).path("userdevice").asText());
            disks.add(d);
        }
        List<ObjectNode> nics = new ArrayList<>();
        for (JsonNode vif : v.path("VIFs")) {
            if (!vifMap.has(vif.asText())) throw new Failure("VIF_NOT_IN_MAP", vif.asText());
            nics.add(db.get("VIF").get(vif.asText()).deepCopy().put("network", vifMap.get(vif.asText()).asText()));
        }
        ObjectNode metrics = db.get("VM_metrics").get(v.path("metrics").asText()).deepCopy();
        String arrived = there.receive(dest.path("session_id").asText(), dest.path("host").asText(), v.deepCopy(), metrics, disks, nics);
        // the VM now runs there: gone here, disks and all (storage motion copied them)
        destroyVm(vm);
        return arrived;
    }

    /** The destination's side of {@code VM.migrate_send}: the VM as it ran there, running here. */
    private synchronized String receive(String token, String onHost, ObjectNode vm, ObjectNode metrics, List<ObjectNode> disks,
                                        List<ObjectNode> nics) {
        if (!receiveTokens.remove(token)) throw new Failure("SESSION_INVALID", token);
        require("host", onHost);
        for (ObjectNode d : disks) require("SR", d.path("SR").asText());
        for (ObjectNode n : nics) require("network", n.path("network").asText());
        String uuid = vm.path("uuid").asText();
        String m = create("VM_metrics", metrics);
        vm.putArray("VBDs");
        vm.putArray("VIFs");
        String ref = create("VM", vm.put("metrics", m).put("resident_on", onHost));
        vm.put("uuid", uuid);
        for (ObjectNode d : disks) {
            String device = d.remove("userdevice").asText();
            d.putArray("VBDs");
            newVbd(ref, create("VDI", d), device);
        }
        for (ObjectNode n : nics) {
            String vif = newVif(ref, n.path("network").asText(), n.path("device").asText(), n.path("MAC").asText());
            for (String f : List.of("other_config", "qos_algorithm_type", "qos_algorithm_params")) db.get("VIF").get(vif).set(f, n.get(f));
            db.get("VIF").get(vif).put("currently_attached", true);
            applyRate(vif, db.get("VIF").get(vif));
        }
        appliedWeights.put(ref, weightOf(vm));
        modified("VM", ref);
        return ref;
    }

    private JsonNode text(String s) {
        return json.getNodeFactory().textNode(s);
    }

    /** event.from(classes, token, timeout): everything since the token, waiting up to timeout seconds. */
    private JsonNode eventFrom(List<JsonNode> a) {
        Set<String> classes = new HashSet<>();
        a.get(0).forEach(c -> classes.add(c.asText().toLowerCase(Locale.ROOT)));
        String token = a.get(1).asText();
        long waitMillis = (long) (a.get(2).asDouble() * 1000);
        ObjectNode batch = json.createObjectNode();
        ArrayNode out = batch.putArray("events");
        synchronized (this) {
            if (token.isEmpty()) {
                db.forEach((cls, objs) -> {
                    String lc = cls.toLowerCase(Locale.ROOT);
                    if (!classes.contains(lc) && !classes.contains("*")) return;
                    objs.forEach((ref, r) -> out.add(eventJson(new Event(lastEvent, lc, "add", ref, r))));
                });
            } else {
                long since;
                try {
                    since = Long.parseLong(token);
                } catch (NumberFormatException e) {
                    throw new Failure("EVENT_FROM_TOKEN_INVALID", token);
                }
                if (!events.isEmpty() && since < events.get(0).id() - 1) throw new Failure("EVENTS_LOST");
                long end = System.currentTimeMillis() + waitMillis;
                while (true) {
                    if (eventsLost) {
                        eventsLost = false;
                        throw new Failure("EVENTS_LOST");
                    }
                    for (Event e : events) {
                        if (e.id() > since && (classes.contains(e.cls()) || classes.contains("*"))) out.add(eventJson(e));
                    }
                    long left = end - System.currentTimeMillis();
                    if (out.size() > 0 || left <= 0) break;
                    try {
                        wait(left);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        break;
                    }
                }
            }
            batch.putObject("valid_ref_counts");
            batch.put("token", Long.toString(lastEvent));
        }
        return batch;
    }

    private ObjectNode eventJson(Event e) {
        ObjectNode o = json.createObjectNode();
        o.put("id", Long.toString(e.id()));
        o.put("timestamp", Long.toString(System.currentTimeMillis() / 1000));
        o.put("class", e.cls());
        o.put("operation", e.op());
        o.put("ref", e.ref());
        if (e.snapshot() != null && !e.op().equals("del")) o.set("snapshot", e.snapshot().deepCopy());
        return o;
    }

    @Override
    public void close() {
        closed.countDown();
        POOLS.remove(url().toString(), this);
        http.stop(0);
        httpThreads.shutdownNow();
        taskThreads.shutdownNow();
        try {
            taskThreads.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
