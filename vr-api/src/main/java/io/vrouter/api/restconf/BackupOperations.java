package io.vrouter.api.restconf;

import io.vrouter.core.config.Caller;
import io.vrouter.core.spi.VrException;
import io.vrouter.core.spi.VirtualRouters;
import io.vrouter.yang.BackupRpcs;
import io.vrouter.yang.DataNode;
import io.vrouter.yang.Ns;
import java.time.Duration;
import java.util.List;

/**
 * vrouter-migration's backup and restore as RESTCONF operations (docs/adr/0023-backup-restore-and-migration.md):
 * backup's output {@code vrouter-migration:output} holds the document REST's GET /api/v1/backup gives;
 * restore's input holds it, and its output says what became of each VR.
 */
final class BackupOperations {
    static final List<String> NAMES = List.of("backup", "restore");

    private BackupOperations() {
    }

    static boolean owns(String operation) {
        return NAMES.stream().anyMatch(n -> operation.equals(Ns.MIGRATION_MODULE + ":" + n));
    }

    static DataNode invoke(VirtualRouters service, Caller caller, String operation, InNode input) {
        List<DataNode> out;
        try {
            if (operation.endsWith(":backup")) {
                out = BackupRpcs.backup(service, caller);
            } else {
                if (input == null || !(Ns.MIGRATION.equals(input.ns()) && input.name().equals("input"))) {
                    throw RestconfError.malformed("the body must be " + Ns.MIGRATION_MODULE + ":input with document");
                }
                InNode document = input.child("document");
                if (document == null || document.value() == null) {
                    throw new RestconfError(400, "protocol", "missing-element", null, null, "restore needs input document");
                }
                out = BackupRpcs.restore(service, caller, document.value(), waitOf(input.child("wait")));
            }
        } catch (VrException e) {
            throw RestconfError.of(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RestconfError(500, "application", "operation-failed", null, null, "interrupted while waiting for the restore");
        }
        DataNode.Inner output = DataNode.inner(Ns.MIGRATION, "output");
        out.forEach(output::add);
        return output;
    }

    /** The wait leaf, in seconds (0 to 600; none: 0, answer when accepted). */
    private static Duration waitOf(InNode leaf) {
        if (leaf == null || leaf.value() == null) return Duration.ZERO;
        try {
            int s = Integer.parseInt(leaf.value().trim());
            if (s >= 0 && s <= 600) return Duration.ofSeconds(s);
        } catch (NumberFormatException e) {
            // said below
        }
        throw RestconfError.invalidValue("wait is seconds from 0 to 600, not '" + leaf.value() + "'");
    }
}
