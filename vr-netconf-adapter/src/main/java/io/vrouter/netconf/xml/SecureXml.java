package io.vrouter.netconf.xml;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import javax.xml.parsers.SAXParser;
import javax.xml.parsers.SAXParserFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.xml.sax.Attributes;
import org.xml.sax.ErrorHandler;
import org.xml.sax.InputSource;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;
import org.xml.sax.helpers.DefaultHandler;

/**
 * Parses what clients send with a parser that refuses document type declarations, so no external
 * entity, external DTD or entity expansion (billion laughs) can reach it (OWASP XXE prevention).
 */
public final class SecureXml {
    /** No document type declaration, no external entity or DTD: for the DOM parser and the SAX one alike. */
    private static final java.util.Map<String, Boolean> SECURE_FEATURES = java.util.Map.of(
            XMLConstants.FEATURE_SECURE_PROCESSING, true,
            "http://apache.org/xml/features/disallow-doctype-decl", true,
            "http://xml.org/sax/features/external-general-entities", false,
            "http://xml.org/sax/features/external-parameter-entities", false,
            "http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
    private static final DocumentBuilderFactory FACTORY = factory();

    private SecureXml() {
    }

    private static DocumentBuilderFactory factory() {
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setNamespaceAware(true);
            for (var feature : SECURE_FEATURES.entrySet()) f.setFeature(feature.getKey(), feature.getValue());
            f.setAttribute(XMLConstants.ACCESS_EXTERNAL_DTD, "");
            f.setAttribute(XMLConstants.ACCESS_EXTERNAL_SCHEMA, "");
            f.setXIncludeAware(false);
            f.setExpandEntityReferences(false);
            // Comments are nothing to a request; left out, they cost no memory either.
            f.setIgnoringComments(true);
            // Nodes made as they are parsed, not from Xerces' deferred tables when first read: every
            // request is read whole, and for a request of a few hundred bytes the tables cost a third
            // more CPU and three times the memory (about 14.7 against 4.7 KB for an edit-config).
            f.setFeature("http://apache.org/xml/features/dom/defer-node-expansion", false);
            return f;
        } catch (ParserConfigurationException e) {
            throw new IllegalStateException("the XML parser does not support secure processing", e);
        }
    }

    /**
     * One parser per thread (a session reads its requests on its own thread), used again for every
     * message: making a parser costs more than parsing a request of a few hundred bytes (its
     * configuration and security settings are set up anew each time). A parse resets it.
     */
    private static final ThreadLocal<DocumentBuilder> BUILDER = ThreadLocal.withInitial(SecureXml::newBuilder);

    private static DocumentBuilder newBuilder() {
        try {
            DocumentBuilder b = FACTORY.newDocumentBuilder();
            b.setErrorHandler(new ErrorHandler() {
                @Override
                public void warning(SAXParseException e) {
                }

                @Override
                public void error(SAXParseException e) throws SAXException {
                    throw e;
                }

                @Override
                public void fatalError(SAXParseException e) throws SAXException {
                    throw e;
                }
            });
            return b;
        } catch (ParserConfigurationException e) {
            throw new IllegalStateException("the XML parser does not support secure processing", e);
        }
    }

    /** A new empty document, for building replies that are small. */
    public static Document newDocument() {
        return BUILDER.get().newDocument();
    }

    /** Parses one message; throws with the parser's complaint when it is not well-formed. */
    public static Document parse(byte[] message) throws SAXException {
        return parse(new ByteArrayInputStream(message));
    }

    /** Parses one message; throws with the parser's complaint when it is not well-formed. */
    public static Document parse(InputStream message) throws SAXException {
        try {
            return BUILDER.get().parse(new InputSource(message));
        } catch (IOException e) {
            throw new SAXException(e);
        }
    }

    // ------------------------------------------------------------------ measuring before parsing

    /**
     * What a document costs once parsed, per node and per character of text, on the JDK's DOM
     * (measured on JDK 17 with every node visited: about 90 bytes an element or an attribute, 110 a
     * text node with its string; these figures are above that, so the estimate errs on the safe side).
     */
    private static final int ELEMENT_BYTES = 160;
    private static final int ATTRIBUTE_BYTES = 120;
    private static final int NODE_BYTES = 100;

    /**
     * Per byte of a message, at most what its parsed form can take by the figures above: the densest
     * document, {@code <a/>x} again and again, costs an element and a text node (262 bytes) every 5
     * bytes; entities and character references only make text shorter than its bytes, and a DTD is
     * refused.
     */
    private static final int MOST_PARSED_BYTES_PER_BYTE = 64;
    /** Messages up to this length are reserved at {@link #mostParsedBytes} (1 MiB at most) instead of measured. */
    public static final int UNMEASURED_BYTES = 16 * 1024;

