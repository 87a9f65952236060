package io.vrouter.netconf.protocol;

import io.vrouter.core.spi.VrException;
import io.vrouter.netconf.protocol.RpcError.Type;
import io.vrouter.netconf.xml.SecureXml;
import io.vrouter.yang.DataNode;
import io.vrouter.yang.HistoryRpcs;
import io.vrouter.yang.Ns;
import io.vrouter.yang.datastore.Datastore;
import io.vrouter.yang.datastore.Transaction;
import java.util.List;
import org.w3c.dom.Element;

/**
 * vrouter-history's RPCs over NETCONF (docs/adr/0021-history-and-rollback.md): get-commits, and
 * rollback, a write of running refused while another session holds its lock.
 */
final class HistoryOps {
    private HistoryOps() {
    }

    static Outcome getCommits(Requester who, Element op) throws RpcError {
        Long number = number(op, false);
        try {
            return body(HistoryRpcs.getCommits(who.service(), number));
        } catch (IllegalArgumentException e) {
            throw RpcError.invalidValue(null, e.getMessage()).info("bad-element", "number");
        }
    }

    static Outcome rollback(Requester who, Element op) throws RpcError {
        long number = number(op, true);
        List<DataNode> out;
        // refused while another session holds running's lock, as every write of running is
        try (Transaction tx = who.scope().datastore().begin(who.caller(), Datastore.Name.RUNNING, false)) {
            try {
                out = HistoryRpcs.rollback(who.service(), number);
            } catch (VrException e) {
                throw Changes.error(e);
            }
        }
        return body(out);
    }

    private static Outcome body(List<DataNode> nodes) {
        return Outcome.of(x -> {
            for (DataNode n : nodes) n.write(x);
        });
    }

    private static Long number(Element op, boolean mandatory) throws RpcError {
        Element n = SecureXml.child(op, Ns.HISTORY, "number");
        if (n == null) {
            if (!mandatory) return null;
            throw RpcError.missingElement(Type.PROTOCOL, null, "number", op.getLocalName() + " needs <number>");
        }
        try {
            return Long.parseUnsignedLong(SecureXml.text(n).trim());
        } catch (NumberFormatException e) {
            throw RpcError.invalidValue(null, "number must be a commit's number").info("bad-element", "number");
        }
    }
}
