package io.vrouter.api.rest;

import static io.vrouter.api.rest.CurrentRequest.service;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import io.vrouter.core.migration.Migration;
import io.vrouter.core.migration.PeerClient;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.Map;

/** The source's side of a move ({@link Migration#move}): {@code POST /routers/{i}/migrate} with the peer's name. */
@Path("api/v1/routers/{vmIndex: [0-9]{1,10}}/migrate")
@Tag(name = "migration")
@Produces(MediaType.APPLICATION_JSON)
public final class MigrateResource {
    private final Map<String, PeerClient> clients;

    MigrateResource(Map<String, PeerClient> clients) {
        this.clients = clients;
    }

    /** A move's request: the peer's name, one of the settings' {@code peer.NAME}. */
    public record MigrateRequest(String peer) {
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(operationId = "migrateRouter", summary = "Move a VR to a peer router with its identity, interfaces, links,"
            + " rates and CPU weight: the peer admits it (its tenants, quotas, capacity and names) and brings it up, then it"
            + " is removed here. Answered at the end; a refusal changes nothing on either router",
            responses = @ApiResponse(responseCode = "200", description = "moved: its vmIndex on the peer",
                    content = @Content(schema = @Schema(implementation = Migration.Moved.class))))
    public Migration.Moved migrate(@PathParam("vmIndex") int vmIndex, MigrateRequest request) {
        return Migration.move(service(), vmIndex, clients, request == null ? null : request.peer());
    }
}
