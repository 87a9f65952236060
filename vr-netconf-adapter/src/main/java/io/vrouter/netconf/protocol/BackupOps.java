package io.vrouter.netconf.protocol;

import io.vrouter.core.spi.VrException;
import io.vrouter.netconf.protocol.RpcError.Type;
import io.vrouter.netconf.xml.SecureXml;
import io.vrouter.yang.BackupRpcs;
import io.vrouter.yang.DataNode;
import io.vrouter.yang.Ns;
import io.vrouter.yang.datastore.Datastore;
import java.time.Duration;
import java.util.List;
import org.w3c.dom.Element;

/**
 * vrouter-migration's backup and restore over NETCONF (docs/adr/0023-backup-restore-and-migration.md):
 * the whole router's document, and its restore as a write of running (refused while another session
 * holds its lock).
 */
final class BackupOps {
    private BackupOps() {
    }

    static Outcome backup(Requester who) throws RpcError {
        try {
            return output(BackupRpcs.backup(who.service(), who.caller()));
        } catch (VrException e) {
            throw Changes.error(e);
        }
    }

    static Outcome restore(Requester who, Element op) throws RpcError {
        Element document = SecureXml.child(op, Ns.MIGRATION, "document");
        if (document == null) throw RpcError.missingElement(Type.PROTOCOL, null, "document", "restore needs <document>");
        Duration wait = waitOf(op);
        who.scope().datastore().checkWritable(Datastore.Name.RUNNING, who.sessionId());
        try {
            return output(BackupRpcs.restore(who.service(), who.caller(), SecureXml.text(document), wait));
        } catch (VrException e) {
            throw Changes.error(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RpcError(Type.APPLICATION, "operation-failed", null, null, "interrupted while waiting for the restore");
        }
    }

    private static Outcome output(List<DataNode> out) {
        return Outcome.of(x -> {
            for (DataNode n : out) n.write(x);
        });
    }

    /** The wait leaf, in seconds (0 to 600; none: 0, answer when accepted). */
    private static Duration waitOf(Element op) throws RpcError {
        Element e = SecureXml.child(op, Ns.MIGRATION, "wait");
        if (e == null) return Duration.ZERO;
        String v = SecureXml.text(e).trim();
        try {
            int s = Integer.parseInt(v);
            if (s >= 0 && s <= 600) return Duration.ofSeconds(s);
        } catch (NumberFormatException notANumber) {
            // said below
        }
        throw RpcError.invalidValue(null, "wait is seconds from 0 to 600, not '" + v + "'").info("bad-element", "wait");
    }
}
