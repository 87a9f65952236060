package io.vrouter.api.restconf;

import io.vrouter.core.spi.AccessDeniedException;
import io.vrouter.core.spi.VrException;

/**
 * One RESTCONF error (RFC 8040 section 7.1): error-type, error-tag, error-app-tag, error-path and
 * error-message, answered with the HTTP status section 7 gives the tag. Thrown wherever a request is
 * refused; {@link Errors} writes it as {@code ietf-restconf:errors}.
 */
final class RestconfError extends RuntimeException {
    final int status;
    final String type;
    final String tag;
    final String appTag;
    /** The instance the error is about, or null. */
    final DataPath path;

    RestconfError(int status, String type, String tag, String appTag, DataPath path, String message) {
        super(message);
        this.status = status;
        this.type = type;
        this.tag = tag;
        this.appTag = appTag;
        this.path = path;
    }

    RestconfError at(DataPath where) {
        return new RestconfError(status, type, tag, appTag, where, getMessage());
    }

    /** 400 invalid-value: a value, a parameter or a path this server cannot take. */
    static RestconfError invalidValue(String message) {
        return new RestconfError(400, "protocol", "invalid-value", null, null, message);
    }

    /** 404 invalid-value: the target resource does not exist (RFC 8040 section 7: invalid-value is 400, 404 or 406). */
    static RestconfError notFound(String message) {
        return new RestconfError(404, "protocol", "invalid-value", null, null, message);
    }

    /** 400 malformed-message: a body that is not JSON or XML of the expected shape. */
    static RestconfError malformed(String message) {
        return new RestconfError(400, "protocol", "malformed-message", null, null, message);
    }

    /** 400 unknown-element: a name the module does not have there. */
    static RestconfError unknownElement(String message) {
        return new RestconfError(400, "application", "unknown-element", null, null, message);
    }

    /** 409 data-exists: a create of what exists. */
    static RestconfError dataExists(String message) {
        return new RestconfError(409, "application", "data-exists", null, null, message);
    }

    /** 409 data-missing: a delete of what is not there, or an entry whose parent is missing. */
    static RestconfError dataMissing(String message) {
        return new RestconfError(409, "application", "data-missing", null, null, message);
    }

    /** 405 operation-not-supported: what the resource cannot do. */
    static RestconfError notSupported(String message) {
        return new RestconfError(405, "protocol", "operation-not-supported", null, null, message);
    }

    /**
     * The service's one error with the tags NETCONF gives it (docs/adr/0007) and the status RFC 8040
     * section 7 gives each tag, its error-path at the VR's entry or interface and the column's leaf.
     */
    static RestconfError of(VrException e) {
        DataPath path = DataPath.ofError(e.vmIndex(), e.networkIndex(), e.field());
        String m = e.getMessage();
        return switch (e.reason()) {
            case INVALID -> new RestconfError(400, "application", "invalid-value", null, path, m);
            case MISSING -> new RestconfError(409, "application", "data-missing", "mandatory", path, m);
            case NOT_FOUND -> new RestconfError(409, "application", "data-missing", null, path, m);
            case EXISTS -> new RestconfError(409, "application", "data-exists", null, path, m);
            case NOT_UNIQUE -> new RestconfError(500, "application", "operation-failed", "data-not-unique", path, m);
            case NOT_SHUT_DOWN -> new RestconfError(500, "application", "operation-failed", "vr-not-shut-down", path, m);
            case STATE, FAILED -> new RestconfError(500, "application", "operation-failed", null, path, m);
            // Changing a template, suspending on this host: the operation cannot be done, whatever the value.
            case FIXED, NOT_SUPPORTED -> new RestconfError(501, "application", "operation-not-supported", null, path, m);
            // If-Match or If-Unmodified-Since named a version the VR (or the datastore) is no longer at.
            case CHANGED -> new RestconfError(412, "protocol", "operation-failed", null, path, m);
            case UNAVAILABLE -> new RestconfError(503, "application", "resource-denied", null, path, m);
            // Another tenant's VR is answered as a resource that does not exist (RFC 8040 7: 404, invalid-value).
            case DENIED -> e instanceof AccessDeniedException a && a.hidden()
                    ? new RestconfError(404, "application", "invalid-value", null, null, m)
                    : new RestconfError(403, "application", "access-denied", null, path, m);
            case QUOTA -> new RestconfError(409, "application", "resource-denied", null, path, m);
            // Running is locked by another session: NETCONF's tag for an edit of a locked datastore (the message names the session).
            case LOCKED -> new RestconfError(409, "protocol", "in-use", null, null, m);
            // The VR is moving to a peer.
            case IN_USE -> new RestconfError(409, "application", "in-use", null, path, m);
        };
    }

    /** The HTTP status's error-tag and type, for refusals made before RESTCONF's code runs (auth, limits, routing). */
    static RestconfError ofStatus(int status, String message) {
        return switch (status) {
            case 401, 403 -> new RestconfError(status, "protocol", "access-denied", null, null, message);
            case 413 -> new RestconfError(status, "transport", "too-big", null, null, message);
            case 404, 406, 415, 421 -> new RestconfError(status, "protocol", "invalid-value", null, null, message);
            case 405 -> new RestconfError(status, "protocol", "operation-not-supported", null, null, message);
            case 409, 429, 503 -> new RestconfError(status, "protocol", "resource-denied", null, null, message);
            case 400 -> new RestconfError(status, "protocol", "invalid-value", null, null, message);
            // A read's If-Match or If-Unmodified-Since that does not hold (Validators).
            case 412 -> new RestconfError(status, "protocol", "operation-failed", null, null, message);
            default -> new RestconfError(500, "application", "operation-failed", null, null, message);
        };
    }
}
