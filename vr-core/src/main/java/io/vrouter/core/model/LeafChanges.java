package io.vrouter.core.model;

import io.vrouter.core.model.VrEvent.LeafChange;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What changed between two rows of a VR, leaf by leaf: the one comparison of configurations, in the
 * core, for every consumer. The VR's events tell {@link #between} (gNMI's on-change, RFC 6470 for
 * changes made over other interfaces); the history, the change set between two configurations
 * ({@code ChangeSet.between}), NETCONF's RFC 6470 edits and NACM's write targets read
 * {@link #withKeys}, which adds the key leaf of each row made or gone.
 */
public final class LeafChanges {
    public static final String CONFIG_TABLE = Schema.Table.CONFIG.tableName();
    public static final String NETWORK_CONFIG_TABLE = Schema.Table.NETWORK_CONFIG.tableName();
    public static final String VM_TABLE = Schema.Table.VM.tableName();
    /** The key leaves of a VR's row and of an interface's. */
    public static final String VM_INDEX = Schema.Table.CONFIG.rowKey();
    public static final String NETWORK_INDEX = Schema.Table.NETWORK_CONFIG.rowKey();

    private LeafChanges() {
    }

    /** The column leaves of the VR's row that differ from {@code before} to {@code after} (either null: a row made or gone). */
    public static List<LeafChange> between(int vmIndex, VmConfigEntry before, VmConfigEntry after) {
        List<LeafChange> out = new ArrayList<>();
        columns(out, vmIndex, before, after);
        return out;
    }

    /**
     * The same, led by the key leaf of the VR's row when it was made or is gone, and of each interface
     * made or gone (the key's value before and after, null where there is no row): so that a row that
     * has no other leaf is seen, and a consumer tells a row made from a leaf given a value.
     */
    public static List<LeafChange> withKeys(int vmIndex, VmConfigEntry before, VmConfigEntry after) {
        List<LeafChange> out = new ArrayList<>();
        if (before == null || after == null) {
            if (before == after) return out;
            out.add(new LeafChange(CONFIG_TABLE, vmIndex, null, VM_INDEX, before == null ? null : vmIndex,
                    after == null ? null : vmIndex));
        }
        for (Map.Entry<Integer, VmNetworkConfigEntry[]> i : interfaces(before, after).entrySet()) {
            boolean had = i.getValue()[0] != null;
            if (had != (i.getValue()[1] != null)) {
                int index = i.getKey();
                out.add(new LeafChange(NETWORK_CONFIG_TABLE, vmIndex, index, NETWORK_INDEX, had ? index : null, had ? null : index));
            }
        }
        columns(out, vmIndex, before, after);
        return out;
    }

    /** Whether the change is of a row's key leaf, which {@link #withKeys} gives for a row made or gone. */
    public static boolean isKey(LeafChange c) {
        return c.leaf().equals(c.networkIndex() == null ? VM_INDEX : NETWORK_INDEX);
    }

    private static void columns(List<LeafChange> out, int vmIndex, VmConfigEntry before, VmConfigEntry after) {
        for (ConfigColumn c : ConfigColumn.values()) {
            add(out, CONFIG_TABLE, vmIndex, null, c.field(), before == null ? null : c.get(before),
                    after == null ? null : c.get(after));
        }
        interfaces(before, after).forEach((index, pair) -> {
            for (NetworkColumn c : NetworkColumn.values()) {
                add(out, NETWORK_CONFIG_TABLE, vmIndex, index, c.field(), pair[0] == null ? null : c.get(pair[0]),
                        pair[1] == null ? null : c.get(pair[1]));
            }
        });
    }

    /** The interfaces of both rows by index, those before first: each as its entry before and after (null: none). */
    private static Map<Integer, VmNetworkConfigEntry[]> interfaces(VmConfigEntry before, VmConfigEntry after) {
        Map<Integer, VmNetworkConfigEntry[]> rows = new LinkedHashMap<>();
        if (before != null) for (VmNetworkConfigEntry n : before.interfaces()) rows.computeIfAbsent(n.vmNetworkConfigIndex, k -> new VmNetworkConfigEntry[2])[0] = n;
        if (after != null) for (VmNetworkConfigEntry n : after.interfaces()) rows.computeIfAbsent(n.vmNetworkConfigIndex, k -> new VmNetworkConfigEntry[2])[1] = n;
        return rows;
    }

    /** The changes with that of vmOperState added, when it changed. */
    public static List<LeafChange> withState(List<LeafChange> changes, int vmIndex, OperState before, OperState after) {
        if (before == after) return changes;
        List<LeafChange> out = new ArrayList<>(changes.size() + 1);
        out.addAll(changes);
        out.add(new LeafChange(VM_TABLE, vmIndex, null, Schema.Vm.OPER_STATE.field(), before, after));
        return List.copyOf(out);
    }

    /**
     * Later changes folded into earlier ones not told yet: a leaf keeps its first old value and takes
     * the latest new one, and goes when it ends as it began.
     */
    public static List<LeafChange> merge(List<LeafChange> earlier, List<LeafChange> later) {
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
