package io.vrouter.api.rest;

import io.vrouter.core.config.Build;
import io.vrouter.core.spi.VirtualRouters;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * Liveness and readiness, without authentication. The server listens only once it has reconciled
 * with the hypervisor; afterwards it is not ready (503) while the driver cannot follow the host, or
 * while its data directory refuses writes (so every change would be refused).
 */
@Path("health")
@Produces({MediaType.APPLICATION_JSON, MediaType.APPLICATION_XML})
public class HealthResource {
    /** The whole host's, not a caller's: health asks for no login. */
    private final VirtualRouters service;

    /** The peers as last probed, empty when there are none. */
    private final java.util.function.Supplier<java.util.List<io.vrouter.core.migration.PeerWatch.Reach>> peers;

    HealthResource(VirtualRouters service) {
        this(service, java.util.List::of);
    }

    HealthResource(VirtualRouters service, java.util.function.Supplier<java.util.List<io.vrouter.core.migration.PeerWatch.Reach>> peers) {
        this.service = service;
        this.peers = peers;
    }

    @GET
    public Response health() {
        Health h = health(true);
        return Response.status(h.status.equals("UP") ? Response.Status.OK : Response.Status.SERVICE_UNAVAILABLE)
                .entity(h).build();
    }

    private Health health(boolean ready) {
        Health h = new Health();
        h.version = Build.version();
        h.commit = Build.commit();
        h.driver = service.driverName();
        h.driverProblem = ready ? service.driverProblem().orElse(null) : null;
        h.storageProblem = ready ? service.storageProblem().orElse(null) : null;
        h.status = h.driverProblem == null && h.storageProblem == null ? "UP" : "DOWN";
        h.routers = service.indices().size();
        h.unresolvedVms = service.unresolved().size();
        h.drainedSince = service.drainedSince().map(java.time.Instant::toString).orElse(null);
        h.drained = h.drainedSince != null;
        for (io.vrouter.core.migration.PeerWatch.Reach r : peers.get()) {
            if (h.peers == null) h.peers = new java.util.ArrayList<>();
            Health.Peer p = new Health.Peer();
            p.name = r.name();
            p.reachable = r.reachable();
            h.peers.add(p);
        }
        return h;
    }

    /** The process answers: a lost hypervisor is no reason to restart it. */
    @GET
    @Path("live")
    public Health live() {
        return health(false);
    }

    @GET
    @Path("ready")
    public Response ready() {
        return health();
    }
}
