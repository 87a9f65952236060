package io.vrouter.netconf.xml;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.xml.sax.ErrorHandler;
import org.xml.sax.InputSource;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;

/**
 * Parses what clients send with a parser that refuses document type declarations, so no external
 * entity, external DTD or entity expansion (billion laughs) can reach it (OWASP XXE prevention).
 */
public final class SecureXml {
    private static final DocumentBuilderFactory FACTORY = factory();

    private SecureXml() {
    }

    private static DocumentBuilderFactory factory() {
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setNamespaceAware(true);
            f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            f.setFeature("http://xml.org/sax/features/external-general-entities", false);
            f.setFeature("http://xml.org/sax/features/external-parameter-entities", false);
            f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
            f.setAttribute(XMLConstants.ACCESS_EXTERNAL_DTD, "");
            f.setAttribute(XMLConstants.ACCESS_EXTERNAL_SCHEMA, "");
            f.setXIncludeAware(false);
            f.setExpandEntityReferences(false);
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
        try {
            return BUILDER.get().parse(new InputSource(new ByteArrayInputStream(message)));
        } catch (IOException e) {
            throw new SAXException(e);
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
