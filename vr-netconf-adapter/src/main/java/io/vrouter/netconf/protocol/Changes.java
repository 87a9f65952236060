package io.vrouter.netconf.protocol;

import io.vrouter.yang.edit.Paths;
import io.vrouter.core.model.NetworkColumn;
import io.vrouter.core.spi.AccessDeniedException;
import io.vrouter.core.spi.LockDeniedException;
import io.vrouter.core.spi.VrException;
import io.vrouter.netconf.protocol.RpcError.Type;

/**
 * The service's refusal of a change (a transaction's, a rollback's, a migrate's) as an rpc-error:
 * error-path at the VR's entry (or interface) and the column's leaf, error-tag and error-app-tag by
 * the reason.
 */
final class Changes {
    /** The error-app-tag of a resize refused because the VR is not shut down. */
    static final String NOT_SHUT_DOWN = "vr-not-shut-down";

    private Changes() {
    }

    /** The service's error in NETCONF's terms. */
    static RpcError error(VrException e) {
        String field = e.field();
        String path = path(e.vmIndex(), e.networkIndex(), field);
        RpcError r = switch (e.reason()) {
            case INVALID -> RpcError.invalidValue(path, e.getMessage());
            case MISSING -> new RpcError(Type.APPLICATION, "data-missing", "mandatory", path, e.getMessage());
            case NOT_FOUND -> new RpcError(Type.APPLICATION, "data-missing", null, path, e.getMessage());
            case EXISTS -> new RpcError(Type.APPLICATION, "data-exists", null, path, e.getMessage());
            case NOT_UNIQUE -> new RpcError(Type.APPLICATION, "operation-failed", "data-not-unique", path, e.getMessage());
            case NOT_SHUT_DOWN -> new RpcError(Type.APPLICATION, "operation-failed", NOT_SHUT_DOWN, path, e.getMessage());
            // The operation (changing a template, suspending on this host) is what cannot be done, whatever the value.
            case FIXED, NOT_SUPPORTED -> new RpcError(Type.APPLICATION, "operation-not-supported", null, path, e.getMessage());
            case STATE, FAILED, CHANGED -> new RpcError(Type.APPLICATION, "operation-failed", null, path, e.getMessage());
            case UNAVAILABLE -> new RpcError(Type.APPLICATION, "resource-denied", null, path, e.getMessage());
            // Another tenant's VR is answered as one that does not exist (the session's view has neither).
            case DENIED -> e instanceof AccessDeniedException a && a.hidden()
                    ? new RpcError(Type.APPLICATION, "data-missing", null, path, e.getMessage())
                    : new RpcError(Type.APPLICATION, "access-denied", null, null, e.getMessage());
            case QUOTA -> new RpcError(Type.APPLICATION, "resource-denied", null, path, e.getMessage());
            // Running is locked by a session of another scope (the provider's lock, for a tenant's session):
            // as for a datastore locked by a session of the same scope (Datastore.checkWritable).
            case LOCKED -> new RpcError(Type.PROTOCOL, "in-use", null, null, e.getMessage())
                    .info("session-id", String.valueOf(((LockDeniedException) e).holderSession()));
            case IN_USE -> new RpcError(Type.APPLICATION, "in-use", null, path, e.getMessage());
        };
        return field == null || field.equals("body") ? r : r.info("bad-element", field);
    }

    /** The instance the error is about: the VR's entry or interface, down to the leaf when there is one. */
    private static String path(Integer vmIndex, Integer networkIndex, String field) {
        boolean networkField = field != null && field.startsWith("vmNetworkConfig");
        boolean leaf = field != null && (NetworkColumn.ofField(field) != null || !networkField) && !field.equals("body");
        if (vmIndex == null) return networkField ? Paths.NETWORK_TABLE : Paths.CONFIG_TABLE;
        if (networkIndex != null) {
            String entry = Paths.networkEntry(vmIndex, networkIndex);
            return leaf && networkField ? Paths.child(entry, field) : entry;
        }
        if (networkField) return Paths.NETWORK_TABLE;
        return leaf ? Paths.child(Paths.entry(vmIndex), field) : Paths.entry(vmIndex);
    }
}
