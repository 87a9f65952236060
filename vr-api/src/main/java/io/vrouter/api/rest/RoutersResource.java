package io.vrouter.api.rest;

import static io.vrouter.api.rest.CurrentRequest.headers;
import static io.vrouter.api.rest.CurrentRequest.service;
import static io.vrouter.api.rest.CurrentRequest.uri;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import io.vrouter.core.config.Caller;
import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.Column;
import io.vrouter.core.model.OperState;
import io.vrouter.core.model.VmEntry;
import io.vrouter.core.model.VirtualRouter;
import io.vrouter.core.model.VirtualRouterList;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import io.vrouter.core.spi.Accepted;
import io.vrouter.core.spi.ChangeSet;
import io.vrouter.core.spi.NotFoundException;
import io.vrouter.core.spi.RouterQuery;
import io.vrouter.core.spi.ValidationException;
import io.vrouter.core.spi.Applied;
import io.vrouter.core.spi.VirtualRouters;
import io.vrouter.core.spi.Version;
import io.vrouter.core.spi.VrException;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Link;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The VRs: the vmConfigTable rows and the state that goes with them. One instance serves every
 * request (its service is Jersey's proxy to the request's caller's view, and it reads the request
 * itself from {@link CurrentRequest}): made per request, its injection cost a fifth of the CPU of a
 * GET of one VR.
 */
@Singleton
@Path("api/v1/routers")
@Tag(name = "routers")
@Produces({MediaType.APPLICATION_JSON, MediaType.APPLICATION_XML})
@Consumes({MediaType.APPLICATION_JSON, MediaType.APPLICATION_XML})
public class RoutersResource {
    private static final String INDEX = "{vmIndex: [0-9]{1,10}}";


    @Inject
    private ListCache lists;

    @Inject
    private IdempotencyKeys idempotency;


    @GET
    @Operation(operationId = "listRouters", summary = "List VRs, filtered by name pattern (* wildcard), oper state and admin state, one page at a time")
    @ApiResponse(responseCode = "200", description = "the page of VRs; a weak ETag and Last-Modified of all VRs, Link"
            + " headers to the first, previous, next and last pages",
            content = @Content(schema = @Schema(implementation = VirtualRouterList.class)))
    public Response list(@QueryParam("name") String name,
                                  @QueryParam("operState") String operState,
                                  @QueryParam("adminState") String adminState,
                                  @QueryParam("offset") @DefaultValue("0") int offset,
                                  @QueryParam("limit") @DefaultValue("1000") int limit) {
        RouterQuery query = new RouterQuery(name, operState == null ? null : operState(operState),
                adminState == null ? null : adminState(adminState), offset, limit);
        Version v = service().version();
        Response notModified = Validators.notModified(headers(), true, v);
        if (notModified != null) return notModified;
        VirtualRouterList page = lists.list(caller().tenant(), query, () -> service().list(query));
        return Validators.validators(Response.ok(page), v, true).links(pageLinks(page)).build();
    }

    /**
     * RFC 8288 links beside the body's totals: the first and last pages of the same query (its
     * filters and limit), the previous one unless this is the first, the next one unless this is the
     * last; none when the limit is 0 (no pages).
     */
    private Link[] pageLinks(VirtualRouterList page) {
        if (page.limit == 0) return new Link[0];
        int last = page.total == 0 ? 0 : (page.total - 1) / page.limit * page.limit;
        List<Link> links = new ArrayList<>(4);
        links.add(pageLink(0, "first"));
        if (page.offset > 0) links.add(pageLink(Math.max(0, Math.min(page.offset - page.limit, last)), "prev"));
        if (page.offset + page.limit < page.total) links.add(pageLink(page.offset + page.limit, "next"));
        links.add(pageLink(last, "last"));
        return links.toArray(new Link[0]);
    }

    private Link pageLink(int offset, String rel) {
        return Link.fromUriBuilder(uri().getRequestUriBuilder().replaceQueryParam("offset", offset)).rel(rel).build();
    }

