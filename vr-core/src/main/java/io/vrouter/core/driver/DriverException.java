package io.vrouter.core.driver;

/** A hypervisor refused or failed an operation; the message is kept as the VR's crash reason. */
public class DriverException extends Exception {
    private final String code;

    public DriverException(String code, String message) {
        super(message);
        this.code = code;
    }

    public DriverException(String code, String message, Throwable cause) {
        super(message, cause);
        this.code = code;
    }

    /** The hypervisor's own error code (a XenAPI error name, for example), or a driver-chosen one. */
    public String code() {
        return code;
    }

    @Override
    public String toString() {
        return code + ": " + getMessage();
    }
}
