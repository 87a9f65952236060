package io.vrouter.yang.edit;

import java.util.List;

/**
 * A node of the data an edit brings, as a protocol parsed it: NETCONF's {@code <config>} elements,
 * RESTCONF's JSON or XML body. The engine reads names, values and the nesting; it never sees the
 * protocol's own syntax.
 */
public interface EditNode {
    String ns();

    String name();

    /** The text of a leaf (as the protocol reads it: NETCONF trims it); blank for an inner node. */
    String value();

    List<? extends EditNode> children();

    /** Whether the node has no children. */
    default boolean isLeaf() {
        return children().isEmpty();
    }

    /** The text of the node's own operation attribute (NETCONF), or null to inherit its parent's. */
    default String operation() {
        return null;
    }

    /** The first child with that name, or null. */
    default EditNode child(String childName) {
        for (EditNode c : children()) {
            if (c.name().equals(childName)) return c;
        }
        return null;
    }
}
