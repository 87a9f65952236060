package io.vrouter.api.restconf;

import io.vrouter.core.config.Caller;
import io.vrouter.yang.DataGuard;
import io.vrouter.yang.edit.Operation;
import io.vrouter.yang.nacm.Nacm;
import io.vrouter.yang.nacm.NacmConfig;
import io.vrouter.yang.nacm.NacmEdit;
import io.vrouter.yang.nacm.NacmPath;
import java.io.IOException;
import java.util.List;

/**
 * {@code /ietf-netconf-acm:nacm} written over RESTCONF: the same access control configuration NETCONF
 * edits (one instance, the server's), replaced by PUT, merged by PATCH, reset to the factory
 * configuration by DELETE, whole ({@code ietf-netconf-acm:nacm} is the target), by the users NACM
 * lets write it (the provider's operators unless a rule permits others), kept before it is in force.
 * The datastore's GET shows it ({@link Datastore#root}), to the same users.
 */
final class NacmData {
    private static final String PATH = "/ietf-netconf-acm:nacm";

    private NacmData() {
    }

    /** Whether a path is into /nacm. */
    static boolean targets(ApiPath path) {
        return !path.steps().isEmpty() && path.steps().get(0).ns().equals(NacmConfig.NS);
    }

    /** Edits /nacm with {@code op} (REPLACE, MERGE or DELETE) and the body (null for DELETE). */
    static void write(DataGuard guard, Caller caller, ApiPath target, InNode body, Operation op) {
        if (!(guard instanceof Nacm nacm)) throw RestconfError.notFound("this server has no " + PATH);
        if (target.steps().size() != 1 || !target.steps().get(0).name().equals("nacm") || target.steps().get(0).keys() != null) {
            throw RestconfError.notSupported("edit " + PATH + " whole: PUT, PATCH or DELETE of ietf-netconf-acm:nacm");
        }
        if (!nacm.access(caller).mayWrite(NacmConfig.MODULE, NacmPath.ROOT.child("nacm"), Nacm.Op.UPDATE)) {
            throw new RestconfError(403, "application", "access-denied", null, null,
                    "access control (NACM) denies user '" + caller.user() + "' this change of " + PATH);
        }
        InNode node = body != null ? body : new InNode(NacmConfig.NS, "nacm", null, List.of());
        if (!node.ns().equals(NacmConfig.NS) || !node.name().equals("nacm")) {
            throw RestconfError.invalidValue("the body must be the target's node, nacm, not " + node.name());
        }
        synchronized (nacm) {
            try {
                nacm.replace(NacmEdit.apply(nacm.config(), node, op));
            } catch (NacmEdit.Refused r) {
                int status = switch (r.tag) {
                    case "data-exists", "data-missing" -> 409;
                    default -> 400;
                };
                throw new RestconfError(status, r.protocol ? "protocol" : "application", r.tag, r.appTag, null,
                        r.path == null ? r.getMessage() : r.getMessage() + " (at " + r.path + ")");
            } catch (IOException e) {
                throw new RestconfError(500, "application", "operation-failed", null, null,
                        "the access control configuration cannot be kept (the server's log says why); it is unchanged");
            }
        }
    }
}
