package io.vrouter.core.spi;


/**
 * The one error of the service: a change it refuses, or one that failed on the hypervisor and was
 * undone. It names the VR (vmIndex, and the interface when it is about one), the column (its model
 * field, which is its JSON name, YANG leaf and MIB object) and the reason; each interface maps the
 * reason to its protocol's error (REST problem details, SNMP error-status at the varbind of the
 * column, NETCONF rpc-error with error-path and error-app-tag). The subclasses are the reasons'
 * families, kept for readable throws and catches.
 */
public abstract class VrException extends RuntimeException {
    /** Why a change was refused or failed. */
    public enum Reason {
        /** A value the model never allows (out of range, malformed, a template the driver lacks). */
        INVALID,
        /** A required column is absent. */
        MISSING,
        /** No such VR or interface. */
        NOT_FOUND,
        /** The vmIndex, or the interface's index, is taken. */
        EXISTS,
        /** The vmName is another VR's. */
        NOT_UNIQUE,
        /** CPUs or memory change only while the VR is shut down. */
        NOT_SHUT_DOWN,
        /** The VR's state forbids it: suspending a VR that is shut down, changing one being removed. */
        STATE,
        /** The column cannot change once the VR exists (its template). */
        FIXED,
        /** The hypervisor driver in use cannot do it (suspend, say). */
        NOT_SUPPORTED,
        /** Accepted, but the hypervisor failed a step: every VR of the change was put back as it was. */
        FAILED,
        /**
         * A condition of the set does not hold: the VR (or the datastore) is no longer at the
         * {@link Version} the request was made against (REST's and RESTCONF's If-Match).
         */
        CHANGED,
        /**
         * The server cannot record the change: its data directory refused the write. Nothing was
         * changed; the request may be sent again once the directory takes writes.
         */
        UNAVAILABLE,
        /**
         * The caller may not: a VR of another tenant ({@link AccessDeniedException#hidden}: answer as
         * for none), a VR given to another tenant, a change by a viewer.
         */
        DENIED,
        /** A tenant's quota or the host's capacity (times its overcommit) would be exceeded. */
        QUOTA,
        /**
         * Running's lock is held by another session ({@link LockDeniedException#holder}): nothing
         * changed; the change may be sent again once the lock is let go.
         */
        LOCKED,
        /**
         * The VR is held by an operation under way, a move to a peer (ADR 0023): nothing changed; the
         * change may be sent again once the move ends (to the peer, when it moved). Also a new VR asked
         * of a drained router: it may be sent again once the router is opened.
         */
        IN_USE
    }

    private final Reason reason;
    private final String field;
    private Integer vmIndex;
    private Integer networkIndex;

    protected VrException(Reason reason, String field, String message) {
        super(message);
        this.reason = reason;
        this.field = field;
    }

    public Reason reason() {
        return reason;
    }

    /** The model field of the offending column, or null when the whole VR (or request) is. */
    public String field() {
        return field;
    }

    /** The VR the error is about, or null when none is (an empty request). */
    public Integer vmIndex() {
        return vmIndex;
    }

    /** The interface (vmNetworkConfigIndex) the error is about, or null when it is about the VR. */
    public Integer networkIndex() {
        return networkIndex;
    }

    /** Says which VR (and interface) the error is about, unless it says so already; returns this. */
    public VrException at(Integer vmIndex, Integer networkIndex) {
        if (this.vmIndex == null) {
            this.vmIndex = vmIndex;
            this.networkIndex = networkIndex;
        }
        return this;
    }
}
