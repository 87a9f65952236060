package io.vrouter.core.spi;


/** A field has a value the model does not allow, or a required field is absent. */
public class ValidationException extends VrException {

    public ValidationException(String field, String message) {
        this(Reason.INVALID, field, message);
    }

    private ValidationException(Reason reason, String field, String message) {
        super(reason, field, field + ": " + message);
    }

    /** A required field that is absent. */
    public static ValidationException missing(String field) {
        return new ValidationException(Reason.MISSING, field, "is required");
    }
}
