package io.vrouter.yang.edit;

import io.vrouter.core.model.Scalar;
import io.vrouter.core.model.ConfigColumn;
import io.vrouter.core.model.NetworkColumn;
import io.vrouter.core.model.Schema;
import java.util.Set;
import java.util.stream.Stream;

/**
 * A config true node of NEW-VMM-MIB that an edit names: the datastore, the top container, a table,
 * an entry (by its keys), a leaf of an entry (its column), or a key leaf (which names the entry and
 * cannot change). Each protocol renders it as its own path (NETCONF's error-path, RESTCONF's
 * instance identifier).
 */
public record Target(Kind kind, int vmIndex, Integer networkIndex, ConfigColumn configColumn,
                     NetworkColumn networkColumn, String key) {
    public enum Kind { ROOT, TOP, CONFIG_TABLE, NETWORK_TABLE, CONFIG_ENTRY, CONFIG_LEAF, NETWORK_ENTRY, NETWORK_LEAF, KEY_LEAF }

    public static final Target ROOT = new Target(Kind.ROOT, 0, null, null, null, null);
    public static final Target TOP = new Target(Kind.TOP, 0, null, null, null, null);
    public static final Target CONFIG_TABLE = new Target(Kind.CONFIG_TABLE, 0, null, null, null, null);
    public static final Target NETWORK_TABLE = new Target(Kind.NETWORK_TABLE, 0, null, null, null, null);

    /**
     * The children of NEW-VMM-MIB that are state data: the scalar groups and every table the schema
     * table says is not configuration. Built once.
     */
    private static final Set<String> STATE = Stream.concat(
            Stream.of(Scalar.Group.values()).map(Scalar.Group::yangName),
            Stream.of(Schema.Table.values()).filter(t -> !t.config()).map(Schema.Table::tableName))
            .collect(java.util.stream.Collectors.toUnmodifiableSet());

    /** Whether a child of NEW-VMM-MIB is state data, which no edit can write. */
    public static boolean isState(String topChild) {
        return STATE.contains(topChild);
    }

    public static Target configEntry(int vmIndex) {
        return new Target(Kind.CONFIG_ENTRY, vmIndex, null, null, null, null);
    }

    public static Target networkEntry(int vmIndex, int networkIndex) {
        return new Target(Kind.NETWORK_ENTRY, vmIndex, networkIndex, null, null, null);
    }

    public static Target configLeaf(int vmIndex, ConfigColumn c) {
        return new Target(Kind.CONFIG_LEAF, vmIndex, null, c, null, null);
    }

    public static Target networkLeaf(int vmIndex, int networkIndex, NetworkColumn c) {
        return new Target(Kind.NETWORK_LEAF, vmIndex, networkIndex, null, c, null);
    }

    public static Target keyLeaf(int vmIndex, Integer networkIndex, String key) {
        return new Target(Kind.KEY_LEAF, vmIndex, networkIndex, null, null, key);
    }

    /** The node's name in the model, null for the datastore. */
    public String name() {
        return switch (kind) {
            case ROOT -> null;
            case TOP -> "NEW-VMM-MIB";
            case CONFIG_TABLE, NETWORK_TABLE -> table().tableName();
            case CONFIG_ENTRY, NETWORK_ENTRY -> table().entryName();
            case CONFIG_LEAF -> configColumn.field();
            case NETWORK_LEAF -> networkColumn.field();
            case KEY_LEAF -> key;
        };
    }

    /** The schema's table of a table, an entry or a leaf; null for the datastore and the top container. */
    public Schema.Table table() {
        return switch (kind) {
            case ROOT, TOP -> null;
            case CONFIG_TABLE, CONFIG_ENTRY, CONFIG_LEAF -> Schema.Table.CONFIG;
            case NETWORK_TABLE, NETWORK_ENTRY, NETWORK_LEAF -> Schema.Table.NETWORK_CONFIG;
            case KEY_LEAF -> networkIndex == null ? Schema.Table.CONFIG : Schema.Table.NETWORK_CONFIG;
        };
    }

    /** The entry a leaf (or key leaf) belongs to; the node itself otherwise. */
    public Target entry() {
        return switch (kind) {
            case CONFIG_LEAF -> configEntry(vmIndex);
            case NETWORK_LEAF -> networkEntry(vmIndex, networkIndex);
            case KEY_LEAF -> networkIndex == null ? configEntry(vmIndex) : networkEntry(vmIndex, networkIndex);
            default -> this;
        };
    }

    /** The node this one is a child of (the datastore for itself). */
    public Target parent() {
        return switch (kind) {
            case ROOT, TOP -> ROOT;
            case CONFIG_TABLE, NETWORK_TABLE -> TOP;
            case CONFIG_ENTRY -> CONFIG_TABLE;
            case NETWORK_ENTRY -> NETWORK_TABLE;
            case CONFIG_LEAF, NETWORK_LEAF, KEY_LEAF -> entry();
        };
    }

    /** The leaf's name below its {@link #entry}, null for a node that is no leaf. */
    public String leaf() {
        return switch (kind) {
            case CONFIG_LEAF, NETWORK_LEAF, KEY_LEAF -> name();
            default -> null;
        };
    }
}
