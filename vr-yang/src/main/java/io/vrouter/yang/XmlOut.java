package io.vrouter.yang;

import java.io.OutputStream;
import java.util.ArrayDeque;
import java.util.Deque;
import javax.xml.stream.XMLOutputFactory;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamWriter;
import javax.xml.transform.Result;

/**
 * Streams XML. Elements can be opened "pending": their start tag is written only when something is
 * written inside them, so a filter can drop a container that turns out empty without having built
 * it in memory. A default namespace is declared only where it changes.
 */
public final class XmlOut implements AutoCloseable {
    private static final XMLOutputFactory FACTORY = XMLOutputFactory.newFactory();

    private final XMLStreamWriter w;
    /** The stream under {@link #w} when writing to one (then {@link #raw} can add bytes), else null. */
    private final OutputStream stream;
    /** Open elements: their namespace, whether their start tag is written, and what to write first. */
    private final Deque<Open> open = new ArrayDeque<>();
    /** While a prologue runs: the namespace of the element it writes into. */
    private String prologueNs;

    private static final class Open {
        final String ns;
        final String name;
        final Runnable prologue;
        boolean started;

        Open(String ns, String name, Runnable prologue) {
            this.ns = ns;
            this.name = name;
            this.prologue = prologue;
        }
    }

    public XmlOut(OutputStream out) {
        try {
            this.w = FACTORY.createXMLStreamWriter(out, "UTF-8");
            this.stream = out;
        } catch (XMLStreamException e) {
            throw new IllegalStateException(e);
        }
    }

    public XmlOut(Result result) {
        try {
            this.w = FACTORY.createXMLStreamWriter(result);
            this.stream = null;
        } catch (XMLStreamException e) {
            throw new IllegalStateException(e);
        }
    }

    public XMLStreamWriter raw() {
        return w;
    }

    public void declaration() {
        try {
            w.writeStartDocument("UTF-8", "1.0");
        } catch (XMLStreamException e) {
            throw new XmlWriteException(e);
        }
    }

    private String currentNs() {
        if (prologueNs != null) return prologueNs;
        Open top = open.peek();
        return top == null ? null : top.ns;
    }

    /** Opens an element whose start tag is written at once. */
    public void start(String ns, String name) {
        pending(ns, name, null);
        materialize();
    }

    /**
     * Opens an element whose start tag waits for content; {@code prologue} (may be null) runs right
     * after the start tag is written, for example to write list keys.
     */
    public void pending(String ns, String name, Runnable prologue) {
        open.push(new Open(ns, name, prologue));
    }

    /** Writes the start tags of every pending element. */
    public void materialize() {
        if (open.isEmpty() || open.peek().started) return;
        Open[] chain = open.toArray(new Open[0]);
        for (int i = chain.length - 1; i >= 0; i--) {
            Open o = chain[i];
            if (o.started) continue;
            String parentNs = i + 1 < chain.length ? chain[i + 1].ns : null;
            try {
                w.writeStartElement("", o.name, o.ns);
                if (!o.ns.equals(parentNs)) w.writeDefaultNamespace(o.ns);
            } catch (XMLStreamException e) {
                throw new XmlWriteException(e);
            }
            o.started = true;
            if (o.prologue != null) {
                prologueNs = o.ns;
                try {
                    o.prologue.run();
                } finally {
                    prologueNs = null;
                }
            }
        }
    }

    /** True when the innermost open element has been written. */
    public boolean started() {
        return !open.isEmpty() && open.peek().started;
    }

    /** Closes the innermost element; one never written is dropped. */
    public void end() {
        Open o = open.pop();
        if (!o.started) return;
        try {
            w.writeEndElement();
        } catch (XMLStreamException e) {
            throw new XmlWriteException(e);
        }
    }

    public void attribute(String name, String value) {
        try {
            w.writeAttribute(name, value);
        } catch (XMLStreamException e) {
            throw new XmlWriteException(e);
        }
    }

    public void attribute(String prefix, String ns, String name, String value) {
        try {
            if (ns == null || ns.isEmpty()) {
                w.writeAttribute(name, value);
            } else {
                if (!"xml".equals(prefix)) w.writeNamespace(prefix, ns);
                w.writeAttribute(prefix, ns, name, value);
            }
        } catch (XMLStreamException e) {
            throw new XmlWriteException(e);
        }
    }

    /** Declares a prefix on the element just started. */
    public void namespace(String prefix, String ns) {
        try {
            w.writeNamespace(prefix, ns);
        } catch (XMLStreamException e) {
            throw new XmlWriteException(e);
        }
    }

    public void text(String text) {
        if (prologueNs == null) materialize();
        try {
            w.writeCharacters(text);
        } catch (XMLStreamException e) {
            throw new XmlWriteException(e);
        }
    }

