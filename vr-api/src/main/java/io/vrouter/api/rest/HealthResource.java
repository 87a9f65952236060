package io.vrouter.api.rest;

import io.vrouter.core.service.VirtualRouterService;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/** Liveness and readiness, without authentication. The server listens only once it is ready. */
@Path("health")
@Produces({MediaType.APPLICATION_JSON, MediaType.APPLICATION_XML})
public class HealthResource {
    @Inject
    private VirtualRouterService service;

    @GET
    public Health health() {
        Health h = new Health();
        h.status = "UP";
        h.driver = service.driverName();
        h.routers = service.indices().size();
        h.unresolvedVms = service.unresolved().size();
        return h;
    }

    @GET
    @Path("live")
    public Health live() {
        return health();
    }

    @GET
    @Path("ready")
    public Health ready() {
        return health();
    }
}
