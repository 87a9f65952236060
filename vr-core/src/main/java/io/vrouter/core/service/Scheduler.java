package io.vrouter.core.service;

import io.vrouter.core.model.OperState;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.persistence.ConfigStore;
import io.vrouter.core.service.ChangeCheck.Target;
import io.vrouter.core.spi.ChangeFailedException;
import io.vrouter.core.spi.VrException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Orders change sets: each runs after the earlier sets and work of every VR and name it touches, so
 * that two sets on one VR never interleave and a set that takes a name another gives up waits for
 * it. A set depends on those earlier sets; when one of them fails and is undone, its dependents are
 * not applied, and their rows go back with it.
 */
final class Scheduler {
    private final Registry registry;
    private final Executor executor;
    /** The last set accepted on each VR and on each name, until it is done; guarded by the registry's lock. */
    private final Map<Integer, ChangeRun> vrTails = new HashMap<>();
    private final Map<String, ChangeRun> nameTails = new HashMap<>();
    private long sets;

    Scheduler(Registry registry, Executor executor) {
        this.registry = registry;
        this.executor = executor;
    }

    /** A run of the targets, numbered; under the registry's lock. */
    ChangeRun newRun(ChangeRun.Mode mode, List<Target> targets) {
        return new ChangeRun(executor, mode, ++sets, targets);
    }

    /**
     * Queues the run after the earlier sets and work of every VR and name it touches, and after
     * {@code durable} (its journal record on disk); under the registry's lock.
     */
    void schedule(ChangeRun run, CompletableFuture<Void> durable) {
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
                .thenComposeAsync(v -> run.execute(), executor.workers())
                .thenRun(() -> {
                    if (run.undone()) putBack(run);
                    // A change of a row that no event of the run told (a VR already in the admin state asked for).
                    for (Target t : run.targets) registry.tellUntold(t.record());
                })
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
        synchronized (registry.changeLock()) {
            for (Target t : run.targets) {
                vrTails.remove(t.vmIndex(), run);
                if (t.before() != null) nameTails.remove(t.before().vmName, run);
                if (t.after() != null) nameTails.remove(t.after().vmName, run);
            }
        }
    }

    /**
     * A set undone: its rows go back as they were before it, and so do those of the sets that
     * depend on it, which are then not applied (they were checked against rows that now never
     * were); latest first, with one journal record. The VRs' states are then as the host reports.
     */
    private void putBack(ChangeRun run) {
        VrException error = run.error();
        synchronized (registry.changeLock()) {
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
            // the history's marks travel in the same record as the rows put back
            ConfigStore.Change record = registry.store().change();
            for (ChangeRun x : all) {
                String reason = x == run ? error.getMessage() : x.abortedBy.getMessage();
                registry.putBack(x, reason, puts, removes);
                if (x.commit > 0) record.undone(x.commit, reason);
            }
            puts.keySet().removeAll(removes);
            puts.values().forEach(record::put);
            removes.forEach(record::remove);
            record.commit();
        }
        registry.events().deliver();
        for (Target t : run.targets) {
            VrRecord r = t.record();
            if (registry.get(r.vmIndex) != r || run.undoFailed().contains(r)) continue;
            // As the host has it now, with why the change did not happen on the VR it failed on.
            OperState host = executor.driver().inspect(r.vmIndex).map(vm -> vm.power().operState()).orElse(OperState.CRASHED);
            registry.transition(r, host, r == run.failed() ? error.getMessage() : null);
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
}