    /** What any message of this length can take once parsed, at most. */
    public static long mostParsedBytes(long messageBytes) {
        return MOST_PARSED_BYTES_PER_BYTE * messageBytes;
    }

    private static final SAXParserFactory SAX = saxFactory();
    private static final ThreadLocal<SAXParser> SAX_PARSER = ThreadLocal.withInitial(() -> {
        try {
            return SAX.newSAXParser();
        } catch (ParserConfigurationException | SAXException e) {
            throw new IllegalStateException("the XML parser does not support secure processing", e);
        }
    });

    private static SAXParserFactory saxFactory() {
        try {
            SAXParserFactory f = SAXParserFactory.newInstance();
            f.setNamespaceAware(true);
            for (var feature : SECURE_FEATURES.entrySet()) f.setFeature(feature.getKey(), feature.getValue());
            f.setXIncludeAware(false);
            return f;
        } catch (ParserConfigurationException | SAXException e) {
            throw new IllegalStateException("the XML parser does not support secure processing", e);
        }
    }

    /**
     * Reads a message as a stream, building nothing, for what its parsed form will take.
     *
     * @throws SAXException with the parser's complaint when it is not well-formed
     */
    public static long measure(InputStream message) throws SAXException {
        Measure m = new Measure(false);
        run(message, m);
        return m.bytes;
    }

    /** The root element's message-id, read from the beginning of a message; null if none is found there. */
    public static String messageId(InputStream messageStart) {
        Measure m = new Measure(true);
        try {
            run(messageStart, m);
        } catch (SAXException notThere) {
            // the root is read before any complaint about what follows it
        }
        return m.messageId;
    }

    private static void run(InputStream in, Measure m) throws SAXException {
        SAXParser p = SAX_PARSER.get();
        try {
            p.parse(in, m);
        } catch (Measure.RootRead done) {
            // the root's attributes were all that was asked for
        } catch (IOException e) {
            throw new SAXException(e);
        } finally {
            p.reset();
        }
    }

    private static final class Measure extends DefaultHandler {
        /** Stops the parse once the root element is read. */
        static final class RootRead extends SAXException {
            RootRead() {
                super("root read", null);
            }
        }

        private final boolean rootOnly;
        long bytes;
        String messageId;
        private boolean rootSeen;
        private boolean inText;

        Measure(boolean rootOnly) {
            this.rootOnly = rootOnly;
        }

        @Override
        public void startPrefixMapping(String prefix, String uri) {
            bytes += ATTRIBUTE_BYTES + 2L * uri.length();
        }

        @Override
        public void startElement(String uri, String localName, String qName, Attributes atts) throws SAXException {
            if (!rootSeen) messageId = atts.getValue("", "message-id");
            rootSeen = true;
            if (rootOnly) throw new RootRead();
            bytes += ELEMENT_BYTES + 2L * qName.length();
            for (int i = 0; i < atts.getLength(); i++) bytes += ATTRIBUTE_BYTES + 2L * atts.getValue(i).length();
            inText = false;
        }

        @Override
        public void endElement(String uri, String localName, String qName) {
            inText = false;
        }

        @Override
        public void characters(char[] ch, int start, int length) {
            if (!inText) bytes += NODE_BYTES;
            inText = true;
            bytes += 2L * length;
        }

        @Override
        public void ignorableWhitespace(char[] ch, int start, int length) {
            characters(ch, start, length);
        }

        @Override
        public void processingInstruction(String target, String data) {
            bytes += NODE_BYTES + 2L * (target.length() + (data == null ? 0 : data.length()));
            inText = false;
        }

        @Override
        public void fatalError(SAXParseException e) throws SAXException {
            throw e;
        }
    }

    /** The element children of a node, skipping text, comments and processing instructions. */
    public static java.util.List<Element> children(Node parent) {
        java.util.List<Element> out = new java.util.ArrayList<>();
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e) out.add(e);
        }
        return out;
    }

    /** The first element child with the given local name and namespace, or null. */
    public static Element child(Node parent, String ns, String name) {
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && name.equals(e.getLocalName()) && ns.equals(e.getNamespaceURI())) return e;
        }
        return null;
    }

    /** The element's own text (its text and CDATA children), not trimmed. */
    public static String text(Element e) {
        StringBuilder sb = new StringBuilder();
        for (Node n = e.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n.getNodeType() == Node.TEXT_NODE || n.getNodeType() == Node.CDATA_SECTION_NODE) sb.append(n.getNodeValue());
        }
        return sb.toString();
    }
}