    /** Writes {@code <name>value</name>} in the given namespace. */
    public void leaf(String ns, String name, String value) {
        if (prologueNs == null) materialize();
        try {
            w.writeStartElement("", name, ns);
            if (!ns.equals(currentNs())) w.writeDefaultNamespace(ns);
            w.writeCharacters(value);
            w.writeEndElement();
        } catch (XMLStreamException e) {
            throw new XmlWriteException(e);
        }
    }

    /**
     * Writes {@code <name>value</name>} whose start tag also declares {@code prefix} for
     * {@code prefixNs} (an identityref value such as {@code ds:running} needs its prefix) and, when
     * {@code attribute} is not null, carries {@code prefix:attribute="attributeValue"} (RFC 6243's
     * {@code wd:default="true"}).
     */
    public void leaf(String ns, String name, String value, String prefix, String prefixNs, String attribute,
                     String attributeValue) {
        if (prologueNs == null) materialize();
        try {
            w.writeStartElement("", name, ns);
            if (!ns.equals(currentNs())) w.writeDefaultNamespace(ns);
            w.writeNamespace(prefix, prefixNs);
            if (attribute != null) w.writeAttribute(prefix, prefixNs, attribute, attributeValue);
            w.writeCharacters(value);
            w.writeEndElement();
        } catch (XMLStreamException e) {
            throw new XmlWriteException(e);
        }
    }

    /**
     * Writes a leaf read from a DOM in namespace {@code ns}, with what its start tag carries: a prefix
     * declaration (for a value that uses it) or an attribute in another namespace (wd:default).
     */
    public void leaf(org.w3c.dom.Element e, String ns) {
        org.w3c.dom.NamedNodeMap attrs = e.getAttributes();
        String prefix = null;
        String prefixNs = null;
        String attribute = null;
        for (int i = 0; i < attrs.getLength(); i++) {
            org.w3c.dom.Attr a = (org.w3c.dom.Attr) attrs.item(i);
            if ("http://www.w3.org/2000/xmlns/".equals(a.getNamespaceURI())) {
                if (a.getPrefix() != null && !a.getValue().equals(ns)) {
                    prefix = a.getLocalName();
                    prefixNs = a.getValue();
                }
            } else if (a.getNamespaceURI() != null) {
                prefix = a.getPrefix();
                prefixNs = a.getNamespaceURI();
                attribute = a.getLocalName();
            }
        }
        String value = e.getTextContent();
        if (prefix == null) {
            leaf(ns, e.getLocalName(), value);
        } else {
            leaf(ns, e.getLocalName(), value, prefix, prefixNs, attribute, "true");
        }
    }

    /**
     * Writes {@code xml}, UTF-8 encoded elements already made, as the next content of the innermost
     * element, when this writes to a stream and that element is in namespace {@code ns} (so the
     * elements' own namespace is inherited, as {@code xml} assumes). Returns false, writing nothing,
     * otherwise: the caller then writes the elements itself.
     */
    public boolean raw(String ns, byte[] xml) {
        if (stream == null || prologueNs != null || !ns.equals(currentNs())) return false;
        materialize();
        try {
            w.writeCharacters("");  // ends the start tag the writer keeps open for attributes
            w.flush();
            stream.write(xml);
        } catch (XMLStreamException | java.io.IOException e) {
            throw new XmlWriteException(e);
        }
        return true;
    }

    /** Appends {@code text} as element content, escaped as the JDK's writer does: &amp;, &lt; and &gt;. */
    public static void escape(StringBuilder b, String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '&' -> b.append("&amp;");
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                default -> b.append(c);
            }
        }
    }

    /** Writes an empty element. */
    public void empty(String ns, String name) {
        if (prologueNs == null) materialize();
        try {
            w.writeEmptyElement("", name, ns);
            if (!ns.equals(currentNs())) w.writeDefaultNamespace(ns);
        } catch (XMLStreamException e) {
            throw new XmlWriteException(e);
        }
    }

    public void flush() {
        try {
            w.flush();
        } catch (XMLStreamException e) {
            throw new XmlWriteException(e);
        }
    }

    /**
     * Ends a document and leaves the writer open for the next one (which starts with
     * {@link #declaration()}), written to the same stream: for a series of short messages, making a
     * writer for each costs more than writing the message.
     */
    public void endDocument() {
        if (!open.isEmpty()) throw new IllegalStateException("elements still open: " + open.size());
        try {
            w.writeEndDocument();
            w.flush();
        } catch (XMLStreamException e) {
            throw new XmlWriteException(e);
        }
    }

    @Override
    public void close() {
        try {
            w.writeEndDocument();
            w.flush();
            w.close();
        } catch (XMLStreamException e) {
            throw new XmlWriteException(e);
        }
    }

    /** An I/O failure while streaming a reply, most often the peer going away. */
    public static final class XmlWriteException extends RuntimeException {
        public XmlWriteException(Throwable cause) {
            super(cause);
        }
    }
}
