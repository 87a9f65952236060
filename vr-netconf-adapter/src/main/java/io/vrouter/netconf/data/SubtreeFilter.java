package io.vrouter.netconf.data;

import io.vrouter.netconf.xml.SecureXml;
import io.vrouter.yang.DataNode;
import io.vrouter.yang.XmlOut;
import java.util.ArrayList;
import java.util.List;
import org.w3c.dom.Attr;
import org.w3c.dom.Element;
import org.w3c.dom.NamedNodeMap;

/**
 * Subtree filtering as RFC 6241 section 6 defines it, applied while the reply is written.
 *
 * <ul>
 *   <li>A filter element with no child elements and no text is a <em>selection node</em>: the data
 *       node it names is output whole.</li>
 *   <li>One with text and no child elements is a <em>content match node</em>: its siblings are output
 *       only when the data has a leaf of that name with that value (surrounding whitespace ignored);
 *       when all siblings are content match nodes and all match, the whole parent is output.</li>
 *   <li>One with child elements is a <em>containment node</em>: the data node is output when
 *       something inside it is selected.</li>
 *   <li>A filter element without a namespace matches every namespace; an attribute on a filter element
 *       (other than namespace declarations) must be present with the same value on the data node, and
 *       data nodes here carry none, so such a filter element selects nothing.</li>
 *   <li>Sibling filter elements that name the same data node (for example two list entries with
 *       different content match values) are unions: a node is output when any of them selects it.</li>
 *   <li>A list entry that is output always carries its keys, as YANG's XML encoding requires.</li>
 *   <li>An empty filter selects nothing.</li>
 * </ul>
 */
public final class SubtreeFilter {
    private SubtreeFilter() {
    }

    /**
     * Writes the part of the children of {@code root} that the filter selects ({@code root} itself
     * is not written: it stands for the datastore, and {@code filter} for the {@code <filter>}
     * element).
     */
    public static void apply(DataNode root, Element filter, XmlOut out) {
        apply(root, filter, out, DataNode.UNBOUNDED);
    }

    /**
     * As {@link #apply(DataNode, Element, XmlOut)}, with each selected node written {@code depth}
     * levels deep (RFC 8526 max-depth; {@link DataNode#UNBOUNDED} for all).
     */
    public static void apply(DataNode root, Element filter, XmlOut out, int depth) {
        if (SecureXml.children(filter).isEmpty()) return;
        emitChildren(root, List.of(filter), out, depth);
    }

    /**
     * The filter elements {@code fs} all match the inner data node {@code d}. Writes the selected
     * children of d (the caller has opened d, pending).
     */
    private static void emitChildren(DataNode d, List<Element> fs, XmlOut out, int depth) {
        List<Element> partial = new ArrayList<>();
        for (Element f : fs) {
            Classified c = Classified.of(f);
            if (!contentMatches(d, c.contentMatch)) continue;
            if (c.selection.isEmpty() && c.containment.isEmpty()) {
                // Only content match nodes, all matched (or none at all): the whole node. A list
                // entry's keys were written with its start tag.
                List<String> keys = d.keys();
                if (!keys.isEmpty() || depth != DataNode.UNBOUNDED) out.materialize();
                if (depth == 1) return;
                for (DataNode child : d.children()) {
                    if (!(child.isLeaf() && keys.contains(child.name()))) child.write(out, DataNode.below(depth));
                }
                return;
            }
            partial.add(f);
        }
        if (partial.isEmpty()) return;
        List<Classified> cs = new ArrayList<>(partial.size());
        for (Element f : partial) cs.add(Classified.of(f));
        List<String> keys = d.keys();
        java.util.Set<Integer> only = wantedVrs(d, cs);
        for (DataNode child : only == null ? d.children() : d.children(only)) {
            boolean selected = false;
            List<Element> inside = new ArrayList<>();
            for (Classified c : cs) {
                if (anyMatches(c.selection, child) || anyMatches(c.contentMatch, child)) selected = true;
                for (Element f : c.containment) {
                    if (matches(f, child)) inside.add(f);
                }
            }
            if (child.isLeaf() && keys.contains(child.name())) {
                // Keys are written with the entry's start tag; a selected key makes the entry appear.
                if (selected || !inside.isEmpty()) out.materialize();
                continue;
            }
            if (selected) {
                child.write(out, depth);
            } else if (!inside.isEmpty() && !child.isLeaf()) {
                open(child, out);
                emitChildren(child, inside, out, depth);
                out.end();
            }
        }
    }

