package io.vrouter.api.rest;

import static io.vrouter.api.rest.CurrentRequest.service;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.parameters.RequestBody;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import io.vrouter.core.migration.Migration;
import io.vrouter.core.migration.Moves;
import io.vrouter.core.migration.PeerClient;
import io.vrouter.core.migration.PeerWatch;
import io.vrouter.core.migration.Peers;
import io.vrouter.core.migration.Restore;
import io.vrouter.core.migration.RouterBackup;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import io.vrouter.core.spi.NotFoundException;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Moving a VR to a peer router ({@link Migration}): the source's {@code POST /routers/{i}/migrate},
 * the destination's {@code POST /migrations} that the source calls, and the peers with their
 * reachability.
 */
@Path("api/v1")
@Tag(name = "migration")
@Produces(MediaType.APPLICATION_JSON)
public class MigrationResource {
    /** A client per peer, by name. */
    private final Map<String, PeerClient> clients;
    /** The moves answered when accepted, readable at /migrations/{id}. */
    private final Moves moves = new Moves();

    MigrationResource(Peers peers) {
        clients = peers.clients();
    }

    /** The clients of the peers, for RESTCONF's migrate. */
    Map<String, PeerClient> clients() {
        return clients;
    }

    /** A watch of the peers' /health, every {@code every}, for this router's /health. */
    PeerWatch watch(java.time.Duration every) {
        return new PeerWatch(clients, every);
    }

    /** The source's side, a resource of its own: its path is longer than the routers' resource's, so it is matched first. */
    MigrateResource source() {
        return new MigrateResource(clients, moves);
    }

    /** A peer as {@code GET /peers} shows it: its address and whether its /health answers UP. */
    public record PeerState(String name, String uri, boolean reachable, String problem) {
    }

    @POST
    @Path("migrations")
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(operationId = "receiveRouter", summary = "A peer's move of one VR to this router (the peer's call, as one"
            + " of this router's provider operators): made here as any creation is admitted, refused when its name is taken",
            requestBody = @RequestBody(content = @Content(schema = @Schema(implementation = RouterBackup.class))),
            responses = {
                    @ApiResponse(responseCode = "201", description = "made, and up when asked to wait",
                            content = @Content(schema = @Schema(implementation = BackupResource.RestoreAnswer.class))),
                    @ApiResponse(responseCode = "202", description = "accepted: the hypervisor work goes on",
                            content = @Content(schema = @Schema(implementation = BackupResource.RestoreAnswer.class)))})
    public Response receive(byte[] body, @Parameter(description = "How long to wait for the VR to be up: 30s, 500ms, 2m")
                            @QueryParam("wait") String wait, @HeaderParam("Prefer") String prefer) throws InterruptedException {
        BackupResource.providerOnly();
        Prefer p = Prefer.of(wait, prefer);
        Restore.Report report = Migration.receive(service(), RouterBackup.read(body == null ? new byte[0] : body));
        boolean done = !p.waitFor().isZero() && report.await(p.waitFor());
        return Response.status(done ? Response.Status.CREATED : Response.Status.ACCEPTED)
                .entity(new BackupResource.RestoreAnswer(report.created(), done, report.routers())).build();
    }

    @GET
    @Path("migrations")
    @Operation(operationId = "listMigrations", summary = "The moves of VRs from this router asked over REST since it"
            + " started (the latest " + Moves.KEPT + "), oldest first: each migrating, moved (its vmIndex on the peer) or refused (why)")
    public List<Moves.State> migrations() {
        DrainResource.providerOnly();
        return moves.all();
    }

    @GET
    @Path("migrations/{id: [0-9]{1,18}}")
    @Operation(operationId = "getMigration", summary = "One move of a VR from this router: migrating, moved (its vmIndex"
            + " on the peer) or refused (why)")
    public Moves.State migration(@PathParam("id") long id) {
        DrainResource.providerOnly();
        return moves.get(id).map(Moves.Move::state)
                .orElseThrow(() -> new NotFoundException("no move " + id + " (moves are kept in memory, the latest "
                        + Moves.KEPT + " since the server started)"));
    }

    @GET
    @Path("peers")
    @Operation(operationId = "listPeers", summary = "The routers this one may move VRs to, each with whether its /health answers")
    public List<PeerState> peers() {
        BackupResource.providerOnly();
        List<PeerState> out = new ArrayList<>();
        for (PeerClient c : clients.values()) {
            PeerWatch.Reach r = PeerWatch.probe(c);
            out.add(new PeerState(r.name(), c.peer().uri().toString(), r.reachable(), r.problem()));
        }
        return out;
    }
}
