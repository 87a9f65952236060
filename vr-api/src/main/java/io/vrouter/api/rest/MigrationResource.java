package io.vrouter.api.rest;

import static io.vrouter.api.rest.CurrentRequest.service;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.parameters.RequestBody;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import io.vrouter.core.migration.FarEnds;
import io.vrouter.core.migration.LiveMove;
import io.vrouter.core.migration.AcceptedMoves;
import io.vrouter.core.migration.Migration;
import io.vrouter.core.migration.Moves;
import io.vrouter.core.migration.PeerClient;
import io.vrouter.core.migration.PeerWatch;
import io.vrouter.core.migration.Peers;
import io.vrouter.core.migration.Restore;
import io.vrouter.core.migration.RouterBackup;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
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
    /** This router's moves under way, to and from its peers. */
    private final Moves moves;
    /** The moves whose machine the source's hypervisor is sending here. */
    private final LiveMove.Arriving arriving = new LiveMove.Arriving();
    /** The moves from here answered when accepted, readable at /migrations/{id}. */
    private final AcceptedMoves accepted = new AcceptedMoves();

    MigrationResource(Peers peers) {
        clients = peers.clients();
        moves = peers.moves();
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
        return new MigrateResource(clients, accepted);
    }

    /** The destination's answer to a move: the restore's, and its underlay address for each VXLAN interface of the VR. */
    public record Received(long created, boolean done, List<Restore.Outcome> routers, List<FarEnds.Underlay> underlays) {
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
                            content = @Content(schema = @Schema(implementation = Received.class))),
                    @ApiResponse(responseCode = "202", description = "accepted: the hypervisor work goes on",
                            content = @Content(schema = @Schema(implementation = Received.class)))})
    public Response receive(byte[] body, @Parameter(description = "How long to wait for the VR to be up: 30s, 500ms, 2m")
                            @QueryParam("wait") String wait, @HeaderParam("Prefer") String prefer,
                            @Parameter(description = "The source's id of the move, which it asks about should it not hear the answer")
                            @QueryParam("move") String move,
                            @Parameter(description = "hypervisor: the VR's machine comes by the hypervisor's live migration"
                                    + " (answered 202 with where to send it; then arrived or cancel)")
                            @QueryParam("arrival") String arrival) throws InterruptedException {
        BackupResource.providerOnly();
        RouterBackup incoming = RouterBackup.read(body == null ? new byte[0] : body);
        if (LiveMove.BY_HYPERVISOR.equals(arrival)) {
            LiveMove.Expected e = arriving.expect(service(), incoming, moves, move);
            return Response.status(Response.Status.ACCEPTED).entity(new LiveAnswer(e.report().created(), false,
                    e.report().routers(), e.hypervisor())).build();
        }
        Prefer p = Prefer.of(wait, prefer);
        List<FarEnds.Underlay> underlays = new ArrayList<>(); // its VXLAN ends joined to a VR here, then the others
        Restore.Report report = Migration.receive(service(), incoming, moves, move, underlays);
        boolean done = !p.waitFor().isZero() && report.await(p.waitFor());
        // Where its VXLAN links now leave from, for the source to tell their far ends (FarEnds).
        service().getConfig(report.routers().get(0).vmIndex()).map(FarEnds::underlays).ifPresent(underlays::addAll);
        return Response.status(done ? Response.Status.CREATED : Response.Status.ACCEPTED)
                .entity(new Received(report.created(), done, report.routers(), underlays)).build();
    }

    @POST
    @Path("migrations/underlay")
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(operationId = "moveUnderlay", summary = "A peer's word that the VRs it moved left with their VXLAN links:"
            + " each of this router's VXLAN interfaces with a change's VNI and remote from gets remote to, all in one change"
            + " set, waited for (the peer's call, as one of this router's provider operators)",
            requestBody = @RequestBody(content = @Content(schema = @Schema(implementation = FarEnds.Changes.class))),
            responses = @ApiResponse(responseCode = "200", description = "the far ends rewritten here (none: this router has none of them)",
                    content = @Content(schema = @Schema(implementation = FarEnds.Answer.class))))
    public FarEnds.Answer moveUnderlay(FarEnds.Changes changes) throws InterruptedException {
        BackupResource.providerOnly("underlays", "underlay addresses are the provider's: only its users (a peer router's"
                + " login among them) may move the far ends of VXLAN links");
        return new FarEnds.Answer(FarEnds.rewrite(service(), changes));
    }

    @GET
    @Path("migrations/arrivals/{move}")
    @Operation(operationId = "migrationState", summary = "A peer's question about its move of a VR here whose answer it did"
            + " not hear: arrived (made here), arriving (being made) or absent (not here, and refused should it come later)")
    public Moves.Where arrival(@PathParam("move") String move) {
        BackupResource.providerOnly();
        return moves.where(service(), move);
    }

    @DELETE
    @Path("migrations/arrivals/{move}")
    @Operation(operationId = "forgetMigration", summary = "A peer has settled its move of a VR here: this router forgets it")
    public Response forget(@PathParam("move") String move) {
        BackupResource.providerOnly();
        moves.forgetArrival(service(), move);
        return Response.noContent().build();
    }

    @POST
    @Path("migrations/arrivals/{move}/cancel")
    @Operation(operationId = "cancelMigration", summary = "A peer restarted in the middle of its move of a VR here by the"
            + " hypervisor, whose machine is still there: its making here fails and is undone, and the move is then absent")
    public Response cancelMove(@PathParam("move") String move) {
        BackupResource.providerOnly();
        moves.cancelArrival(service(), move).ifPresent(i -> arriving.cancel(service(), i));
        return Response.noContent().build();
    }

    /** The answer to a move by the hypervisor: what was admitted, and where the source's hypervisor sends the machine. */
    public record LiveAnswer(long created, boolean done, List<Restore.Outcome> routers, Map<String, String> hypervisor) {
    }

    @POST
    @Path("migrations/{vmIndex}/arrived")
    @Operation(operationId = "arrivedRouter", summary = "The source's hypervisor moved the VR's machine here: waits for the VR up")
    public Response arrived(@PathParam("vmIndex") int vmIndex, @QueryParam("wait") String wait, @HeaderParam("Prefer") String prefer)
            throws InterruptedException {
        BackupResource.providerOnly();
        Restore.Report report = arriving.arrived(vmIndex);
        if (report == null) throw new io.vrouter.core.spi.NotFoundException("no VR " + vmIndex + " is arriving here");
        Prefer p = Prefer.of(wait, prefer);
        boolean done = !p.waitFor().isZero() && report.await(p.waitFor());
        return Response.status(done ? Response.Status.CREATED : Response.Status.ACCEPTED)
                .entity(new BackupResource.RestoreAnswer(report.created(), done, report.routers())).build();
    }

    @POST
    @Path("migrations/{vmIndex}/cancel")
    @Operation(operationId = "cancelArrival", summary = "The source's hypervisor did not move the VR's machine: its making here fails and is undone")
    public Response cancel(@PathParam("vmIndex") int vmIndex) {
        BackupResource.providerOnly();
        arriving.cancel(service(), vmIndex);
        return Response.noContent().build();
    }

    @GET
    @Path("migrations")
    @Operation(operationId = "listMigrations", summary = "The moves of VRs from this router asked over REST since it"
            + " started (the latest " + AcceptedMoves.KEPT + "), oldest first: each migrating, moved (its vmIndex on the peer) or refused (why)")
    public List<AcceptedMoves.State> migrations() {
        DrainResource.providerOnly();
        return accepted.all();
    }

    @GET
    @Path("migrations/{id: [0-9]{1,18}}")
    @Operation(operationId = "getMigration", summary = "One move of a VR from this router: migrating, moved (its vmIndex"
            + " on the peer) or refused (why)")
    public AcceptedMoves.State migration(@PathParam("id") long id) {
        DrainResource.providerOnly();
        return accepted.get(id).map(AcceptedMoves.Move::state)
                .orElseThrow(() -> new NotFoundException("no move " + id + " (moves are kept in memory, the latest "
                        + AcceptedMoves.KEPT + " since the server started)"));
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
