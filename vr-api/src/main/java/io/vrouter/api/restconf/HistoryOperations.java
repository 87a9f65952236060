package io.vrouter.api.restconf;

import io.vrouter.core.spi.VrException;
import io.vrouter.core.spi.VirtualRouters;
import io.vrouter.yang.DataNode;
import io.vrouter.yang.HistoryRpcs;
import io.vrouter.yang.Ns;
import java.util.List;

/**
 * The operations resource's RPCs (RFC 8040 section 3.6): vrouter-history's get-commits and rollback
 * (docs/adr/0021-history-and-rollback.md), with the input read from either encoding and the output
 * as {@code vrouter-history:output}.
 */
final class HistoryOperations {
    static final List<String> NAMES = List.of("get-commits", "rollback");

    private HistoryOperations() {
    }

    /** Invokes {@code module:name} with its input (null: none sent); the output node. */
    static DataNode invoke(VirtualRouters service, String operation, InNode input) {
        int colon = operation.indexOf(':');
        String name = operation.substring(colon + 1);
        if (colon < 0 || !operation.substring(0, colon).equals(Ns.HISTORY_MODULE) || !NAMES.contains(name)) {
            throw RestconfError.notFound("no operation '" + operation + "': GET /restconf/operations lists them");
        }
        if (input != null && !(Ns.HISTORY.equals(input.ns()) && input.name().equals("input"))) {
            throw RestconfError.malformed("the body must be " + Ns.HISTORY_MODULE + ":input");
        }
        Long number = number(input == null ? null : input.child("number"));
        List<DataNode> out;
        try {
            if (name.equals("get-commits")) {
                out = HistoryRpcs.getCommits(service, number);
            } else if (number == null) {
                throw new RestconfError(400, "protocol", "missing-element", null, null, "rollback needs input number");
            } else {
                out = HistoryRpcs.rollback(service, number);
            }
        } catch (IllegalArgumentException e) {
            throw RestconfError.invalidValue(e.getMessage());
        } catch (VrException e) {
            throw RestconfError.of(e);
        }
        DataNode.Inner output = DataNode.inner(Ns.HISTORY, "output");
        out.forEach(output::add);
        return output;
    }

    private static Long number(InNode leaf) {
        if (leaf == null) return null;
        try {
            return Long.parseUnsignedLong(leaf.value().trim());
        } catch (NumberFormatException | NullPointerException e) {
            throw RestconfError.invalidValue("number must be a commit's number, not '" + leaf.value() + "'");
        }
    }
}
