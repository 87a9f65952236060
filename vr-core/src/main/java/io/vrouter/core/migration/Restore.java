package io.vrouter.core.migration;

import io.vrouter.core.model.ModelJson;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import io.vrouter.core.spi.Applied;
import io.vrouter.core.spi.ChangeSet;
import io.vrouter.core.spi.ValidationException;
import io.vrouter.core.spi.VrException;
import io.vrouter.core.spi.VirtualRouters;
import jakarta.xml.bind.annotation.XmlEnum;
import jakarta.xml.bind.annotation.XmlEnumValue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Re-creates on a router what a {@link RouterBackup} has and the router lacks, in one change set (all
 * of it or none, checked as any creation is: names, the tenants' quotas, the host's capacity, links).
 * A VR is matched by its name: one that exists already is left as it is, and said to be the same as
 * the backup's or to differ; so a restore run again creates nothing. A VR made anew keeps its vmIndex
 * when that is free, else takes the lowest free one, and its peer links follow it.
 */
public final class Restore {
    /** What became of one VR of the backup. */
    @XmlEnum
    public enum Action {
        /** Made from the backup. */
        @XmlEnumValue("created") CREATED,
        /** Existed already, configured as in the backup. */
        @XmlEnumValue("present") PRESENT,
        /** Existed already under its name, configured otherwise: left as it is. */
        @XmlEnumValue("differs") DIFFERS
    }

    /** One VR of the backup: its vmIndex there and here, and what was done. */
    public record Outcome(String vmName, int backedUpIndex, int vmIndex, Action action) {
    }

    /** What the restore did, VR by VR in the backup's order, and the change set's run (done at once when it made nothing). */
    public record Report(List<Outcome> routers, Applied applied) {
        public CompletableFuture<Void> completion() {
            return applied == null ? CompletableFuture.completedFuture(null) : applied.completion();
        }

        /**
         * Waits up to the given time for the VRs made to be done; false when the time ran out (the work
         * goes on). A set that failed on the hypervisor (and was undone whole) throws its {@link VrException}.
         */
        public boolean await(Duration timeout) throws InterruptedException {
            try {
                completion().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
                return true;
            } catch (TimeoutException e) {
                return false;
            } catch (ExecutionException e) {
                if (e.getCause() instanceof VrException failed) throw failed;
                throw new IllegalStateException("the restore failed unexpectedly", e.getCause());
            }
        }

        public long created() {
            return routers.stream().filter(o -> o.action == Action.CREATED).count();
        }
    }

    private Restore() {
    }

    /**
     * Restores through the caller's view (the provider's, for a whole router).
     *
     * @throws ValidationException when the backup names a VR twice or leaves out a name or vmIndex
     */
    public static Report run(VirtualRouters view, RouterBackup backup) {
        return run(view, backup, (plan, set) -> { });
    }

    /**
     * The same, {@code alsoInTheSet} given the plan (its rows still to be changed) and the set before the
     * rows are added and the set journaled: for what must change with them, all or none (a move's far ends
     * joined here, its arrival on disk first).
     */
    public static Report run(VirtualRouters view, RouterBackup backup,
                             java.util.function.BiConsumer<Plan, ChangeSet.Builder> alsoInTheSet) {
        checkNames(backup); // before the view is asked anything: a bad backup is the caller's 400 on any router
        Plan plan = plan(view.indices(), view::findByName, i -> view.getConfig(i).orElse(null), backup);
        Map<Integer, Integer> indexHere = plan.indexHere;
        List<BackedUpRouter> missing = plan.missing;
        ChangeSet.Builder set = ChangeSet.builder();
        List<VmConfigEntry> kept = keepUuids(view, backup, missing, indexHere);
        Applied applied;
        try {
            alsoInTheSet.accept(plan, set);
            plan.created.forEach(set::create);
            applied = set.isEmpty() ? null : view.apply(set.build());
        } catch (RuntimeException refused) {
            for (VmConfigEntry row : kept) view.keepUuid(row.vmIndex, row.vmName, null);
            throw refused;
        }
        return new Report(plan.outcomes, applied);
    }

    /** What a restore makes (rows with their vmIndex here) and says, VR by VR; computed alone, so a stopped server's store can take it too. */
    public record Plan(List<VmConfigEntry> created, List<Outcome> outcomes, List<BackedUpRouter> missing,
                       Map<Integer, Integer> indexHere) {
    }

