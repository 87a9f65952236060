package io.vrouter.api.restconf;

import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import java.util.List;

/**
 * RESTCONF's two encodings (RFC 8040 section 5.2): application/yang-data+json (RFC 7951) and
 * application/yang-data+xml, chosen by Accept for what the server sends and by Content-Type for
 * what it reads. Plain application/json and application/xml are taken as the same.
 */
enum Encoding {
    JSON("application/yang-data+json"), XML("application/yang-data+xml");

    static final String YANG_PATCH_JSON = "application/yang-patch+json";
    static final String YANG_PATCH_XML = "application/yang-patch+xml";

    final String mediaType;

    Encoding(String mediaType) {
        this.mediaType = mediaType;
    }

    /**
     * What the client accepts, JSON when it accepts anything or sends no Accept; 406 when it accepts
     * neither (errors are then written as JSON).
     */
    static Encoding accepted(HttpHeaders headers) {
        List<MediaType> accept = headers.getAcceptableMediaTypes();
        for (MediaType m : accept) {
            Encoding e = of(m);
            if (e != null) return e;
            if (m.isWildcardType() || (m.getType().equals("application") && m.isWildcardSubtype())) return JSON;
        }
        throw new RestconfError(406, "protocol", "invalid-value", null, null, "cannot answer in any type that Accept"
                + " names: this server sends " + JSON.mediaType + " and " + XML.mediaType);
    }

    /** The encoding of a media type, or null. */
    static Encoding of(MediaType m) {
        if (m == null || !m.getType().equals("application")) return null;
        String sub = m.getSubtype();
        if (sub.equals("yang-data+json") || sub.equals("json") || sub.equals("yang-patch+json")) return JSON;
        if (sub.equals("yang-data+xml") || sub.equals("xml") || sub.equals("yang-patch+xml")) return XML;
        return null;
    }

    /** The encoding of a request body; 415 for a type that is neither. */
    static Encoding sent(HttpHeaders headers) {
        Encoding e = of(headers.getMediaType());
        if (e == null) {
            throw new RestconfError(415, "protocol", "invalid-value", null, null, "send " + JSON.mediaType + " or "
                    + XML.mediaType + " (" + YANG_PATCH_JSON + " or " + YANG_PATCH_XML + " for a YANG Patch)");
        }
        return e;
    }

    /** Whether the body is a YANG Patch (RFC 8072). */
    static boolean isYangPatch(HttpHeaders headers) {
        MediaType m = headers.getMediaType();
        return m != null && m.getSubtype().startsWith("yang-patch+");
    }
}
