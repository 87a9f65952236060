package io.vrouter.yang.edit;

import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import io.vrouter.yang.DataNode;
import io.vrouter.yang.ModelTree;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.IntFunction;

/**
 * What a change of the configuration did, node by node: a VR created or deleted (its entry), a column
 * replaced (its leaf), an interface created, deleted or replaced (its entry). What RFC 6470's
 * netconf-config-change tells and what access control (NACM) checks a write against, whichever
 * interface made it. The leaves compared are those the YANG module shows ({@link ModelTree}), so a
 * new column is covered without a change here.
 */
public final class ConfigEdits {
    private ConfigEdits() {
    }

    /** One edit of RFC 6470: the node (an instance identifier, {@link Paths}) and create, delete or replace. */
    public record Edit(String target, String operation) {
    }

    /** The edits that turn the rows before into the rows after among the given VRs (rows read by vmIndex, null: none). */
    public static List<Edit> between(Iterable<Integer> indices, IntFunction<VmConfigEntry> before, IntFunction<VmConfigEntry> after) {
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

    /** The edits from {@code base} to {@code edited}, a copy of it an edit changed. */
    public static List<Edit> between(ConfigData base, ConfigData edited) {
        return between(edited.changedFrom(base), base::get, edited::get);
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

    private static <K> Set<K> union(Map<K, ?> a, Map<K, ?> b) {
        Set<K> keys = new LinkedHashSet<>(a.keySet());
        keys.addAll(b.keySet());
        return keys;
    }
}
