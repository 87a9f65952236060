package io.vrouter.api.rest;

import static io.vrouter.api.rest.CurrentRequest.service;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.parameters.RequestBody;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import io.vrouter.core.migration.Restore;
import io.vrouter.core.migration.RouterBackup;
import io.vrouter.core.spi.AccessDeniedException;
import jakarta.inject.Singleton;
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
 * A whole router's configuration saved and restored ({@link RouterBackup}, {@link Restore}): the
 * provider's alone, since it holds every tenant's VRs and the underlays.
 */
@Singleton
@Path("api/v1/backup")
@Tag(name = "backup")
@Produces(MediaType.APPLICATION_JSON)
public class BackupResource {
    /** The answer to a restore: what became of each VR of the backup, and how many were made. */
    public record RestoreAnswer(long created, boolean done, List<Restore.Outcome> routers) {
    }

    @GET
    @Operation(operationId = "getBackup", summary = "Save the router: every VR with its interfaces, links, rates, CPU"
            + " weight and identity, in one versioned document that POST restores (the provider's users only)")
    @ApiResponse(responseCode = "200", description = "the backup",
            content = @Content(schema = @Schema(implementation = RouterBackup.class)))
    public Response get() {
        providerOnly();
        return Response.ok(RouterBackup.of(service()).toJson())
                .header("Content-Disposition", "attachment; filename=\"vrouter-backup.json\"").build();
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(operationId = "restoreBackup", summary = "Restore a backup: make every VR of it that this router lacks"
            + " (matched by name), all in one change set or none; a VR that exists is left as it is. Run again, it makes"
            + " nothing (the provider's users only)",
            requestBody = @RequestBody(content = @Content(schema = @Schema(implementation = RouterBackup.class))),
            responses = {
                    @ApiResponse(responseCode = "200", description = "done: nothing was missing, or the VRs made are up when asked to wait",
                            content = @Content(schema = @Schema(implementation = RestoreAnswer.class))),
                    @ApiResponse(responseCode = "202", description = "accepted: the hypervisor work goes on",
                            content = @Content(schema = @Schema(implementation = RestoreAnswer.class)))})
    public Response restore(byte[] body,
                            @Parameter(description = "How long to wait for the VRs made to be up: 30s, 500ms, 2m")
                            @QueryParam("wait") String wait, @HeaderParam("Prefer") String prefer) throws InterruptedException {
        providerOnly();
        Prefer p = Prefer.of(wait, prefer);
        Restore.Report report = Restore.run(service(), RouterBackup.read(body == null ? new byte[0] : body));
        boolean done = report.applied() == null || (!p.waitFor().isZero() && report.await(p.waitFor()));
        return Response.status(done ? Response.Status.OK : Response.Status.ACCEPTED)
                .entity(new RestoreAnswer(report.created(), done, report.routers())).build();
    }

    static void providerOnly() {
        providerOnly("backup", "a backup holds every tenant's VRs: only the provider's users may save or restore one");
    }

    /** Refuses a tenant's user, saying why only the provider's users may do this. */
    static void providerOnly(String field, String why) {
        if (!CurrentRequest.caller().provider()) throw new AccessDeniedException(field, why, false);
    }
}
