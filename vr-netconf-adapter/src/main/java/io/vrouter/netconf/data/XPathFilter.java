package io.vrouter.netconf.data;

import io.vrouter.core.model.Schema;
import io.vrouter.yang.DataNode;
import io.vrouter.yang.Ns;
import io.vrouter.netconf.xml.SecureXml;
import io.vrouter.yang.XmlOut;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import javax.xml.XMLConstants;
import javax.xml.namespace.NamespaceContext;
import javax.xml.transform.dom.DOMResult;
import javax.xml.xpath.XPath;
import javax.xml.xpath.XPathConstants;
import javax.xml.xpath.XPathExpressionException;
import javax.xml.xpath.XPathFactory;
import org.w3c.dom.Attr;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code :xpath} capability (RFC 6241 section 8.9): the filter's {@code select} expression is
 * evaluated on the data tree (which, unlike subtree filtering, is built whole for it), and the reply
 * holds every selected node with its subtree, its ancestors, and the keys of the list entries on
 * the way. Prefixes resolve through the namespace declarations in scope on the filter element; the
 * module's name and its prefix also resolve to its namespace. An expression with no prefix at all
 * (as yangcli sends: {@code /NEW-VMM-MIB/vmObjects}) matches names in any namespace.
 */
public final class XPathFilter {
    private static final Logger LOG = LoggerFactory.getLogger(XPathFilter.class);

    private XPathFilter() {
    }

    /** The expression could not be compiled or does not yield a node-set. */
    public static final class BadExpression extends Exception {
        public BadExpression(String message) {
            super(message);
        }
    }

    /** The nodes an expression selected, ready to be written. */
    public static final class Selection {
        private final List<Element> roots;
        private final Set<Node> keep;
        private final Set<Node> whole;

        private Selection(List<Element> roots, Set<Node> keep, Set<Node> whole) {
            this.roots = roots;
            this.keep = keep;
            this.whole = whole;
        }

        /** Writes the selected nodes with their ancestors. */
        public void write(XmlOut out) {
            write(out, DataNode.UNBOUNDED);
        }

        /** Writes the selected nodes, each {@code depth} levels deep (RFC 8526 max-depth), with their ancestors. */
        public void write(XmlOut out, int depth) {
            for (Element e : roots) {
                if (whole.contains(e)) keep.add(e);
                copy(e, keep, whole, out, 0, depth);
            }
        }
    }

    /** Evaluates the expression on the children of {@code root}; nothing is written yet. */
    public static Selection evaluate(DataNode root, Element filter, String select) throws BadExpression {
        // Each top-level node is the document element of a document of its own, so that absolute
        // paths (/prefix:NEW-VMM-MIB/...) start at it; the expression is evaluated on each.
        List<Element> roots = new java.util.ArrayList<>();
        XPath xp = XPathFactory.newInstance().newXPath();
        xp.setNamespaceContext(new FilterNamespaces(filter));
        javax.xml.xpath.XPathExpression expr;
        try {
            expr = xp.compile(select);
        } catch (XPathExpressionException e) {
            throw bad(select, e);
        }
        boolean anyNamespace = !PREFIXED.matcher(withoutLiterals(select)).find();
        Set<Node> keep = Collections.newSetFromMap(new IdentityHashMap<>());
        Set<Node> whole = Collections.newSetFromMap(new IdentityHashMap<>());
        for (DataNode c : root.children()) {
            Document doc = SecureXml.newDocument();
            XmlOut dom = new XmlOut(new DOMResult(doc));
            c.write(dom);
            dom.flush();
            Element docElement = doc.getDocumentElement();
            if (docElement == null) continue;
            if (anyNamespace) docElement = stripNamespaces(doc, docElement);
            NodeList hits;
            try {
                hits = (NodeList) expr.evaluate(doc, XPathConstants.NODESET);
            } catch (XPathExpressionException e) {
                throw bad(select, e);
            }
            Set<Node> docKeep = Collections.newSetFromMap(new IdentityHashMap<>());
            Set<Node> docWhole = Collections.newSetFromMap(new IdentityHashMap<>());
            for (int i = 0; i < hits.getLength(); i++) {
                Node n = hits.item(i);
                if (n instanceof Attr a) n = a.getOwnerElement();
                else if (n.getNodeType() == Node.TEXT_NODE) n = n.getParentNode();
                if (n == doc) n = docElement;
                if (!(n instanceof Element)) continue;
                docWhole.add(n);
                for (Node p = n; p != null && p != doc; p = p.getParentNode()) docKeep.add(p);
            }
            if (docKeep.isEmpty()) continue;
            roots.add(docElement);
            keep.addAll(docKeep);
            whole.addAll(docWhole);
        }
        return new Selection(roots, keep, whole);
    }