    @POST
    @Operation(operationId = "createRouter", summary = "Create a VR; answered once accepted, or once the VR is up when asked to wait", responses = {
            @ApiResponse(responseCode = "201", description = "created, and up when asked to wait",
                    content = @Content(schema = @Schema(implementation = VirtualRouter.class))),
            @ApiResponse(responseCode = "202", description = "accepted: the hypervisor work goes on",
                    content = @Content(schema = @Schema(implementation = VirtualRouter.class)))})
    public Response create(VirtualRouter request,
                           @Parameter(description = "How long to wait for the VR to be up: 30s, 500ms, 2m")
                           @QueryParam("wait") String wait,
                           @HeaderParam("Prefer") String prefer,
                           @Parameter(description = "Makes the creation idempotent: sent again with the same key and"
                                   + " body, it answers as the first time") @HeaderParam(IdempotencyKeys.HEADER) String key) {
        Prefer p = Prefer.of(wait, prefer);
        return idempotency.once(key, keyOwner(), "POST", "/api/v1/routers", request, () -> {
            if (request == null) throw new ValidationException("body", "a VR description is required");
            return written(service().apply(ChangeSet.builder().create(request).build()).only(), p, true);
        }, () -> request == null ? Optional.empty() : madeBefore(List.of(request)).map(vrs -> {
            VirtualRouter vr = vrs.get(0);
            return Response.accepted(p.minimal() ? identity(vr) : vr).location(location(vr.vmIndex)).build();
        }));
    }

    @POST
    @Path("batch")
    @Operation(operationId = "createRouters", summary = "Create several VRs in one transaction: all are accepted or none is", responses = {
            @ApiResponse(responseCode = "201", description = "created, and up when asked to wait",
                    content = @Content(schema = @Schema(implementation = VirtualRouterList.class))),
            @ApiResponse(responseCode = "202", description = "accepted: the hypervisor work goes on",
                    content = @Content(schema = @Schema(implementation = VirtualRouterList.class)))})
    public Response createBatch(VirtualRouterList request, @QueryParam("wait") String wait,
                                @HeaderParam("Prefer") String prefer,
                                @Parameter(description = "Makes the creation idempotent: sent again with the same key"
                                        + " and body, it answers as the first time")
                                @HeaderParam(IdempotencyKeys.HEADER) String key) {
        if (request == null || request.virtualRouter == null || request.virtualRouter.isEmpty()) {
            throw new ValidationException("virtualRouter", "at least one VR is required");
        }
        Prefer p = Prefer.of(wait, prefer);
        return idempotency.once(key, keyOwner(), "POST", "/api/v1/routers/batch", request, () -> {
            ChangeSet.Builder set = ChangeSet.builder();
            for (VirtualRouter vr : request.virtualRouter) set.create(vr);
            return writtenAll(service().apply(set.build()), p, Response.Status.CREATED);
        }, () -> madeBefore(request.virtualRouter).map(vrs -> Response.accepted(new VirtualRouterList(vrs.size(), 0,
                vrs.size(), p.minimal() ? vrs.stream().map(RoutersResource::identity).toList() : vrs)).build()));
    }

    /**
     * The VRs a creation asked for, as they are now, when every one of them exists under its name (and
     * its vmIndex, when it asked for one) and the caller sees it; else empty. For a creation sent
     * again under an Idempotency-Key whose first sending was carried out and never answered: the
     * server died in between (IdempotencyKeys).
     */
    private Optional<List<VirtualRouter>> madeBefore(List<VirtualRouter> asked) {
        List<VirtualRouter> made = new ArrayList<>(asked.size());
        for (VirtualRouter a : asked) {
            if (a == null || a.vmName == null) return Optional.empty();
            Optional<VirtualRouter> vr = service().findByName(a.vmName).flatMap(service()::get);
            if (vr.isEmpty() || (a.vmIndex != null && !a.vmIndex.equals(vr.get().vmIndex))) return Optional.empty();
            made.add(vr.get());
        }
        return Optional.of(made);
    }

