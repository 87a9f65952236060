package io.vrouter.netconf;

/** The XML namespaces NETCONF and this server use. */
public final class Ns {
    /** NEW-VMM-MIB translated per RFC 6643. */
    public static final String VMM = "urn:ietf:params:xml:ns:yang:smiv2:NEW-VMM-MIB";
    public static final String VMM_MODULE = "NEW-VMM-MIB";
    public static final String VMM_PREFIX = "new-vmm-mib";
    public static final String VMM_REVISION = "2026-11-22";
    /** RFC 6241 base. */
    public static final String BASE = "urn:ietf:params:xml:ns:netconf:base:1.0";
    /** RFC 5277 notifications. */
    public static final String NOTIFICATION = "urn:ietf:params:xml:ns:netconf:notification:1.0";
    /** RFC 6022 ietf-netconf-monitoring. */
    public static final String MONITORING = "urn:ietf:params:xml:ns:yang:ietf-netconf-monitoring";

    private Ns() {
    }
}
