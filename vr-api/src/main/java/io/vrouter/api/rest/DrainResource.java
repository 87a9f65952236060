package io.vrouter.api.rest;

import static io.vrouter.api.rest.CurrentRequest.service;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import io.vrouter.core.migration.Drain;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;

/**
 * Draining the router for maintenance ({@link Drain}, ADR 0023): {@code POST /drain} moves every VR
 * to the peers and keeps new VRs out, {@code POST /open} lets them in again, {@code GET /drain} says
 * which it is and what the last drain did. The provider's operators only.
 */
@Path("api/v1")
@Tag(name = "migration")
@Produces(MediaType.APPLICATION_JSON)
public final class DrainResource {
    private final Drain drain;

    DrainResource(Drain drain) {
        this.drain = drain;
    }

    /** A drain's request: the peers to move to, among this router's; none named, every peer. */
    public record DrainRequest(List<String> peers) {
    }

    @POST
    @Path("drain")
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(operationId = "drainRouter", summary = "Drain the router: from now on it takes no new VR (creations, restores,"
            + " moves from peers are refused) until opened, and every VR it has moves to a peer, one move each, to the peer"
            + " with the most free capacity (or among the peers named). Answered when accepted (202), or with the final report"
            + " within ?wait=; the VRs' events tell the progress",
            responses = {
                    @ApiResponse(responseCode = "200", description = "drained within the wait: the final report",
                            content = @Content(schema = @Schema(implementation = Drain.Report.class))),
                    @ApiResponse(responseCode = "202", description = "accepted: the VRs are moving; GET /drain reports",
                            content = @Content(schema = @Schema(implementation = Drain.Report.class)))})
    public Response drain(DrainRequest request, @Parameter(description = "How long to wait for the drain's end: 30s, 2m")
                          @QueryParam("wait") String wait, @HeaderParam("Prefer") String prefer) throws InterruptedException {
        providerOnly();
        Prefer p = Prefer.of(wait, prefer);
        Drain.Report started = drain.start(service(), request == null ? null : request.peers());
        boolean done = !p.waitFor().isZero() && drain.await(p.waitFor());
        Response.ResponseBuilder r = done ? Response.ok(drain.report(service())) : Response.accepted(started);
        return r.location(CurrentRequest.get().getBaseUri().resolve("api/v1/drain")).header("Preference-Applied", p.applied()).build();
    }

    @POST
    @Path("open")
    @Operation(operationId = "openRouter", summary = "Open a drained router: it takes new VRs again (refused while a drain runs)")
    public Drain.Report open() {
        providerOnly();
        drain.open(service());
        return drain.report(service());
    }

    @GET
    @Path("drain")
    @Operation(operationId = "getDrain", summary = "Whether the router is drained (since when), and what its last drain did:"
            + " each VR moved to which peer and vmIndex, or why not")
    public Drain.Report report() {
        providerOnly();
        return drain.report(service());
    }

    static void providerOnly() {
        BackupResource.providerOnly(null, "only the provider's operators drain, open or move VRs between routers");
    }
}
