package io.vrouter.yang;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.function.Supplier;

/**
 * A node of a data tree as NETCONF shows it: a leaf with a value, or an inner node (container or
 * list entry) with children. Tables are "lazy" inner nodes whose entries are produced one at a time
 * while a reply is written, so that a large table is never held in memory whole.
 */
public abstract class DataNode {
    private final String ns;
    private final String name;

    protected DataNode(String ns, String name) {
        this.ns = ns;
        this.name = name;
    }

    public final String ns() {
        return ns;
    }

    public final String name() {
        return name;
    }

    public boolean isLeaf() {
        return false;
    }

    /**
     * How a leaf's value is written in JSON (RFC 7951 section 6.1): integers of 32 bits and fewer as
     * numbers, booleans as literals, everything else as a string (64-bit integers, counters of 64
     * bits, enumerations, text).
     */
    public enum Json { STRING, NUMBER, BOOLEAN }

    /** The JSON form of a leaf's value. */
    public Json json() {
        return Json.STRING;
    }

    /** True for one value of a leaf-list (JSON writes a leaf-list as an array, however many values). */
    public boolean isLeafList() {
        return false;
    }

    /**
     * The namespace of the module whose prefix starts the value (an identityref such as
     * {@code ds:running}), or null; JSON names that module instead of the prefix (RFC 7951 section 6.8).
     */
    public String valueNs() {
        return null;
    }

    /** True when the leaf carries RFC 6243's {@code default="true"}: its value is its schema default. */
    public boolean taggedDefault() {
        return false;
    }

    /** A leaf's value; null for inner nodes. */
    public String value() {
        return null;
    }

    /** The children in document order; empty for a leaf. */
    public Iterable<DataNode> children() {
        return List.of();
    }

    /** The names of the key leaves when this is a list entry, empty otherwise. */
    public List<String> keys() {
        return List.of();
    }

    /**
     * For a table whose entries all start with the key {@code vmIndex}: that key's name; null for
     * other nodes. Such a table can produce just the entries of some VRs ({@link #children(Set)}).
     */
    public String vrKey() {
        return null;
    }

    /** The children that belong to the given VRs (all children unless {@link #vrKey()} is set). */
    public Iterable<DataNode> children(java.util.Set<Integer> vmIndices) {
        return children();
    }

    /** The leaf child with the given name, or null. Lazy nodes have no leaf children. */
    public DataNode leaf(String leafName) {
        for (DataNode c : children()) {
            if (c.isLeaf() && c.name().equals(leafName)) return c;
        }
        return null;
    }

    /** Writes the node and everything below it. */
    public void write(XmlOut out) {
        if (isLeaf()) {
            out.leaf(ns, name, value());
            return;
        }
        out.pending(ns, name, null);
        for (DataNode c : children()) c.write(out);
        out.end();
    }

    /** Depth meaning "all descendants" for {@link #write(XmlOut, int)}. */
    public static final int UNBOUNDED = Integer.MAX_VALUE;

    /** The depth left for the children of a node written {@code depth} levels deep. */
    public static int below(int depth) {
        return depth == UNBOUNDED ? UNBOUNDED : depth - 1;
    }

    /**
     * Writes the node and {@code depth - 1} levels below it (RFC 8526 max-depth: 1 is the node
     * alone); a list entry always carries its keys. An inner node cut off this way is written empty
     * rather than dropped, so that the reply says it exists.
     */
    public void write(XmlOut out, int depth) {
        if (isLeaf() || depth == UNBOUNDED) {
            write(out);
            return;
        }
        out.pending(ns, name, null);
        out.materialize();
        List<String> keys = keys();
        for (DataNode c : children()) {
            if (depth > 1) {
                c.write(out, depth - 1);
            } else if (c.isLeaf() && keys.contains(c.name())) {
                c.write(out);
            }
        }
        out.end();
    }

    // ------------------------------------------------------------------ factories