    @PATCH
    @Operation(operationId = "changeRouters", summary = "Create, change and remove several VRs in one transaction:"
            + " all of it is done or none", responses = {
            @ApiResponse(responseCode = "200", description = "done, when asked to wait: the VRs created and changed",
                    content = @Content(schema = @Schema(implementation = VirtualRouterList.class))),
            @ApiResponse(responseCode = "202", description = "accepted: the hypervisor work goes on",
                    content = @Content(schema = @Schema(implementation = VirtualRouterList.class)))})
    public Response change(RouterChanges request, @QueryParam("wait") String wait, @HeaderParam("Prefer") String prefer)
            throws InterruptedException {
        if (request == null) throw new ValidationException("body", "the changes are required");
        ChangeSet.Builder set = ChangeSet.builder();
        for (VirtualRouter vr : listed("create", request.create)) set.create(vr);
        for (VirtualRouter vr : listed("change", request.change)) {
            if (vr.vmIndex == null) throw new ValidationException("vmIndex", "a change names its VR by vmIndex");
            set.edit(vr.vmIndex, ChangeSet.columns(vr));
        }
        for (Integer i : listed("remove", request.remove)) set.remove(i);
        if (set.isEmpty()) throw new ValidationException("body", "nothing to change");
        return writtenAll(service().apply(set.build()), Prefer.of(wait, prefer), Response.Status.OK);
    }

    private static <T> List<T> listed(String field, List<T> list) {
        if (list == null) return List.of();
        for (T t : list) {
            if (t == null) throw new ValidationException(field, "an entry is empty");
        }
        return list;
    }

    /** The answer to a write of several VRs: the VRs that exist afterwards, in the request's order. */
    private Response writtenAll(Applied applied, Prefer p, Response.Status done) {
        try {
            return writtenAllWaiting(applied, p, done);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProblemException(Response.Status.SERVICE_UNAVAILABLE, "the server is stopping", null, null);
        }
    }

    private Response writtenAllWaiting(Applied applied, Prefer p, Response.Status done)
            throws InterruptedException {
        long deadline = System.nanoTime() + p.waitFor().toNanos();
        List<VirtualRouter> out = new ArrayList<>(applied.routers().size());
        boolean allDone = true;
        for (Accepted a : applied.routers()) {
            Optional<Optional<VirtualRouter>> end = p.waitFor().isZero() ? Optional.empty()
                    : await(a, Duration.ofNanos(Math.max(1_000_000, deadline - System.nanoTime())));
            allDone &= end.isPresent();
            if (end.isPresent() && end.get().isEmpty()) continue;
            VirtualRouter vr = end.flatMap(v -> v).orElse(a.accepted());
            out.add(p.minimal() ? identity(vr) : vr);
        }
        return Response.status(allDone && !p.waitFor().isZero() ? done : Response.Status.ACCEPTED)
                .header("Preference-Applied", p.applied())
                .entity(new VirtualRouterList(out.size(), 0, out.size(), out)).build();
    }

    @GET
    @Path(INDEX)
    @Operation(operationId = "getRouter", summary = "Read one VR")
    @ApiResponse(responseCode = "200", description = "the VR; its strong ETag (the VR's version and a digest of the"
            + " counters read with it) and Last-Modified (when they were read)",
            content = @Content(schema = @Schema(implementation = VirtualRouter.class)))
    public Response get(@PathParam("vmIndex") int vmIndex) {
        Version v = version(vmIndex);
        VirtualRouter vr = service().get(vmIndex).orElseThrow(() -> notFound(vmIndex));
        return validated(Validators.sampled(v, stateDigest(vr)), vr);
    }

    /** A digest of every state column of the VR, the counters the host reports among them. */
    private static long stateDigest(VirtualRouter vr) {
        long h = 17;
        for (io.vrouter.core.model.Schema.Table table : io.vrouter.core.model.Schema.STATE_TABLES) {
            for (Object row : table.rows(vr)) {
                for (Column<?> column : table.columns()) h = h * 1_000_003 + Objects.hashCode(io.vrouter.core.model.Schema.get(column, row));
                h = h * 31 + 1;
            }
            h = h * 31 + 2;
        }
        return h;
    }

