package io.vrouter.api.rest;

import static io.vrouter.api.rest.CurrentRequest.service;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import io.vrouter.core.migration.Migration;
import io.vrouter.core.migration.AcceptedMoves;
import io.vrouter.core.migration.PeerClient;
import io.swagger.v3.oas.annotations.Parameter;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Response;
import java.net.URI;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.Map;

/**
 * The source's side of a move ({@link Migration}): {@code POST /routers/{i}/migrate} with the peer's
 * name, answered when accepted (202, Location the move at {@code /migrations/{id}}) as every change,
 * or at its end within {@code ?wait=} / {@code Prefer: wait}.
 */
@Path("api/v1/routers/{vmIndex: [0-9]{1,10}}/migrate")
@Tag(name = "migration")
@Produces(MediaType.APPLICATION_JSON)
public final class MigrateResource {
    private final Map<String, PeerClient> clients;
    private final AcceptedMoves moves;

    MigrateResource(Map<String, PeerClient> clients, AcceptedMoves moves) {
        this.clients = clients;
        this.moves = moves;
    }

    /** A move's request: the peer's name, one of the settings' {@code peer.NAME}. */
    public record MigrateRequest(String peer) {
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(operationId = "migrateRouter", summary = "Move a VR to a peer router with its identity, interfaces, links,"
            + " rates and CPU weight: the peer admits it (its tenants, quotas, capacity and names) and brings it up, then it"
            + " is removed here. Answered when accepted (202: the VR is migrating, the move at Location), or at its end"
            + " within ?wait=; a refusal changes nothing on either router",
            responses = {
                    @ApiResponse(responseCode = "200", description = "moved within the wait: its vmIndex on the peer",
                            content = @Content(schema = @Schema(implementation = Migration.Moved.class))),
                    @ApiResponse(responseCode = "202", description = "accepted: the VR is migrating; the move's end is"
                            + " told by the VR's events and at Location",
                            content = @Content(schema = @Schema(implementation = AcceptedMoves.State.class)))})
    public Response migrate(@PathParam("vmIndex") int vmIndex, MigrateRequest request,
                            @Parameter(description = "How long to wait for the move's end: 30s, 500ms, 2m")
                            @QueryParam("wait") String wait, @HeaderParam("Prefer") String prefer) throws InterruptedException {
        Prefer p = Prefer.of(wait, prefer);
        AcceptedMoves.Move move = moves.start(Migration.begin(service(), vmIndex, clients, request == null ? null : request.peer()));
        URI location = CurrentRequest.get().getBaseUri().resolve("api/v1/migrations/" + move.id());
        if (!p.waitFor().isZero() && move.await(p.waitFor())) {
            // as answered at the end before: where it went, or the refusal in REST's terms
            return Response.ok(move.moved()).location(location).header("Preference-Applied", p.applied()).build();
        }
        return Response.accepted(move.state()).location(location).header("Preference-Applied", p.applied()).build();
    }
}
