package io.vrouter.api.restconf;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;

/**
 * {@code /.well-known/host-meta} (RFC 6415), where a RESTCONF client finds the API root (RFC 8040
 * section 3.1): XRD, or JSON when the client asks for it or reads {@code host-meta.json}. Public,
 * as the discovery document of a server is.
 */
@Path(".well-known")
public class HostMeta {
    static final String XRD = "application/xrd+xml";

    @Context
    private UriInfo uri;

    @Context
    private HttpHeaders headers;

    @GET
    @Path("host-meta")
    public Response hostMeta() {
        for (MediaType m : headers.getAcceptableMediaTypes()) {
            if (m.getSubtype().endsWith("json")) return json();
            if (m.getSubtype().endsWith("xml")) break;
        }
        return Response.ok("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                + "<XRD xmlns=\"http://docs.oasis-open.org/ns/xri/xrd-1.0\">\n"
                + "  <Link rel=\"restconf\" href=\"" + root() + "\"/>\n</XRD>\n", XRD).build();
    }

    @GET
    @Path("host-meta.json")
    public Response json() {
        return Response.ok("{\"links\":[{\"rel\":\"restconf\",\"href\":\"" + root() + "\"}]}", MediaType.APPLICATION_JSON)
                .build();
    }

    /** The API root's path: {@code /restconf}, below the WAR's context path where there is one. */
    private String root() {
        return uri.getBaseUri().getPath().replaceAll("/$", "") + "/restconf";
    }
}
