package io.vrouter.yang.edit;

import io.vrouter.core.model.LeafChanges;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VrEvent.LeafChange;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntFunction;

/**
 * What a change of the configuration did, node by node: a VR created or deleted (its entry), a column
 * replaced or deleted (its leaf), an interface created, deleted or replaced (its entry). What RFC
 * 6470's netconf-config-change tells and what access control (NACM) checks a write against, whichever
 * interface made it: read from the core's leaf changes ({@link LeafChanges}), the one comparison of
 * two configurations, so that a new column is covered without a change here.
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
            if (was != now) out.addAll(of(i, LeafChanges.withKeys(i, was, now)));
        }
        return out;
    }

    /** The edits from {@code base} to {@code edited}, a copy of it an edit changed. */
    public static List<Edit> between(ConfigData base, ConfigData edited) {
        return between(edited.changedFrom(base), base::get, edited::get);
    }

    /**
     * The edits of one VR's leaf changes: its entry when the VR's key leaf says it was made or is gone;
     * else each column changed, then each interface changed in index order, created or deleted when
     * its key leaf says so. Changes of other tables (vmOperState) are none of the configuration's.
     */
    public static List<Edit> of(int vmIndex, List<LeafChange> changes) {
        Map<Integer, String> interfaces = new TreeMap<>();
        List<Edit> out = new ArrayList<>();
        for (LeafChange c : changes) {
            boolean key = LeafChanges.isKey(c);
            String op = c.before() == null ? "create" : c.after() == null ? "delete" : "replace";
            if (c.table().equals(LeafChanges.CONFIG_TABLE)) {
                if (key) return List.of(new Edit(Paths.entry(vmIndex), op));
                out.add(new Edit(Paths.child(Paths.entry(vmIndex), c.leaf()), c.after() == null ? "delete" : "replace"));
            } else if (c.table().equals(LeafChanges.NETWORK_CONFIG_TABLE)) {
                interfaces.merge(c.networkIndex(), key ? op : "replace", (was, k) -> key ? op : was);
            }
        }
        interfaces.forEach((k, op) -> out.add(new Edit(Paths.networkEntry(vmIndex, k), op)));
        return out;
    }
}