    @DELETE
    @Path(INDEX)
    @Operation(operationId = "removeRouter", summary = "Remove a VR: 202 while it shuts down, 204 once gone when asked to wait", responses = {
            @ApiResponse(responseCode = "202", description = "accepted: the VR is shutting down",
                    content = @Content(schema = @Schema(implementation = VirtualRouter.class))),
            @ApiResponse(responseCode = "204", description = "removed")})
    public Response remove(@PathParam("vmIndex") int vmIndex, @QueryParam("wait") String wait,
                           @HeaderParam("Prefer") String prefer) throws InterruptedException {
        Duration d = Prefer.of(wait, prefer).waitFor();
        Accepted accepted = service().apply(on(vmIndex).remove(vmIndex).build()).only();
        Optional<Optional<VirtualRouter>> done = await(accepted, d);
        if (done.isPresent() && done.get().isEmpty()) return Response.noContent().build();
        return Response.accepted(done.flatMap(v -> v).orElse(accepted.accepted())).build();
    }

    @PATCH
    @Path(INDEX)
    @Consumes({"application/merge-patch+json", MediaType.APPLICATION_JSON, MediaType.APPLICATION_XML})
    @Operation(operationId = "reconfigureRouter", summary = "Change columns of a VR, all or none: vmName, vmConfigCpuNumber"
            + " and vmConfigMemory (while shut down, or shut down by the same request), vmConfigAutoStart, vmConfigDescription, vmAdminState,"
            + " vmNetworkConfigTable (the whole list); absent fields stay", responses = {
            @ApiResponse(responseCode = "200", description = "done, when asked to wait",
                    content = @Content(schema = @Schema(implementation = VirtualRouter.class))),
            @ApiResponse(responseCode = "202", description = "accepted: the hypervisor work goes on",
                    content = @Content(schema = @Schema(implementation = VirtualRouter.class)))})
    public Response reconfigure(@PathParam("vmIndex") int vmIndex, VirtualRouter changes, @QueryParam("wait") String wait,
                                @HeaderParam("Prefer") String prefer) {
        if (changes == null) throw new ValidationException("body", "the columns to change are required");
        Prefer p = Prefer.of(wait, prefer);
        ChangeSet set = on(vmIndex).edit(vmIndex, ChangeSet.columns(changes)).build();
        return written(service().apply(set).only(), p, false);
    }

    @POST
    @Path(INDEX + "/start")
    @Operation(operationId = "startRouter", summary = "Set vmAdminState to running (starts, resumes or unpauses)", responses = {
            @ApiResponse(responseCode = "200", description = "done, when asked to wait",
                    content = @Content(schema = @Schema(implementation = VirtualRouter.class))),
            @ApiResponse(responseCode = "202", description = "accepted: the hypervisor work goes on",
                    content = @Content(schema = @Schema(implementation = VirtualRouter.class)))})
    public Response start(@PathParam("vmIndex") int vmIndex, @QueryParam("wait") String wait,
                          @HeaderParam("Prefer") String prefer) {
        return adminState(vmIndex, AdminState.RUNNING, wait, prefer);
    }

    @POST
    @Path(INDEX + "/stop")
    @Operation(operationId = "stopRouter", summary = "Set vmAdminState to shutdown", responses = {
            @ApiResponse(responseCode = "200", description = "done, when asked to wait",
                    content = @Content(schema = @Schema(implementation = VirtualRouter.class))),
            @ApiResponse(responseCode = "202", description = "accepted: the hypervisor work goes on",
                    content = @Content(schema = @Schema(implementation = VirtualRouter.class)))})
    public Response stop(@PathParam("vmIndex") int vmIndex, @QueryParam("wait") String wait,
                         @HeaderParam("Prefer") String prefer) {
        return adminState(vmIndex, AdminState.SHUTDOWN, wait, prefer);
    }

