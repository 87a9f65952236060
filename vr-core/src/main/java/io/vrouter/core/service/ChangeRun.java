package io.vrouter.core.service;

import io.vrouter.core.driver.DriverException;
import io.vrouter.core.driver.Interfaces;
import io.vrouter.core.driver.RateLimits;
import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.ConfigColumn;
import io.vrouter.core.model.OperState;
import io.vrouter.core.model.Schema;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import io.vrouter.core.service.ChangeCheck.Kind;
import io.vrouter.core.service.ChangeCheck.Target;
import io.vrouter.core.spi.ChangeFailedException;
import io.vrouter.core.spi.ChangeSet;
import io.vrouter.core.spi.VrException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hypervisor work of one accepted {@link ChangeSet}, run once every VR (and name) it touches
 * is done with earlier work, and undone whole when a step fails.
 *
 * <p>The steps come in phases, so that no VR waits for a resource another step still holds:
 * <ol>
 *   <li>stops (of VRs shut down by the set, and of VRs it removes: a resize needs the VR off);</li>
 *   <li>reconfigurations (name, CPUs, memory, auto-start) in waves, so that no VM is given a name
 *       another VM still has: a rename waits for the VM it takes its name from, a cycle of renames
 *       (a swap) goes through a temporary name, and a VR to be removed gives up a name that another
 *       wants by taking a temporary one;</li>
 *   <li>interfaces removed (and the old form of changed ones), then interfaces added;</li>
 *   <li>VRs created (provisioned, and started when asked to run);</li>
 *   <li>admin states other than shutdown (start, resume, suspend, pause);</li>
 *   <li>VMs destroyed: last, as a destroyed VM cannot be brought back.</li>
 * </ol>
 * Within a phase the steps of different VRs run in parallel on the executor's workers. When one fails,
 * the phase finishes, every step done is undone in reverse (stops by starts, renames by renames back,
 * interfaces put back, created VMs destroyed), and the {@link Scheduler} puts the rows back as they
 * were before the set, with one journal record. A run of start-up reconciliation
 * ({@link Mode#RECONCILE}: the change from the VMs as the host has them to their rows) undoes
 * nothing: the VR a step fails on is crashed with the step and the reason, and its later steps skipped. Nothing blocks a worker while it waits: phases are chained futures.
 */
final class ChangeRun {
    private static final Logger log = LoggerFactory.getLogger(ChangeRun.class);

    final long sequence;
    final List<Target> targets;
    /** Completes when the set is done: normally when applied, exceptionally with the error when not. */
    final CompletableFuture<Void> outcome = new CompletableFuture<>();
    /** Earlier sets this one waits for; guarded by the registry's lock. */
    final List<ChangeRun> dependsOn = new ArrayList<>();
    /** Completes (normally) once the set is done either way: the tail of its VRs' lanes. */
    volatile CompletableFuture<Void> done;
    /** Sets accepted later that wait for this one (on a VR or a name); guarded by the registry's lock. */
    final List<ChangeRun> dependents = new ArrayList<>();
    /** Set (under the write lock) when a set this one depends on failed: it then does nothing. */
    volatile ChangeFailedException abortedBy;
    /** The set's number in the history (0: none, as a reconciling run has), to mark it undone there. */
    long commit;
    /** VRs whose VM this set destroyed: they cannot be put back. */
    final List<VrRecord> destroyed = Collections.synchronizedList(new ArrayList<>());

    /** How a failure ends the run: undone whole (an accepted set), or the VR crashed (start-up). */
    enum Mode {
        UNDO, RECONCILE
    }

    private final Mode mode;
    private final Executor executor;
    private final Registry registry;
    /** The VRs a step failed on in a reconciling run: their later steps are not taken. */
    private final Set<VrRecord> crashed = ConcurrentHashMap.newKeySet();
    private final List<DoneStep> doneSteps = Collections.synchronizedList(new ArrayList<>());
    private volatile ChangeFailedException failure;
    private volatile VrRecord failed;
    private final List<VrRecord> undoFailed = Collections.synchronizedList(new ArrayList<>());

    private record DoneStep(int phase, Step step) {
    }

    ChangeRun(Executor executor, Mode mode, long sequence, List<Target> targets) {
        this.executor = executor;
        this.registry = executor.registry();
        this.mode = mode;
        this.sequence = sequence;
        this.targets = targets;
    }

    /** The error the set ended with, or null when it was applied. */
    VrException error() {
        return abortedBy != null ? abortedBy : failure;
    }

    // ---------------------------------------------------------------- running

    /** Whether the set failed and its steps were undone: its rows are to be put back. */
    boolean undone() {
        return failure != null && executor.undoEnabled();
    }

    /** Runs the phases; the future completes once the set is applied, or its steps undone. */
    CompletableFuture<Void> execute() {
        if (abortedBy != null) return v(null);
        List<Supplier<List<List<Step>>>> phases = new ArrayList<>();
        phases.add(this::stops);
        for (List<List<Step>> wave : renameWaves()) phases.add(() -> wave);
        phases.add(() -> interfaces(true));
        phases.add(() -> interfaces(false));
        phases.add(this::creations);
        phases.add(this::adminStates);
        phases.add(this::destroys);
        CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
        for (int k = 0; k < phases.size(); k++) {
            int phase = k;
            chain = chain.thenCompose(v -> failure != null ? v(null) : run(phase, phases.get(phase).get()));
        }
        return chain.thenCompose(v -> failure == null ? v(null) : undo());
    }

    /** Ends the set's outcome, once its lanes are free: with its error, or the unexpected one. */
    void complete(Throwable unexpected) {
        if (unexpected != null) {
            Throwable cause = unexpected instanceof java.util.concurrent.CompletionException ? unexpected.getCause() : unexpected;
            if (cause instanceof java.util.concurrent.RejectedExecutionException) {
                log.info("change set {} cut short by the shutdown; its VRs are brought to their rows at the next start",
                        sequence);
            } else {
                log.error("change set {} failed unexpectedly", sequence, unexpected);
            }
            outcome.completeExceptionally(cause);
        } else if (error() != null) {
            outcome.completeExceptionally(error());
        } else {
            outcome.complete(null);
        }
    }

    private static CompletableFuture<Void> v(Void ignored) {
        return CompletableFuture.completedFuture(null);
    }

    /**
     * One phase: each VR's steps in order, different VRs in parallel. Runs on a worker (the set's), so
     * a phase of one VR's steps runs right here: handing it to another worker cost a wake-up and two
     * context switches per phase of every change (issue 16). Once the pool is shut down the phase is
     * handed over still, so that it is refused as before (the set is re-driven at the next start).
     */
    private CompletableFuture<Void> run(int phase, List<List<Step>> lanes) {
        List<List<Step>> busy = new ArrayList<>(lanes.size());
        for (List<Step> steps : lanes) {
            if (!steps.isEmpty()) busy.add(steps);
        }
        if (busy.size() == 1 && !executor.workers().isShutdown()) {
            runLane(phase, busy.get(0));
            return v(null);
        }
        List<CompletableFuture<Void>> running = new ArrayList<>(busy.size());
        for (List<Step> steps : busy) running.add(CompletableFuture.runAsync(() -> runLane(phase, steps), executor.workers()));
        return CompletableFuture.allOf(running.toArray(CompletableFuture[]::new));
    }

    private void runLane(int phase, List<Step> steps) {
        for (Step s : steps) {
            if (failure != null || crashed.contains(s.vr())) return;
            try {
                s.run();
                doneSteps.add(new DoneStep(phase, s));
            } catch (DriverException | RuntimeException e) {
                fail(s, e);
                return;
            }
        }
    }

    private synchronized void fail(Step s, Exception e) {
        if (failure != null) return;
        VrRecord r = s.vr();
        // The client is told what the hypervisor said, or the service's own error; anything else stays in the log.
        String what = e instanceof DriverException ? e.toString() : e instanceof VrException ? e.getMessage()
                : "an internal error (the server's log says what)";
        if (!(e instanceof DriverException)) log.error("VR {}: {} failed unexpectedly", r.vmIndex, s.operation(), e);
        if (mode == Mode.RECONCILE) {
            // Nothing to undo to: the journal is what was asked for. The VR is crashed with why, its other steps skipped.
            crashed.add(r);
            if (kindOf(r) == Kind.REMOVE) r.removing = false;
            log.warn("VR {} ({}): bringing it to its configuration failed: {}", r.vmIndex, r.config.vmName, what);
            registry.transition(r, OperState.CRASHED, "reconciliation failed: " + s.operation() + " failed: " + what);
            return;
        }
        log.warn("VR {} ({}): {} failed: {}; undoing change set {}", r.vmIndex, r.config.vmName, s.operation(), what, sequence);
        failed = r;
        failure = (ChangeFailedException) new ChangeFailedException(s.column(), "VR " + r.vmIndex + ": " + s.operation()
                + " failed: " + what + "; the change was undone, every VR of it is as it was")
                .at(r.vmIndex, s.networkIndex());
    }

    private Kind kindOf(VrRecord r) {
        for (Target t : targets) {
            if (t.record() == r) return t.kind();
        }
        return null;
    }

    /** The VR the set failed on, or null. */
    VrRecord failed() {
        return failed;
    }

    /** VRs whose undoing failed: they are crashed, and left as the host has them. */
    List<VrRecord> undoFailed() {
        return undoFailed;
    }

    /** Undoes the steps done, latest phase first; the scheduler then puts the rows back. */
    private CompletableFuture<Void> undo() {
        if (!executor.undoEnabled()) {
            // Only for the tests that show what the undo is for: the failed VR is left crashed, half changed.
            registry.transition(failed, OperState.CRASHED, failure.getMessage());
            return v(null);
        }
        Map<Integer, List<List<Step>>> byPhase = new HashMap<>();
        int last = -1;
        synchronized (doneSteps) {
            for (DoneStep d : doneSteps) {
                byPhase.computeIfAbsent(d.phase(), k -> new ArrayList<>());
                last = Math.max(last, d.phase());
            }
            for (int p = 0; p <= last; p++) {
                Map<VrRecord, List<Step>> lanes = new LinkedHashMap<>();
                for (DoneStep d : doneSteps) {
                    if (d.phase() == p) lanes.computeIfAbsent(d.step().vr(), k -> new ArrayList<>()).add(0, d.step());
                }
                if (!lanes.isEmpty()) byPhase.put(p, new ArrayList<>(lanes.values()));
            }
        }
        CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
        for (int p = last; p >= 0; p--) {
            List<List<Step>> lanes = byPhase.getOrDefault(p, List.of());
            chain = chain.thenCompose(v -> {
                List<CompletableFuture<Void>> running = new ArrayList<>();
                for (List<Step> lane : lanes) {
                    running.add(CompletableFuture.runAsync(() -> undoLane(lane), executor.workers()));
                }
                return CompletableFuture.allOf(running.toArray(CompletableFuture[]::new));
            });
        }
        return chain;
    }

    private void undoLane(List<Step> lane) {
        for (Step s : lane) {
            try {
                s.undo();
            } catch (DriverException | RuntimeException e) {
                VrRecord r = s.vr();
                log.error("VR {}: undoing {} failed: {}", r.vmIndex, s.operation(), e.toString());
                undoFailed.add(r);
                registry.transition(r, OperState.CRASHED, "undoing " + s.operation() + " of a failed change failed: " + e);
                return;
            }
        }
    }

    // ---------------------------------------------------------------- the phases

    private List<List<Step>> stops() {
        List<List<Step>> lanes = new ArrayList<>();
        for (Target t : targets) {
            if (t.kind() == Kind.REMOVE) {
                lanes.add(List.of(new RemovalStop(t.record())));
            } else if (t.kind() == Kind.CHANGE && (t.after().vmAdminState == AdminState.SHUTDOWN || resizes(t))
                    && t.record().operState != OperState.SHUTDOWN) {
                lanes.add(List.of(new AdminStep(t.record(), AdminState.SHUTDOWN)));
            }
        }
        return lanes;
    }

    /** Whether the set changes the VM's CPUs or memory, which it can only while shut down. */
    private static boolean resizes(Target t) {
        return !Objects.equals(t.before().vmConfigCpuNumber, t.after().vmConfigCpuNumber)
                || !Objects.equals(t.before().vmConfigMemory, t.after().vmConfigMemory);
    }

    /**
     * The reconfigurations, in waves ({@link RenameOrder}): a VM is renamed only once no other VM
     * has its new name; a VM to be removed whose name another wants first takes a temporary one.
     * Reconfigurations that rename nothing go with the first wave.
     */
    private List<List<List<Step>>> renameWaves() {
        List<String> newNames = new ArrayList<>();
        for (Target t : targets) {
            if (t.after() != null) newNames.add(t.after().vmName);
        }
        Map<VrRecord, VmConfigEntry> onHost = new LinkedHashMap<>();
        Map<VrRecord, String> current = new LinkedHashMap<>();
        Map<VrRecord, String> wanted = new LinkedHashMap<>();
        Map<VrRecord, VmConfigEntry> finalRow = new HashMap<>();
        List<List<Step>> inPlace = new ArrayList<>();
        for (Target t : targets) {
            if (t.kind() != Kind.CHANGE && t.kind() != Kind.REMOVE) continue;
            VrRecord r = t.record();
            onHost.put(r, t.before());
            current.put(r, t.before().vmName);
            if (t.kind() == Kind.REMOVE) {
                if (newNames.contains(t.before().vmName)) wanted.put(r, temporaryName(r, newNames));
            } else if (!t.after().vmName.equals(t.before().vmName)) {
                wanted.put(r, t.after().vmName);
                finalRow.put(r, t.after());
            } else if (reconfigures(t.before(), t.after())) {
                inPlace.add(List.of(new Reconfigure(r, t.before(), t.after())));
            } else if (changesVrouterOnly(t.before(), t.after())) {
                inPlace.add(List.of(new Noted(r)));
            }
        }
        List<List<List<Step>>> waves = new ArrayList<>();
        for (List<RenameOrder.Move<VrRecord>> wave : RenameOrder.waves(current, wanted, r -> temporaryName(r, newNames))) {
            List<List<Step>> lanes = new ArrayList<>();
            for (RenameOrder.Move<VrRecord> m : wave) {
                VmConfigEntry to = m.name().equals(wanted.get(m.vm())) && finalRow.containsKey(m.vm())
                        ? finalRow.get(m.vm()) : renamed(onHost.get(m.vm()), m.name());
                lanes.add(List.of(new Reconfigure(m.vm(), onHost.put(m.vm(), to), to)));
            }
            waves.add(lanes);
        }
        if (!inPlace.isEmpty()) {
            if (waves.isEmpty()) waves.add(new ArrayList<>());
            waves.get(0).addAll(inPlace);
        }
        return waves;
    }

    private static boolean reconfigures(VmConfigEntry before, VmConfigEntry after) {
        for (ConfigColumn c : ConfigColumn.values()) {
            if (c.reconfigures() && !Objects.equals(c.get(before), c.get(after))) return true;
        }
        return false;
    }

    /** Whether a column that only vrouter keeps (no driver applies it, nor is it the admin state) differs. */
    private static boolean changesVrouterOnly(VmConfigEntry before, VmConfigEntry after) {
        for (ConfigColumn c : ConfigColumn.values()) {
            if (!c.reconfigures() && c != ConfigColumn.VM_ADMIN_STATE && !Objects.equals(c.get(before), c.get(after))) {
                return true;
            }
        }
        return false;
    }

    private static VmConfigEntry renamed(VmConfigEntry row, String name) {
        VmConfigEntry r = row.copy();
        r.vmName = name;
        return r;
    }

    /** A name no VR has and none of this set wants, for a VM stepping aside. */
    private String temporaryName(VrRecord r, List<String> newNames) {
        for (int k = 0; ; k++) {
            String name = "vr" + r.vmIndex + "-renaming" + (k == 0 ? "" : "-" + k);
            if (!newNames.contains(name) && registry.findByName(name).isEmpty()) return name;
        }
    }

    private List<List<Step>> interfaces(boolean removals) {
        List<List<Step>> lanes = new ArrayList<>();
        for (Target t : targets) {
            if (t.kind() != Kind.CHANGE) continue;
            List<VmNetworkConfigEntry> from = t.before().interfaces();
            List<VmNetworkConfigEntry> to = t.after().interfaces();
            List<Step> steps = new ArrayList<>();
            for (VmNetworkConfigEntry n : removals ? from : to) {
                VmNetworkConfigEntry other = find(removals ? to : from, n.vmNetworkConfigIndex);
                if (other != null && ChangeSet.sameInterface(n, other)) continue;
                // Only its rates differ: set on the live interface, with the additions (no detach, no restart).
                if (other != null && ChangeSet.sameAttachment(n, other)) {
                    if (!removals) steps.add(new Retune(t.record(), other, n));
                    continue;
                }
                steps.add(new InterfaceStep(t.record(), n, !removals));
            }
            lanes.add(steps);
        }
        return lanes;
    }

    private static VmNetworkConfigEntry find(List<VmNetworkConfigEntry> list, int index) {
        for (VmNetworkConfigEntry n : list) {
            if (n.vmNetworkConfigIndex == index) return n;
        }
        return null;
    }

    private List<List<Step>> creations() {
        List<List<Step>> lanes = new ArrayList<>();
        for (Target t : targets) {
            if (t.kind() != Kind.CREATE) continue;
            VrRecord r = t.record();
            // A set creates VRs running or shut down; one provisioned again at start-up may be asked to be suspended, paused.
            lanes.add(t.after().vmAdminState != AdminState.SHUTDOWN
                    ? List.of(new Provision(r, t.after()), new AdminStep(r, t.after().vmAdminState))
                    : List.of(new Provision(r, t.after())));
        }
        return lanes;
    }

    /** Brings each changed VR to its admin state, unless shut down (phase 1 did that). */
    private List<List<Step>> adminStates() {
        List<List<Step>> lanes = new ArrayList<>();
        for (Target t : targets) {
            if (t.kind() != Kind.CHANGE || t.after().vmAdminState == AdminState.SHUTDOWN) continue;
            if (t.record().operState != Registry.stableStateFor(t.after().vmAdminState)) {
                lanes.add(List.of(new AdminStep(t.record(), t.after().vmAdminState)));
            }
        }
        return lanes;
    }

    private List<List<Step>> destroys() {
        List<List<Step>> lanes = new ArrayList<>();
        for (Target t : targets) {
            if (t.kind() == Kind.REMOVE) lanes.add(List.of(new Destroy(t.record())));
        }
        return lanes;
    }

    // ---------------------------------------------------------------- the steps

    /** One hypervisor step of a set and how to take it back. */
    private abstract class Step {
        final VrRecord r;
        private final String operation;
        private final String column;

        /**
         * @param operation the driver operation, for logs and errors
         * @param column the column the step carries out, for the error (null: none in particular)
         */
        Step(VrRecord r, String operation, String column) {
            this.r = r;
            this.operation = operation;
            this.column = column;
        }

        VrRecord vr() {
            return r;
        }

        abstract void run() throws DriverException;

        /** Takes the step back; nothing by default. */
        void undo() throws DriverException {
        }

        final String operation() {
            return operation;
        }

        String column() {
            return column;
        }

        Integer networkIndex() {
            return null;
        }
    }

    /** Brings a VR to an admin state; undone by bringing it back to the stable state it was in. */
    private final class AdminStep extends Step {
        private final AdminState target;
        private OperState was;

        AdminStep(VrRecord r, AdminState target) {
            super(r, target == AdminState.RUNNING ? "start" : target == AdminState.SHUTDOWN ? "stop" : target.label(),
                    "vmAdminState");
            this.target = target;
        }

        @Override
        void run() throws DriverException {
            was = r.operState;
            executor.bringTo(r, target);
        }

        @Override
        void undo() throws DriverException {
            AdminState back = Registry.adminStateFor(was);
            if (back != null) executor.bringTo(r, back);
        }
    }

    /** The first half of a removal: shutting the VM down (undone by bringing it back). */
    private final class RemovalStop extends Step {
        private OperState was;

        RemovalStop(VrRecord r) {
            super(r, "stop", null);
        }

        @Override
        void run() throws DriverException {
            was = r.operState;
            registry.transition(r, OperState.SHUTTINGDOWN, null);
            if (!executor.halted(r.vmIndex)) executor.call("stop", () -> executor.driver().stop(r.vmIndex));
        }

        @Override
        void undo() throws DriverException {
            AdminState back = Registry.adminStateFor(was);
            executor.bringTo(r, back != null ? back : AdminState.SHUTDOWN);
        }
    }

    /** The VM's name, CPUs, memory, auto-start from one row to another; undone by the reverse. */
    private final class Reconfigure extends Step {
        private final VmConfigEntry from;
        private final VmConfigEntry to;

        Reconfigure(VrRecord r, VmConfigEntry from, VmConfigEntry to) {
            super(r, "reconfigure", null);
            this.from = from;
            this.to = to;
        }

        @Override
        void run() throws DriverException {
            executor.call("reconfigure", () -> executor.driver().reconfigure(to));
            registry.configChanged(r);
        }

        @Override
        void undo() throws DriverException {
            executor.call("reconfigure", () -> executor.driver().reconfigure(from));
            registry.configChanged(r);
        }

        /** The first column the host reconfigures that differs. */
        @Override
        String column() {
            for (ConfigColumn c : ConfigColumn.values()) {
                if (c.reconfigures() && !Objects.equals(c.get(from), c.get(to))) return c.field();
            }
            return null;
        }
    }

    /** A change of columns no driver applies (a description): nothing for the host, only said. */
    private final class Noted extends Step {
        Noted(VrRecord r) {
            super(r, "record", null);
        }

        @Override
        void run() {
            registry.configChanged(r);
        }
    }

    /** An interface attached or detached; undone by the opposite. */
    private final class InterfaceStep extends Step {
        private final VmNetworkConfigEntry iface;
        private final boolean adding;

        InterfaceStep(VrRecord r, VmNetworkConfigEntry iface, boolean adding) {
            super(r, adding ? "addInterface" : "removeInterface", Schema.Table.NETWORK_CONFIG.tableName());
            this.iface = iface;
            this.adding = adding;
        }

        @Override
        void run() throws DriverException {
            attach(adding);
        }

        @Override
        void undo() throws DriverException {
            attach(!adding);
        }

        private void attach(boolean add) throws DriverException {
            if (add) {
                executor.call("addInterface", () -> executor.behaviour(Interfaces.class).addInterface(r.vmIndex, iface));
                executor.recordGeneratedMacs(r);
            } else {
                executor.call("removeInterface", () -> executor.behaviour(Interfaces.class).removeInterface(r.vmIndex, iface.vmNetworkConfigIndex));
            }
            registry.configChanged(r);
        }

        @Override
        Integer networkIndex() {
            return iface.vmNetworkConfigIndex;
        }
    }

    /** An interface's rates set on the live interface; undone by setting the rates before. */
    private final class Retune extends Step {
        private final VmNetworkConfigEntry from;
        private final VmNetworkConfigEntry to;

        Retune(VrRecord r, VmNetworkConfigEntry from, VmNetworkConfigEntry to) {
            super(r, "setRates", Schema.Table.NETWORK_CONFIG.tableName());
            this.from = from;
            this.to = to;
        }

        @Override
        void run() throws DriverException {
            set(to);
        }

        @Override
        void undo() throws DriverException {
            set(from);
        }

        private void set(VmNetworkConfigEntry rates) throws DriverException {
            // The check refused rates on a driver without the behaviour, so it is there.
            RateLimits limits = executor.driver().behaviour(RateLimits.class).orElseThrow();
            executor.call("setRates", () -> limits.setRates(r.vmIndex, rates));
            registry.configChanged(r);
        }

        @Override
        Integer networkIndex() {
            return to.vmNetworkConfigIndex;
        }
    }

    /** Makes the VM of a new VR (left shut down); undone by destroying it. */
    private final class Provision extends Step {
        private final VmConfigEntry row;

        Provision(VrRecord r, VmConfigEntry row) {
            super(r, "provision", null);
            this.row = row;
        }

        @Override
        void run() throws DriverException {
            executor.call("provision", () -> executor.driver().provision(row));
            executor.recordGeneratedMacs(r);
            if (row.vmAdminState != AdminState.RUNNING) registry.transition(r, OperState.SHUTDOWN, null);
        }

        @Override
        void undo() throws DriverException {
            if (!executor.halted(r.vmIndex)) executor.call("stop", () -> executor.driver().stop(r.vmIndex));
            executor.call("destroy", () -> executor.driver().destroy(r.vmIndex));
        }
    }

    /** Destroys the VM of a removed VR: cannot be undone, so it comes last. */
    private final class Destroy extends Step {
        Destroy(VrRecord r) {
            super(r, "destroy", null);
        }

        @Override
        void run() throws DriverException {
            executor.call("destroy", () -> executor.driver().destroy(r.vmIndex));
            destroyed.add(r);
            registry.gone(r);
        }
    }
}
