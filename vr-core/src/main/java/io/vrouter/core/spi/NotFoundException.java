package io.vrouter.core.spi;


/** No VR (or interface) with the given index. */
public class NotFoundException extends VrException {

    public NotFoundException(String message) {
        super(Reason.NOT_FOUND, null, message);
    }
}
