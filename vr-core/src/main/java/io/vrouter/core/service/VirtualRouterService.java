package io.vrouter.core.service;

import io.micrometer.core.instrument.Gauge;
import io.vrouter.core.driver.DriverException;
import io.vrouter.core.driver.DriverListener;
import io.vrouter.core.driver.HypervisorDriver;
import io.vrouter.core.driver.PowerState;
import io.vrouter.core.driver.VmRuntime;
import io.vrouter.core.metrics.VrMetrics;
import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.Hypervisor;
import io.vrouter.core.model.OperState;
import io.vrouter.core.model.VirtualRouter;
import io.vrouter.core.model.VirtualRouterList;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import io.vrouter.core.model.VrEvent;
import io.vrouter.core.persistence.ConfigStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one lifecycle service behind every management interface.
 *
 * <p>VRs are held in a map keyed by vmIndex. A request is checked, made durable in the
 * {@link ConfigStore} and answered at once; the hypervisor work runs afterwards on a worker, in
 * request order per VR (each VR has its own queue, its "lane"), moving vmOperState through its
 * transitional states and publishing every change on the {@link EventBus}.
 */
public final class VirtualRouterService implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(VirtualRouterService.class);

    private final HypervisorDriver driver;
    private final ConfigStore store;
    private final VrMetrics metrics;
    private final EventBus events = new EventBus();
    private final ConcurrentSkipListMap<Integer, VrRecord> routers = new ConcurrentSkipListMap<>();
    /** vmName to vmIndex, claimed before a row exists so that two creations cannot share a name. */
    private final ConcurrentHashMap<String, Integer> names = new ConcurrentHashMap<>();
    /** Indices claimed by creations whose rows are not in the map yet; also the lock for claims. */
    private final Set<Integer> pendingIndices = new HashSet<>();
    /** Where the search for a free vmIndex starts: one past the last index created. */
    private final AtomicInteger nextIndex = new AtomicInteger(1);
    private final Map<OperState, AtomicInteger> stateCounts = new EnumMap<>(OperState.class);
    private final ExecutorService workers;
    private final long startNanos = System.nanoTime();
    private volatile long tableLastChangeNanos = startNanos;
    private volatile boolean perVmNotifications = true;
    private volatile boolean bulkNotifications = true;
    private volatile List<VmRuntime> unresolved = List.of();

    /** One VR. Its fields change only on its lane or under its monitor. */
    private static final class VrRecord {
        final int vmIndex;
        volatile VmConfigEntry config;
        volatile OperState operState;
        volatile String reason;
        volatile boolean removing;
        /** The tail of this VR's queue of hypervisor work; guarded by this. */
        CompletableFuture<Void> lane = CompletableFuture.completedFuture(null);

        VrRecord(VmConfigEntry config, OperState operState) {
            this.vmIndex = config.vmIndex;
            this.config = config;
            this.operState = operState;
        }
    }

    public VirtualRouterService(HypervisorDriver driver, ConfigStore store, VrMetrics metrics) {
        this.driver = driver;
        this.store = store;
        this.metrics = metrics;
        for (OperState s : OperState.values()) {
            AtomicInteger count = new AtomicInteger();
            stateCounts.put(s, count);
            Gauge.builder(VrMetrics.ROUTERS, count, AtomicInteger::get)
                    .description("VRs by vmOperState").tag("state", s.label()).register(metrics.registry());
        }
        AtomicInteger threads = new AtomicInteger();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(32, 32, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                r -> {
                    Thread t = new Thread(r, "vr-worker-" + threads.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        pool.allowCoreThreadTimeOut(true);
        this.workers = pool;
    }

    public EventBus events() {
        return events;
    }

    public String driverName() {
        return driver.name();
    }

    /** The admin states the driver can bring a VR to; others are refused with a {@link NotSupportedException}. */
    public Set<AdminState> adminStates() {
        return driver.adminStates();
    }

    /** The templates the driver makes VRs from, its default first. */
    public List<String> templates() {
        return driver.templates();
    }

    // ---------------------------------------------------------------- start-up and reconciliation

    /** What reconciliation found at start-up. */
    public record ReconcileReport(int adopted, int reprovisioned, int removalsResumed, List<VmRuntime> unresolved) {
    }

    /**
     * Loads the stored configuration and reconciles it with the host: adopts the VMs that exist,
     * re-drives the ones that are missing or not in their admin state, resumes unfinished removals,
     * and reports VMs that carry our marker but have no configuration.
     */
    public ReconcileReport start() throws DriverException {
        List<ConfigStore.StoredVr> stored = store.open();
        // Listen before listing, so that no change on the host falls between the two.
        HostChanges hostChanges = new HostChanges();
        driver.setListener(hostChanges);
        Map<Integer, VmRuntime> onHost = new HashMap<>();
        for (VmRuntime vm : driver.list()) onHost.put(vm.vmIndex(), vm);
        int adopted = 0;
        int reprovisioned = 0;
        int removals = 0;
        int maxIndex = 0;
        for (ConfigStore.StoredVr s : stored) {
            VmConfigEntry config = s.config();
            maxIndex = Math.max(maxIndex, config.vmIndex);
            VmRuntime vm = onHost.remove(config.vmIndex);
            VrRecord r = new VrRecord(config, vm == null ? OperState.PREPARING : vm.power().operState());
            routers.put(r.vmIndex, r);
            names.put(config.vmName, r.vmIndex);
            count(null, r.operState);
            if (s.removing()) {
                r.removing = true;
                removals++;
                enqueue(r, () -> doRemove(r));
            } else if (vm == null) {
                reprovisioned++;
                log.warn("VR {} ({}) is configured but not on the host: provisioning it again", r.vmIndex, config.vmName);
                enqueue(r, () -> doCreate(r, r.config.vmAdminState));
            } else {
                adopted++;
                if (stableStateFor(config.vmAdminState) != r.operState) {
                    AdminState target = config.vmAdminState;
                    enqueue(r, () -> doAdminState(r, target));
                }
            }
        }
        nextIndex.set(maxIndex + 1);
        unresolved = List.copyOf(onHost.values());
        for (VmRuntime vm : unresolved) {
            log.warn("the host has VM '{}' marked as vmIndex {}, which has no configuration: left alone",
                    vm.vmName(), vm.vmIndex());
        }
        // A change reported while the rows were being registered found no row: look once more.
        for (VrRecord r : routers.values()) {
            driver.inspect(r.vmIndex).ifPresent(vm -> hostChanges.powerStateChanged(r.vmIndex, vm.power()));
        }
        log.info("reconciled with driver '{}': {} adopted, {} provisioned again, {} removals resumed, {} unresolved",
                driver.name(), adopted, reprovisioned, removals, unresolved.size());
        return new ReconcileReport(adopted, reprovisioned, removals, unresolved);
    }

    /** What keeps the driver from knowing the host's state right now, or empty. */
    public Optional<String> driverProblem() {
        return driver.problem();
    }

    /** VMs on the host that carry our marker but that no configuration claims. */
    public List<VmRuntime> unresolved() {
        return unresolved;
    }

    // ---------------------------------------------------------------- reads

    public Optional<VirtualRouter> get(int vmIndex) {
        VrRecord r = routers.get(vmIndex);
        return r == null ? Optional.empty() : Optional.of(view(r));
    }

    /** The configured row only, without asking the driver: cheap, for interfaces that need just that. */
    public Optional<VmConfigEntry> getConfig(int vmIndex) {
        VrRecord r = routers.get(vmIndex);
        return r == null ? Optional.empty() : Optional.of(r.config);
    }

    public Optional<Integer> findByName(String vmName) {
        return Optional.ofNullable(names.get(vmName)).filter(routers::containsKey);
    }

    /**
     * The vmIndex values in order, a live read-only view, for interfaces that walk the tables from a
     * given index on (SNMP GETNEXT: {@code indices().ceiling(i)}) without copying them.
     */
    public NavigableSet<Integer> indices() {
        return Collections.unmodifiableNavigableSet(routers.keySet());
    }

    /** The first vmIndex greater than the given one, for table walks. */
    public Optional<Integer> nextIndexAfter(int vmIndex) {
        return Optional.ofNullable(routers.higherKey(vmIndex));
    }

    public VirtualRouterList list(RouterQuery query) {
        Pattern name = query.nameRegex();
        List<VirtualRouter> page = new ArrayList<>(Math.min(query.limit(), routers.size()));
        int total = 0;
        for (VrRecord r : routers.values()) {
            if (name != null && !name.matcher(r.config.vmName).matches()) continue;
            if (query.operState() != null && r.operState != query.operState()) continue;
            if (query.adminState() != null && r.config.vmAdminState != query.adminState()) continue;
            if (total >= query.offset() && page.size() < query.limit()) page.add(view(r));
            total++;
        }
        return new VirtualRouterList(total, query.offset(), query.limit(), page);
    }

    public Hypervisor hypervisor() {
        Hypervisor h = driver.hypervisor();
        h.vmNumber = routers.size();
        h.vmTableLastChange = (tableLastChangeNanos - startNanos) / 10_000_000L;
        h.vmPerVMNotificationsEnabled = perVmNotifications;
        h.vmBulkNotificationsEnabled = bulkNotifications;
        h.vmConfigNextAvailableVmIndex = nextAvailableVmIndex();
        h.vmConfiguredVMs = routers.size();
        h.vmActiveVMs = stateCounts.get(OperState.RUNNING).get();
        return h;
    }

    /** vmConfigNextAvailableVmIndex: an index no VR has, to be used for the next row created. */
    public int nextAvailableVmIndex() {
        synchronized (pendingIndices) {
            int i = nextIndex.get();
            while (routers.containsKey(i) || pendingIndices.contains(i)) {
                i = i == Validator.MAX_VM_INDEX ? 1 : i + 1;
            }
            return i;
        }
    }

    public void setNotificationsEnabled(boolean perVm, boolean bulk) {
        this.perVmNotifications = perVm;
        this.bulkNotifications = bulk;
    }

    public boolean perVmNotificationsEnabled() {
        return perVmNotifications;
    }

    public boolean bulkNotificationsEnabled() {
        return bulkNotifications;
    }

    // ---------------------------------------------------------------- writes

    /** Creates one VR. */
    public Accepted create(VmConfigEntry request) {
        if (request == null) throw new ValidationException("body", "a VR description is required");
        return createAll(List.of(request)).get(0);
    }

    /**
     * Creates several VRs as one transaction: every request is checked (names and indices unique
     * among themselves and against existing VRs) before any is accepted, and all are made durable
     * with one write. Either all are accepted or none is.
     */
    public List<Accepted> createAll(List<VmConfigEntry> requests) {
        List<VmConfigEntry> configs = new ArrayList<>(requests.size());
        for (VmConfigEntry request : requests) configs.add(withDriverTemplate(Validator.forCreate(request)));
        List<VmConfigEntry> claimed = new ArrayList<>();
        try {
            for (VmConfigEntry c : configs) {
                claim(c);
                claimed.add(c);
            }
            store.putAll(configs);
        } catch (RuntimeException e) {
            for (VmConfigEntry c : claimed) unclaim(c);
            // Hand the indices out again: vmConfigNextAvailableVmIndex stays where it was.
            claimed.stream().mapToInt(c -> c.vmIndex).min()
                    .ifPresent(lowest -> nextIndex.accumulateAndGet(lowest, Math::min));
            throw e;
        }
        List<Accepted> accepted = new ArrayList<>(configs.size());
        for (VmConfigEntry c : configs) {
            VrRecord r = new VrRecord(c, OperState.PREPARING);
            routers.put(r.vmIndex, r);
            synchronized (pendingIndices) {
                pendingIndices.remove(r.vmIndex);
            }
            tableLastChangeNanos = System.nanoTime();
            count(null, OperState.PREPARING);
            publish(r, VrEvent.Type.CREATED, null);
            VirtualRouter snapshot = view(r);
            AdminState asked = c.vmAdminState;
            accepted.add(new Accepted(snapshot, enqueue(r, () -> doCreate(r, asked))));
        }
        return accepted;
    }

    /** Fills in the driver's default template, or refuses one the driver does not offer. */
    private VmConfigEntry withDriverTemplate(VmConfigEntry c) {
        List<String> offered = driver.templates();
        if (c.vmConfigTemplate == null) {
            c.vmConfigTemplate = offered.get(0);
        } else if (!offered.contains(c.vmConfigTemplate)) {
            throw new ValidationException("vmConfigTemplate", "driver '" + driver.name() + "' has no template '"
                    + c.vmConfigTemplate + "'; it offers " + String.join(", ", offered));
        }
        return c;
    }

    /**
     * Claims the name and the index (allocating one when absent) of a new row. Claims are taken
     * under one lock; a claimed index stays in {@code pendingIndices} until its row is in the map.
     */
    private void claim(VmConfigEntry c) {
        synchronized (pendingIndices) {
            Integer other = names.get(c.vmName);
            if (other != null) {
                throw new ConflictException("vmName", "a VR named '" + c.vmName + "' already exists (vmIndex " + other + ")");
            }
            if (c.vmIndex == null) {
                c.vmIndex = nextAvailableVmIndex();
            } else if (routers.containsKey(c.vmIndex) || pendingIndices.contains(c.vmIndex)) {
                throw new ConflictException("vmIndex", "vmIndex " + c.vmIndex + " is in use");
            }
            nextIndex.set(c.vmIndex == Validator.MAX_VM_INDEX ? 1 : c.vmIndex + 1);
            names.put(c.vmName, c.vmIndex);
            pendingIndices.add(c.vmIndex);
        }
    }

    private void unclaim(VmConfigEntry c) {
        synchronized (pendingIndices) {
            names.remove(c.vmName, c.vmIndex);
            pendingIndices.remove(c.vmIndex);
        }
    }

    /** Removes a VR: shuts it down, destroys it on the host, and forgets it. */
    public Accepted remove(int vmIndex) {
        VrRecord r = require(vmIndex);
        synchronized (r) {
            if (!r.removing) {
                r.removing = true;
                store.put(r.config, true);
                return new Accepted(view(r), enqueue(r, () -> doRemove(r)));
            }
            // Already being removed: the same completion answers this request too.
            return new Accepted(view(r), r.lane.thenApply(v -> Optional.empty()));
        }
    }

    /** Changes what the operator wants the VR to be: running, shutdown, suspended or paused. */
    public Accepted setAdminState(int vmIndex, AdminState target) {
        if (target == null) throw new ValidationException("vmAdminState", "is required");
        VrRecord r = require(vmIndex);
        if (!driver.adminStates().contains(target)) {
            throw new NotSupportedException("vmAdminState", "driver '" + driver.name() + "' cannot make a VR "
                    + target.label());
        }
        synchronized (r) {
            notRemoving(r);
            AdminState current = r.config.vmAdminState;
            if ((target == AdminState.SUSPENDED || target == AdminState.PAUSED) && current == AdminState.SHUTDOWN) {
                throw new ConflictException(null, "VR " + vmIndex + " is shut down: it cannot be " + target.label());
            }
            if (current != target) {
                VmConfigEntry next = r.config.copy();
                next.vmAdminState = target;
                store.put(next, false);
                r.config = next;
            }
            return new Accepted(view(r), enqueue(r, () -> doAdminState(r, target)));
        }
    }

    /**
     * Changes columns of a VR's row: vmName, vmConfigCpuNumber, vmConfigMemory, vmConfigAutoStart
     * (null columns stay as they are). vmConfigTemplate cannot change, the VM was made from it; CPUs
     * and memory change only while the VR's admin state is shutdown, a cold resize as XenServer needs.
     */
    public Accepted reconfigure(int vmIndex, VmConfigEntry changes) {
        VrRecord r = require(vmIndex);
        synchronized (r) {
            notRemoving(r);
            VmConfigEntry current = r.config;
            VmConfigEntry next = Validator.forReconfigure(current, changes);
            if (!next.vmConfigTemplate.equals(current.vmConfigTemplate)) {
                throw new ConflictException("vmConfigTemplate", "VR " + vmIndex + " was made from template '"
                        + current.vmConfigTemplate + "': remove it and create it again to change the template");
            }
            boolean resize = !next.vmConfigCpuNumber.equals(current.vmConfigCpuNumber)
                    || !next.vmConfigMemory.equals(current.vmConfigMemory);
            if (resize && current.vmAdminState != AdminState.SHUTDOWN) {
                throw new ConflictException(!next.vmConfigMemory.equals(current.vmConfigMemory) ? "vmConfigMemory"
                        : "vmConfigCpuNumber", "VR " + vmIndex + " is " + current.vmAdminState.label()
                        + ": stop it before changing its CPUs or memory");
            }
            boolean renamed = !next.vmName.equals(current.vmName);
            if (renamed) {
                synchronized (pendingIndices) {
                    Integer other = names.putIfAbsent(next.vmName, vmIndex);
                    if (other != null) {
                        throw new ConflictException("vmName", "a VR named '" + next.vmName + "' already exists (vmIndex " + other + ")");
                    }
                }
            }
            try {
                store.put(next, false);
            } catch (RuntimeException e) {
                if (renamed) names.remove(next.vmName, vmIndex);
                throw e;
            }
            if (renamed) names.remove(current.vmName, vmIndex);
            r.config = next;
            return new Accepted(view(r), enqueue(r, () -> {
                driverCall("reconfigure", r, () -> driver.reconfigure(next));
                publish(r, VrEvent.Type.CONFIG_CHANGED, r.operState);
            }));
        }
    }

    /**
     * Adds an interface (a vmNetworkConfigTable row) to a VR. When the request has no
     * vmNetworkConfigIndex, the lowest free one is chosen and set on the request.
     */
    public Accepted addInterface(int vmIndex, VmNetworkConfigEntry request) {
        if (request == null) throw new ValidationException("body", "an interface description is required");
        VrRecord r = require(vmIndex);
        synchronized (r) {
            notRemoving(r);
            Set<Integer> used = new HashSet<>();
            for (VmNetworkConfigEntry n : r.config.interfaces()) used.add(n.vmNetworkConfigIndex);
            if (request.vmNetworkConfigIndex != null && used.contains(request.vmNetworkConfigIndex)) {
                throw new ConflictException("vmNetworkConfigIndex", "VR " + vmIndex + " already has interface "
                        + request.vmNetworkConfigIndex);
            }
            VmNetworkConfigEntry iface = Validator.forInterface(request, used, vmIndex);
            request.vmNetworkConfigIndex = iface.vmNetworkConfigIndex;
            VmConfigEntry next = r.config.copy();
            List<VmNetworkConfigEntry> ifaces = new ArrayList<>(next.interfaces());
            ifaces.add(iface);
            ifaces.sort((a, b) -> Integer.compare(a.vmNetworkConfigIndex, b.vmNetworkConfigIndex));
            next.vmNetworkConfigTable = List.copyOf(ifaces);
            store.put(next, false);
            r.config = next;
            return new Accepted(view(r), enqueue(r, () -> {
                driverCall("addInterface", r, () -> driver.addInterface(vmIndex, iface));
                publish(r, VrEvent.Type.CONFIG_CHANGED, r.operState);
            }));
        }
    }

    /** Removes an interface from a VR. */
    public Accepted removeInterface(int vmIndex, int networkIndex) {
        VrRecord r = require(vmIndex);
        synchronized (r) {
            notRemoving(r);
            List<VmNetworkConfigEntry> ifaces = new ArrayList<>(r.config.interfaces());
            if (!ifaces.removeIf(n -> n.vmNetworkConfigIndex == networkIndex)) {
                throw new NotFoundException("VR " + vmIndex + " has no interface " + networkIndex);
            }
            VmConfigEntry next = r.config.copy();
            next.vmNetworkConfigTable = ifaces.isEmpty() ? null : List.copyOf(ifaces);
            store.put(next, false);
            r.config = next;
            return new Accepted(view(r), enqueue(r, () -> {
                driverCall("removeInterface", r, () -> driver.removeInterface(vmIndex, networkIndex));
                publish(r, VrEvent.Type.CONFIG_CHANGED, r.operState);
            }));
        }
    }

    private VrRecord require(int vmIndex) {
        VrRecord r = routers.get(vmIndex);
        if (r == null) throw new NotFoundException("no VR with vmIndex " + vmIndex);
        return r;
    }

    private static void notRemoving(VrRecord r) {
        if (r.removing) throw new ConflictException(null, "VR " + r.vmIndex + " is being removed");
    }

    // ---------------------------------------------------------------- hypervisor work (on lanes)

    /** Queues work on the VR's lane; the result completes with the VR as it is afterwards. */
    private CompletableFuture<Optional<VirtualRouter>> enqueue(VrRecord r, Runnable work) {
        synchronized (r) {
            CompletableFuture<Void> done = r.lane.thenRunAsync(() -> {
                try {
                    work.run();
                } catch (RuntimeException e) {
                    log.error("VR {}: unexpected failure", r.vmIndex, e);
                    transition(r, OperState.CRASHED, "internal error: " + e);
                }
            }, workers);
            r.lane = done;
            return done.thenApply(v -> routers.get(r.vmIndex) == r ? Optional.of(view(r)) : Optional.empty());
        }
    }

    /** Provisions the VM and brings it to the admin state asked for when the creation was accepted. */
    private void doCreate(VrRecord r, AdminState asked) {
        if (r.operState != OperState.PREPARING) transition(r, OperState.PREPARING, null);
        if (!driverCall("provision", r, () -> driver.provision(r.config))) return;
        if (asked == AdminState.RUNNING) {
            if (!driverCall("start", r, () -> driver.start(r.vmIndex))) return;
            transition(r, OperState.RUNNING, null);
        } else {
            transition(r, OperState.SHUTDOWN, null);
        }
    }

    private void doAdminState(VrRecord r, AdminState target) {
        OperState now = r.operState;
        switch (target) {
            case RUNNING:
                if (now == OperState.RUNNING) return;
                // Unpausing is immediate; resuming and booting pass a transitional state.
                if (now != OperState.PAUSED) {
                    transition(r, now == OperState.SUSPENDED ? OperState.RESUMING : OperState.PREPARING, null);
                }
                if (driverCall("start", r, () -> driver.start(r.vmIndex))) transition(r, OperState.RUNNING, null);
                return;
            case SHUTDOWN:
                if (now == OperState.SHUTDOWN) return;
                transition(r, OperState.SHUTTINGDOWN, null);
                if (driverCall("stop", r, () -> driver.stop(r.vmIndex))) transition(r, OperState.SHUTDOWN, null);
                return;
            case SUSPENDED:
            case PAUSED:
                OperState end = target == AdminState.SUSPENDED ? OperState.SUSPENDED : OperState.PAUSED;
                if (now == end) return;
                if (now != OperState.RUNNING && now != OperState.PAUSED && now != OperState.SUSPENDED) {
                    transition(r, OperState.CRASHED, "cannot be " + target.label() + " from " + now.label());
                    return;
                }
                if (target == AdminState.SUSPENDED) transition(r, OperState.SUSPENDING, null);
                if (driverCall(target.label(), r, () -> driver.suspend(r.vmIndex, target))) transition(r, end, null);
                return;
            default:
                throw new IllegalArgumentException(String.valueOf(target));
        }
    }

    private void doRemove(VrRecord r) {
        transition(r, OperState.SHUTTINGDOWN, null);
        boolean halted = driver.inspect(r.vmIndex).map(vm -> vm.power() == PowerState.HALTED).orElse(true);
        if (!halted && !driverCall("stop", r, () -> driver.stop(r.vmIndex))) {
            r.removing = false;
            return;
        }
        if (!driverCall("destroy", r, () -> driver.destroy(r.vmIndex))) {
            // The operator may retry now; the stored intent stays, so a restart retries too.
            r.removing = false;
            return;
        }
        store.remove(r.vmIndex);
        routers.remove(r.vmIndex, r);
        names.remove(r.config.vmName, r.vmIndex);
        tableLastChangeNanos = System.nanoTime();
        count(r.operState, null);
        publish(r, VrEvent.Type.DELETED, r.operState);
    }

    private interface DriverStep {
        void run() throws DriverException;
    }

    /** Runs one driver call, timed; on failure marks the VR crashed with the driver's reason. */
    private boolean driverCall(String operation, VrRecord r, DriverStep step) {
        long t0 = System.nanoTime();
        try {
            step.run();
            metrics.recordHypervisor(operation, true, System.nanoTime() - t0);
            return true;
        } catch (DriverException e) {
            metrics.recordHypervisor(operation, false, System.nanoTime() - t0);
            log.warn("VR {} ({}): {} failed: {}", r.vmIndex, r.config.vmName, operation, e.toString());
            transition(r, OperState.CRASHED, operation + " failed: " + e);
            return false;
        }
    }

    private void transition(VrRecord r, OperState to, String reason) {
        OperState from;
        synchronized (r) {
            from = r.operState;
            r.operState = to;
            r.reason = reason;
        }
        count(from, to);
        if (from != to || reason != null) publish(r, VrEvent.Type.STATE_CHANGED, from);
    }

    private void count(OperState from, OperState to) {
        if (from != null) stateCounts.get(from).decrementAndGet();
        if (to != null) stateCounts.get(to).incrementAndGet();
    }

    private void publish(VrRecord r, VrEvent.Type type, OperState previous) {
        VrEvent e = new VrEvent();
        e.timestamp = Instant.now().toString();
        e.type = type;
        e.vmIndex = r.vmIndex;
        e.vmName = r.config.vmName;
        e.vmAdminState = r.config.vmAdminState;
        e.vmOperState = type == VrEvent.Type.DELETED ? null : r.operState;
        e.previousOperState = previous;
        e.reason = r.reason;
        events.publish(e);
    }

    private static OperState stableStateFor(AdminState admin) {
        switch (admin) {
            case RUNNING: return OperState.RUNNING;
            case SUSPENDED: return OperState.SUSPENDED;
            case PAUSED: return OperState.PAUSED;
            default: return OperState.SHUTDOWN;
        }
    }

    /** Follows changes made on the host behind vrouter's back, when no operation of ours is under way. */
    private final class HostChanges implements DriverListener {
        @Override
        public void powerStateChanged(int vmIndex, PowerState state) {
            powerStateChanged(vmIndex, state, null);
        }

        @Override
        public void powerStateChanged(int vmIndex, PowerState state, String what) {
            VrRecord r = routers.get(vmIndex);
            if (r != null && idle(r) && r.operState != state.operState()) {
                log.info("VR {} ({}) is now {} on the host{}", vmIndex, r.config.vmName, state, what == null ? "" : ": " + what);
                transition(r, state.operState(), what == null ? "changed outside vrouter" : what + " (changed outside vrouter)");
            }
        }

        @Override
        public void vmVanished(int vmIndex) {
            VrRecord r = routers.get(vmIndex);
            if (r != null && idle(r)) {
                log.warn("VR {} ({}) was deleted from the host outside vrouter", vmIndex, r.config.vmName);
                transition(r, OperState.CRASHED, "the VM was deleted from the host outside vrouter");
            }
        }

        private boolean idle(VrRecord r) {
            synchronized (r) {
                return r.lane.isDone() && !r.removing;
            }
        }
    }

    // ---------------------------------------------------------------- views

    /** The VR as interfaces show it: the configured row plus what the host reports now. */
    private VirtualRouter view(VrRecord r) {
        VirtualRouter v = new VirtualRouter();
        r.config.copyColumnsTo(v);
        Optional<VmRuntime> vm = driver.inspect(r.vmIndex);
        v.vmEntry = vm.map(VmRuntime::entry).orElseGet(VmEntry::new);
        v.vmEntry.vmOperState = r.operState;
        v.vmEntry.vmOperStateReason = r.reason;
        vm.ifPresent(rt -> {
            v.vmCpuTable = rt.cpus();
            v.vmStorageTable = rt.storage();
            v.vmNetworkTable = rt.networks();
        });
        return v;
    }

    /** Stops taking work, lets running hypervisor calls finish for a few seconds, and closes. */
    @Override
    public void close() {
        workers.shutdown();
        try {
            if (!workers.awaitTermination(5, TimeUnit.SECONDS)) {
                log.warn("hypervisor work still running at shutdown; it is re-driven at the next start");
                workers.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        driver.close();
        store.close();
        events.close();
    }
}
