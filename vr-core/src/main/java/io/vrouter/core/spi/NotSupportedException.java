package io.vrouter.core.spi;


/** The request is well formed and allowed, but the hypervisor driver in use cannot carry it out. */
public class NotSupportedException extends VrException {

    public NotSupportedException(String field, String message) {
        super(Reason.NOT_SUPPORTED, field, message);
    }
}
