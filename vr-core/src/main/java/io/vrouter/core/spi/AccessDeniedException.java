package io.vrouter.core.spi;


/**
 * The caller may not do this: change a VR of another tenant, give a VR to another tenant, change
 * anything as a viewer. When the VR is one the caller cannot even see ({@link #hidden}), the message
 * is the one of a VR that does not exist, so that an interface answering "not found" (REST,
 * RESTCONF) tells nothing of it; NETCONF and SNMP answer with their own access errors.
 */
public class AccessDeniedException extends VrException {
    private final boolean hidden;

    public AccessDeniedException(String field, String message, boolean hidden) {
        super(Reason.DENIED, field, message);
        this.hidden = hidden;
    }

    /** A VR of another tenant, which the caller cannot see: answer as for a VR that does not exist. */
    public static AccessDeniedException hiddenVr(int vmIndex) {
        return new AccessDeniedException(null, "no VR with vmIndex " + vmIndex, true);
    }

    /** Whether the VR is one the caller cannot see: the interface should answer as it does for none. */
    public boolean hidden() {
        return hidden;
    }
}
