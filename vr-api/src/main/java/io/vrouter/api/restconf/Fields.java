package io.vrouter.api.restconf;

import io.vrouter.api.rest.Nesting;
import io.vrouter.yang.DataNode;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.NoSuchElementException;

/**
 * RFC 8040 section 4.8.3's {@code fields}: which descendants of the target to send, as
 * {@code vmConfigTable/vmConfigEntry(vmName;vmAdminState)}. A selected node comes with its whole
 * subtree; a list entry always with its keys.
 */
final class Fields {
    /** The selected children by name; {@code all} when the node is selected whole. */
    private final Map<String, Fields> children = new LinkedHashMap<>();
    private boolean all;

    private Fields() {
    }

    static Fields parse(String expr) {
        if (expr == null || expr.isBlank()) throw RestconfError.invalidValue("fields must name at least one node");
        Fields root = new Fields();
        int[] at = {0};
        root.expr(expr, at, 1);
        if (at[0] != expr.length()) throw bad(expr);
        return root;
    }

    /** fields-expr = path "(" fields-expr ")" / path ";" fields-expr / path; read by recursion, so bounded. */
    private void expr(String s, int[] at, int nesting) {
        if (nesting > Nesting.MAX) throw RestconfError.invalidValue("fields nests deeper than " + Nesting.MAX + " levels");
        while (true) {
            Fields node = this;
            do {
                int start = at[0];
                while (at[0] < s.length() && "/();".indexOf(s.charAt(at[0])) < 0) at[0]++;
                String id = s.substring(start, at[0]);
                if (id.isEmpty()) throw bad(s);
                String name = id.substring(id.indexOf(':') + 1);
                node = node.children.computeIfAbsent(name, k -> new Fields());
            } while (at[0] < s.length() && s.charAt(at[0]) == '/' && ++at[0] > 0);
            if (at[0] < s.length() && s.charAt(at[0]) == '(') {
                at[0]++;
                node.expr(s, at, nesting + 1);
                if (at[0] >= s.length() || s.charAt(at[0]) != ')') throw bad(s);
                at[0]++;
            } else {
                node.all = true;
            }
            if (at[0] < s.length() && s.charAt(at[0]) == ';') {
                at[0]++;
                continue;
            }
            return;
        }
    }

    private static RestconfError bad(String expr) {
        return RestconfError.invalidValue("fields '" + expr + "' is not a fields expression (RFC 8040 section 4.8.3)");
    }

    /** The node with only the selected descendants. */
    DataNode select(DataNode n) {
        if (all || n.isLeaf()) return n;
        return DataNode.view(n, it -> filter(n, it));
    }

    private Iterator<DataNode> filter(DataNode parent, Iterator<DataNode> it) {
        return new Iterator<>() {
            private DataNode next;

            @Override
            public boolean hasNext() {
                while (next == null && it.hasNext()) {
                    DataNode c = it.next();
                    Fields f = children.get(c.name());
                    if (f != null) {
                        next = f.select(c);
                    } else if (c.isLeaf() && parent.keys().contains(c.name())) {
                        next = c;
                    }
                }
                return next != null;
            }

            @Override
            public DataNode next() {
                if (!hasNext()) throw new NoSuchElementException();
                DataNode n = next;
                next = null;
                return n;
            }
        };
    }
}
