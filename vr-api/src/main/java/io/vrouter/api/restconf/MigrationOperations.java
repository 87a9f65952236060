package io.vrouter.api.restconf;

import io.vrouter.core.migration.Drain;
import io.vrouter.core.migration.PeerClient;
import io.vrouter.core.spi.VrException;
import io.vrouter.core.spi.VirtualRouters;
import io.vrouter.yang.DataNode;
import io.vrouter.yang.MigrationRpcs;
import io.vrouter.yang.Ns;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * vrouter-migration's migrate (and drain and open) as RESTCONF operations (docs/adr/0023-backup-restore-and-migration.md):
 * input {@code vrouter-migration:input} with vmIndex and peer, output {@code vrouter-migration:output},
 * answered once the VR runs on the peer.
 */
final class MigrationOperations {
    static final String NAME = "migrate";
    /** Every operation of vrouter-migration, as /restconf/operations lists them. */
    static final List<String> NAMES = List.of(NAME, "drain", "open");

    private MigrationOperations() {
    }

    static boolean owns(String operation) {
        return operation.startsWith(Ns.MIGRATION_MODULE + ":");
    }

    static DataNode invoke(VirtualRouters service, Map<String, PeerClient> peers, Drain drain, String operation, InNode input) {
        if (operation.equals(Ns.MIGRATION_MODULE + ":drain") || operation.equals(Ns.MIGRATION_MODULE + ":open")) {
            return drainOrOpen(service, drain, operation.endsWith(":drain"), input);
        }
        if (!operation.equals(Ns.MIGRATION_MODULE + ":" + NAME)) {
            throw RestconfError.notFound("no operation '" + operation + "': GET /restconf/operations lists them");
        }
        if (input == null || !(Ns.MIGRATION.equals(input.ns()) && input.name().equals("input"))) {
            throw RestconfError.malformed("the body must be " + Ns.MIGRATION_MODULE + ":input with vmIndex and peer");
        }
        int vmIndex = vmIndex(input.child("vmIndex"));
        InNode peer = input.child("peer");
        if (peer == null || peer.value() == null) {
            throw new RestconfError(400, "protocol", "missing-element", null, null, "migrate needs input peer");
        }
        List<DataNode> out;
        try {
            out = MigrationRpcs.migrate(service, peers, vmIndex, peer.value().trim());
        } catch (VrException e) {
            throw RestconfError.of(e);
        }
        DataNode.Inner output = DataNode.inner(Ns.MIGRATION, "output");
        out.forEach(output::add);
        return output;
    }

    /** drain (input: the peers named, none for all) or open, answered with the router's drain report. */
    private static DataNode drainOrOpen(VirtualRouters service, Drain drain, boolean draining, InNode input) {
        if (input != null && !(Ns.MIGRATION.equals(input.ns()) && input.name().equals("input"))) {
            throw RestconfError.malformed("the body must be " + Ns.MIGRATION_MODULE + ":input, with the peers to drain to");
        }
        List<String> named = new ArrayList<>();
        if (input != null) {
            for (InNode c : input.children()) {
                if (c.name().equals("peer") && c.value() != null) named.add(c.value().trim());
            }
        }
        List<DataNode> out;
        try {
            out = draining ? MigrationRpcs.drain(service, drain, named) : MigrationRpcs.open(service, drain);
        } catch (VrException e) {
            throw RestconfError.of(e);
        }
        DataNode.Inner output = DataNode.inner(Ns.MIGRATION, "output");
        out.forEach(output::add);
        return output;
    }

    private static int vmIndex(InNode leaf) {
        if (leaf == null || leaf.value() == null) {
            throw new RestconfError(400, "protocol", "missing-element", null, null, "migrate needs input vmIndex");
        }
        try {
            int i = Integer.parseInt(leaf.value().trim());
            if (i >= 1) return i;
        } catch (NumberFormatException e) {
            // said below
        }
        throw RestconfError.invalidValue("vmIndex must be a VR's vmIndex (1..2147483647), not '" + leaf.value() + "'");
    }
}
