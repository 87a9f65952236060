package io.vrouter.core.spi;


/**
 * A change the service accepted that then failed on the hypervisor (or could not run because a
 * change it depended on failed); the service put every VR of it back as it was.
 */
public class ChangeFailedException extends VrException {

    public ChangeFailedException(String field, String message) {
        super(Reason.FAILED, field, message);
    }
}
