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
import io.vrouter.core.model.InetAddressType;
import io.vrouter.core.model.OperState;
import io.vrouter.core.model.VirtualRouter;
import io.vrouter.core.model.VirtualRouterList;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import io.vrouter.core.model.VmNetworkEntry;
import io.vrouter.core.model.VrEvent;
import io.vrouter.core.persistence.ConfigStore;
import io.vrouter.core.service.ChangeCheck.Kind;
import io.vrouter.core.service.ChangeCheck.Target;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
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
 * <p>Every change, from any interface, is a {@link ChangeSet}: {@link #apply} checks all of it
 * against the VRs as they are ({@link ChangeCheck}: every rule about VRs is there), makes it durable
 * with one journal write, answers at once, and runs the hypervisor work afterwards on the workers
 * ({@link ChangeRun}), after the earlier work of every VR and name it touches; a step that fails
 * undoes the whole set. VRs are held in a map keyed by vmIndex; every change of state is published on
 * the {@link EventBus}.
 */
public final class VirtualRouterService implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(VirtualRouterService.class);
    /** A MAC a driver reports that the row can take (a host may report none, or an empty one). */
    private static final Pattern MAC = Pattern.compile(VmNetworkConfigEntry.MAC_PATTERN);

    private final HypervisorDriver driver;
    private final ConfigStore store;
    private final VrMetrics metrics;
    private final EventBus events = new EventBus();
    private final ConcurrentSkipListMap<Integer, VrRecord> routers = new ConcurrentSkipListMap<>();
    /** vmName to vmIndex, as the rows have it; a removed VR keeps its name until its VM is gone. */
    private final ConcurrentHashMap<String, Integer> names = new ConcurrentHashMap<>();
    /**
     * Taken to check, record and schedule a change set (and to put one back), so that sets are
     * checked against each other in the order they are accepted. Reads never take it.
     */
    private final Object writeLock = new Object();
    /** The last set accepted on each VR and on each name, until it is done; guarded by writeLock. */
    private final Map<Integer, ChangeRun> vrTails = new HashMap<>();
    private final Map<String, ChangeRun> nameTails = new HashMap<>();
    private long sets;
    /** Where the search for a free vmIndex starts: one past the last index created. */
    private final AtomicInteger nextIndex = new AtomicInteger(1);
    private final Map<OperState, AtomicInteger> stateCounts = new EnumMap<>(OperState.class);
    private final ExecutorService workers;
    private final long startNanos = System.nanoTime();
    private volatile long tableLastChangeNanos = startNanos;
    private volatile boolean perVmNotifications = true;
    private volatile boolean bulkNotifications = true;
    private volatile List<VmRuntime> unresolved = List.of();
    private volatile boolean undo = true;
    /** Names this run of the service in every version's tag, so that tags never repeat across restarts. */
    private final String epoch = Long.toString(System.currentTimeMillis(), 36);
    /** Guards the version count; taken inside a VR's lock, never the other way round. */
    private final Object versionLock = new Object();
    private long versionCount;
    private volatile Version storeVersion = nextVersion();

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

    /** The vmConfigTemplate values the driver offers, its default first. */
    public List<String> templates() {
        return driver.templates();
    }

    // ---------------------------------------------------------------- start-up and reconciliation

    /** What reconciliation found at start-up. */
    public record ReconcileReport(int adopted, int reprovisioned, int removalsResumed, List<VmRuntime> unresolved) {
    }

    /**
     * Loads the stored configuration and reconciles it with the host: adopts the VMs that exist and
     * brings each to its row (name, CPUs, memory, interfaces, admin state: a change set cut short by
     * a crash is finished), provisions the ones that are missing, resumes unfinished removals, and
     * reports VMs that carry our marker but have no configuration.
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
        Map<VrRecord, VmRuntime> drifted = new LinkedHashMap<>();
        Map<VrRecord, VmRuntime> adoptedVms = new HashMap<>();
        for (ConfigStore.StoredVr s : stored) {
            VmConfigEntry config = s.config();
            maxIndex = Math.max(maxIndex, config.vmIndex);
            VmRuntime vm = onHost.remove(config.vmIndex);
            VrRecord r = new VrRecord(config, vm == null ? OperState.PREPARING : vm.power().operState());
            touch(r);
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
                enqueue(r, () -> doCreate(r));
            } else {
                adopted++;
                if (!matches(config, vm) || stableStateFor(config.vmAdminState) != r.operState) drifted.put(r, vm);
                if (lacksMac(config)) adoptedVms.put(r, vm);
            }
        }
        recordGeneratedMacs(adoptedVms);
        if (!drifted.isEmpty()) converge(drifted);
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

    /** Whether the VM is as the row says: its name, CPUs, memory and interfaces (parent, MAC if given). */
    private static boolean matches(VmConfigEntry c, VmRuntime vm) {
        VmEntry e = vm.entry();
        long unit = e.vmMemUnit == null ? 1 : e.vmMemUnit;
        if (!c.vmName.equals(vm.vmName()) || !Objects.equals(e.vmMaxCpuNumber, c.vmConfigCpuNumber)
                || e.vmMaxMem == null || e.vmMaxMem * unit != c.vmConfigMemory * 1024L * 1024L) {
            return false;
        }
        List<VmNetworkEntry> nets = vm.networks() == null ? List.of() : vm.networks();
        if (nets.size() != c.interfaces().size()) return false;
        for (VmNetworkConfigEntry n : c.interfaces()) {
            if (nets.stream().noneMatch(h -> sameOnHost(n, h))) return false;
        }
        return true;
    }

    private static boolean sameOnHost(VmNetworkConfigEntry n, VmNetworkEntry h) {
        return Objects.equals(h.vmNetworkIndex, n.vmNetworkConfigIndex)
                && Objects.equals(h.vmNetworkParent, n.vmNetworkConfigParent)
                && (n.vmNetworkConfigPhysAddress == null || n.vmNetworkConfigPhysAddress.equals(h.vmNetworkPhysAddress));
    }

    /**
     * Brings adopted VMs that differ from their rows to them, in one task on their lanes: stops,
     * renames (in an order where no two VMs share a name), the rest of each row, interfaces, admin
     * states. A step that fails crashes its VR with the reason, as any work of reconciliation.
     */
    private void converge(Map<VrRecord, VmRuntime> drifted) {
        Map<VrRecord, String> current = new LinkedHashMap<>();
        Map<VrRecord, String> wanted = new LinkedHashMap<>();
        drifted.forEach((r, vm) -> {
            current.put(r, vm.vmName());
            wanted.put(r, r.config.vmName);
        });
        CompletableFuture<Void> task = CompletableFuture.runAsync(() -> {
            Set<VrRecord> crashed = new LinkedHashSet<>();
            drifted.forEach((r, vm) -> {
                boolean off = r.config.vmAdminState == AdminState.SHUTDOWN || !sizeMatches(r.config, vm);
                if (off && r.operState != OperState.SHUTDOWN) guarded(r, crashed, () -> bringTo(r, AdminState.SHUTDOWN));
            });
            for (var wave : RenameOrder.waves(current, wanted, r -> "vr" + r.vmIndex + "-renaming")) {
                for (var m : wave) {
                    VmConfigEntry row = r(m.vm().config, m.name());
                    guarded(m.vm(), crashed, () -> call("reconfigure", () -> driver.reconfigure(row)));
                }
            }
            drifted.forEach((r, vm) -> guarded(r, crashed, () -> {
                call("reconfigure", () -> driver.reconfigure(r.config));
                List<VmNetworkEntry> nets = vm.networks() == null ? List.of() : vm.networks();
                for (VmNetworkEntry h : nets) {
                    if (r.config.interfaces().stream().noneMatch(n -> sameOnHost(n, h))) {
                        call("removeInterface", () -> driver.removeInterface(r.vmIndex, h.vmNetworkIndex));
                    }
                }
                for (VmNetworkConfigEntry n : r.config.interfaces()) {
                    if (nets.stream().noneMatch(h -> sameOnHost(n, h))) call("addInterface", () -> driver.addInterface(r.vmIndex, n));
                }
                recordGeneratedMacs(r);
                bringTo(r, r.config.vmAdminState);
            }));
        }, workers);
        for (VrRecord r : drifted.keySet()) {
            synchronized (r) {
                r.lane = task;
            }
        }
    }

    /** Whether the VM has the CPUs and memory of its row (a resize needs it shut down). */
    private static boolean sizeMatches(VmConfigEntry c, VmRuntime vm) {
        VmEntry e = vm.entry();
        long unit = e.vmMemUnit == null ? 1 : e.vmMemUnit;
        return Objects.equals(e.vmMaxCpuNumber, c.vmConfigCpuNumber) && e.vmMaxMem != null
                && e.vmMaxMem * unit == c.vmConfigMemory * 1024L * 1024L;
    }

    private static VmConfigEntry r(VmConfigEntry row, String name) {
        VmConfigEntry c = row.copy();
        c.vmName = name;
        return c;
    }

    /** Runs a step of reconciliation; a failure crashes the VR with the reason, and its later steps are skipped. */
    private void guarded(VrRecord r, Set<VrRecord> crashed, DriverStep step) {
        if (crashed.contains(r)) return;
        try {
            step.run();
        } catch (DriverException e) {
            crashed.add(r);
            log.warn("VR {} ({}): bringing it to its configuration failed: {}", r.vmIndex, r.config.vmName, e.toString());
            transition(r, OperState.CRASHED, "reconciliation failed: " + e);
        }
    }

    /** What keeps the driver from knowing the host's state right now, or empty. */
    public Optional<String> driverProblem() {
        return driver.problem();
    }

    /** What keeps the server from recording changes right now (its data directory refuses writes), or empty. */
    public Optional<String> storageProblem() {
        return store.writeProblem();
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

    /**
     * The VR's {@link Version}, for ETags and Last-Modified; read it before the representation it
     * goes with.
     */
    public Optional<Version> version(int vmIndex) {
        VrRecord r = routers.get(vmIndex);
        return r == null ? Optional.empty() : Optional.of(r.version);
    }

    /** The datastore's {@link Version}: it changes with every VR's, and when a VR is gone (for lists). */
    public Version version() {
        return storeVersion;
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
        int i = nextIndex.get();
        while (routers.containsKey(i)) i = i == Validator.MAX_VM_INDEX ? 1 : i + 1;
        return i;
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

    // ---------------------------------------------------------------- writes: change sets

    /**
     * What {@link #apply} accepted: each VR as accepted (in the set's order), the set's outcome, and
     * what makes its journal record durable ({@link #awaitDurable}).
     */
    public record Applied(List<Accepted> routers, CompletableFuture<Void> completion, Runnable durable) {
        /** The one VR of a set of one. */
        public Accepted only() {
            return routers.get(0);
        }

        /** Returns once the set's journal record is durable: at once after {@link #apply}; after {@link #accept}, a flush. */
        public void awaitDurable() {
            durable.run();
        }
    }

    /**
     * Checks a change set against the VRs as they are and, when every rule holds, accepts it: one
     * journal record makes it durable before this returns, the VRs show their new rows at once (a
     * flush of the disk before that), and the hypervisor work runs once the record is durable, after the earlier work of every VR and name it touches. A set that breaks a
     * rule throws the {@link VrException} naming the VR, the column and the reason, and changes
     * nothing; a set whose hypervisor work fails is undone whole, and its completion (and that of each
     * VR) fails with a {@link ChangeFailedException}.
     */
    public Applied apply(ChangeSet set) {
        Applied applied = accept(set, true);
        applied.awaitDurable();
        return applied;
    }

    /**
     * Accepts a set as {@link #apply} does and returns before its journal record is flushed to disk,
     * for an interface that holds a lock of its own around accepting (NETCONF's datastores): it lets
     * go of that lock, then calls {@link Applied#awaitDurable} before it tells anyone the set was
     * accepted. Sets accepted meanwhile share one flush (ConfigStore.sync). The set's hypervisor
     * work waits for the flush whatever the caller does. Readers and event subscribers see the set
     * up to one flush before it is durable; a crash in that moment loses it as if never asked for.
     */
    public Applied accept(ChangeSet set) {
        return accept(set, false);
    }

    /**
     * @param callerSyncs the caller makes the record durable at once ({@link #apply}), and with it
     *     lets the set's work start: no worker is woken just to wait for the same flush (issue 16)
     */
    private Applied accept(ChangeSet set, boolean callerSyncs) {
        if (set == null || set.isEmpty()) throw new ValidationException("body", "nothing to change");
        synchronized (writeLock) {
            conditions(set);
            List<Target> targets = checker().check(set);
            long record = journal(targets);
            ChangeRun run = new ChangeRun(this, ++sets, register(targets));
            // The VRs as accepted, before their work can start.
            List<Accepted> accepted = new ArrayList<>(run.targets.size());
            for (Target t : run.targets) accepted.add(accepted(run, t.record()));
            // (thenRunAsync, not runAsync: a pool shut down fails the future instead of throwing here)
            CompletableFuture<Void> durable = callerSyncs ? new CompletableFuture<>()
                    : CompletableFuture.completedFuture(null).thenRunAsync(() -> store.sync(record), workers);
            schedule(run, durable);
            // the set's events (numbered up to here) are delivered once it is durable, or earlier by another publisher
            long lastEvent = events.sequenceNow();
            return new Applied(accepted, run.outcome, () -> {
                try {
                    store.sync(record);
                } catch (RuntimeException | Error e) {
                    // never leave the set's lanes waiting on a record whose sync ended in an error
                    durable.completeExceptionally(e);
                    throw e;
                }
                durable.complete(null);
                events.deliver(lastEvent);
            });
        }
    }

    /**
     * Checks a change set as {@link #apply} does, and changes nothing: for NETCONF's test-option and
     * validate, a candidate's commit, any dry run. Returns the rows the set would make (defaults
     * filled in, interfaces numbered), of the VRs it creates or changes, in its order.
     */
    public List<VmConfigEntry> validate(ChangeSet set) {
        if (set == null || set.isEmpty()) return List.of();
        List<Target> targets;
        synchronized (writeLock) {
            conditions(set);
            targets = checker().check(set);
        }
        List<VmConfigEntry> rows = new ArrayList<>(targets.size());
        for (Target t : targets) {
            if (t.after() != null) rows.add(t.after().copy());
        }
        return rows;
    }

    /** The set's conditions on versions; a VR that is not there is left to the rules (a 404 before a 412). */
    private void conditions(ChangeSet set) {
        for (ChangeSet.Condition c : set.conditions()) {
            if (c.vmIndex() == null) {
                if (!c.holds().test(storeVersion)) {
                    throw new PreconditionFailedException("the VRs have changed since the version the request names");
                }
                continue;
            }
            VrRecord r = routers.get(c.vmIndex());
            if (r != null && !c.holds().test(r.version)) {
                throw new PreconditionFailedException("VR " + c.vmIndex() + " has changed since the version the request"
                        + " names").at(c.vmIndex(), null);
            }
        }
    }

    private ChangeCheck checker() {
        return new ChangeCheck(routers, names, driver, i -> !routers.containsKey(i), nextAvailableVmIndex());
    }

    /**
     * Writes the set's one journal record (the rows it writes, and the VRs it marks as being removed)
     * and returns its number, for {@link ConfigStore#sync}.
     */
    private long journal(List<Target> targets) {
        ConfigStore.Change record = store.change();
        for (Target t : targets) {
            if (t.kind() == Kind.REMOVE) {
                record.markRemoving(t.before());
            } else if (t.kind() != Kind.JOIN) {
                record.put(t.after());
            }
        }
        return record.write();
    }

    /** Puts the accepted rows in the registry; returns the targets with the records of the new VRs. */
    private List<Target> register(List<Target> targets) {
        List<Target> out = new ArrayList<>(targets.size());
        for (Target t : targets) {
            if (t.kind() == Kind.CHANGE) names.remove(t.before().vmName, t.vmIndex());
        }
        for (Target t : targets) {
            switch (t.kind()) {
                case CREATE -> {
                    VrRecord r = new VrRecord(t.after(), OperState.PREPARING);
                    routers.put(r.vmIndex, r);
                    names.put(t.after().vmName, r.vmIndex);
                    nextIndex.set(r.vmIndex == Validator.MAX_VM_INDEX ? 1 : r.vmIndex + 1);
                    tableLastChangeNanos = System.nanoTime();
                    count(null, OperState.PREPARING);
                    publish(r, VrEvent.Type.CREATED, null);
                    out.add(new Target(t.kind(), t.vmIndex(), r, null, t.after()));
                    continue;
                }
                case CHANGE -> {
                    t.record().config = t.after();
                    names.put(t.after().vmName, t.vmIndex());
                    touch(t.record());
                }
                case REMOVE -> {
                    t.record().removing = true;
                    touch(t.record());
                }
                default -> {
                    // JOIN: the removal under way answers
                }
            }
            out.add(t);
        }
        return out;
    }

    /**
     * Queues the set after the earlier sets and work of every VR and name it touches, so that two
     * sets on one VR never interleave, and a set that takes a name another gives up waits for it;
     * it becomes a dependent of those sets, and is not applied if one of them fails.
     */
    private void schedule(ChangeRun run, CompletableFuture<Void> durable) {
        Map<Object, CompletableFuture<Void>> before = new LinkedHashMap<>();
        before.put(durable, durable);
        for (Target t : run.targets) {
            VrRecord r = t.record();
            synchronized (r) {
                before.put(r, r.lane);
            }
            dependOn(run, vrTails.get(r.vmIndex));
            for (VmConfigEntry row : new VmConfigEntry[] {t.before(), t.after()}) {
                if (row != null) dependOn(run, nameTails.get(row.vmName));
            }
        }
        for (ChangeRun earlier : new LinkedHashSet<>(run.dependsOn)) before.put(earlier, earlier.done);
        CompletableFuture<Throwable> ended = CompletableFuture.allOf(before.values().toArray(CompletableFuture[]::new))
                .thenComposeAsync(v -> run.execute(), workers)
                .handle((v, e) -> {
                    finished(run);
                    return e;
                });
        CompletableFuture<Void> done = ended.thenApply(e -> null);
        // The outcome follows the lanes: whoever learns that a set is done finds its VRs idle.
        done.thenRun(() -> run.complete(ended.join()));
        run.done = done;
        for (Target t : run.targets) {
            synchronized (t.record()) {
                t.record().lane = done;
            }
            vrTails.put(t.vmIndex(), run);
            if (t.before() != null) nameTails.put(t.before().vmName, run);
            if (t.after() != null) nameTails.put(t.after().vmName, run);
        }
    }

    private static void dependOn(ChangeRun run, ChangeRun earlier) {
        if (earlier == null || earlier == run || run.dependsOn.contains(earlier)) return;
        run.dependsOn.add(earlier);
        earlier.dependents.add(run);
    }

    private void finished(ChangeRun run) {
        synchronized (writeLock) {
            for (Target t : run.targets) {
                vrTails.remove(t.vmIndex(), run);
                if (t.before() != null) nameTails.remove(t.before().vmName, run);
                if (t.after() != null) nameTails.remove(t.after().vmName, run);
            }
        }
    }

    /** A VR's part of an accepted set: its row as accepted, and its view once the set is done. */
    private Accepted accepted(ChangeRun run, VrRecord r) {
        CompletableFuture<Optional<VirtualRouter>> completion = run.outcome.handle((v, e) -> {
            if (e != null) throw e instanceof CompletionException ce ? ce : new CompletionException(e);
            return routers.get(r.vmIndex) == r ? Optional.of(view(r)) : Optional.<VirtualRouter>empty();
        });
        Version version = r.version;
        return new Accepted(view(r), version, completion);
    }

    /**
     * A VM destroyed by a set: its row goes at once (recorded first, so that its vmIndex and name are
     * free only once the journal says so), as a destroy cannot be undone; the VRs of a removal of
     * many disappear one by one, as their VMs do.
     */
    void gone(VrRecord r) {
        long record;
        synchronized (writeLock) {
            record = store.change().remove(r.vmIndex).write();
        }
        // the flush shared with other writers, outside the lock; the VR keeps its index and name until then
        store.sync(record);
        synchronized (writeLock) {
            forget(r, null);
        }
        events.deliver();
    }

    /**
     * A set undone: its rows go back as they were before it, and so do those of the sets that
     * depend on it, which are then not applied (they were checked against rows that now never
     * were); latest first, with one journal record. The VRs' states are then as the host reports.
     */
    void undone(ChangeRun run, VrRecord failed, List<VrRecord> undoFailed) {
        VrException error = run.error();
        synchronized (writeLock) {
            List<ChangeRun> all = new ArrayList<>();
            collectDependents(run, all);
            for (ChangeRun d : all) {
                d.abortedBy = (ChangeFailedException) new ChangeFailedException(error.field(), "not applied: it depended on"
                        + " a change that failed (" + error.getMessage() + ")").at(error.vmIndex(), error.networkIndex());
            }
            all.sort(Comparator.comparingLong((ChangeRun x) -> x.sequence).reversed());
            all.add(run);
            Map<Integer, VmConfigEntry> puts = new LinkedHashMap<>();
            Set<Integer> removes = new LinkedHashSet<>();
            for (ChangeRun x : all) putBack(x, x == run ? error.getMessage() : x.abortedBy.getMessage(), puts, removes);
            puts.keySet().removeAll(removes);
            ConfigStore.Change record = store.change();
            puts.values().forEach(record::put);
            removes.forEach(record::remove);
            record.commit();
        }
        events.deliver();
        for (Target t : run.targets) {
            VrRecord r = t.record();
            if (routers.get(r.vmIndex) != r || undoFailed.contains(r)) continue;
            // As the host has it now, with why the change did not happen on the VR it failed on.
            OperState host = driver.inspect(r.vmIndex).map(vm -> vm.power().operState()).orElse(OperState.CRASHED);
            transition(r, host, r == failed ? error.getMessage() : null);
        }
    }

    private static void collectDependents(ChangeRun run, List<ChangeRun> into) {
        for (ChangeRun d : run.dependents) {
            if (d.abortedBy == null && !into.contains(d)) {
                into.add(d);
                collectDependents(d, into);
            }
        }
    }

    /** Puts one set's rows back as they were before it. */
    private void putBack(ChangeRun run, String reason, Map<Integer, VmConfigEntry> puts, Set<Integer> removes) {
        for (Target t : run.targets) {
            if (t.kind() == Kind.CHANGE) names.remove(t.after().vmName, t.vmIndex());
        }
        for (Target t : run.targets) {
            VrRecord r = t.record();
            switch (t.kind()) {
                case CREATE -> {
                    forget(r, reason);
                    removes.add(r.vmIndex);
                }
                case CHANGE -> {
                    r.config = t.before();
                    names.put(t.before().vmName, t.vmIndex());
                    puts.put(r.vmIndex, t.before());
                    touch(r);
                }
                case REMOVE -> {
                    if (!run.destroyed.contains(r)) {
                        r.removing = false;
                        puts.put(r.vmIndex, t.before());
                        touch(r);
                    }
                }
                default -> {
                    // JOIN: not this set's to put back
                }
            }
        }
    }

    /** Drops a VR from the registry (its VM is gone) and says so. */
    private void forget(VrRecord r, String reason) {
        if (!routers.remove(r.vmIndex, r)) return;
        names.remove(r.config.vmName, r.vmIndex);
        tableLastChangeNanos = System.nanoTime();
        count(r.operState, null);
        r.reason = reason;
        publish(r, VrEvent.Type.DELETED, r.operState);
    }

    /** For the tests that show what undoing is for: a failed set is then left half done. */
    void setUndoForTests(boolean enabled) {
        this.undo = enabled;
    }

    boolean undoEnabled() {
        return undo;
    }

    // ---------------------------------------------------------------- hypervisor work

    /** Queues work of reconciliation on the VR's lane. */
    private void enqueue(VrRecord r, Runnable work) {
        synchronized (r) {
            r.lane = r.lane.thenRunAsync(() -> {
                try {
                    work.run();
                } catch (RuntimeException e) {
                    log.error("VR {}: unexpected failure", r.vmIndex, e);
                    transition(r, OperState.CRASHED, "internal error: " + e);
                }
            }, workers);
        }
    }

    /** Provisions a VM again at start-up and brings it to its admin state. */
    private void doCreate(VrRecord r) {
        guarded(r, new java.util.HashSet<>(), () -> {
            if (r.operState != OperState.PREPARING) transition(r, OperState.PREPARING, null);
            call("provision", () -> driver.provision(r.config));
            recordGeneratedMacs(r);
            if (r.config.vmAdminState == AdminState.SHUTDOWN) {
                transition(r, OperState.SHUTDOWN, null);
            } else {
                bringTo(r, r.config.vmAdminState);
            }
        });
    }

    /** Resumes a removal at start-up. */
    private void doRemove(VrRecord r) {
        Set<VrRecord> crashed = new java.util.HashSet<>();
        guarded(r, crashed, () -> {
            transition(r, OperState.SHUTTINGDOWN, null);
            if (!halted(r.vmIndex)) call("stop", () -> driver.stop(r.vmIndex));
            call("destroy", () -> driver.destroy(r.vmIndex));
        });
        if (!crashed.isEmpty()) {
            // The operator may retry now; the stored intent stays, so a restart retries too.
            r.removing = false;
            return;
        }
        synchronized (writeLock) {
            store.remove(r.vmIndex);
            forget(r, null);
        }
        events.deliver();
    }

    /**
     * Brings a VR to an admin state through the transitional states (preparing or resuming to
     * running, shuttingdown to shutdown, suspending to suspended); nothing when it is there already.
     * A driver failure is thrown; the state then is what the caller makes of it.
     */
    void bringTo(VrRecord r, AdminState target) throws DriverException {
        OperState now = r.operState;
        switch (target) {
            case RUNNING -> {
                if (now == OperState.RUNNING) return;
                // Unpausing is immediate; resuming and booting pass a transitional state.
                if (now != OperState.PAUSED) {
                    transition(r, now == OperState.SUSPENDED ? OperState.RESUMING : OperState.PREPARING, null);
                }
                call("start", () -> driver.start(r.vmIndex));
                transition(r, OperState.RUNNING, null);
            }
            case SHUTDOWN -> {
                if (now == OperState.SHUTDOWN) return;
                transition(r, OperState.SHUTTINGDOWN, null);
                call("stop", () -> driver.stop(r.vmIndex));
                transition(r, OperState.SHUTDOWN, null);
            }
            default -> {
                OperState end = target == AdminState.SUSPENDED ? OperState.SUSPENDED : OperState.PAUSED;
                if (now == end) return;
                if (now != OperState.RUNNING && now != OperState.PAUSED && now != OperState.SUSPENDED) {
                    throw new DriverException("BAD_POWER_STATE", "cannot be " + target.label() + " from " + now.label());
                }
                if (target == AdminState.SUSPENDED) transition(r, OperState.SUSPENDING, null);
                call(target.label(), () -> driver.suspend(r.vmIndex, target));
                transition(r, end, null);
            }
        }
    }

    boolean halted(int vmIndex) {
        return driver.inspect(vmIndex).map(vm -> vm.power() == PowerState.HALTED).orElse(true);
    }

    /**
     * Records in the VR's row the MACs the hypervisor generated for its interfaces given without one,
     * once the VM has them (after a provision, an interface added; at start-up for the VMs adopted):
     * every interface then reads the row and shows the MAC the VM has, none asks the driver for it
     * (one truth: REST, SNMP, NETCONF and RESTCONF alike), and a VM made again from the row keeps
     * it. An interface changed or removed meanwhile is left as it is.
     */
    void recordGeneratedMacs(VrRecord r) {
        if (lacksMac(r.config)) driver.inspect(r.vmIndex).ifPresent(vm -> recordGeneratedMacs(Map.of(r, vm)));
    }

    /** Whether the host may have generated a MAC the row does not hold yet. */
    private static boolean lacksMac(VmConfigEntry row) {
        return row.interfaces().stream().anyMatch(n -> n.vmNetworkConfigPhysAddress == null);
    }

    /** The same for several VRs, with one journal record. */
    private void recordGeneratedMacs(Map<VrRecord, VmRuntime> vms) {
        if (vms.isEmpty()) return;
        long record;
        synchronized (writeLock) {
            ConfigStore.Change change = store.change();
            for (Map.Entry<VrRecord, VmRuntime> e : vms.entrySet()) {
                VrRecord r = e.getKey();
                if (routers.get(r.vmIndex) != r || r.removing) continue;
                VmConfigEntry row = withGeneratedMacs(r.config, e.getValue());
                if (row == null) continue;
                change.put(row);
                r.config = row;
                touch(r);
            }
            if (change.isEmpty()) return;
            record = change.write();
        }
        store.sync(record);
    }

    /** The row with the host's MAC on each interface it has without one (the host's as the row says), or null: none. */
    private static VmConfigEntry withGeneratedMacs(VmConfigEntry row, VmRuntime vm) {
        List<VmNetworkEntry> nets = vm.networks() == null ? List.of() : vm.networks();
        List<VmNetworkConfigEntry> out = new ArrayList<>(row.interfaces().size());
        boolean found = false;
        for (VmNetworkConfigEntry n : row.interfaces()) {
            String mac = n.vmNetworkConfigPhysAddress != null ? null : nets.stream().filter(h -> sameOnHost(n, h))
                    .map(h -> h.vmNetworkPhysAddress).filter(m -> m != null && MAC.matcher(m).matches())
                    .findFirst().orElse(null);
            if (mac == null) {
                out.add(n);
                continue;
            }
            VmNetworkConfigEntry withMac = n.copy();
            withMac.vmNetworkConfigPhysAddress = mac.toLowerCase(Locale.ROOT);
            out.add(withMac);
            found = true;
        }
        if (!found) return null;
        VmConfigEntry c = row.copy();
        c.vmNetworkConfigTable = List.copyOf(out);
        return c;
    }

    interface DriverStep {
        void run() throws DriverException;
    }

    /** Runs one driver call, timed. */
    void call(String operation, DriverStep step) throws DriverException {
        long t0 = System.nanoTime();
        try {
            step.run();
            metrics.recordHypervisor(operation, true, System.nanoTime() - t0);
        } catch (DriverException e) {
            metrics.recordHypervisor(operation, false, System.nanoTime() - t0);
            throw e;
        }
    }

    HypervisorDriver driver() {
        return driver;
    }

    ExecutorService workers() {
        return workers;
    }

    void configChanged(VrRecord r) {
        publish(r, VrEvent.Type.CONFIG_CHANGED, r.operState);
    }

    /**
     * Moves a VR to a state, with why (null: as asked). The event says why; vmOperStateReason keeps it
     * only while the VR is not in the state its vmAdminState asks for (crashed, or changed outside
     * vrouter): a change that failed and was undone leaves a VR as it was, with nothing to explain.
     */
    void transition(VrRecord r, OperState to, String reason) {
        OperState from;
        synchronized (r) {
            from = r.operState;
            r.operState = to;
            r.reason = asAsked(r) ? null : reason;
        }
        count(from, to);
        if (from != to || reason != null) publish(r, VrEvent.Type.STATE_CHANGED, from, reason);
    }

    /** Whether the VR is in the state its vmAdminState asks for. */
    private static boolean asAsked(VrRecord r) {
        return r.operState == stableStateFor(r.config.vmAdminState);
    }

    private void count(OperState from, OperState to) {
        if (from != null) stateCounts.get(from).decrementAndGet();
        if (to != null) stateCounts.get(to).incrementAndGet();
    }

    private void publish(VrRecord r, VrEvent.Type type, OperState previous) {
        publish(r, type, previous, r.reason);
    }

    private void publish(VrRecord r, VrEvent.Type type, OperState previous, String reason) {
        touch(r);
        VrEvent e = new VrEvent();
        e.timestamp = Instant.now().toString();
        e.type = type;
        e.vmIndex = r.vmIndex;
        e.vmName = r.config.vmName;
        e.vmUUID = uuid(r, type);
        e.vmAdminState = r.config.vmAdminState;
        e.vmOperState = type == VrEvent.Type.DELETED ? null : r.operState;
        e.previousOperState = previous;
        e.reason = reason;
        // Under the service's lock the event is only numbered: whoever holds it delivers once it lets go.
        if (Thread.holdsLock(writeLock)) {
            events.post(e);
        } else {
            events.publish(e);
        }
    }

    /**
     * The VR's vmUUID for an event: the host's now, remembered for when its VM is gone (a deletion; a
     * creation, before the VM is made, has none yet, and is not worth asking the host about).
     */
    private String uuid(VrRecord r, VrEvent.Type type) {
        if (type == VrEvent.Type.CREATED || type == VrEvent.Type.DELETED) return r.uuid;
        String now = driver.uuid(r.vmIndex).orElse(null);
        if (now == null) return r.uuid;
        r.uuid = now;
        return now;
    }

    /**
     * A new version for a VR whose change is now visible (and so for the datastore), made after the
     * change so that a version is never read before the content it names.
     */
    private void touch(VrRecord r) {
        synchronized (r) {
            r.version = nextVersion();
        }
    }

    private Version nextVersion() {
        synchronized (versionLock) {
            Version v = new Version(epoch + "-" + ++versionCount, Instant.now());
            storeVersion = v;
            return v;
        }
    }

    static OperState stableStateFor(AdminState admin) {
        return switch (admin) {
            case RUNNING -> OperState.RUNNING;
            case SUSPENDED -> OperState.SUSPENDED;
            case PAUSED -> OperState.PAUSED;
            default -> OperState.SHUTDOWN;
        };
    }

    /** The admin state whose stable state this is, or null for a transitional or failed state. */
    static AdminState adminStateFor(OperState state) {
        return switch (state) {
            case RUNNING -> AdminState.RUNNING;
            case SUSPENDED -> AdminState.SUSPENDED;
            case PAUSED -> AdminState.PAUSED;
            case SHUTDOWN -> AdminState.SHUTDOWN;
            default -> null;
        };
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
            if (r != null && r.idle() && r.operState != state.operState()) {
                log.info("VR {} ({}) is now {} on the host{}", vmIndex, r.config.vmName, state, what == null ? "" : ": " + what);
                transition(r, state.operState(), what == null ? "changed outside vrouter" : what + " (changed outside vrouter)");
            }
        }

        @Override
        public void vmVanished(int vmIndex) {
            VrRecord r = routers.get(vmIndex);
            if (r != null && r.idle()) {
                log.warn("VR {} ({}) was deleted from the host outside vrouter", vmIndex, r.config.vmName);
                transition(r, OperState.CRASHED, "the VM was deleted from the host outside vrouter");
            }
        }
    }

    // ---------------------------------------------------------------- views

    /** The VR as interfaces show it: the configured row plus what the host reports now. */
    VirtualRouter view(VrRecord r) {
        VirtualRouter v = new VirtualRouter();
        r.config.copyColumnsTo(v);
        Optional<VmRuntime> vm = driver.inspect(r.vmIndex);
        v.vmEntry = vm.map(VmRuntime::entry).orElseGet(VmEntry::new);
        v.vmEntry.vmOperState = r.operState;
        // Its vmAdminState may have come to ask for the state it is in since (a stop of a VR shut down outside vrouter).
        v.vmEntry.vmOperStateReason = asAsked(r) ? null : r.reason;
        // No router address (a VR without IPv4, or none the host knows): RFC 4001's unknown type, empty address.
        if (v.vmEntry.vmRouterAddr == null || v.vmEntry.vmRouterAddr.isEmpty()) {
            v.vmEntry.vmRouterAddrType = InetAddressType.UNKNOWN;
            v.vmEntry.vmRouterAddr = "";
        }
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
