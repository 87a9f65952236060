package io.vrouter.core.spi;


/** The request contradicts what exists: a duplicate name or index, or a state that forbids it. */
public class ConflictException extends VrException {

    /** A state that forbids the change. */
    public ConflictException(String field, String message) {
        this(Reason.STATE, field, message);
    }

    /** One of the reasons {@link Reason#EXISTS}, {@link Reason#NOT_UNIQUE}, {@link Reason#NOT_SHUT_DOWN}, {@link Reason#FIXED}. */
    public ConflictException(Reason reason, String field, String message) {
        super(reason, field, message);
    }
}
