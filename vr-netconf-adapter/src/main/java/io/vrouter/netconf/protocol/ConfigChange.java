package io.vrouter.netconf.protocol;

import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import io.vrouter.core.model.VrEvent;
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
    static Optional<DataNode> between(Requester by, Map<Integer, VmConfigEntry> before, Map<Integer, VmConfigEntry> after) {
        TreeSet<Integer> indices = new TreeSet<>(before.keySet());
        indices.addAll(after.keySet());
        return between(by, indices, before::get, after::get);
    }

    /** The same among the given VRs only (those an edit touched), the rows read by vmIndex (null: none). */
    static Optional<DataNode> between(Requester by, Iterable<Integer> indices, IntFunction<VmConfigEntry> before,
                                      IntFunction<VmConfigEntry> after) {
        List<Edit> edits = edits(indices, before, after);
        return by == null ? notification(null, 0, null, edits) : notification(by.user(), by.sessionId(), by.sourceHost(), edits);
    }

    /**
     * The notification for a change of running that a VR event tells of, made over another interface
     * (REST, RESTCONF, SNMP, the console) or by the server: {@code changed-by} from the event's author
     * ({@link VrEvent#changedBy}; session-id 0, as it was no NETCONF session; the server itself:
     * {@code server}). Empty for an event that changed no configuration, that tells no author (what
     * the host did alone, a later step of a change), or of a NETCONF session's change (the session
     * tells it, with its session-id).
     */
    static Optional<DataNode> of(VrEvent e) {
        VrEvent.ChangedBy by = e.changedBy;
        if (by == null || "netconf".equals(by.iface)) return Optional.empty();
        List<Edit> edits = new ArrayList<>();
        if (e.type == VrEvent.Type.CREATED || e.type == VrEvent.Type.DELETED) {
            edits.add(new Edit(Paths.entry(e.vmIndex), e.type == VrEvent.Type.CREATED ? "create" : "delete"));
        } else {
            Map<Integer, String> interfaces = new java.util.TreeMap<>();
            for (VrEvent.LeafChange c : e.changes) {
                if (c.table().equals("vmConfigTable")) {
                    edits.add(new Edit(Paths.child(Paths.entry(e.vmIndex), c.leaf()), c.after() == null ? "delete" : "replace"));
                } else if (c.table().equals("vmNetworkConfigTable")) {
                    String op = c.before() == null ? "create" : c.after() == null ? "delete" : "replace";
                    interfaces.merge(c.networkIndex(), op, (a, b) -> a.equals(b) ? a : "replace");
                }
            }
            interfaces.forEach((k, op) -> edits.add(new Edit(Paths.networkEntry(e.vmIndex, k), op)));
        }
        return "system".equals(by.iface) ? notification(null, 0, null, edits) : notification(by.user, 0, by.source, edits);
    }

    /** netconf-config-change by a user (null: the server) with the edits; empty when there are none. */
    private static Optional<DataNode> notification(String user, int sessionId, String sourceHost, List<Edit> edits) {
        if (edits.isEmpty()) return Optional.empty();
        DataNode.Inner n = DataNode.inner(Ns.NETCONF_NOTIFICATIONS, "netconf-config-change");
        DataNode.Inner changedBy = DataNode.inner(Ns.NETCONF_NOTIFICATIONS, "changed-by");
        if (user == null) {
            changedBy.add(DataNode.empty(Ns.NETCONF_NOTIFICATIONS, "server"));
        } else {
            changedBy.add("username", user).add("session-id", sessionId).add("source-host", sourceHost);
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
