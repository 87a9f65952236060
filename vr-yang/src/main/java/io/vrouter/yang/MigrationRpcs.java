package io.vrouter.yang;

import io.vrouter.core.migration.Migration;
import io.vrouter.core.migration.PeerClient;
import io.vrouter.core.spi.VirtualRouters;
import java.util.List;
import java.util.Map;

/**
 * vrouter-migration's RPC, migrate (docs/adr/0023-backup-restore-and-migration.md), in one place for
 * NETCONF and RESTCONF, which parse the input and map the core's errors each in its own terms.
 */
public final class MigrationRpcs {
    private MigrationRpcs() {
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
