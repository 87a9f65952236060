package io.vrouter.api.restconf;

import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import io.vrouter.core.migration.PeerClient;
import java.util.List;
import java.util.Map;
import org.glassfish.jersey.server.ResourceConfig;

/** What the REST application takes from RESTCONF: its resources, and its errors for refusals made before them. */
public final class Restconf {
    private Restconf() {
    }

    /**
     * Registers RESTCONF's resources in the REST application, beside REST's (the same port, users and
     * limits), with the peers vrouter-migration's migrate moves VRs to and the router's drain.
     */
    public static void register(ResourceConfig rc, Map<String, PeerClient> peers, io.vrouter.core.migration.Drain drain) {
        rc.register(new RestconfResource(peers, drain));
        rc.register(StreamsResource.class);
        rc.register(HostMeta.class);
        rc.register(new ErrorMapper());
    }

    /** Whether a request path (relative to the application) is RESTCONF's. */
    public static boolean owns(String path) {
        return path.equals("restconf") || path.startsWith("restconf/");
    }

    /**
     * A refusal made before RESTCONF's code runs (authentication, limits, an unknown resource, a
     * method not allowed) as {@code ietf-restconf:errors} with the error-tag of its status.
     */
    public static Response error(int status, String message, HttpHeaders headers) {
        return Errors.response(List.of(RestconfError.ofStatus(status, message)), headers);
    }
}
