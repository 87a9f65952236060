package io.vrouter.netconf.protocol;

import io.vrouter.core.migration.Drain;
import io.vrouter.core.migration.PeerClient;
import io.vrouter.core.spi.VrException;
import io.vrouter.netconf.protocol.RpcError.Type;
import io.vrouter.netconf.xml.SecureXml;
import io.vrouter.yang.DataNode;
import io.vrouter.yang.MigrationRpcs;
import io.vrouter.yang.Ns;
import io.vrouter.yang.datastore.Datastore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * vrouter-migration's migrate, drain and open over NETCONF (docs/adr/0023-backup-restore-and-migration.md):
 * writes of running, refused while another session holds its lock; migrate answered once the VR runs on
 * the peer, drain once every VR has moved or been refused.
 */
final class MigrationOps {
    private MigrationOps() {
    }

    static Outcome migrate(Requester who, Element op, Map<String, PeerClient> peers) throws RpcError {
        int vmIndex = vmIndex(op);
        String peer = text(op, "peer");
        who.scope().datastore().checkWritable(Datastore.Name.RUNNING, who.sessionId());
        // not under the datastores' lock: the move lasts until the peer has the VR up, and holds only that VR
        return written(() -> MigrationRpcs.migrate(who.service(), peers, vmIndex, peer));
    }

    /** drain: every VR to the peers ({@code <peer>}s named, else all), answered at the end with the report. */
    static Outcome drain(Requester who, Element op, Drain drain) throws RpcError {
        List<String> peers = new ArrayList<>();
        for (Node n = op.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && Ns.MIGRATION.equals(e.getNamespaceURI()) && "peer".equals(e.getLocalName())) {
                peers.add(SecureXml.text(e).trim());
            }
        }
        who.scope().datastore().checkWritable(Datastore.Name.RUNNING, who.sessionId());
        return written(() -> MigrationRpcs.drain(who.service(), drain, peers));
    }

    /** open: the router takes new VRs again. */
    static Outcome open(Requester who, Drain drain) throws RpcError {
        who.scope().datastore().checkWritable(Datastore.Name.RUNNING, who.sessionId());
        return written(() -> MigrationRpcs.open(who.service(), drain));
    }

    private static Outcome written(java.util.function.Supplier<List<DataNode>> rpc) throws RpcError {
        List<DataNode> out;
        try {
            out = rpc.get();
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
