package io.vrouter.core.spi;


/**
 * The data directory refused a write (read-only, full, failing): a change cannot be recorded, so
 * none is accepted. The message is the client's, the same in every protocol; what the file system
 * said, with the path, is in the server's log and in the cause.
 */
public class StorageUnavailableException extends VrException {
    public static final String MESSAGE = "the server cannot record changes: its data directory is not writable"
            + " (read-only or full); nothing was changed";

    public StorageUnavailableException(Throwable cause) {
        super(Reason.UNAVAILABLE, null, MESSAGE);
        initCause(cause);
    }
}