    @POST
    @Path(INDEX + "/suspend")
    @Operation(operationId = "suspendRouter", summary = "Set vmAdminState to suspended", responses = {
            @ApiResponse(responseCode = "200", description = "done, when asked to wait",
                    content = @Content(schema = @Schema(implementation = VirtualRouter.class))),
            @ApiResponse(responseCode = "202", description = "accepted: the hypervisor work goes on",
                    content = @Content(schema = @Schema(implementation = VirtualRouter.class)))})
    public Response suspend(@PathParam("vmIndex") int vmIndex, @QueryParam("wait") String wait,
                            @HeaderParam("Prefer") String prefer) {
        return adminState(vmIndex, AdminState.SUSPENDED, wait, prefer);
    }

    @POST
    @Path(INDEX + "/pause")
    @Operation(operationId = "pauseRouter", summary = "Set vmAdminState to paused", responses = {
            @ApiResponse(responseCode = "200", description = "done, when asked to wait",
                    content = @Content(schema = @Schema(implementation = VirtualRouter.class))),
            @ApiResponse(responseCode = "202", description = "accepted: the hypervisor work goes on",
                    content = @Content(schema = @Schema(implementation = VirtualRouter.class)))})
    public Response pause(@PathParam("vmIndex") int vmIndex, @QueryParam("wait") String wait,
                          @HeaderParam("Prefer") String prefer) {
        return adminState(vmIndex, AdminState.PAUSED, wait, prefer);
    }

    private Response adminState(int vmIndex, AdminState target, String wait, String prefer) {
        Prefer p = Prefer.of(wait, prefer);
        return written(service().apply(on(vmIndex).edit(vmIndex, row -> row.vmAdminState = target).build()).only(), p, false);
    }

    @GET
    @Path(INDEX + "/interfaces")
    @Operation(operationId = "listInterfaces", summary = "List a VR's interfaces (vmNetworkConfigTable rows)")
    @ApiResponse(responseCode = "200", description = "the interfaces; the VR's strong ETag and Last-Modified",
            content = @Content(schema = @Schema(implementation = InterfaceList.class)))
    public Response interfaces(@PathParam("vmIndex") int vmIndex) {
        Version v = version(vmIndex);
        return validated(v, new InterfaceList(config(vmIndex).interfaces()));
    }

    @GET
    @Path(INDEX + "/interfaces/{networkIndex: [0-9]{1,5}}")
    @Operation(operationId = "getInterface", summary = "Read one interface of a VR")
    @ApiResponse(responseCode = "200", description = "the interface; the VR's strong ETag and Last-Modified",
            content = @Content(schema = @Schema(implementation = VmNetworkConfigEntry.class)))
    public Response getInterface(@PathParam("vmIndex") int vmIndex, @PathParam("networkIndex") int networkIndex) {
        Version v = version(vmIndex);
        return validated(v, iface(vmIndex, networkIndex));
    }

    private VmNetworkConfigEntry iface(int vmIndex, int networkIndex) {
        return config(vmIndex).interfaces().stream().filter(n -> n.vmNetworkConfigIndex == networkIndex).findFirst()
                .orElseThrow(() -> new NotFoundException("VR " + vmIndex + " has no interface " + networkIndex));
    }

    @POST
    @Path(INDEX + "/interfaces")
    @Operation(operationId = "addInterface", summary = "Add an interface to a VR", responses = {
            @ApiResponse(responseCode = "201", description = "added",
                    content = @Content(schema = @Schema(implementation = VmNetworkConfigEntry.class)))})
    public Response addInterface(@PathParam("vmIndex") int vmIndex, VmNetworkConfigEntry request,
                                 @QueryParam("wait") String wait, @HeaderParam("Prefer") String prefer)
            throws InterruptedException {
        if (request == null) throw new ValidationException("body", "an interface description is required");
        Duration d = Prefer.of(wait, prefer).waitFor();
        await(service().apply(on(vmIndex).edit(vmIndex, ChangeSet.addInterface(request)).build()).only(), d);
        int index = request.vmNetworkConfigIndex;
        return Response.created(uri().getAbsolutePathBuilder().path(Integer.toString(index)).build())
                .entity(iface(vmIndex, index)).build();
    }

