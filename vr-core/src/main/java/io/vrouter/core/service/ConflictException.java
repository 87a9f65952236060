package io.vrouter.core.service;

/** The request contradicts what exists: a duplicate name or index, or a state that forbids it. */
public class ConflictException extends VrException {
    private final String field;

    public ConflictException(String field, String message) {
        super(message);
        this.field = field;
    }

    /** The field in conflict, or null when the VR's state is. */
    public String field() {
        return field;
    }
}