    /**
     * Matches the backup's VRs by name against the router's (its vmIndices, names and rows), keeps a
     * missing VR's vmIndex when free, else gives it the lowest free one, and points its peer links at the indices here.
     *
     * @throws ValidationException when the backup names a VR twice or leaves out a name or vmIndex
     */
    public static Plan plan(Set<Integer> indices, java.util.function.Function<String, Optional<Integer>> findByName,
                            java.util.function.IntFunction<VmConfigEntry> configOf, RouterBackup backup) {
        checkNames(backup);
        Map<Integer, Integer> indexHere = new HashMap<>(); // the backup's vmIndex -> this router's
        for (BackedUpRouter b : backup.routers) {
            findByName.apply(b.vmName).ifPresent(i -> indexHere.put(b.vmIndex, i));
        }
        Set<Integer> taken = new HashSet<>(indices);
        List<BackedUpRouter> missing = new ArrayList<>();
        for (BackedUpRouter b : backup.routers) {
            if (indexHere.containsKey(b.vmIndex)) continue;
            missing.add(b);
            if (!taken.contains(b.vmIndex)) {
                indexHere.put(b.vmIndex, b.vmIndex);
                taken.add(b.vmIndex);
            }
        }
        int next = 1;
        for (BackedUpRouter b : missing) {
            if (indexHere.containsKey(b.vmIndex)) continue;
            while (taken.contains(next)) next++;
            indexHere.put(b.vmIndex, next);
            taken.add(next);
        }
        List<VmConfigEntry> created = new ArrayList<>();
        List<Outcome> outcomes = new ArrayList<>();
        for (BackedUpRouter b : backup.routers) {
            VmConfigEntry row = here(b, indexHere);
            Action action;
            if (missing.contains(b)) {
                created.add(row);
                action = Action.CREATED;
            } else {
                action = same(configOf.apply(row.vmIndex), row) ? Action.PRESENT : Action.DIFFERS;
            }
            outcomes.add(new Outcome(b.vmName, b.vmIndex, row.vmIndex, action));
        }
        return new Plan(created, outcomes, missing, indexHere);
    }

    /**
     * Tells the driver the vmUUID of each VR about to be made, unless a VR here has it already (a backup
     * restored beside its own router's VRs); the rows whose UUID the driver keeps.
     */
    private static List<VmConfigEntry> keepUuids(VirtualRouters view, RouterBackup backup, List<BackedUpRouter> missing,
                                                 Map<Integer, Integer> indexHere) {
        Set<String> here = new HashSet<>();
        for (int i : List.copyOf(view.indices())) {
            view.get(i).map(vr -> vr.vmEntry == null ? null : vr.vmEntry.vmUUID).ifPresent(here::add);
        }
        List<VmConfigEntry> kept = new ArrayList<>();
        for (BackedUpRouter b : missing) {
            if (b.vmUUID == null || here.contains(b.vmUUID)) continue;
            UUID uuid;
            try {
                uuid = UUID.fromString(b.vmUUID);
            } catch (IllegalArgumentException e) {
                throw new ValidationException("vmUUID", b.vmName + "'s vmUUID '" + b.vmUUID + "' is no UUID");
            }
            VmConfigEntry row = new VmConfigEntry();
            row.vmIndex = indexHere.get(b.vmIndex);
            row.vmName = b.vmName;
            if (view.keepUuid(row.vmIndex, row.vmName, uuid)) kept.add(row);
        }
        return kept;
    }

    private static void checkNames(RouterBackup backup) {
        Set<String> names = new HashSet<>();
        Set<Integer> indices = new HashSet<>();
        for (BackedUpRouter b : backup.routers) {
            if (b == null) throw new ValidationException("routers", "an entry is empty");
            if (b.vmName == null) throw new ValidationException("vmName", "every VR of a backup has its name");
            if (b.vmIndex == null) throw new ValidationException("vmIndex", "every VR of a backup has its vmIndex");
            if (!names.add(b.vmName)) throw new ValidationException("vmName", "the backup names " + b.vmName + " twice");
            if (!indices.add(b.vmIndex)) throw new ValidationException("vmIndex", "the backup has vmIndex " + b.vmIndex + " twice");
        }
    }

    /** The backed-up row as this router has it: its vmIndex here, and its peer links to the VRs' indices here. */
    private static VmConfigEntry here(BackedUpRouter b, Map<Integer, Integer> indexHere) {
        VmConfigEntry row = b.row();
        row.vmIndex = indexHere.get(b.vmIndex);
        for (VmNetworkConfigEntry n : row.interfaces()) {
            if (n.vmNetworkConfigPeerRouter != null) {
                n.vmNetworkConfigPeerRouter = indexHere.getOrDefault(n.vmNetworkConfigPeerRouter, n.vmNetworkConfigPeerRouter);
            }
        }
        return row;
    }

    /** Whether two rows say the same (compared as the model's JSON writes them). */
    static boolean same(VmConfigEntry a, VmConfigEntry b) {
        if (a == null || b == null) return a == b;
        try {
            return ModelJson.mapper().valueToTree(a).equals(ModelJson.mapper().valueToTree(b));
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
