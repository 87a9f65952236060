package io.vrouter.core.service;

/** A field has a value the model does not allow. */
public class ValidationException extends VrException {
    private final String field;

    public ValidationException(String field, String message) {
        super(field + ": " + message);
        this.field = field;
    }

    /** The MIB object name of the offending field. */
    public String field() {
        return field;
    }
}
