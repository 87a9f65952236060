package io.vrouter.core.service;

import io.vrouter.core.config.Caller;
import io.vrouter.core.config.Tenants;
import io.vrouter.core.driver.ConfigRefusedException;
import io.vrouter.core.driver.DriverException;
import io.vrouter.core.driver.HypervisorDriver;
import io.vrouter.core.driver.PowerStates;
import io.vrouter.core.driver.VmRuntime;
import io.vrouter.core.metrics.VrMetrics;
import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.Commit;
import io.vrouter.core.model.Hypervisor;
import io.vrouter.core.model.OperState;
import io.vrouter.core.model.VirtualRouter;
import io.vrouter.core.model.VirtualRouterList;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.persistence.ConfigStore;
import io.vrouter.core.service.ChangeCheck.Kind;
import io.vrouter.core.service.ChangeCheck.Target;
import io.vrouter.core.spi.Accepted;
import io.vrouter.core.spi.Applied;
import io.vrouter.core.spi.ChangeFailedException;
import io.vrouter.core.spi.ChangeSet;
import io.vrouter.core.spi.ConflictException;
import io.vrouter.core.spi.NotFoundException;
import io.vrouter.core.spi.RouterQuery;
import io.vrouter.core.spi.ValidationException;
import io.vrouter.core.spi.Version;
import io.vrouter.core.spi.VirtualRouters;
import io.vrouter.core.spi.VrException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one lifecycle service behind every management interface, a facade over the core's three
 * parts: the {@link Registry} (what exists and what was asked for), the {@link Scheduler} (the order
 * of change sets per VR and name) and the {@link Executor} (their phases, steps and undo).
 *
 * <p>Every change, from any interface, is a {@link ChangeSet}: {@link #apply} checks all of it
 * against the VRs as they are ({@link ChangeCheck}), makes it durable with one journal write, answers
 * at once, and runs the hypervisor work afterwards ({@link ChangeRun}), after the earlier work of
 * every VR and name it touches; a step that fails undoes the whole set. At start-up the host is
 * brought to the journal by runs of the same executor, which crash a VR a step fails on instead.
 * No part calls back into this facade.
 */
public final class VirtualRouterService implements VirtualRouters, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(VirtualRouterService.class);

    private final HypervisorDriver driver;
    private final Registry registry;
    private final Executor executor;
    private final Scheduler scheduler;
    private final RunningLocks locks = new RunningLocks();
    private volatile List<VmRuntime> unresolved = List.of();
    /** Since when the router is drained, null: open. Written under the change lock, so no creation passes a drain. */
    private volatile java.time.Instant drainedSince;
    /** Where {@link #drainedSince} is kept; null: not kept (tests' services without a data directory). */
    private volatile java.nio.file.Path drainStateDir;

    public VirtualRouterService(HypervisorDriver driver, ConfigStore store, VrMetrics metrics) {
        this.driver = driver;
        this.registry = new Registry(driver, store, metrics);
        this.executor = new Executor(driver, metrics, registry);
        this.scheduler = new Scheduler(registry, executor);
    }

    /**
     * Takes the tenants, their quotas and the host's overcommit (the settings' {@code tenant.*} and
     * {@code capacity.*}): change sets checked from now on are held to them; VRs over a quota lowered
     * meanwhile stay, and can shrink.
     */
    public void useTenants(Tenants tenants) {
        registry.useTenants(tenants);
    }

    @Override
    public List<Tenants.Tenant> tenants() {
        return List.copyOf(registry.tenants().all());
    }

    @Override
    public EventBus events() {
        return registry.events();
    }

    @Override
    public VirtualRouters as(Caller caller) {
        return new TenantView(this, caller);
    }

    @Override
    public String driverName() {
        return driver.name();
    }

    @Override
    public Optional<io.vrouter.core.driver.LiveMigration> liveMigration() {
        return driver.behaviour(io.vrouter.core.driver.LiveMigration.class);
    }

    @Override
    public boolean keepUuid(int vmIndex, String vmName, java.util.UUID uuid) {
        Optional<io.vrouter.core.driver.KeptUuids> kept = driver.behaviour(io.vrouter.core.driver.KeptUuids.class);
        kept.ifPresent(k -> k.keepUuid(vmIndex, vmName, uuid));
        return kept.isPresent();
    }

    @Override
    public Set<AdminState> adminStates() {
        return PowerStates.of(driver);
    }

    @Override
    public List<String> templates() {
        return driver.templates();
    }

    // ---------------------------------------------------------------- start-up and reconciliation

    /** What reconciliation found at start-up. */
    public record ReconcileReport(int adopted, int reprovisioned, int removalsResumed, List<VmRuntime> unresolved,
                                  List<String> refusedNow) {
    }

    /**
     * Loads the stored configuration and reconciles it with the host: adopts the VMs that exist and
     * brings each to its row (name, CPUs, memory, interfaces, admin state: a change set cut short by
     * a crash is finished), provisions the ones that are missing, resumes unfinished removals, and
     * reports VMs that carry our marker but have no configuration. The work runs as change sets of
     * the executor in {@link ChangeRun.Mode#RECONCILE}: the change from the host's row to the
     * journal's, a removal, a creation; a step that fails crashes its VR with the reason.
     */
    public ReconcileReport start() throws DriverException {
        List<ConfigStore.StoredVr> stored = registry.store().open();
        // Listen before listing, so that no change on the host falls between the two.
        Registry.HostChanges hostChanges = registry.new HostChanges();
        driver.setListener(hostChanges);
        Map<Integer, VmRuntime> onHost = new HashMap<>();
        for (VmRuntime vm : driver.list()) onHost.put(vm.vmIndex(), vm);
        int adopted = 0;
        int maxIndex = 0;
        List<Target> separate = new ArrayList<>();
        List<Target> drifted = new ArrayList<>();
        Map<VrRecord, VmRuntime> adoptedVms = new HashMap<>();
        List<String> refusedNow = new ArrayList<>();
        for (ConfigStore.StoredVr s : stored) {
            VmConfigEntry config = s.config();
            if (!s.removing()) refusedNow(config).ifPresent(refusedNow::add);
            maxIndex = Math.max(maxIndex, config.vmIndex);
            VmRuntime vm = onHost.remove(config.vmIndex);
            VrRecord r = registry.load(config, vm == null ? OperState.PREPARING : vm.power().operState());
            if (s.removing()) {
                r.removing = true;
                separate.add(new Target(Kind.REMOVE, r.vmIndex, r, config, null));
            } else if (vm == null) {
                log.warn("VR {} ({}) is configured but not on the host: provisioning it again", r.vmIndex, config.vmName);
                separate.add(new Target(Kind.CREATE, r.vmIndex, r, null, config));
            } else {
                adopted++;
                if (!Executor.matches(config, vm) || Registry.stableStateFor(config.vmAdminState) != r.operState) {
                    drifted.add(new Target(Kind.CHANGE, r.vmIndex, r, Executor.hostRow(config, vm), config));
                }
                if (Registry.lacksMac(config)) adoptedVms.put(r, vm);
            }
        }
        registry.recordGeneratedMacs(adoptedVms);
        // A change reported while the rows were being registered found no row: look once more, before
        // any run starts (after, it could take a VR the run has just crashed back to the host's state).
        for (VrRecord r : registry.records()) {
            driver.inspect(r.vmIndex).ifPresent(vm -> hostChanges.powerStateChanged(r.vmIndex, vm.power()));
        }
        CompletableFuture<Void> now = CompletableFuture.completedFuture(null);
        synchronized (registry.changeLock()) {
            // A removal or a creation on its own, as each VR's lane was; the adopted VRs in one run, for their renames.
            for (Target t : separate) scheduler.schedule(scheduler.newRun(ChangeRun.Mode.RECONCILE, List.of(t)), now);
            if (!drifted.isEmpty()) scheduler.schedule(scheduler.newRun(ChangeRun.Mode.RECONCILE, drifted), now);
        }
        registry.startIndicesAfter(maxIndex);
        unresolved = List.copyOf(onHost.values());
        for (VmRuntime vm : unresolved) {
            log.warn("the host has VM '{}' marked as vmIndex {}, which has no configuration: left alone",
                    vm.vmName(), vm.vmIndex());
        }
        int reprovisioned = (int) separate.stream().filter(t -> t.kind() == Kind.CREATE).count();
        int removals = separate.size() - reprovisioned;
        log.info("reconciled with driver '{}': {} adopted, {} provisioned again, {} removals resumed, {} unresolved",
                driver.name(), adopted, reprovisioned, removals, unresolved.size());
        return new ReconcileReport(adopted, reprovisioned, removals, unresolved, List.copyOf(refusedNow));
    }

    /**
     * What the driver refuses now of a VR's stored row (an earlier release accepted it: an upgrade
     * made the driver stricter), said at start-up: the VR stays manageable, as changes that keep the
     * value are accepted ({@link ChangeCheck}), but the host may refuse to build it again.
     */
    private Optional<String> refusedNow(VmConfigEntry config) {
        try {
            driver.check(config);
            return Optional.empty();
        } catch (ConfigRefusedException e) {
            String what = "VR " + config.vmIndex + " (" + config.vmName + ")"
                    + (e.networkIndex() == null ? "" : " interface " + e.networkIndex()) + ": " + e.field() + " "
                    + e.getMessage();
            log.warn("{}; driver '{}' refuses it now, as an earlier release did not: the VR stays manageable (changes that"
                    + " keep this value are accepted), but changing the value is the way to have the host build it again",
                    what, driver.name());
            return Optional.of(what);
        }
    }

    @Override
    public Optional<String> driverProblem() {
        return driver.problem();
    }

    @Override
    public Optional<String> storageProblem() {
        return registry.store().writeProblem();
    }

    @Override
    public List<VmRuntime> unresolved() {
        return unresolved;
    }

    // ---------------------------------------------------------------- a move to a peer (ADR 0023)

    @Override
    public void beginMigration(int vmIndex, String peer) {
        VrRecord r;
        synchronized (registry.changeLock()) {
            r = registry.get(vmIndex);
            if (r == null) throw new NotFoundException("no VR with vmIndex " + vmIndex).at(vmIndex, null);
            ChangeCheck.refuseWhileMigrating(r);
            // moved as it is: not while a change of it is still being carried out on the host
            if (!r.idle()) throw new ConflictException(null, "VR " + vmIndex + " has a change under way; move it once"
                    + " that is done").at(vmIndex, null);
            r.migratingTo = peer;
        }
        registry.transition(r, OperState.MIGRATING, "migrating to peer " + peer);
    }

    @Override
    public Applied endMigration(int vmIndex, boolean moved) {
        return endMigration(vmIndex, moved, null, Caller.SYSTEM);
    }

    @Override
    public Applied endMigration(int vmIndex, boolean moved, String outcome) {
        return endMigration(vmIndex, moved, outcome, Caller.SYSTEM);
    }

    /** {@link #endMigration(int, boolean, String)}, its removal made by {@code by}. */
    public Applied endMigration(int vmIndex, boolean moved, String outcome, Caller by) {
        VrRecord r = registry.get(vmIndex);
        if (r == null || r.migratingTo == null) throw new ConflictException(null, "VR " + vmIndex + " is not migrating");
        String peer = r.migratingTo;
        if (moved) {
            Applied removal = null;
            VrException refused = null;
            synchronized (registry.changeLock()) {
                // let go and remove in one step: no other change comes between
                r.migratingTo = null;
                r.goneReason = outcome;
                try {
                    removal = accept(ChangeSet.builder().remove(vmIndex).build().by(by), true);
                } catch (VrException e) {
                    refused = e;
                    r.goneReason = null;
                }
            }
            if (refused != null) {
                // running locked by another session, say: the VR now runs on both routers, and the caller must know
                backAsTheHostHasIt(r, "moved to peer " + peer + " but not removed here");
                throw new ChangeFailedException(null, "VR " + vmIndex + " now runs on peer " + peer + " too: its removal"
                        + " here was refused (" + refused.getMessage() + "); remove it here").at(vmIndex, null);
            }
            removal.awaitDurable();
            return removal;
        }
        synchronized (registry.changeLock()) {
            r.migratingTo = null;
        }
        backAsTheHostHasIt(r, outcome != null ? outcome : "stays here: the move did not happen");
        return null;
    }

    // ---------------------------------------------------------------- drained (ADR 0023)

    /** Keeps the drained state in {@code dataDir} ({@code drained.json}), reading it first: a drained router stays drained. */
    public void keepDrainStateIn(java.nio.file.Path dataDir) {
        drainedSince = io.vrouter.core.persistence.DrainState.read(dataDir).orElse(null);
        drainStateDir = dataDir;
    }

    @Override
    public Optional<java.time.Instant> drainedSince() {
        return Optional.ofNullable(drainedSince);
    }

    @Override
    public void setDrained(boolean drained) {
        synchronized (registry.changeLock()) {
            if (drained == (drainedSince != null)) return;
            java.time.Instant since = drained ? java.time.Instant.now() : null;
            if (drainStateDir != null) io.vrouter.core.persistence.DrainState.write(drainStateDir, since);
            drainedSince = since;
        }
        log.info("router {}", drained ? "drained: it takes no new VRs until opened" : "opened: it takes new VRs again");
    }

    /** A drained router makes no VR: whatever asks (a creation, a restore, a peer's move), until it is opened. */
    private void refuseCreationWhileDrained(List<Target> targets) {
        java.time.Instant since = drainedSince;
        if (since == null) return;
        for (Target t : targets) {
            if (t.kind() == Kind.CREATE) {
                throw new ConflictException(VrException.Reason.IN_USE, null, "this router is drained (since " + since
                        + ", for maintenance): it takes no new VRs until it is opened again").at(t.vmIndex(), null);
            }
        }
    }

    private void backAsTheHostHasIt(VrRecord r, String reason) {
        OperState host = driver.inspect(r.vmIndex).map(vm -> vm.power().operState()).orElse(OperState.CRASHED);
        registry.transition(r, host, reason);
    }

    // ---------------------------------------------------------------- reads

    @Override
    public Optional<VirtualRouter> get(int vmIndex) {
        VrRecord r = registry.get(vmIndex);
        return r == null ? Optional.empty() : Optional.of(registry.view(r));
    }

    @Override
    public Optional<Version> version(int vmIndex) {
        VrRecord r = registry.get(vmIndex);
        return r == null ? Optional.empty() : Optional.of(r.version);
    }

    @Override
    public Version version() {
        return registry.version();
    }

    @Override
    public Optional<VmConfigEntry> getConfig(int vmIndex) {
        VrRecord r = registry.get(vmIndex);
        return r == null ? Optional.empty() : Optional.of(r.config);
    }

    @Override
    public Optional<Integer> findByName(String vmName) {
        return registry.findByName(vmName);
    }

    @Override
    public NavigableSet<Integer> indices() {
        return registry.indices();
    }

    @Override
    public Optional<Integer> nextIndexAfter(int vmIndex) {
        return registry.indexAfter(vmIndex);
    }

    @Override
    public VirtualRouterList list(RouterQuery query, Predicate<VmConfigEntry> rows) {
        Pattern name = query.nameRegex();
        List<VirtualRouter> page = new ArrayList<>(Math.min(query.limit(), registry.size()));
        int total = 0;
        for (VrRecord r : registry.records()) {
            if (!rows.test(r.config)) continue;
            if (name != null && !name.matcher(r.config.vmName).matches()) continue;
            if (query.operState() != null && r.operState != query.operState()) continue;
            if (query.adminState() != null && r.config.vmAdminState != query.adminState()) continue;
            if (total >= query.offset() && page.size() < query.limit()) page.add(registry.view(r));
            total++;
        }
        return new VirtualRouterList(total, query.offset(), query.limit(), page);
    }

    @Override
    public Hypervisor hypervisor() {
        return registry.hypervisor();
    }

    @Override
    public int nextAvailableVmIndex() {
        return registry.nextAvailableVmIndex();
    }

    @Override
    public void setNotificationsEnabled(boolean perVm, boolean bulk) {
        registry.setNotificationsEnabled(perVm, bulk);
    }

    @Override
    public boolean perVmNotificationsEnabled() {
        return registry.perVmNotificationsEnabled();
    }

    @Override
    public boolean bulkNotificationsEnabled() {
        return registry.bulkNotificationsEnabled();
    }

    // ---------------------------------------------------------------- writes: change sets

    /**
     * Done once every change accepted so far on these VRs has run to its end, its events told (a VR's
     * lane): what tests wait on to prove that nothing more of those changes is still to come.
     */
    CompletableFuture<Void> lanesDone(int... vmIndices) {
        List<CompletableFuture<Void>> lanes = new ArrayList<>();
        synchronized (registry.changeLock()) {
            for (int vmIndex : vmIndices) {
                VrRecord r = registry.get(vmIndex);
                if (r != null) {
                    synchronized (r) {
                        lanes.add(r.lane);
                    }
                }
            }
        }
        return CompletableFuture.allOf(lanes.toArray(CompletableFuture[]::new));
    }

    /**
     * Checks a change set against the VRs as they are and, when every rule holds, accepts it: one
     * journal record makes it durable before this returns, the VRs show their new rows at once (a
     * flush of the disk before that), and the hypervisor work runs once the record is durable, after
     * the earlier work of every VR and name it touches. A set that breaks a rule throws the
     * {@link VrException} naming the VR, the column and the reason, and changes nothing; a set whose
     * hypervisor work fails is undone whole, and its completion (and that of each VR) fails with a
     * {@link ChangeFailedException}.
     */
    @Override
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
    @Override
    public Applied accept(ChangeSet set) {
        return accept(set, false);
    }

    /**
     * @param callerSyncs the caller makes the record durable at once ({@link #apply}), and with it
     *     lets the set's work start: no worker is woken just to wait for the same flush (issue 16)
     */
    private Applied accept(ChangeSet set, boolean callerSyncs) {
        if (set == null || set.isEmpty()) throw new ValidationException("body", "nothing to change");
        ConfigStore store = registry.store();
        EventBus events = registry.events();
        synchronized (registry.changeLock()) {
            registry.conditions(set);
            List<Target> targets = registry.checker().check(set);
            refuseCreationWhileDrained(targets);
            locks.check(set.caller(), targets);
            // The commit goes in the set's journal record: the history costs no write of its own.
            Commit commit = History.commitOf(targets, set.caller(), set.rollbackTo());
            long record = registry.journal(targets, commit);
            ChangeRun run = scheduler.newRun(ChangeRun.Mode.UNDO, registry.register(targets, set.caller()));
            if (commit != null) run.commit = commit.number;
            // The VRs as accepted, before their work can start.
            List<Accepted> accepted = new ArrayList<>(run.targets.size());
            for (Target t : run.targets) accepted.add(accepted(run, t.record()));
            // (thenRunAsync, not runAsync: a pool shut down fails the future instead of throwing here)
            CompletableFuture<Void> durable = callerSyncs ? new CompletableFuture<>()
                    : CompletableFuture.completedFuture(null).thenRunAsync(() -> store.sync(record), executor.workers());
            scheduler.schedule(run, durable);
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
            }, run.commit);
        }
    }

    /**
     * Checks a change set as {@link #apply} does, and changes nothing: for NETCONF's test-option and
     * validate, a candidate's commit, any dry run. Returns the rows the set would make (defaults
     * filled in, interfaces numbered), of the VRs it creates or changes, in its order.
     */
    @Override
    public List<VmConfigEntry> validate(ChangeSet set) {
        if (set == null || set.isEmpty()) return List.of();
        List<Target> targets;
        synchronized (registry.changeLock()) {
            registry.conditions(set);
            targets = registry.checker().check(set);
            refuseCreationWhileDrained(targets);
        }
        List<VmConfigEntry> rows = new ArrayList<>(targets.size());
        for (Target t : targets) {
            if (t.after() != null) rows.add(t.after().copy());
        }
        return rows;
    }

    // ---------------------------------------------------------------- running's lock

    @Override
    public void lockRunning(Caller holder) {
        locks.lock(holder);
    }

    @Override
    public boolean unlockRunning(Caller holder) {
        return locks.unlock(holder);
    }

    @Override
    public Optional<Caller> runningLockHolder(Caller scopeOf) {
        return locks.holder(scopeOf);
    }

    // ---------------------------------------------------------------- history and rollback

    @Override
    public List<Commit> commits() {
        return registry.history().all();
    }

    /**
     * Applies, as {@link #apply} does, the one set that brings every VR back to what it was after
     * commit {@code number}: refused whole when any part breaks a rule (a quota, a template gone, the
     * host's capacity), undone whole when the host fails it.
     */
    @Override
    public Applied rollback(long number) {
        return rollback(number, Caller.SYSTEM, commits());
    }

    /** The rollback as the caller sees the history (a tenant's: its VRs' commits only), stamped with the caller. */
    Applied rollback(long number, Caller caller, List<Commit> seen) {
        ChangeSet set = History.rollbackTo(number, seen);
        if (set.isEmpty()) {
            throw new ValidationException("commit", "nothing to roll back: the configuration is as commit " + number + " left it");
        }
        return apply(set.by(caller));
    }

    /** A VR's part of an accepted set: its row as accepted, and its view once the set is done. */
    private Accepted accepted(ChangeRun run, VrRecord r) {
        CompletableFuture<Optional<VirtualRouter>> completion = run.outcome.handle((v, e) -> {
            if (e != null) throw e instanceof CompletionException ce ? ce : new CompletionException(e);
            return registry.get(r.vmIndex) == r ? Optional.of(registry.view(r)) : Optional.<VirtualRouter>empty();
        });
        Version version = r.version;
        return new Accepted(registry.view(r), version, completion);
    }

    /** For the tests that show what undoing is for: a failed set is then left half done. */
    void setUndoForTests(boolean enabled) {
        executor.setUndo(enabled);
    }

    /** Stops taking work, lets running hypervisor calls finish for a few seconds, and closes. */
    @Override
    public void close() {
        executor.close();
        driver.close();
        registry.store().close();
        registry.events().close();
    }
}
