package io.vrouter.api.restconf;

import com.fasterxml.jackson.core.JsonGenerator;
import io.vrouter.yang.edit.Target;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vrouter.yang.JsonOut;
import io.vrouter.yang.Ns;
import io.vrouter.yang.XmlOut;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * A YANG Patch (RFC 8072): several edits, each an operation on a target below the request's
 * resource, applied in order to one working copy and handed to the service as one change set, so
 * that all of them are done or none. The lists of NEW-VMM-MIB are ordered by the system, so
 * {@code insert} and {@code move} do not apply to them.
 */
final class YangPatch {
    /** One edit: its id, operation, target (relative to the resource) and value (null for delete and remove). */
    record Edit(String id, String operation, ApiPath target, InNode value) {
    }

    final String patchId;
    final List<Edit> edits;

    private YangPatch(String patchId, List<Edit> edits) {
        this.patchId = patchId;
        this.edits = edits;
    }

    static YangPatch read(byte[] body, Encoding enc) {
        if (body == null || body.length == 0) throw RestconfError.malformed("the request has no body");
        return enc == Encoding.JSON ? json(body) : xml(body);
    }

    private static YangPatch json(byte[] body) {
        JsonNode doc;
        try {
            doc = InNode.JSON.readTree(body);
        } catch (IOException e) {
            throw InNode.malformedJson(e);
        }
        JsonNode patch = doc == null ? null : doc.get("ietf-yang-patch:yang-patch");
        if (patch == null || !patch.isObject()) {
            throw RestconfError.malformed("a YANG Patch is {\"ietf-yang-patch:yang-patch\": {\"patch-id\": ..., \"edit\": [...]}}");
        }
        List<Edit> edits = new ArrayList<>();
        JsonNode list = patch.get("edit");
        if (list != null && !list.isArray()) throw RestconfError.malformed("edit must be a list");
        if (list != null) {
            for (JsonNode e : list) {
                InNode value = null;
                JsonNode v = e.get("value");
                if (v != null) {
                    if (!(v instanceof ObjectNode obj) || obj.size() != 1) {
                        throw RestconfError.malformed("an edit's value is an object with one member, the target's node");
                    }
                    List<InNode> nodes = new ArrayList<>();
                    InNode.members(obj, null, nodes);
                    if (nodes.size() != 1) throw RestconfError.malformed("an edit's value holds one node");
                    value = nodes.get(0);
                }
                edits.add(edit(text(e, "edit-id"), text(e, "operation"), text(e, "target"), value));
            }
        }
        return new YangPatch(text(patch, "patch-id"), List.copyOf(edits));
    }

    private static String text(JsonNode n, String field) {
        JsonNode v = n.get(field);
        if (v == null || !v.isValueNode()) throw RestconfError.malformed("the YANG Patch lacks " + field);
        return v.asText();
    }

    private static YangPatch xml(byte[] body) {
        Element root = InNode.parseXml(body);
        if (!Ns.YANG_PATCH.equals(root.getNamespaceURI()) || !root.getLocalName().equals("yang-patch")) {
            throw RestconfError.malformed("a YANG Patch is <yang-patch xmlns=\"" + Ns.YANG_PATCH + "\">");
        }
        String patchId = null;
        List<Edit> edits = new ArrayList<>();
        for (Element e : elements(root)) {
            if (e.getLocalName().equals("patch-id")) {
                patchId = e.getTextContent();
            } else if (e.getLocalName().equals("edit")) {
                String id = null;
                String op = null;
                String target = null;
                InNode value = null;
                for (Element f : elements(e)) {
                    switch (f.getLocalName()) {
                        case "edit-id" -> id = f.getTextContent();
                        case "operation" -> op = f.getTextContent();
                        case "target" -> target = f.getTextContent();
                        case "value" -> {
                            List<Element> v = elements(f);
                            if (v.size() != 1) throw RestconfError.malformed("an edit's value holds one node");
                            value = InNode.of(v.get(0));
                        }
                        default -> {
                            // point and where: insert and move only, which do not apply here
                        }
                    }
                }
                if (id == null || op == null || target == null) {
                    throw RestconfError.malformed("an edit needs edit-id, operation and target");
                }
                edits.add(edit(id, op, target, value));
            }
        }
        if (patchId == null) throw RestconfError.malformed("the YANG Patch lacks patch-id");
        return new YangPatch(patchId, List.copyOf(edits));
    }

