package io.vrouter.yang;

/** The XML namespaces NETCONF, RESTCONF and this server use. */
public final class Ns {
    /** NEW-VMM-MIB translated per RFC 6643. */
    public static final String VMM = "urn:ietf:params:xml:ns:yang:smiv2:NEW-VMM-MIB";
    public static final String VMM_MODULE = "NEW-VMM-MIB";
    public static final String VMM_PREFIX = "new-vmm-mib";
    public static final String VMM_REVISION = "2026-11-28";
    /** The history of commits and the rollback (docs/adr/0021-history-and-rollback.md). */
    public static final String HISTORY = "urn:vrouter:yang:vrouter-history";
    public static final String HISTORY_MODULE = "vrouter-history";
    public static final String HISTORY_REVISION = "2026-12-02";
    /** Moving a VR to a peer router (docs/adr/0023-backup-restore-and-migration.md). */
    public static final String MIGRATION = "urn:vrouter:yang:vrouter-migration";
    public static final String MIGRATION_MODULE = "vrouter-migration";
    public static final String MIGRATION_REVISION = "2026-12-02";
    /** RFC 6241 base. */
    public static final String BASE = "urn:ietf:params:xml:ns:netconf:base:1.0";
    /** RFC 5277 notifications. */
    public static final String NOTIFICATION = "urn:ietf:params:xml:ns:netconf:notification:1.0";
    /** RFC 6022 ietf-netconf-monitoring. */
    public static final String MONITORING = "urn:ietf:params:xml:ns:yang:ietf-netconf-monitoring";
    /** RFC 5277's nc-notifications module: the list of streams. */
    public static final String STREAMS = "urn:ietf:params:xml:ns:netmod:notification";
    /** RFC 6470 ietf-netconf-notifications. */
    public static final String NETCONF_NOTIFICATIONS = "urn:ietf:params:xml:ns:yang:ietf-netconf-notifications";
    /** RFC 6243 ietf-netconf-with-defaults (the retrieval parameter). */
    public static final String WITH_DEFAULTS = "urn:ietf:params:xml:ns:yang:ietf-netconf-with-defaults";
    /** RFC 6243 section 6: the namespace of the {@code default} attribute of report-all-tagged. */
    public static final String DEFAULT_ATTRIBUTE = "urn:ietf:params:xml:ns:netconf:default:1.0";
    /** RFC 8526 ietf-netconf-nmda (get-data, edit-data). */
    public static final String NMDA = "urn:ietf:params:xml:ns:yang:ietf-netconf-nmda";
    /** RFC 8342 ietf-datastores (the datastore identities). */
    public static final String DATASTORES = "urn:ietf:params:xml:ns:yang:ietf-datastores";
    /** RFC 8525 ietf-yang-library. */
    public static final String YANG_LIBRARY = "urn:ietf:params:xml:ns:yang:ietf-yang-library";

    /** RFC 8040 ietf-restconf (the errors structure, the data wrapper). */
    public static final String RESTCONF = "urn:ietf:params:xml:ns:yang:ietf-restconf";
    /** RFC 8040 ietf-restconf-monitoring (capabilities, streams). */
    public static final String RESTCONF_MONITORING = "urn:ietf:params:xml:ns:yang:ietf-restconf-monitoring";
    /** RFC 8072 ietf-yang-patch. */
    public static final String YANG_PATCH = "urn:ietf:params:xml:ns:yang:ietf-yang-patch";

    private Ns() {
    }
}
