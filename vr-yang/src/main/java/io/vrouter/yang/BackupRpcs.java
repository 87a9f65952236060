package io.vrouter.yang;

import io.vrouter.core.config.Caller;
import io.vrouter.core.migration.Restore;
import io.vrouter.core.migration.RouterBackup;
import io.vrouter.core.spi.AccessDeniedException;
import io.vrouter.core.spi.VirtualRouters;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * vrouter-migration's backup and restore (docs/adr/0023-backup-restore-and-migration.md), in one place
 * for NETCONF and RESTCONF, which parse the input and map the core's errors each in its own terms. The
 * document is REST's {@code GET /api/v1/backup}, as a string: the same bytes on every interface.
 */
public final class BackupRpcs {
    private BackupRpcs() {
    }

    /** backup's output: the whole router's backup document. */
    public static List<DataNode> backup(VirtualRouters view, Caller caller) {
        providerOnly(caller);
        String document = new String(RouterBackup.of(view).toJson(), StandardCharsets.UTF_8);
        return List.of(DataNode.leaf(Ns.MIGRATION, "document", document));
    }

    /**
     * restore's output: what became of each VR of the document, once the change set is accepted, or
     * once the VRs it made are up when {@code wait} is not zero (done says which).
     */
    public static List<DataNode> restore(VirtualRouters view, Caller caller, String document, Duration wait)
            throws InterruptedException {
        providerOnly(caller);
        Restore.Report report = Restore.run(view, RouterBackup.read(document.getBytes(StandardCharsets.UTF_8)));
        boolean done = report.applied() == null || (!wait.isZero() && report.await(wait));
        String ns = Ns.MIGRATION;
        List<DataNode> out = new ArrayList<>();
        out.add(DataNode.leaf(ns, "created", Long.toString(report.created()), DataNode.Json.NUMBER));
        out.add(DataNode.leaf(ns, "done", Boolean.toString(done), DataNode.Json.BOOLEAN));
        for (Restore.Outcome o : report.routers()) {
            DataNode.Inner router = DataNode.inner(ns, "router", "vmName");
            router.add(DataNode.leaf(ns, "vmName", o.vmName()));
            router.add(DataNode.leaf(ns, "backed-up-index", Integer.toString(o.backedUpIndex()), DataNode.Json.NUMBER));
            router.add(DataNode.leaf(ns, "vmIndex", Integer.toString(o.vmIndex()), DataNode.Json.NUMBER));
            router.add(DataNode.leaf(ns, "action", o.action().name().toLowerCase(java.util.Locale.ROOT)));
            out.add(router);
        }
        return out;
    }

    /** A backup holds every tenant's VRs: the provider's users only, as REST's /api/v1/backup. */
    private static void providerOnly(Caller caller) {
        if (!caller.provider()) {
            throw new AccessDeniedException("backup", "a backup holds every tenant's VRs: only the provider's users may"
                    + " save or restore one", false);
        }
    }
}
