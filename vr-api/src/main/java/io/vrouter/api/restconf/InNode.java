package io.vrouter.api.restconf;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vrouter.api.rest.Nesting;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.xml.sax.SAXException;
import io.vrouter.yang.edit.EditNode;

/**
 * A node of a request body, read from JSON (RFC 7951: {@code module:name} where the module changes,
 * arrays for list entries and leaf-list values) or XML (namespaces): a leaf with its value as text,
 * or an inner node with children. Both encodings come to the same tree, which the edits read.
 */
record InNode(String ns, String name, String value, List<InNode> children) implements EditNode {
    /** RESTCONF's JSON reader: duplicate members refused, nesting bounded. */
    static final ObjectMapper JSON = JsonMapper.builder(JsonFactory.builder().streamReadConstraints(Nesting.json()).build())
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION).build();
    private static final DocumentBuilderFactory XML = xmlFactory();

    @Override
    public boolean isLeaf() {
        return value != null;
    }

    /** The leaf child with this name, or null. */
    @Override
    public InNode child(String childName) {
        for (InNode c : children) {
            if (c.name.equals(childName)) return c;
        }
        return null;
    }

    /** The body's top-level nodes (a resource body has one; JSON's array of list entries makes several). */
    static List<InNode> read(byte[] body, Encoding enc) {
        if (body == null || body.length == 0) throw RestconfError.malformed("the request has no body");
        return enc == Encoding.JSON ? json(body) : List.of(xml(body));
    }

    // ------------------------------------------------------------------ JSON

    private static List<InNode> json(byte[] body) {
        JsonNode doc;
        try {
            doc = JSON.readTree(body);
        } catch (IOException e) {
            throw malformedJson(e);
        }
        if (!(doc instanceof ObjectNode obj) || obj.size() != 1) {
            throw RestconfError.malformed("the body must be a JSON object with one member, the resource"
                    + " ({\"NEW-VMM-MIB:vmConfigEntry\": [...]})");
        }
        List<InNode> out = new ArrayList<>();
        members(obj, null, out);
        return out;
    }

    /**
     * A JSON body that cannot be read, said in RESTCONF's terms: where, and what kind of fault,
     * without the parser's own words (which name its classes and settings).
     */
    static RestconfError malformedJson(IOException e) {
        if (Nesting.exceeded(e)) return RestconfError.malformed(Nesting.DETAIL);
        if (e instanceof JsonProcessingException jpe) {
            JsonLocation at = jpe.getLocation();
            return RestconfError.malformed(jpe.getMessage() != null && jpe.getMessage().contains("Duplicate field")
                    ? "malformed JSON" + where(at) + ": a member appears twice in one object"
                    : "malformed JSON" + where(at) + ": not valid JSON from there");
        }
        return RestconfError.malformed("the body could not be read");
    }

    private static String where(JsonLocation at) {
        return at == null || at.getLineNr() < 1 ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr();
    }

    /** Reads an object's members (several nodes for an array of list entries or leaf-list values). */
    static void members(ObjectNode obj, String parentNs, List<InNode> out) {
        Iterator<Map.Entry<String, JsonNode>> it = obj.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> m = it.next();
            String member = m.getKey();
            if (member.startsWith("@")) continue; // RFC 7952 metadata: none is written back
            int colon = member.indexOf(':');
            String ns = colon < 0 ? parentNs : ApiPath.namespace(member.substring(0, colon));
            if (ns == null) throw RestconfError.malformed("'" + member + "' must name its module: 'module:" + member + "'");
            String name = member.substring(colon + 1);
            JsonNode v = m.getValue();
            if (v.isArray()) {
                for (JsonNode item : v) out.add(node(ns, name, item));
            } else {
                out.add(node(ns, name, v));
            }
        }
    }

    /** Reads {@code member: value} when the value is a JSON value. */
    static InNode node(String ns, String name, JsonNode v) {
        if (v.isObject()) {
            List<InNode> children = new ArrayList<>();
            members((ObjectNode) v, ns, children);
            return new InNode(ns, name, null, List.copyOf(children));
        }
        if (v.isArray() && v.size() == 1 && v.get(0).isNull()) return new InNode(ns, name, "", List.of()); // empty
        if (v.isValueNode() && !v.isNull()) return new InNode(ns, name, v.asText(), List.of());
        throw RestconfError.malformed("'" + name + "' has a value of the wrong kind: " + v.getNodeType().toString().toLowerCase());
    }

    // ------------------------------------------------------------------ XML

    private static DocumentBuilderFactory xmlFactory() {
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setNamespaceAware(true);
            f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            f.setFeature("http://xml.org/sax/features/external-general-entities", false);
            f.setFeature("http://xml.org/sax/features/external-parameter-entities", false);
            f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            f.setXIncludeAware(false);
            f.setExpandEntityReferences(false);
            f.setAttribute(Nesting.XML_DEPTH_PROPERTY, String.valueOf(Nesting.MAX));
            return f;
        } catch (ParserConfigurationException e) {
            throw new IllegalStateException("the XML parser cannot be made safe", e);
        }
    }

    /** Parses XML with DOCTYPEs refused (no DTD, no entities), as REST's XML reader does. */
    static Element parseXml(byte[] body) {
        try {
            DocumentBuilder b = XML.newDocumentBuilder();
            b.setErrorHandler(null);
            Document d = b.parse(new ByteArrayInputStream(body));
            return d.getDocumentElement();
        } catch (SAXException e) {
            if (Nesting.exceeded(e)) throw RestconfError.malformed(Nesting.DETAIL);
            throw RestconfError.malformed("malformed XML: " + String.valueOf(e.getMessage()).replaceAll("\\s+", " "));
        } catch (IOException | ParserConfigurationException e) {
            throw RestconfError.malformed("the body could not be read");
        }
    }

    private static InNode xml(byte[] body) {
        return of(parseXml(body));
    }

    /** An element as a node: a leaf when it has no child elements. */
    static InNode of(Element e) {
        List<InNode> children = new ArrayList<>();
        for (Node c = e.getFirstChild(); c != null; c = c.getNextSibling()) {
            if (c instanceof Element ce) children.add(of(ce));
        }
        String ns = e.getNamespaceURI();
        if (ns == null) throw RestconfError.malformed("<" + e.getLocalName() + "> has no namespace: give its module's");
        if (children.isEmpty()) return new InNode(ns, e.getLocalName(), e.getTextContent(), List.of());
        return new InNode(ns, e.getLocalName(), null, List.copyOf(children));
    }
}
