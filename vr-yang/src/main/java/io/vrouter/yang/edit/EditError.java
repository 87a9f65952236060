package io.vrouter.yang.edit;

/**
 * Why an edit or a datastore operation is refused, in no protocol's terms: NETCONF maps the kind to
 * an rpc-error's error-tag, RESTCONF to an error of ietf-restconf:errors and an HTTP status. The
 * error is about {@link #at} (null: the datastore) or, when {@link #child} is set, that child of it
 * (a leaf, a key, or an element that is no node of the model).
 */
public final class EditError extends RuntimeException {
    public enum Kind {
        /** create of a node that exists. */
        DATA_EXISTS,
        /** delete (or none) of a node that does not exist. */
        DATA_MISSING,
        /** An interface of a VR that does not exist. */
        INSTANCE_REQUIRED,
        /** A leaf written in an entry that does not exist. */
        NOT_FOUND,
        /** A value not of its leaf's type, a key that differs from the entry's, a leaf with children. */
        INVALID_VALUE,
        /** An element that is no node of the model at its place ({@link #child} names it). */
        UNKNOWN_ELEMENT,
        /** An entry without its key ({@link #child} names it). */
        MISSING_ELEMENT,
        /** State data (config false): it cannot be edited. */
        NOT_CONFIG,
        /** An operation attribute that names no operation. */
        BAD_OPERATION,
        /** The datastore is locked by another session ({@link #holder}). */
        IN_USE,
        /** A lock that cannot be taken ({@link #holder}: who holds it, 0 for changes nobody holds). */
        LOCK_DENIED,
        /** An unlock of a lock not held by the session. */
        OPERATION_FAILED
    }

    private final Kind kind;
    private final Target at;
    private final String child;
    private final int holder;

    public EditError(Kind kind, Target at, String child, String message) {
        this(kind, at, child, 0, message);
    }

    private EditError(Kind kind, Target at, String child, int holder, String message) {
        super(message, null, false, false);
        this.kind = kind;
        this.at = at;
        this.child = child;
        this.holder = holder;
    }

    /** A refusal by the locks: {@code holder} is the session holding the lock concerned. */
    public static EditError lock(Kind kind, int holder, String message) {
        return new EditError(kind, null, null, holder, message);
    }

    public Kind kind() {
        return kind;
    }

    /** The node the error is about, null for the datastore. */
    public Target at() {
        return at;
    }

    /** The child of {@link #at} the error is about (a leaf or element name), or null. */
    public String child() {
        return child;
    }

    /** The session holding the lock, for {@link Kind#IN_USE}, {@link Kind#LOCK_DENIED} and {@link Kind#OPERATION_FAILED}. */
    public int holder() {
        return holder;
    }
}
