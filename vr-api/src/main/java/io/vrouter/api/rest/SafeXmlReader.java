package io.vrouter.api.rest;

import io.vrouter.core.model.Column;
import io.vrouter.core.model.Schema;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.ext.MessageBodyReader;
import jakarta.xml.bind.JAXBContext;
import jakarta.xml.bind.JAXBException;
import jakarta.xml.bind.UnmarshalException;
import jakarta.xml.bind.Unmarshaller;
import jakarta.xml.bind.annotation.XmlRootElement;
import java.io.IOException;
import java.io.InputStream;
import java.lang.annotation.Annotation;
import java.lang.reflect.Type;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.xml.XMLConstants;
import javax.xml.parsers.ParserConfigurationException;
import javax.xml.parsers.SAXParser;
import javax.xml.parsers.SAXParserFactory;
import javax.xml.transform.sax.SAXSource;
import org.xml.sax.Attributes;
import org.xml.sax.InputSource;
import org.xml.sax.SAXException;
import org.xml.sax.XMLReader;
import org.xml.sax.helpers.XMLFilterImpl;

/**
 * Reads XML bodies into the JAXB model with a parser that refuses any DOCTYPE: no DTD, no external
 * entity, no entity expansion, so XXE and billion-laughs bodies fail before anything is expanded.
 * Unknown elements are errors, as unknown JSON fields are, and so are values of the columns' kinds
 * that JAXB would take wrongly without a word ({@link ColumnValues}).
 */
@Consumes({MediaType.APPLICATION_XML, MediaType.TEXT_XML})
final class SafeXmlReader implements MessageBodyReader<Object> {
    private static final SAXParserFactory PARSERS = parsers();
    private final Map<Class<?>, JAXBContext> contexts = new ConcurrentHashMap<>();

    /** The body is not acceptable XML for the model; the field at fault, when one is. */
    static final class BadXml extends RuntimeException {
        final String field;

        BadXml(String message, String field, Throwable cause) {
            super(message, cause);
            this.field = field;
        }
    }

    /** A leaf whose text is not a value of its column's kind. */
    private static final class BadValue extends SAXException {
        final String field;

        BadValue(String field, String message) {
            super(message);
            this.field = field;
        }
    }

    /** The leaves checked by kind: the configuration tables' columns that are not text, and their keys. */
    private static final Map<String, Column.Kind> CHECKED = checked();

    private static Map<String, Column.Kind> checked() {
        Map<String, Column.Kind> m = new HashMap<>();
        for (Schema.Table t : Schema.Table.values()) {
            if (!t.config()) continue;
            for (String key : t.keys()) m.put(key, Column.Kind.INTEGER);
            for (Column<?> c : t.columns()) {
                switch (c.kind()) {
                    case INTEGER, UNSIGNED, TRUTH, ADMIN_STATE, ADDRESS_TYPE, LINK_TYPE -> m.put(c.field(), c.kind());
                    default -> {
                        // text, MAC and addresses arrive as strings; the service checks them
                    }
                }
            }
        }
        return Map.copyOf(m);
    }

    /**
     * Checks the text of each column's leaf by the column's kind, as NETCONF and JSON read it, before
     * JAXB does: JAXB takes an unknown enumeration label (vmAdminState "sideways") as absent and
     * "maybe" as false, so a bad request would be carried out with a default instead of refused.
     */
    private static final class ColumnValues extends XMLFilterImpl {
        private final StringBuilder text = new StringBuilder();
        /** The kind of the leaf being read, or null. */
        private Column.Kind kind;

        ColumnValues(XMLReader parent) {
            super(parent);
        }

        @Override
        public void startElement(String uri, String localName, String qName, Attributes atts) throws SAXException {
            kind = CHECKED.get(localName);
            text.setLength(0);
            super.startElement(uri, localName, qName, atts);
        }

        @Override
        public void characters(char[] ch, int start, int length) throws SAXException {
            if (kind != null) text.append(ch, start, length);
            super.characters(ch, start, length);
        }

        @Override
        public void endElement(String uri, String localName, String qName) throws SAXException {
            if (kind != null) {
                // JAXB reads numbers and booleans with white space around them right, labels not.
                boolean label = kind == Column.Kind.ADMIN_STATE || kind == Column.Kind.ADDRESS_TYPE || kind == Column.Kind.LINK_TYPE;
                String value = label ? text.toString() : text.toString().strip();
                // XML Schema's boolean also has 1 and 0, which JAXB reads right too.
                if (!(kind == Column.Kind.TRUTH && (value.equals("1") || value.equals("0")))) {
                    try {
                        kind.parse(value);
                    } catch (IllegalArgumentException e) {
                        throw new BadValue(localName, "'" + localName + "' must be " + kind.expected() + ", not '"
                                + (value.length() > 40 ? value.substring(0, 40) + "..." : value) + "'");
                    }
                }
                kind = null;
            }
            super.endElement(uri, localName, qName);
        }
    }

    private static SAXParserFactory parsers() {
        try {
            SAXParserFactory f = SAXParserFactory.newInstance();
            f.setNamespaceAware(true);
            f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            f.setFeature("http://xml.org/sax/features/external-general-entities", false);
            f.setFeature("http://xml.org/sax/features/external-parameter-entities", false);
            f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
            f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            f.setXIncludeAware(false);
            return f;
        } catch (ParserConfigurationException | SAXException e) {
            throw new IllegalStateException("the XML parser cannot be made safe", e);
        }
    }

    @Override
    public boolean isReadable(Class<?> type, Type genericType, Annotation[] annotations, MediaType mediaType) {
        return type.isAnnotationPresent(XmlRootElement.class);
    }

    @Override
    public Object readFrom(Class<Object> type, Type genericType, Annotation[] annotations, MediaType mediaType,
                           MultivaluedMap<String, String> httpHeaders, InputStream body) throws IOException {
        try {
            SAXParser parser = PARSERS.newSAXParser();
            parser.setProperty(Nesting.XML_DEPTH_PROPERTY, String.valueOf(Nesting.MAX));
            XMLReader reader = new ColumnValues(parser.getXMLReader());
            Unmarshaller u = contexts.computeIfAbsent(type, SafeXmlReader::context).createUnmarshaller();
            u.setEventHandler(event -> false);
            return u.unmarshal(new SAXSource(reader, new InputSource(body)), type).getValue();
        } catch (UnmarshalException e) {
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof IOException io) throw io;
                if (t instanceof BadValue bad) throw new BadXml(bad.getMessage(), bad.field, e);
            }
            if (Nesting.exceeded(e.getLinkedException())) throw new BadXml(Nesting.DETAIL, null, e);
            Throwable cause = e.getLinkedException() != null ? e.getLinkedException() : e;
            String message = cause.getMessage() != null ? cause.getMessage() : String.valueOf(cause);
            throw new BadXml("malformed XML: " + message.replaceAll("\\s+", " "), null, e);
        } catch (JAXBException | ParserConfigurationException | SAXException e) {
            throw new BadXml("malformed XML: " + e.getMessage(), null, e);
        }
    }

    private static JAXBContext context(Class<?> type) {
        try {
            return JAXBContext.newInstance(type);
        } catch (JAXBException e) {
            throw new IllegalStateException("no JAXB context for " + type, e);
        }
    }
}
