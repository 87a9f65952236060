package io.vrouter.yang;

import io.vrouter.core.model.Commit;
import io.vrouter.core.model.VrEvent;
import io.vrouter.core.spi.Applied;
import io.vrouter.core.spi.VirtualRouters;
import java.util.ArrayList;
import java.util.List;

/**
 * The RPCs of vrouter-history, get-commits and rollback (docs/adr/0021-history-and-rollback.md), in
 * one place for NETCONF and RESTCONF, which parse the input and map the errors each in its own terms.
 */
public final class HistoryRpcs {
    private HistoryRpcs() {
    }

    /**
     * get-commits' output: every commit the caller's view keeps, or the one numbered {@code number}
     * (an IllegalArgumentException when it keeps none such).
     */
    public static List<DataNode> getCommits(VirtualRouters service, Long number) {
        List<DataNode> out = new ArrayList<>();
        for (Commit c : service.commits()) {
            if (number == null || c.number == number) out.add(commit(c));
        }
        if (number != null && out.isEmpty()) throw new IllegalArgumentException("commit " + number + " is not in the history");
        return out;
    }

    /** rollback's output: the new commit's number; the core's exceptions say why it is refused. */
    public static List<DataNode> rollback(VirtualRouters service, long number) {
        Applied applied = service.rollback(number);
        return List.of(DataNode.leaf(Ns.HISTORY, "commit", Long.toString(applied.commit())));
    }

    private static DataNode commit(Commit c) {
        String ns = Ns.HISTORY;
        DataNode.Inner n = DataNode.inner(ns, "commit", "number").add("number", c.number).add("time", c.time);
        VrEvent.ChangedBy by = c.changedBy;
        if (by != null) n.add("user", by.user).add("tenant", by.tenant).add("interface", by.iface).add("source", by.source);
        n.add("rollback-to", c.rollbackTo).add("undone", c.undone);
        for (Commit.Vr vr : c.vrs) {
            n.add(DataNode.inner(ns, "vr", "vmIndex").add("vmIndex", vr.vmIndex()).add("vmName", vr.vmName())
                    .add("tenant", vr.tenant()));
        }
        int position = 0;
        for (VrEvent.LeafChange l : c.changes) {
            n.add(DataNode.inner(ns, "change", "position").addUnsigned32("position", (long) ++position).add("table", l.table()).add("vmIndex", l.vmIndex())
                    .add("vmNetworkConfigIndex", l.networkIndex()).add("name", l.leaf()).add("before", l.before())
                    .add("after", l.after()));
        }
        return n;
    }
}