    /** A qualified name test (prefix:name or prefix:*), not an axis (name::). */
    private static final java.util.regex.Pattern PREFIXED =
            java.util.regex.Pattern.compile("[A-Za-z_][\\w.-]*:(?!:)[A-Za-z_*]");

    private static String withoutLiterals(String expr) {
        return expr.replaceAll("'[^']*'|\"[^\"]*\"", "''");
    }

    /** Moves every element to no namespace, remembering its namespace for the output. */
    private static Element stripNamespaces(Document doc, Element e) {
        String ns = e.getNamespaceURI();
        Element renamed = (Element) doc.renameNode(e, null, e.getLocalName());
        renamed.setUserData(NS_KEY, ns, null);
        for (Element k : SecureXml.children(renamed)) stripNamespaces(doc, k);
        return renamed;
    }

    private static final String NS_KEY = "vrouter.ns";

    private static String ns(Element e) {
        Object saved = e.getUserData(NS_KEY);
        return saved != null ? (String) saved : e.getNamespaceURI();
    }

    /**
     * The client is told what is wrong in its own terms, with the start of its expression; the XPath
     * engine's own message (its exception class, its internal wording, the whole expression, which
     * may be megabytes) stays in the log.
     */
    private static BadExpression bad(String select, XPathExpressionException e) {
        Throwable cause = e.getCause() == null ? e : e.getCause();
        LOG.debug("XPath expression refused: {}", cause.toString());
        String shown = select.length() <= 80 ? select : select.substring(0, 80) + "...";
        return new BadExpression("bad XPath expression '" + shown + "': not an XPath 1.0 expression that selects nodes"
                + " with the prefixes the filter declares (or nested too deep)");
    }

    /**
     * Copies a kept element: ancestors of selected nodes with the keys of their entries, and selected
     * nodes whole, {@code depth} levels deep. {@code left} is the depth still allowed inside a selected
     * node, 0 outside one.
     */
    private static void copy(Element e, Set<Node> keep, Set<Node> whole, XmlOut out, int left, int depth) {
        if (left == 0 && whole.contains(e)) left = depth;
        if (left == 0 && !keep.contains(e)) return;
        java.util.List<Element> kids = SecureXml.children(e);
        if (kids.isEmpty()) {
            out.leaf(e, ns(e));
            return;
        }
        out.start(ns(e), e.getLocalName());
        for (Element k : kids) {
            // Leaves of a list entry that are its keys come along with it.
            boolean key = SecureXml.children(k).isEmpty() && isKeyOf(k, e);
            if (key && (left == 1 || (left == 0 && !keep.contains(k)))) {
                out.leaf(k, ns(k));
            } else if (left != 1) {
                copy(k, keep, whole, out, left == 0 ? 0 : DataNode.below(left), depth);
            }
        }
        out.end();
    }

    /** The key leaves of the lists this server's data has, by entry. */
    private static boolean isKeyOf(Element leaf, Element entry) {
        String n = leaf.getLocalName();
        String ns = ns(entry);
        if (Ns.MONITORING.equals(ns)) {
            return switch (entry.getLocalName()) {
                case "schema" -> n.equals("identifier") || n.equals("version") || n.equals("format");
                case "session" -> n.equals("session-id");
                case "datastore" -> n.equals("name");
                default -> false;
            };
        }
        if (Ns.YANG_LIBRARY.equals(ns)) {
            return switch (entry.getLocalName()) {
                case "module-set", "module", "schema", "datastore" -> n.equals("name");
                case "import-only-module" -> n.equals("name") || n.equals("revision");
                default -> false;
            };
        }
        if (Ns.STREAMS.equals(ns)) return entry.getLocalName().equals("stream") && n.equals("name");
        Schema.Table table = Schema.Table.ofEntry(entry.getLocalName());
        return table != null && table.keys().contains(n);
    }

    private static final class FilterNamespaces implements NamespaceContext {
        private final Element filter;

        FilterNamespaces(Element filter) {
            this.filter = filter;
        }

        @Override
        public String getNamespaceURI(String prefix) {
            String ns = filter.lookupNamespaceURI(prefix == null || prefix.isEmpty() ? null : prefix);
            if (ns != null && !(prefix == null || prefix.isEmpty())) return ns;
            if (Ns.VMM_MODULE.equals(prefix) || Ns.VMM_PREFIX.equals(prefix)) return Ns.VMM;
            if ("ietf-netconf-monitoring".equals(prefix) || "ncm".equals(prefix)) return Ns.MONITORING;
            return XMLConstants.NULL_NS_URI;
        }

        @Override
        public String getPrefix(String namespaceURI) {
            return null;
        }

        @Override
        public Iterator<String> getPrefixes(String namespaceURI) {
            return Collections.emptyIterator();
        }
    }
}
