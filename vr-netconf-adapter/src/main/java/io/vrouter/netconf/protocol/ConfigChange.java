package io.vrouter.netconf.protocol;

import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import io.vrouter.yang.Ns;
import io.vrouter.yang.DataNode;
import io.vrouter.yang.ModelTree;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.IntFunction;

/**
 * RFC 6470's netconf-config-change: who changed the running configuration and what, as the edits
 * that turn the rows before into the rows after: a VR created or deleted (its entry), a column
 * replaced (its leaf), an interface created, deleted or replaced (its entry). The leaves compared
 * are those the YANG module shows ({@link ModelTree}), so a new column is covered without a change here.
 */
final class ConfigChange {
    private static final String P = Ns.VMM_PREFIX;

    private ConfigChange() {
    }

    /**
     * The notification for a change made by a NETCONF session ({@code by}), or by the server itself
     * ({@code by} null, a confirmed commit restored); empty when nothing differs.
     */
    static Optional<DataNode> between(NetconfSession by, Map<Integer, VmConfigEntry> before, Map<Integer, VmConfigEntry> after) {
        TreeSet<Integer> indices = new TreeSet<>(before.keySet());
        indices.addAll(after.keySet());
        return between(by, indices, before::get, after::get);
    }

    /** The same among the given VRs only (those an edit touched), the rows read by vmIndex (null: none). */
    static Optional<DataNode> between(NetconfSession by, Iterable<Integer> indices, IntFunction<VmConfigEntry> before,
                                      IntFunction<VmConfigEntry> after) {
        List<Edit> edits = edits(indices, before, after);
        if (edits.isEmpty()) return Optional.empty();
        DataNode.Inner n = DataNode.inner(Ns.NETCONF_NOTIFICATIONS, "netconf-config-change");
        DataNode.Inner changedBy = DataNode.inner(Ns.NETCONF_NOTIFICATIONS, "changed-by");
        if (by == null) {
            changedBy.add(DataNode.empty(Ns.NETCONF_NOTIFICATIONS, "server"));
        } else {
            changedBy.add("username", by.user()).add("session-id", by.id()).add("source-host", by.sourceHost());
        }
        n.add(changedBy).add("datastore", "running");
        for (Edit e : edits) n.add(edit(e.target(), e.operation()));
        return Optional.of(n);
    }

    /** One edit of RFC 6470: the node (an instance identifier) and create, delete or replace. */
    record Edit(String target, String operation) {
    }

    /**
     * The edits that turn the rows before into the rows after among the given VRs: what
     * netconf-config-change tells, and what NACM checks a write against.
     */
    static List<Edit> edits(Iterable<Integer> indices, IntFunction<VmConfigEntry> before, IntFunction<VmConfigEntry> after) {
        List<Edit> out = new ArrayList<>();
        for (int i : indices) {
            VmConfigEntry was = before.apply(i);
            VmConfigEntry now = after.apply(i);
            if (was == now) continue;
            if (was == null || now == null) {
                out.add(new Edit(Paths.entry(i), was == null ? "create" : "delete"));
                continue;
            }
            Map<String, String> a = leaves(ModelTree.configEntry(was));
            Map<String, String> b = leaves(ModelTree.configEntry(now));
            for (String leaf : union(a, b)) {
                if (!Objects.equals(a.get(leaf), b.get(leaf))) {
                    out.add(new Edit(Paths.child(Paths.entry(i), leaf), b.get(leaf) == null ? "delete" : "replace"));
                }
            }
            Map<Integer, Map<String, String>> ia = interfaces(was);
            Map<Integer, Map<String, String>> ib = interfaces(now);
            for (int k : new TreeSet<>(union(ia, ib))) {
                Map<String, String> x = ia.get(k);
                Map<String, String> y = ib.get(k);
                if (Objects.equals(x, y)) continue;
                out.add(new Edit(Paths.networkEntry(i, k), x == null ? "create" : y == null ? "delete" : "replace"));
            }
        }
        return out;
    }

    private static DataNode edit(String target, String operation) {
        return DataNode.inner(Ns.NETCONF_NOTIFICATIONS, "edit")
                .add(DataNode.withPrefix(Ns.NETCONF_NOTIFICATIONS, "target", target, P, Ns.VMM))
                .add("operation", operation);
    }

    private static Map<String, String> leaves(DataNode entry) {
        Map<String, String> out = new LinkedHashMap<>();
        for (DataNode c : entry.children()) out.put(c.name(), c.value());
        return out;
    }

    private static Map<Integer, Map<String, String>> interfaces(VmConfigEntry c) {
        Map<Integer, Map<String, String>> out = new LinkedHashMap<>();
        for (VmNetworkConfigEntry n : c.interfaces()) {
            out.put(n.vmNetworkConfigIndex, leaves(ModelTree.networkConfigEntry(c.vmIndex, n)));
        }
        return out;
    }

    private static <K> java.util.Set<K> union(Map<K, ?> a, Map<K, ?> b) {
        java.util.Set<K> keys = new java.util.LinkedHashSet<>(a.keySet());
        keys.addAll(b.keySet());
        return keys;
    }
}
