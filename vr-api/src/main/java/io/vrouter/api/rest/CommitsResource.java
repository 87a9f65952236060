package io.vrouter.api.rest;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.ArraySchema;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import io.vrouter.core.model.Commit;
import io.vrouter.core.spi.Applied;
import io.vrouter.core.spi.NotFoundException;
import io.vrouter.core.spi.VirtualRouters;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The history of committed change sets and the rollback to one (docs/adr/0021-history-and-rollback.md):
 * the caller's view of the core shows a tenant's users the commits of their VRs only, and lets them
 * roll back only those.
 */
@Path("api/v1/commits")
@Tag(name = "commits")
@Produces(MediaType.APPLICATION_JSON)
public class CommitsResource {
    private static final String NUMBER = "{number: [0-9]{1,18}}";

    @Inject
    private VirtualRouters service;

    /** What a rollback answers: the new commit's number and the one it rolled back to. */
    public record Rollback(long commit, long rollbackTo) {
    }

    @GET
    @Operation(operationId = "listCommits", summary = "The committed change sets the history keeps (history.depth),"
            + " oldest first: number, time, who from which interface, the VRs touched and their leaf changes")
    @ApiResponse(responseCode = "200", description = "the commits",
            content = @Content(array = @ArraySchema(schema = @Schema(implementation = Commit.class))))
    public List<Commit> list() {
        return service.commits();
    }

    @GET
    @Path(NUMBER)
    @Operation(operationId = "getCommit", summary = "One commit of the history")
    public Commit get(@PathParam("number") long number) {
        return service.commits().stream().filter(c -> c.number == number).findFirst()
                .orElseThrow(() -> new NotFoundException("commit " + number + " is not in the history"));
    }

    @POST
    @Path(NUMBER + "/rollback")
    @Operation(operationId = "rollbackToCommit", summary = "Bring the VRs back to what they were after this commit, as"
            + " one new change set: refused whole (changing nothing) when any part of it cannot be done", responses = {
            @ApiResponse(responseCode = "200", description = "done, when asked to wait",
                    content = @Content(schema = @Schema(implementation = Rollback.class))),
            @ApiResponse(responseCode = "202", description = "accepted: the hypervisor work goes on",
                    content = @Content(schema = @Schema(implementation = Rollback.class)))})
    public Response rollback(@PathParam("number") long number,
                             @Parameter(description = "How long to wait for the hypervisor work: 30s, 500ms, 2m")
                             @QueryParam("wait") String wait, @HeaderParam("Prefer") String prefer) {
        Prefer p = Prefer.of(wait, prefer);
        Applied applied = service.rollback(number);
        boolean done = false;
        if (!p.waitFor().isZero()) {
            try {
                applied.completion().get(p.waitFor().toMillis(), TimeUnit.MILLISECONDS);
                done = true;
            } catch (TimeoutException notYet) {
                // answered as accepted
            } catch (ExecutionException e) {
                throw e.getCause() instanceof RuntimeException r ? r : new CompletionException(e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ProblemException(Response.Status.SERVICE_UNAVAILABLE, "the server is stopping", null, null);
            }
        }
        return Response.status(done ? Response.Status.OK : Response.Status.ACCEPTED)
                .location(URI.create("/api/v1/commits/" + applied.commit()))
                .entity(new Rollback(applied.commit(), number)).build();
    }
}
