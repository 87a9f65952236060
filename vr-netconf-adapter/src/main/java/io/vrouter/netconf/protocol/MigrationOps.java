package io.vrouter.netconf.protocol;

import io.vrouter.core.migration.PeerClient;
import io.vrouter.core.spi.VrException;
import io.vrouter.netconf.protocol.RpcError.Type;
import io.vrouter.netconf.xml.SecureXml;
import io.vrouter.yang.DataNode;
import io.vrouter.yang.MigrationRpcs;
import io.vrouter.yang.Ns;
import io.vrouter.yang.datastore.Datastore;
import java.util.List;
import java.util.Map;
import org.w3c.dom.Element;

/**
 * vrouter-migration's migrate over NETCONF (docs/adr/0023-backup-restore-and-migration.md): a write of
 * running, refused while another session holds its lock; answered once the VR runs on the peer.
 */
final class MigrationOps {
    private MigrationOps() {
    }

    static Outcome migrate(Requester who, Element op, Map<String, PeerClient> peers) throws RpcError {
        int vmIndex = vmIndex(op);
        String peer = text(op, "peer");
        who.scope().datastore().checkWritable(Datastore.Name.RUNNING, who.sessionId());
        // not under the datastores' lock: the move lasts until the peer has the VR up, and holds only that VR
        List<DataNode> out;
        try {
            out = MigrationRpcs.migrate(who.service(), peers, vmIndex, peer);
        } catch (VrException e) {
            throw Changes.error(e);
        }
        return Outcome.of(x -> {
            for (DataNode n : out) n.write(x);
        });
    }

    private static String text(Element op, String name) throws RpcError {
        Element e = SecureXml.child(op, Ns.MIGRATION, name);
        if (e == null) throw RpcError.missingElement(Type.PROTOCOL, null, name, "migrate needs <" + name + ">");
        return SecureXml.text(e).trim();
    }

    private static int vmIndex(Element op) throws RpcError {
        String v = text(op, "vmIndex");
        try {
            int i = Integer.parseInt(v);
            if (i >= 1) return i;
        } catch (NumberFormatException e) {
            // said below
        }
        throw RpcError.invalidValue(null, "vmIndex must be a VR's vmIndex (1..2147483647), not '" + v + "'")
                .info("bad-element", "vmIndex");
    }
}
