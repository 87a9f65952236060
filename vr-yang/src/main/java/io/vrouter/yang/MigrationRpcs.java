package io.vrouter.yang;

import io.vrouter.core.migration.Drain;
import io.vrouter.core.migration.Migration;
import io.vrouter.core.migration.PeerClient;
import io.vrouter.core.spi.VirtualRouters;
import java.util.List;
import java.util.Map;

/**
 * vrouter-migration's RPCs, migrate, drain and open (docs/adr/0023-backup-restore-and-migration.md), in one place for
 * NETCONF and RESTCONF, which parse the input and map the core's errors each in its own terms.
 */
public final class MigrationRpcs {
    private MigrationRpcs() {
    }

    /** How long drain waits for its end before it answers that it is still draining. */
    static final java.time.Duration DRAIN_WAIT = java.time.Duration.ofHours(1);

    /** drain's output, once every VR has moved or been refused ({@link Drain}). */
    public static List<DataNode> drain(VirtualRouters service, Drain drain, List<String> peers) {
        drain.start(service, peers);
        try {
            drain.await(DRAIN_WAIT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // answers with how far it is
        }
        return report(drain.report(service));
    }

    /** open's output: the router takes new VRs again. */
    public static List<DataNode> open(VirtualRouters service, Drain drain) {
        drain.open(service);
        return report(drain.report(service));
    }

    private static List<DataNode> report(Drain.Report r) {
        String ns = Ns.MIGRATION;
        List<DataNode> out = new java.util.ArrayList<>();
        out.add(DataNode.leaf(ns, "drained", Boolean.toString(r.drained()), DataNode.Json.BOOLEAN));
        if (r.since() != null) out.add(DataNode.leaf(ns, "drained-since", r.since()));
        out.add(DataNode.leaf(ns, "draining", Boolean.toString(r.draining()), DataNode.Json.BOOLEAN));
        out.add(DataNode.leaf(ns, "total", Integer.toString(r.total()), DataNode.Json.NUMBER));
        out.add(DataNode.leaf(ns, "moved", Integer.toString(r.moved()), DataNode.Json.NUMBER));
        out.add(DataNode.leaf(ns, "not-moved", Integer.toString(r.notMoved()), DataNode.Json.NUMBER));
        for (Drain.VrOutcome o : r.routers()) {
            out.add(DataNode.inner(ns, "router", "vmIndex").add("vmIndex", o.vmIndex()).add("vmName", o.vmName())
                    .add("peer", o.peer()).add("peer-index", o.peerIndex()).add("problem", o.problem()));
        }
        return out;
    }

    /** migrate's output, once the VR runs on the peer and is gone from here. */
    public static List<DataNode> migrate(VirtualRouters service, Map<String, PeerClient> peers, int vmIndex, String peer) {
        Migration.Moved moved = Migration.move(service, vmIndex, peers, peer);
        String ns = Ns.MIGRATION;
        return List.of(DataNode.leaf(ns, "vmName", moved.vmName()), DataNode.leaf(ns, "peer", moved.peer()),
                DataNode.leaf(ns, "vmIndex", Integer.toString(moved.vmIndex())),
                DataNode.leaf(ns, "peer-index", Integer.toString(moved.peerIndex())));
    }
}