    /**
     * The node {@code n} seen through {@code children}, which maps the iterator of its children (to
     * filter or rewrite them, lazily); its name, keys and lookups stay {@code n}'s. For the views of
     * a reply: with-defaults, RESTCONF's fields.
     */
    public static DataNode view(DataNode n, java.util.function.UnaryOperator<java.util.Iterator<DataNode>> children) {
        return new DataNode(n.ns(), n.name()) {
            @Override
            public Iterable<DataNode> children() {
                return () -> children.apply(n.children().iterator());
            }

            @Override
            public Iterable<DataNode> children(java.util.Set<Integer> vmIndices) {
                return () -> children.apply(n.children(vmIndices).iterator());
            }

            @Override
            public List<String> keys() {
                return n.keys();
            }

            @Override
            public String vrKey() {
                return n.vrKey();
            }

            @Override
            public DataNode leaf(String leafName) {
                return n.leaf(leafName);
            }
        };
    }

    public static DataNode leaf(String ns, String name, String value) {
        return new Leaf(ns, name, value, Json.STRING, false);
    }

    /** A leaf whose value is written in JSON as {@code json} says. */
    public static DataNode leaf(String ns, String name, String value, Json json) {
        return new Leaf(ns, name, value, json, false);
    }

    /**
     * A leaf whose value is an identity of another module ({@code ds:running}): its start tag
     * declares the prefix.
     */
    public static DataNode identity(String ns, String name, String prefix, String identityNs, String identity) {
        return withPrefix(ns, name, prefix + ":" + identity, prefix, identityNs);
    }

    /** A leaf whose value uses a prefix (an identity, an instance-identifier): its start tag declares it. */
    public static DataNode withPrefix(String ns, String name, String value, String prefix, String prefixNs) {
        return new Decorated(ns, name, value, prefix, prefixNs, null, Json.STRING);
    }

    /** The leaf with RFC 6243's {@code wd:default="true"}: its value is its schema default. */
    public static DataNode taggedDefault(DataNode leaf) {
        return new Decorated(leaf.ns(), leaf.name(), leaf.value(), "wd", Ns.DEFAULT_ATTRIBUTE, "default", leaf.json());
    }

    /** An element with no content that is there all the same: an empty leaf, an empty notification. */
    public static DataNode empty(String ns, String name) {
        return new DataNode(ns, name) {
            @Override
            public boolean isLeaf() {
                return true;
            }

            @Override
            public String value() {
                return "";
            }

            @Override
            public void write(XmlOut out) {
                out.empty(ns(), name());
            }
        };
    }

    /** A leaf whose start tag declares a prefix and may carry an attribute in that prefix's namespace. */
    static final class Decorated extends Leaf {
        private final String prefix;
        private final String prefixNs;
        private final String attribute;

        Decorated(String ns, String name, String value, String prefix, String prefixNs, String attribute, Json json) {
            super(ns, name, value, json, false);
            this.prefix = prefix;
            this.prefixNs = prefixNs;
            this.attribute = attribute;
        }

        @Override
        public void write(XmlOut out) {
            out.leaf(ns(), name(), value(), prefix, prefixNs, attribute, "true");
        }

        @Override
        public String valueNs() {
            return attribute == null ? prefixNs : null;
        }

        @Override
        public boolean taggedDefault() {
            return attribute != null;
        }
    }

    /** A container or list entry whose children are known. */
    public static Inner inner(String ns, String name, String... keys) {
        return new Inner(ns, name, List.of(keys));
    }

    /** A container whose children are produced on demand, each time they are walked. */
    public static DataNode lazy(String ns, String name, Supplier<Iterator<DataNode>> children) {
        return new Lazy(ns, name, children);
    }

    /**
     * A table whose entries are produced VR by VR: {@code indices} gives the VRs in order,
     * {@code rowsOf} the entries of one VR (none when it vanished meanwhile).
     */
    public static DataNode byVr(String ns, String name, Supplier<Iterable<Integer>> indices,
                                java.util.function.IntFunction<List<DataNode>> rowsOf) {
        return new ByVr(ns, name, indices, rowsOf);
    }

    static final class ByVr extends DataNode {
        private final Supplier<Iterable<Integer>> indices;
        private final java.util.function.IntFunction<List<DataNode>> rowsOf;