    @PATCH
    @Path(INDEX + "/interfaces/{networkIndex: [0-9]{1,5}}")
    @Consumes({"application/merge-patch+json", MediaType.APPLICATION_JSON, MediaType.APPLICATION_XML})
    @Operation(operationId = "changeInterface", summary = "Change columns of an interface, all or none (merge patch):"
            + " vmNetworkConfigParent, vmNetworkConfigPhysAddress, vmNetworkConfigAddressType, vmNetworkConfigAddress,"
            + " vmNetworkConfigPrefixLength; absent fields stay (a new address of the other family brings its type and"
            + " default prefix length)", responses = {
            @ApiResponse(responseCode = "200", description = "the interface as changed",
                    content = @Content(schema = @Schema(implementation = VmNetworkConfigEntry.class)))})
    public Response changeInterface(@PathParam("vmIndex") int vmIndex, @PathParam("networkIndex") int networkIndex,
                                    VmNetworkConfigEntry changes, @QueryParam("wait") String wait,
                                    @HeaderParam("Prefer") String prefer) throws InterruptedException {
        if (changes == null) throw new ValidationException("body", "the columns to change are required");
        if (changes.vmNetworkConfigIndex != null && changes.vmNetworkConfigIndex != networkIndex) {
            throw new ValidationException("vmNetworkConfigIndex", "names another interface than the path");
        }
        Duration d = Prefer.of(wait, prefer).waitFor();
        await(service().apply(on(vmIndex).edit(vmIndex, ChangeSet.changeInterface(networkIndex, changes)).build()).only(), d);
        Version v = version(vmIndex);
        return validated(v, iface(vmIndex, networkIndex));
    }

    @DELETE
    @Path(INDEX + "/interfaces/{networkIndex: [0-9]{1,5}}")
    @Operation(operationId = "removeInterface", summary = "Remove an interface from a VR", responses = {
            @ApiResponse(responseCode = "204", description = "removed")})
    public Response removeInterface(@PathParam("vmIndex") int vmIndex, @PathParam("networkIndex") int networkIndex,
                                    @QueryParam("wait") String wait, @HeaderParam("Prefer") String prefer)
            throws InterruptedException {
        Duration d = Prefer.of(wait, prefer).waitFor();
        await(service().apply(on(vmIndex).edit(vmIndex, ChangeSet.removeInterface(networkIndex)).build()).only(), d);
        return Response.noContent().build();
    }


    /** Who asks (BasicAuthFilter); {@link #service()} is the core as this caller sees it. */
    private Caller caller() {
        return ((CallerPrincipal) CurrentRequest.get().getSecurityContext().getUserPrincipal()).caller();
    }

    /**
     * Whose Idempotency-Keys these are: the user's, within its tenant (a user a reload moved to
     * another tenant is not answered with what it created for the first; no user name or tenant holds
     * a line break). The provider's users are named as before tenants, so that their kept keys match.
     */
    private String keyOwner() {
        Caller c = caller();
        return c.tenant() == null ? c.user() : c.user() + "\n" + c.tenant();
    }

    private VmConfigEntry config(int vmIndex) {
        return service().getConfig(vmIndex).orElseThrow(() -> notFound(vmIndex));
    }

    private static NotFoundException notFound(int vmIndex) {
        return new NotFoundException("no VR with vmIndex " + vmIndex);
    }

    /** The VR's version, read before the representation it validates. */
    private Version version(int vmIndex) {
        return service().version(vmIndex).orElseThrow(() -> notFound(vmIndex));
    }

    /** A representation of (part of) a VR with its validators, or 304 when the client has it already. */
    private Response validated(Version v, Object entity) {
        Response notModified = Validators.notModified(headers(), false, v);
        if (notModified != null) return notModified;
        return Validators.validators(Response.ok(entity), v, false).build();
    }

    /** A set on one VR, under the request's If-Match (and If-None-Match) as a condition on the VR's version. */
    private ChangeSet.Builder on(int vmIndex) {
        Predicate<Version> holds = Validators.condition(headers(), false);
        return holds == null ? ChangeSet.builder() : ChangeSet.builder().provided(vmIndex, holds);
    }

