package io.vrouter.yang;

import io.vrouter.core.config.Caller;
import io.vrouter.yang.edit.ConfigData;

/**
 * Who may write and read which YANG data, whichever interface serves it (NETCONF, RESTCONF, gNMI):
 * one instance, made by the application and shared by them, so that a rule holds on every
 * interface alike. NACM (RFC 8341, {@link io.vrouter.yang.nacm.Nacm}) is its implementation; the
 * core's own rules (a tenant sees and changes its own VRs only) hold below it in any case.
 */
public interface DataGuard {
    /** The decisions for one caller (a session's or a request's). */
    Access access(Caller caller);

    /** The decisions for one caller. */
    interface Access {
        /**
         * The write check of a change of the configuration from {@code base} to {@code edited} (a
         * copy an edit changed), node by node as {@link io.vrouter.yang.edit.ConfigEdits} names the
         * edits: the target (an instance identifier) of the first edit denied, null when all are
         * permitted. A denial is counted.
         */
        String deniedWrite(ConfigData base, ConfigData edited);

        /** The tree a reply is written from, without the nodes the caller may not read (silently omitted). */
        DataNode readable(DataNode root);
    }

    /** Permits everything (no access control). */
    DataGuard NONE = caller -> new Access() {
        @Override
        public String deniedWrite(ConfigData base, ConfigData edited) {
            return null;
        }

        @Override
        public DataNode readable(DataNode root) {
            return root;
        }
    };
}
