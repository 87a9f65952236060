package io.vrouter.yang.edit;

import io.vrouter.yang.Ns;

/**
 * Absolute instance identifiers with the module prefix: NETCONF's error-path (RFC 6241 Appendix A),
 * the targets of RFC 6470's edits and of NACM's write check ({@link ConfigEdits}).
 */
public final class Paths {
    private static final String P = Ns.VMM_PREFIX + ":";
    public static final String ROOT = "/" + P + "NEW-VMM-MIB";
    public static final String CONFIG_TABLE = ROOT + "/" + P + "vmConfigTable";
    public static final String NETWORK_TABLE = ROOT + "/" + P + "vmNetworkConfigTable";

    private Paths() {
    }

    public static String entry(int vmIndex) {
        return CONFIG_TABLE + "/" + P + "vmConfigEntry[" + P + "vmIndex='" + vmIndex + "']";
    }

    public static String networkEntry(int vmIndex, int networkIndex) {
        return NETWORK_TABLE + "/" + P + "vmNetworkConfigEntry[" + P + "vmIndex='" + vmIndex + "'][" + P
                + "vmNetworkConfigIndex='" + networkIndex + "']";
    }

    /** A node of the edit engine's. */
    public static String of(Target t) {
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

    public static String child(String parent, String name) {
        return parent + "/" + P + name;
    }
}
