package io.vrouter.api.restconf;

import io.vrouter.core.config.Caller;
import io.vrouter.core.spi.VrException;
import io.vrouter.yang.datastore.Datastores;
import io.vrouter.yang.datastore.Transaction;
import io.vrouter.yang.edit.Operation;
import io.vrouter.yang.nacm.NacmConfig;
import io.vrouter.yang.nacm.NacmEdit;
import java.util.List;

/**
 * {@code /ietf-netconf-acm:nacm} written over RESTCONF: the same access control configuration NETCONF
 * edits (one instance, the server's), replaced by PUT, merged by PATCH, reset to the factory
 * configuration by DELETE, whole ({@code ietf-netconf-acm:nacm} is the target), by the users NACM
 * lets write it (the provider's operators unless a rule permits others), kept before it is in force,
 * and not while another session holds running's lock.
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

    /**
     * Edits /nacm with {@code op} (REPLACE, MERGE or DELETE) and the body (null for DELETE), in a
     * transaction of running: refused while another session holds running's lock, as every write is.
     */
    static void write(Datastores datastores, Caller caller, ApiPath target, InNode body, Operation op) {
        if (datastores.nacm() == null) throw RestconfError.notFound("this server has no " + PATH);
        if (target.steps().size() != 1 || !target.steps().get(0).name().equals("nacm") || target.steps().get(0).keys() != null) {
            throw RestconfError.notSupported("edit " + PATH + " whole: PUT, PATCH or DELETE of ietf-netconf-acm:nacm");
        }
        InNode node = body != null ? body : new InNode(NacmConfig.NS, "nacm", null, List.of());
        if (!node.ns().equals(NacmConfig.NS) || !node.name().equals("nacm")) {
            throw RestconfError.invalidValue("the body must be the target's node, nacm, not " + node.name());
        }
        Transaction.Result r;
        try (Transaction tx = datastores.begin(caller, io.vrouter.yang.datastore.Datastore.Name.RUNNING)) {
            if (tx.editNacm(node, op) != null) {
                throw new RestconfError(403, "application", "access-denied", null, null,
                        "access control (NACM) denies user '" + caller.user() + "' this change of " + PATH);
            }
            r = tx.commit(false);
        } catch (NacmEdit.Refused e) {
            int status = switch (e.tag) {
                case "data-exists", "data-missing" -> 409;
                default -> 400;
            };
            throw new RestconfError(status, e.protocol ? "protocol" : "application", e.tag, e.appTag, null,
                    e.path == null ? e.getMessage() : e.getMessage() + " (at " + e.path + ")");
        } catch (VrException e) {
            throw RestconfError.of(e);
        }
        if (r.notKept() != null) throw new RestconfError(500, "application", "operation-failed", null, null, r.notKept());
    }
}
