package io.vrouter.yang.edit;

/**
 * What an edit does at a node (RFC 6241 section 7.2, RFC 8072 section 2.5): NETCONF names it in an
 * {@code operation} attribute or its default-operation, RESTCONF by its method or a YANG Patch edit.
 */
public enum Operation {
    /** The data into the node, creating what is missing. */
    MERGE,
    /** The node becomes the data, created if missing. */
    REPLACE,
    /** The node must not exist; then as merge. */
    CREATE,
    /** The node must exist; then as remove. */
    DELETE,
    /** The node goes, if it is there (a leaf back to its default). */
    REMOVE,
    /** Nothing here (NETCONF's default-operation none): the node must exist, its children say what to do. */
    NONE;

    /** The operation named by an {@code operation} attribute's text (none is not one), or null. */
    public static Operation ofAttribute(String text) {
        return switch (text) {
            case "merge" -> MERGE;
            case "replace" -> REPLACE;
            case "create" -> CREATE;
            case "delete" -> DELETE;
            case "remove" -> REMOVE;
            default -> null;
        };
    }

    /** The operation a node's children inherit: what create and replace make is merged into below. */
    Operation forChildren() {
        return this == CREATE || this == REPLACE ? MERGE : this;
    }
}
