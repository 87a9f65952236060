package io.vrouter.netconf.protocol;

import io.vrouter.yang.Ns;
import io.vrouter.yang.edit.Target;

/** error-path values (RFC 6241 Appendix A): absolute instance identifiers with the module prefix. */
final class Paths {
    private static final String P = Ns.VMM_PREFIX + ":";
    static final String ROOT = "/" + P + "NEW-VMM-MIB";
    static final String CONFIG_TABLE = ROOT + "/" + P + "vmConfigTable";
    static final String NETWORK_TABLE = ROOT + "/" + P + "vmNetworkConfigTable";

    private Paths() {
    }

    static String entry(int vmIndex) {
        return CONFIG_TABLE + "/" + P + "vmConfigEntry[" + P + "vmIndex='" + vmIndex + "']";
    }

    static String networkEntry(int vmIndex, int networkIndex) {
        return NETWORK_TABLE + "/" + P + "vmNetworkConfigEntry[" + P + "vmIndex='" + vmIndex + "'][" + P
                + "vmNetworkConfigIndex='" + networkIndex + "']";
    }

    /** A node of the edit engine's. */
    static String of(Target t) {
        return switch (t.kind()) {
            case ROOT -> "/";
            case TOP -> ROOT;
            case CONFIG_TABLE -> CONFIG_TABLE;
            case NETWORK_TABLE -> NETWORK_TABLE;
            case CONFIG_ENTRY -> entry(t.vmIndex());
            case NETWORK_ENTRY -> networkEntry(t.vmIndex(), t.networkIndex());
            case CONFIG_LEAF, NETWORK_LEAF, KEY_LEAF -> child(of(t.entry()), t.leaf());
        };
    }

    static String child(String parent, String name) {
        return parent + "/" + P + name;
    }
}
