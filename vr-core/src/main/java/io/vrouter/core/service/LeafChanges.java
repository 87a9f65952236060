package io.vrouter.core.service;

import io.vrouter.core.model.ConfigColumn;
import io.vrouter.core.model.NetworkColumn;
import io.vrouter.core.model.OperState;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import io.vrouter.core.model.VrEvent.LeafChange;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** The leaves that differ between two rows of a VR, or two states: computed once, in the core, for every listener. */
final class LeafChanges {
    static final String CONFIG_TABLE = "vmConfigTable";
    static final String NETWORK_CONFIG_TABLE = "vmNetworkConfigTable";
    static final String VM_TABLE = "vmTable";

    private LeafChanges() {
    }

    /** The leaves of the VR's row that differ from {@code before} to {@code after} (either null: a row made or gone). */
    static List<LeafChange> between(int vmIndex, VmConfigEntry before, VmConfigEntry after) {
        List<LeafChange> out = new ArrayList<>();
        for (ConfigColumn c : ConfigColumn.values()) {
            add(out, CONFIG_TABLE, vmIndex, null, c.field(), before == null ? null : c.get(before),
                    after == null ? null : c.get(after));
        }
        Map<Integer, VmNetworkConfigEntry[]> rows = new LinkedHashMap<>();
        if (before != null) for (VmNetworkConfigEntry n : before.interfaces()) rows.computeIfAbsent(n.vmNetworkConfigIndex, k -> new VmNetworkConfigEntry[2])[0] = n;
        if (after != null) for (VmNetworkConfigEntry n : after.interfaces()) rows.computeIfAbsent(n.vmNetworkConfigIndex, k -> new VmNetworkConfigEntry[2])[1] = n;
        rows.forEach((index, pair) -> {
            for (NetworkColumn c : NetworkColumn.values()) {
                add(out, NETWORK_CONFIG_TABLE, vmIndex, index, c.field(), pair[0] == null ? null : c.get(pair[0]),
                        pair[1] == null ? null : c.get(pair[1]));
            }
        });
        return out;
    }

    /** The changes with that of vmOperState added, when it changed. */
    static List<LeafChange> withState(List<LeafChange> changes, int vmIndex, OperState before, OperState after) {
        if (before == after) return changes;
        List<LeafChange> out = new ArrayList<>(changes.size() + 1);
        out.addAll(changes);
        out.add(new LeafChange(VM_TABLE, vmIndex, null, "vmOperState", before, after));
        return List.copyOf(out);
    }

    /**
     * Later changes folded into earlier ones not told yet: a leaf keeps its first old value and takes
     * the latest new one, and goes when it ends as it began.
     */
    static List<LeafChange> merge(List<LeafChange> earlier, List<LeafChange> later) {
        if (earlier.isEmpty()) return List.copyOf(later);
        Map<List<Object>, LeafChange> byLeaf = new LinkedHashMap<>();
        for (LeafChange c : earlier) byLeaf.put(key(c), c);
        for (LeafChange c : later) {
            LeafChange first = byLeaf.get(key(c));
            byLeaf.put(key(c), first == null ? c
                    : new LeafChange(c.table(), c.vmIndex(), c.networkIndex(), c.leaf(), first.before(), c.after()));
        }
        byLeaf.values().removeIf(c -> Objects.equals(c.before(), c.after()));
        return List.copyOf(byLeaf.values());
    }

    private static List<Object> key(LeafChange c) {
        return java.util.Arrays.asList(c.table(), c.networkIndex(), c.leaf());
    }

    private static void add(List<LeafChange> out, String table, int vmIndex, Integer networkIndex, String leaf,
                            Object before, Object after) {
        if (!Objects.equals(before, after)) out.add(new LeafChange(table, vmIndex, networkIndex, leaf, before, after));
    }
}
