package io.vrouter.core.service;

import io.vrouter.core.spi.ChangeSet;
import io.vrouter.core.spi.NotFoundException;
import io.vrouter.core.config.Caller;
import io.vrouter.core.model.Column;
import io.vrouter.core.model.Commit;
import io.vrouter.core.model.ConfigColumn;
import io.vrouter.core.model.LeafChanges;
import io.vrouter.core.model.NetworkColumn;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import io.vrouter.core.model.VrEvent;
import io.vrouter.core.model.VrEvent.LeafChange;
import io.vrouter.core.service.ChangeCheck.Kind;
import io.vrouter.core.service.ChangeCheck.Target;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What the history records of a commit, and the change set that rolls back to one
 * (docs/adr/0021-history-and-rollback.md). A commit's diff is the set's leaf changes
 * ({@link LeafChanges#withKeys}: with the key leaf of each row made or gone), values in text form;
 * rolling back to commit N undoes, leaf by leaf, the changes of the commits after N that were not
 * undone: each leaf goes back to its value before the first of them, which is its value after N.
 */
final class History {
    private History() {
    }

    /** The commit of an accepted set's targets (null when it changes no row: it only joins removals under way). */
    static Commit commitOf(List<Target> targets, Caller by, Long rollbackTo) {
        Commit c = new Commit();
        c.time = Instant.now().toString();
        c.changedBy = new VrEvent.ChangedBy(by.user(), by.tenant(), by.iface(), by.source());
        c.rollbackTo = rollbackTo;
        List<Commit.Vr> vrs = new ArrayList<>();
        List<LeafChange> changes = new ArrayList<>();
        for (Target t : targets) {
            if (t.kind() == Kind.JOIN) continue;
            VmConfigEntry before = t.kind() == Kind.CREATE ? null : t.before();
            VmConfigEntry after = t.kind() == Kind.REMOVE ? null : t.after();
            VmConfigEntry either = after != null ? after : before;
            vrs.add(new Commit.Vr(t.vmIndex(), either.vmName, either.vmConfigTenant));
            for (LeafChange l : LeafChanges.withKeys(t.vmIndex(), before, after)) {
                Column<?> col = column(l);
                changes.add(new LeafChange(l.table(), l.vmIndex(), l.networkIndex(), l.leaf(), text(col, l.before()),
                        text(col, l.after())));
            }
        }
        if (vrs.isEmpty()) return null;
        c.vrs = List.copyOf(vrs);
        c.changes = List.copyOf(changes);
        return c;
    }

    /**
     * The set that brings the VRs of {@code commits} (the history as the caller sees it, oldest
     * first) back to what they were after commit {@code number}; a {@link NotFoundException} when
     * the history does not keep that commit.
     */
    static ChangeSet rollbackTo(long number, List<Commit> commits) {
        if (commits.stream().noneMatch(c -> c.number == number)) {
            throw new NotFoundException("commit " + number + " is not in the history (it keeps "
                    + (commits.isEmpty() ? "no commit" : "commits " + commits.get(0).number + " to "
                    + commits.get(commits.size() - 1).number) + ")");
        }
        // Per VR, each leaf's first value before and last value after, over the commits after N.
        Map<Integer, List<LeafChange>> byVr = new LinkedHashMap<>();
        for (Commit c : commits) {
            if (c.number <= number || c.undone != null) continue;
            Map<Integer, List<LeafChange>> ofCommit = new LinkedHashMap<>();
            for (LeafChange l : c.changes) ofCommit.computeIfAbsent(l.vmIndex(), k -> new ArrayList<>()).add(l);
            ofCommit.forEach((vm, later) -> byVr.merge(vm, later, LeafChanges::merge));
        }
        ChangeSet.Builder b = ChangeSet.builder();
        byVr.forEach((vmIndex, leaves) -> {
            Map<String, LeafChange> vr = new LinkedHashMap<>();
            Map<Integer, Map<String, LeafChange>> ifaces = new LinkedHashMap<>();
            for (LeafChange l : leaves) {
                if (l.networkIndex() == null) vr.put(l.leaf(), l);
                else ifaces.computeIfAbsent(l.networkIndex(), k -> new LinkedHashMap<>()).put(l.leaf(), l);
            }
            LeafChange key = vr.get(LeafChanges.VM_INDEX);
            if (key != null && key.before() == null) {
                b.add(new ChangeSet.Remove(vmIndex, false)); // made after N
            } else if (key != null && key.after() == null) {
                b.create(rowBefore(vmIndex, vr, ifaces)); // gone since N
            } else if (!leaves.isEmpty()) {
                b.edit(vmIndex, row -> {
                    for (LeafChange l : vr.values()) {
                        ConfigColumn c = ConfigColumn.ofField(l.leaf());
                        c.set(row, value(c, l.before()));
                    }
                    ifaces.forEach((i, changed) -> backTo(row, i, changed));
                });
            }
        });
        return b.build().rollingBackTo(number);
    }

    /** An interface of a VR that exists both after N and now brought back to its leaves after N. */
    private static void backTo(VmConfigEntry row, int index, Map<String, LeafChange> changed) {
        LeafChange key = changed.get(LeafChanges.NETWORK_INDEX);
        if (key != null && key.before() == null) {
            List<VmNetworkConfigEntry> list = new ArrayList<>(row.interfaces());
            list.removeIf(n -> n.vmNetworkConfigIndex == index);
            row.vmNetworkConfigTable = list.isEmpty() ? null : list;
            return;
        }
        VmNetworkConfigEntry n;
        if (key != null) {
            n = new VmNetworkConfigEntry();
            n.vmNetworkConfigIndex = index;
        } else {
            VmNetworkConfigEntry now = find(row, index);
            if (now == null) {
                throw new NotFoundException("VR " + row.vmIndex + " has no interface " + index
                        + " any more, which the history says it has").at(row.vmIndex, index);
            }
            n = now.copy();
        }
        for (LeafChange l : changed.values()) {
            if (l.leaf().equals(LeafChanges.NETWORK_INDEX)) continue;
            NetworkColumn c = NetworkColumn.ofField(l.leaf());
            c.set(n, value(c, l.before()));
        }
        ChangeSet.putInterface(n).apply(row);
    }

    /** The row of a VR gone since N, as it was after N: every leaf it had is among the changes of its removal. */
    private static VmConfigEntry rowBefore(int vmIndex, Map<String, LeafChange> vr,
                                           Map<Integer, Map<String, LeafChange>> ifaces) {
        VmConfigEntry row = new VmConfigEntry();
        row.vmIndex = vmIndex;
        for (LeafChange l : vr.values()) {
            ConfigColumn c = ConfigColumn.ofField(l.leaf());
            if (c != null) c.set(row, value(c, l.before()));
        }
        List<VmNetworkConfigEntry> list = new ArrayList<>();
        ifaces.forEach((i, changed) -> {
            LeafChange key = changed.get(LeafChanges.NETWORK_INDEX);
            if (key == null || key.before() == null) return;
            VmNetworkConfigEntry n = new VmNetworkConfigEntry();
            n.vmNetworkConfigIndex = i;
            for (LeafChange l : changed.values()) {
                NetworkColumn c = NetworkColumn.ofField(l.leaf());
                if (c != null) c.set(n, value(c, l.before()));
            }
            list.add(n);
        });
        row.vmNetworkConfigTable = list.isEmpty() ? null : list;
        return row;
    }

    private static VmNetworkConfigEntry find(VmConfigEntry row, Integer index) {
        if (row == null) return null;
        for (VmNetworkConfigEntry n : row.interfaces()) {
            if (Objects.equals(n.vmNetworkConfigIndex, index)) return n;
        }
        return null;
    }

    private static Column<?> column(LeafChange l) {
        return LeafChanges.CONFIG_TABLE.equals(l.table()) ? ConfigColumn.ofField(l.leaf()) : NetworkColumn.ofField(l.leaf());
    }

    /** A value in text form; a key leaf has no column and an integer value. */
    private static String text(Column<?> c, Object v) {
        return v == null ? null : c == null ? String.valueOf(v) : c.kind().format(v);
    }

    private static Object value(Column<?> c, Object text) {
        return text == null ? null : c.kind().parse(text.toString());
    }
}