        ByVr(String ns, String name, Supplier<Iterable<Integer>> indices, java.util.function.IntFunction<List<DataNode>> rowsOf) {
            super(ns, name);
            this.indices = indices;
            this.rowsOf = rowsOf;
        }

        @Override
        public Iterable<DataNode> children() {
            return () -> rows(indices.get().iterator());
        }

        @Override
        public Iterable<DataNode> children(java.util.Set<Integer> vmIndices) {
            return () -> rows(new java.util.TreeSet<>(vmIndices).iterator());
        }

        private Iterator<DataNode> rows(Iterator<Integer> which) {
            return new Iterator<>() {
                private Iterator<DataNode> current = java.util.Collections.emptyIterator();

                @Override
                public boolean hasNext() {
                    while (!current.hasNext() && which.hasNext()) current = rowsOf.apply(which.next()).iterator();
                    return current.hasNext();
                }

                @Override
                public DataNode next() {
                    if (!hasNext()) throw new java.util.NoSuchElementException();
                    return current.next();
                }
            };
        }

        @Override
        public String vrKey() {
            return "vmIndex";
        }

        @Override
        public DataNode leaf(String leafName) {
            return null;
        }
    }

    /** A leaf with its value in text form; other modules' trees (gNMI's openconfig) extend it with what they need. */
    public static class Leaf extends DataNode {
        private final String value;
        private final Json json;
        private final boolean leafList;

        protected Leaf(String ns, String name, String value, Json json, boolean leafList) {
            super(ns, name);
            this.value = value;
            this.json = json;
            this.leafList = leafList;
        }

        @Override
        public boolean isLeaf() {
            return true;
        }

        @Override
        public Json json() {
            return json;
        }

        @Override
        public boolean isLeafList() {
            return leafList;
        }

        @Override
        public String value() {
            return value;
        }
    }

    /** An inner node built in memory; {@link #add} appends children and skips null values. */
    public static final class Inner extends DataNode {
        private final List<String> keys;
        private final List<DataNode> children = new ArrayList<>();

        Inner(String ns, String name, List<String> keys) {
            super(ns, name);
            this.keys = keys;
        }

        public Inner add(DataNode child) {
            if (child != null) children.add(child);
            return this;
        }

        /**
         * Adds a leaf in this node's namespace unless the value is null: an Integer is a YANG
         * integer of 32 bits or fewer, a Boolean a boolean, anything else (a Long is an int64 or a
         * counter64) text.
         */
        public Inner add(String leafName, Object value) {
            if (value == null) return this;
            Json json = value instanceof Integer ? Json.NUMBER : value instanceof Boolean ? Json.BOOLEAN : Json.STRING;
            return add(leafName, String.valueOf(value), json);
        }

        /** Adds a leaf of an unsigned 32-bit type (timeticks, gauge32) held in a Long, unless null. */
        public Inner addUnsigned32(String leafName, Long value) {
            return value == null ? this : add(leafName, String.valueOf(value), Json.NUMBER);
        }

        /** Adds a leaf whose value is given as text, written in JSON as {@code json} says, unless null. */
        public Inner add(String leafName, String text, Json json) {
            if (text != null) children.add(new Leaf(ns(), leafName, text, json, false));
            return this;
        }

        /** Adds one value of a leaf-list. */
        public Inner addLeafList(String leafName, String value) {
            children.add(new Leaf(ns(), leafName, value, Json.STRING, true));
            return this;
        }

        @Override
        public Iterable<DataNode> children() {
            return Collections.unmodifiableList(children);
        }

        @Override
        public List<String> keys() {
            return keys;
        }
    }

    static final class Lazy extends DataNode {
        private final Supplier<Iterator<DataNode>> children;

        Lazy(String ns, String name, Supplier<Iterator<DataNode>> children) {
            super(ns, name);
            this.children = children;
        }

        @Override
        public Iterable<DataNode> children() {
            return children::get;
        }

        @Override
        public DataNode leaf(String leafName) {
            return null;
        }
    }
}
