package io.vrouter.netconf.protocol;

import io.vrouter.core.model.LeafChanges;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VrEvent;
import io.vrouter.yang.Ns;
import io.vrouter.yang.DataNode;
import io.vrouter.yang.edit.ConfigEdits;
import io.vrouter.yang.edit.ConfigEdits.Edit;
import io.vrouter.yang.edit.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.IntFunction;

/**
 * RFC 6470's netconf-config-change: who changed the running configuration and what, as the edits
 * ({@link ConfigEdits}) that turn the rows before into the rows after.
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
        List<Edit> edits = ConfigEdits.between(indices, before, after);
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
        List<Edit> edits = e.type == VrEvent.Type.CREATED || e.type == VrEvent.Type.DELETED
                ? List.of(new Edit(Paths.entry(e.vmIndex), e.type == VrEvent.Type.CREATED ? "create" : "delete"))
                : ConfigEdits.of(e.vmIndex, withInterfaceKeys(e.vmIndex, e.changes));
        return "system".equals(by.iface) ? notification(null, 0, null, edits) : notification(by.user, 0, by.source, edits);
    }

    /**
     * An event's changes with the key leaf of each interface made or gone, which events do not carry
     * ({@link LeafChanges#between}): an interface whose every changed leaf appeared was made, one whose
     * every changed leaf vanished is gone.
     */
    private static List<VrEvent.LeafChange> withInterfaceKeys(int vmIndex, List<VrEvent.LeafChange> changes) {
        Map<Integer, String> ops = new TreeMap<>();
        for (VrEvent.LeafChange c : changes) {
            if (c.networkIndex() == null || !c.table().equals(LeafChanges.NETWORK_CONFIG_TABLE)) continue;
            String op = c.before() == null ? "create" : c.after() == null ? "delete" : "replace";
            ops.merge(c.networkIndex(), op, (a, b) -> a.equals(b) ? a : "replace");
        }
        List<VrEvent.LeafChange> out = new ArrayList<>(changes);
        ops.forEach((i, op) -> {
            if (!op.equals("replace")) out.add(new VrEvent.LeafChange(LeafChanges.NETWORK_CONFIG_TABLE, vmIndex, i,
                    LeafChanges.NETWORK_INDEX, op.equals("create") ? null : i, op.equals("create") ? i : null));
        });
        return out;
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

    private static DataNode edit(String target, String operation) {
        return DataNode.inner(Ns.NETCONF_NOTIFICATIONS, "edit")
                .add(DataNode.withPrefix(Ns.NETCONF_NOTIFICATIONS, "target", target, P, Ns.VMM))
                .add("operation", operation);
    }
}