    /**
     * When every filter for a table names the VRs it wants by a content match on the table's
     * {@code vmIndex} key, those VRs (so that only their rows are produced); null otherwise.
     */
    private static java.util.Set<Integer> wantedVrs(DataNode table, List<Classified> cs) {
        String key = table.vrKey();
        if (key == null) return null;
        java.util.Set<Integer> wanted = new java.util.HashSet<>();
        for (Classified c : cs) {
            if (!c.selection.isEmpty() || !c.contentMatch.isEmpty()) return null;
            for (Element entry : c.containment) {
                Integer index = null;
                for (Element k : SecureXml.children(entry)) {
                    if (k.getLocalName().equals(key) && SecureXml.children(k).isEmpty() && !SecureXml.text(k).isBlank()) {
                        try {
                            index = Integer.valueOf(SecureXml.text(k).trim());
                        } catch (NumberFormatException e) {
                            return null;
                        }
                    }
                }
                if (index == null) return null;
                wanted.add(index);
            }
        }
        return wanted;
    }

    /** Opens an inner node pending; a list entry's keys are written right after its start tag. */
    static void open(DataNode node, XmlOut out) {
        List<String> keys = node.keys();
        if (keys.isEmpty()) {
            out.pending(node.ns(), node.name(), null);
            return;
        }
        out.pending(node.ns(), node.name(), () -> {
            for (String k : keys) {
                DataNode leaf = node.leaf(k);
                if (leaf != null) leaf.write(out);
            }
        });
    }

    private static boolean contentMatches(DataNode d, List<Element> contentMatch) {
        for (Element cm : contentMatch) {
            if (!hasNoForeignAttributes(cm)) return false;
            DataNode leaf = d.leaf(cm.getLocalName());
            if (leaf == null || !namespaceMatches(cm, leaf)) return false;
            if (!leaf.value().trim().equals(SecureXml.text(cm).trim())) return false;
        }
        return true;
    }

    private static boolean anyMatches(List<Element> fs, DataNode child) {
        for (Element f : fs) {
            if (matches(f, child)) return true;
        }
        return false;
    }

    static boolean matches(Element f, DataNode node) {
        return f.getLocalName().equals(node.name()) && namespaceMatches(f, node) && hasNoForeignAttributes(f);
    }

    private static boolean namespaceMatches(Element f, DataNode node) {
        String ns = f.getNamespaceURI();
        return ns == null || ns.isEmpty() || ns.equals(node.ns());
    }

    /**
     * Attribute match expressions: data nodes carry no attributes, so a filter element with one
     * (namespace declarations and NETCONF's own attributes aside) matches nothing.
     */
    private static boolean hasNoForeignAttributes(Element f) {
        NamedNodeMap attrs = f.getAttributes();
        for (int i = 0; i < attrs.getLength(); i++) {
            Attr a = (Attr) attrs.item(i);
            String ns = a.getNamespaceURI();
            if ("http://www.w3.org/2000/xmlns/".equals(ns)) continue;
            if ("urn:ietf:params:xml:ns:netconf:base:1.0".equals(ns)) continue;
            return false;
        }
        return true;
    }

    /** A filter element's children sorted by kind. */
    private record Classified(List<Element> contentMatch, List<Element> selection, List<Element> containment) {
        static Classified of(Element f) {
            List<Element> cm = new ArrayList<>();
            List<Element> sel = new ArrayList<>();
            List<Element> cont = new ArrayList<>();
            for (Element e : SecureXml.children(f)) {
                if (!SecureXml.children(e).isEmpty()) {
                    cont.add(e);
                } else if (SecureXml.text(e).isBlank()) {
                    sel.add(e);
                } else {
                    cm.add(e);
                }
            }
            return new Classified(cm, sel, cont);
        }
    }
}