    /**
     * Waits up to {@code d} for a write's hypervisor work (not at all for zero). A write the client
     * waited for and whose VR ends crashed failed, whatever the work said: the answer is the driver's
     * reason as problem details, 409 when the VR's VM is gone from the host (nothing there to act on),
     * else 502 (the hypervisor failed). A failed change (undone) is already its 502, or that 409.
     */
    private Optional<Optional<VirtualRouter>> await(Accepted accepted, Duration d) throws InterruptedException {
        if (d.isZero()) return Optional.empty();
        Optional<Optional<VirtualRouter>> end;
        try {
            end = accepted.await(d);
        } catch (VrException e) {
            if (e.reason() == VrException.Reason.FAILED && e.vmIndex() != null) {
                Optional<VirtualRouter> now = service().get(e.vmIndex());
                if (now.isPresent() && vmGone(now.get())) throw new ProblemException(Response.Status.CONFLICT,
                        e.getMessage(), e.field(), null);
            }
            throw e;
        }
        Optional<VirtualRouter> vr = end.flatMap(v -> v);
        if (vr.isPresent() && vr.get().operState() == OperState.CRASHED) {
            VirtualRouter crashed = vr.get();
            throw new ProblemException(vmGone(crashed) ? Response.Status.CONFLICT : Response.Status.BAD_GATEWAY,
                    "VR " + crashed.vmIndex + " ended crashed: " + crashed.vmEntry.vmOperStateReason, null, null);
        }
        return end;
    }

    /** Whether the host has no VM for the VR: the host reports no UUID then. */
    private static boolean vmGone(VirtualRouter vr) {
        VmEntry e = vr.vmEntry;
        return e == null || e.vmUUID == null;
    }

    /**
     * The answer to a write: 201 (creation) or 200 with the final VR when the work finished within
     * the wait, else 202 with the VR as accepted. Location names the VR.
     */
    private Response written(Accepted accepted, Prefer prefer, boolean creation) {
        Optional<VirtualRouter> done;
        try {
            done = await(accepted, prefer.waitFor()).flatMap(v -> v);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            done = Optional.empty();
        }
        // The validators of the body: as accepted, or read anew (version first) once done.
        Version version = accepted.version();
        if (done.isPresent()) {
            int vmIndex = done.get().vmIndex;
            Optional<Version> now = service().version(vmIndex);
            Optional<VirtualRouter> read = now.flatMap(v -> service().get(vmIndex));
            if (read.isPresent()) {
                version = now.get();
                done = read;
            } else {
                version = null;
            }
        }
        VirtualRouter body = done.orElse(accepted.accepted());
        URI location = location(body.vmIndex);
        Response.ResponseBuilder r = done.isPresent()
                ? (creation ? Response.created(location) : Response.ok())
                : Response.accepted().location(location);
        if (creation) r.location(location);
        r.header("Preference-Applied", prefer.applied());
        if (version != null) Validators.validators(r, version, false);
        return r.entity(prefer.minimal() ? identity(body) : body).build();
    }

    private URI location(int vmIndex) {
        return uri().getBaseUriBuilder().path("api/v1/routers").path(Integer.toString(vmIndex)).build();
    }

    /** The VR named, not represented: what {@code Prefer: return=minimal} answers. */
    private static VirtualRouter identity(VirtualRouter vr) {
        VirtualRouter id = new VirtualRouter();
        id.vmIndex = vr.vmIndex;
        id.vmName = vr.vmName;
        return id;
    }

    static OperState operState(String label) {
        try {
            return OperState.ofLabel(label);
        } catch (IllegalArgumentException e) {
            throw new ValidationException("operState", e.getMessage());
        }
    }

    static AdminState adminState(String label) {
        try {
            return AdminState.ofLabel(label);
        } catch (IllegalArgumentException e) {
            throw new ValidationException("adminState", e.getMessage());
        }
    }
}
