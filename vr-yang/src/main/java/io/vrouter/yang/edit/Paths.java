package io.vrouter.yang.edit;

import io.vrouter.core.model.Schema;
import io.vrouter.yang.Ns;

/**
 * Absolute instance identifiers with the module prefix: NETCONF's error-path (RFC 6241 Appendix A),
 * the targets of RFC 6470's edits and of NACM's write check ({@link ConfigEdits}).
 */
public final class Paths {
    private static final String P = Ns.VMM_PREFIX + ":";
    public static final String ROOT = "/" + P + "NEW-VMM-MIB";
    public static final String CONFIG_TABLE = table(Schema.Table.CONFIG);
    public static final String NETWORK_TABLE = table(Schema.Table.NETWORK_CONFIG);

    private Paths() {
    }

    public static String table(Schema.Table t) {
        return ROOT + "/" + P + t.tableName();
    }

    /** An entry of the table by the values of its keys, in the table's order of them. */
    public static String entry(Schema.Table t, Object... keys) {
        StringBuilder b = new StringBuilder(table(t)).append('/').append(P).append(t.entryName());
        for (int k = 0; k < keys.length; k++) b.append('[').append(P).append(t.keys().get(k)).append("='").append(keys[k]).append("']");
        return b.toString();
    }

    public static String entry(int vmIndex) {
        return entry(Schema.Table.CONFIG, vmIndex);
    }

    public static String networkEntry(int vmIndex, int networkIndex) {
        return entry(Schema.Table.NETWORK_CONFIG, vmIndex, networkIndex);
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
