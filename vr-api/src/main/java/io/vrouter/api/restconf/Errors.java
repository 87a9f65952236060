package io.vrouter.api.restconf;

import com.fasterxml.jackson.core.JsonGenerator;
import io.vrouter.yang.JsonOut;
import io.vrouter.yang.Ns;
import io.vrouter.yang.XmlOut;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * Writes errors as RFC 8040's {@code ietf-restconf:errors} (section 7.1), in the encoding the client
 * accepts (JSON when it accepts neither).
 */
final class Errors {
    private Errors() {
    }

    static Response response(List<RestconfError> errors, HttpHeaders headers) {
        Encoding enc;
        try {
            enc = headers == null ? Encoding.JSON : Encoding.accepted(headers);
        } catch (RestconfError notAcceptable) {
            enc = Encoding.JSON;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        if (enc == Encoding.JSON) {
            try (JsonOut json = new JsonOut(out)) {
                JsonGenerator g = json.generator();
                g.writeStartObject();
                g.writeObjectFieldStart("ietf-restconf:errors");
                json(g, errors);
                g.writeEndObject();
                g.writeEndObject();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        } else {
            try (XmlOut xml = new XmlOut(out)) {
                xml.declaration();
                xml.start(Ns.RESTCONF, "errors");
                xml(xml, errors, Ns.RESTCONF);
                xml.end();
            }
        }
        return Response.status(errors.get(0).status).type(MediaType.valueOf(enc.mediaType)).entity(out.toByteArray()).build();
    }

    /** The {@code error} list's entries, into an object already open (errors, or a YANG Patch edit's errors). */
    static void json(JsonGenerator g, List<RestconfError> errors) throws IOException {
        g.writeArrayFieldStart("error");
        for (RestconfError e : errors) {
            g.writeStartObject();
            g.writeStringField("error-type", e.type);
            g.writeStringField("error-tag", e.tag);
            if (e.appTag != null) g.writeStringField("error-app-tag", e.appTag);
            if (e.path != null) g.writeStringField("error-path", e.path.json());
            if (e.getMessage() != null) g.writeStringField("error-message", e.getMessage());
            g.writeEndObject();
        }
        g.writeEndArray();
    }

    /**
     * The {@code error} elements, into an element already open, in namespace {@code rc} (RESTCONF's;
     * YANG Patch's status uses the grouping in its own).
     */
    static void xml(XmlOut xml, List<RestconfError> errors, String rc) {
        for (RestconfError e : errors) {
            xml.start(rc, "error");
            xml.leaf(rc, "error-type", e.type);
            xml.leaf(rc, "error-tag", e.tag);
            if (e.appTag != null) xml.leaf(rc, "error-app-tag", e.appTag);
            if (e.path != null) {
                xml.start(rc, "error-path");
                for (String ns : e.path.namespaces()) xml.namespace(DataPath.prefix(ns), ns);
                xml.text(e.path.xml());
                xml.end();
            }
            if (e.getMessage() != null) xml.leaf(rc, "error-message", e.getMessage());
            xml.end();
        }
    }
}