    private static List<Element> elements(Element parent) {
        List<Element> out = new ArrayList<>();
        for (Node c = parent.getFirstChild(); c != null; c = c.getNextSibling()) {
            if (c instanceof Element e) out.add(e);
        }
        return out;
    }

    private static Edit edit(String id, String op, String target, InNode value) {
        ApiPath relative = target.equals("/") ? ApiPath.ROOT : relative(target);
        return new Edit(id, op, relative, value);
    }

    /** An edit's target: a data-resource path relative to the request's (its first node may omit the module). */
    private static ApiPath relative(String target) {
        String t = target.startsWith("/") ? target.substring(1) : target;
        int slash = t.indexOf('/');
        String first = slash < 0 ? t : t.substring(0, slash);
        if (!first.contains(":")) t = Ns.VMM_MODULE + ":" + t; // relative targets below NEW-VMM-MIB name no module
        return ApiPath.parse(t);
    }

    /**
     * Applies every edit to {@code edit} in order; an edit refused is thrown with its id. The edits'
     * targets are below {@code resource}.
     */
    void applyTo(ConfigEdit edit, ApiPath resource) {
        for (Edit e : edits) {
            try {
                Target t = ConfigEdit.target(resource.plus(e.target()));
                switch (e.operation()) {
                    case "create" -> edit.create(t, value(e));
                    case "merge" -> edit.merge(t, value(e));
                    case "replace" -> edit.replace(t, value(e));
                    case "delete" -> edit.delete(t);
                    case "remove" -> edit.remove(t);
                    case "insert", "move" -> throw RestconfError.invalidValue(e.operation() + " orders entries of a list"
                            + " ordered by the user; the lists of NEW-VMM-MIB are ordered by the system");
                    default -> throw RestconfError.invalidValue("operation '" + e.operation() + "' is not one of YANG Patch's");
                }
            } catch (RestconfError r) {
                throw new Refused(e.id(), r);
            }
        }
    }

    private static InNode value(Edit e) {
        if (e.value() == null) throw RestconfError.malformed("edit '" + e.id() + "' (" + e.operation() + ") needs a value");
        return e.value();
    }

    /** An edit refused: its id and the error. */
    static final class Refused extends RuntimeException {
        final String editId;
        final RestconfError error;

        Refused(String editId, RestconfError error) {
            super(error.getMessage());
            this.editId = editId;
            this.error = error;
        }
    }

    /**
     * The {@code yang-patch-status} (RFC 8072 section 2.3): {@code ok}, or the errors, of one edit
     * ({@code editId}) or of the whole patch (null).
     */
    void status(OutputStream out, Encoding enc, String editId, List<RestconfError> errors) {
        if (enc == Encoding.JSON) {
            try (JsonOut json = new JsonOut(out)) {
                JsonGenerator g = json.generator();
                g.writeStartObject();
                g.writeObjectFieldStart("ietf-yang-patch:yang-patch-status");
                g.writeStringField("patch-id", patchId);
                if (errors.isEmpty()) {
                    g.writeArrayFieldStart("ok");
                    g.writeNull();
                    g.writeEndArray();
                } else if (editId == null) {
                    g.writeObjectFieldStart("errors");
                    Errors.json(g, errors);
                    g.writeEndObject();
                } else {
                    g.writeObjectFieldStart("edit-status");
                    g.writeArrayFieldStart("edit");
                    g.writeStartObject();
                    g.writeStringField("edit-id", editId);
                    g.writeObjectFieldStart("errors");
                    Errors.json(g, errors);
                    g.writeEndObject();
                    g.writeEndObject();
                    g.writeEndArray();
                    g.writeEndObject();
                }
                g.writeEndObject();
                g.writeEndObject();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return;
        }
        try (XmlOut xml = new XmlOut(out)) {
            xml.declaration();
            String y = Ns.YANG_PATCH;
            xml.start(y, "yang-patch-status");
            xml.leaf(y, "patch-id", patchId);
            if (errors.isEmpty()) {
                xml.empty(y, "ok");
            } else if (editId == null) {
                xml.start(y, "errors");
                Errors.xml(xml, errors, y);
                xml.end();
            } else {
                xml.start(y, "edit-status");
                xml.start(y, "edit");
                xml.leaf(y, "edit-id", editId);
                xml.start(y, "errors");
                Errors.xml(xml, errors, y);
                xml.end();
                xml.end();
                xml.end();
            }
            xml.end();
        }
    }
}
