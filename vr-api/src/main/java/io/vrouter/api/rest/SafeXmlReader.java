package io.vrouter.api.rest;

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
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.xml.XMLConstants;
import javax.xml.parsers.ParserConfigurationException;
import javax.xml.parsers.SAXParserFactory;
import javax.xml.transform.sax.SAXSource;
import org.xml.sax.InputSource;
import org.xml.sax.SAXException;
import org.xml.sax.XMLReader;

/**
 * Reads XML bodies into the JAXB model with a parser that refuses any DOCTYPE: no DTD, no external
 * entity, no entity expansion, so XXE and billion-laughs bodies fail before anything is expanded.
 * Unknown elements are errors, as unknown JSON fields are.
 */
@Consumes({MediaType.APPLICATION_XML, MediaType.TEXT_XML})
final class SafeXmlReader implements MessageBodyReader<Object> {
    private static final SAXParserFactory PARSERS = parsers();
    private final Map<Class<?>, JAXBContext> contexts = new ConcurrentHashMap<>();

    /** The body is not acceptable XML for the model. */
    static final class BadXml extends RuntimeException {
        BadXml(String message, Throwable cause) {
            super(message, cause);
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
            XMLReader reader = PARSERS.newSAXParser().getXMLReader();
            Unmarshaller u = contexts.computeIfAbsent(type, SafeXmlReader::context).createUnmarshaller();
            u.setEventHandler(event -> false);
            return u.unmarshal(new SAXSource(reader, new InputSource(body)), type).getValue();
        } catch (UnmarshalException e) {
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof IOException io) throw io;
            }
            Throwable cause = e.getLinkedException() != null ? e.getLinkedException() : e;
            String message = cause.getMessage() != null ? cause.getMessage() : String.valueOf(cause);
            throw new BadXml("malformed XML: " + message.replaceAll("\\s+", " "), e);
        } catch (JAXBException | ParserConfigurationException | SAXException e) {
            throw new BadXml("malformed XML: " + e.getMessage(), e);
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
