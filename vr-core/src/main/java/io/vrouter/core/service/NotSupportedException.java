package io.vrouter.core.service;

/** The request is well formed and allowed, but the hypervisor driver in use cannot carry it out. */
public class NotSupportedException extends VrException {
    private final String field;

    public NotSupportedException(String field, String message) {
        super(message);
        this.field = field;
    }

    /** The field whose value the driver cannot honour. */
    public String field() {
        return field;
    }
}
