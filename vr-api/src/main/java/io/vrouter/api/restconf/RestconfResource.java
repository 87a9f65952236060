package io.vrouter.api.restconf;

import io.vrouter.core.migration.PeerClient;

import static io.vrouter.api.rest.CurrentRequest.headers;
import static io.vrouter.api.rest.CurrentRequest.service;
import static io.vrouter.api.rest.CurrentRequest.uri;

import io.vrouter.api.rest.CurrentRequest;
import io.vrouter.api.rest.Validators;
import io.vrouter.yang.DataGuard;
import io.vrouter.yang.datastore.Datastores;
import io.vrouter.yang.datastore.Transaction;
import io.vrouter.yang.edit.Operation;
import jakarta.inject.Inject;
import io.vrouter.yang.edit.Target;
import io.vrouter.core.spi.Version;
import io.vrouter.core.spi.Applied;
import io.vrouter.core.spi.VirtualRouters;
import io.vrouter.yang.DataNode;
import io.vrouter.yang.JsonOut;
import io.vrouter.yang.Ns;
import io.vrouter.yang.Schemas;
import io.vrouter.yang.WithDefaults;
import io.vrouter.yang.XmlOut;
import jakarta.inject.Singleton;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.Encoded;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.StreamingOutput;
import jakarta.ws.rs.core.UriInfo;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.glassfish.jersey.server.ContainerRequest;

/**
 * RESTCONF (RFC 8040) over NEW-VMM-MIB: the API root, the datastore resource {@code /restconf/data}
 * (GET, POST, PUT, PATCH, YANG Patch, DELETE), the operations resource, the YANG library version and
 * the module texts the library points at. Every write is one change set of the service
 * (a datastore's {@link Transaction}, through {@link ConfigEdit}): all of it or nothing, checked by the
 * service's rules, access control and the locks, none of RESTCONF's own.
 * ETag and Last-Modified come from the service's versions: the VR's for a resource within one VR,
 * the datastore's otherwise; the request's preconditions are evaluated as REST's are ({@link Validators}).
 */
@Singleton // as RoutersResource, for the same reason; the request from CurrentRequest, as there
@Path("restconf")
public class RestconfResource {
    /** The revision of ietf-yang-library this server implements (RFC 8040 section 3.3.3). */
    static final String YANG_LIBRARY_REVISION = "2019-01-04";
    /** The peer routers vrouter-migration's migrate moves VRs to (settings peer.NAME). */
    private final Map<String, PeerClient> peers;
    /** The router's drain, vrouter-migration's drain and open. */
    private final io.vrouter.core.migration.Drain drain;

    RestconfResource(Map<String, PeerClient> peers, io.vrouter.core.migration.Drain drain) {
        this.peers = peers;
        this.drain = drain;
    }

    /** The configuration datastores and their access control (NACM), the application's: those of NETCONF and gNMI. */
    @Inject
    private Datastores datastores;


    /** The RESTCONF root URL, as the client reached it (in the WAR, with its context path). */
    private static String base(UriInfo uri) {
        String b = uri.getBaseUri().toString();
        return (b.endsWith("/") ? b : b + "/") + "restconf";
    }

    // ------------------------------------------------------------------ the API resource

    /** {@code /restconf}: the API resource (RFC 8040 section 3.3). */
    @GET
    public Response root() {
        String r = Ns.RESTCONF;
        DataNode api = DataNode.inner(r, "restconf").add(DataNode.inner(r, "data")).add(DataNode.inner(r, "operations"))
                .add("yang-library-version", YANG_LIBRARY_REVISION);
        return document(api, DataNode.UNBOUNDED, null, headers()).build();
    }

    /** {@code /restconf/yang-library-version} (RFC 8040 section 3.3.3). */
    @GET
    @Path("yang-library-version")
    public Response yangLibraryVersion() {
        return document(DataNode.leaf(Ns.RESTCONF, "yang-library-version", YANG_LIBRARY_REVISION), DataNode.UNBOUNDED, null, headers())
                .build();
    }

    /**
     * {@code /restconf/operations} (RFC 8040 section 3.3.2): vrouter-history's and vrouter-migration's. NEW-VMM-MIB has no RPC
     * or action; starting, stopping, suspending a VR are writes of vmAdminState, as over SNMP and NETCONF.
     */
    @GET
    @Path("operations")
    public Response operations() {
        DataNode.Inner ops = DataNode.inner(Ns.RESTCONF, "operations");
        for (String name : HistoryOperations.NAMES) ops.add(DataNode.empty(Ns.HISTORY, name));
        for (String name : MigrationOperations.NAMES) ops.add(DataNode.empty(Ns.MIGRATION, name));
        for (String name : BackupOperations.NAMES) ops.add(DataNode.empty(Ns.MIGRATION, name));
        return document(ops, DataNode.UNBOUNDED, null, headers()).build();
    }

    /** An operation (RFC 8040 section 4.4.2): its output, or 204 when it has none. */
    @POST
    @Path("operations/{operation}")
    public Response operation(@PathParam("operation") String operation, byte[] body) {
        InNode input = body == null || body.length == 0 ? null : InNode.read(body, Encoding.sent(headers())).get(0);
        DataNode output = BackupOperations.owns(operation)
                ? BackupOperations.invoke(service(), CurrentRequest.caller(), operation, input)
                : MigrationOperations.owns(operation) ? MigrationOperations.invoke(service(), peers, drain, operation, input)
                : HistoryOperations.invoke(service(), operation, input);
        return document(output, DataNode.UNBOUNDED, null, headers()).build();
    }

    /** A module's text, where the YANG library's {@code location} points (RFC 8040 section 3.7). */
    @GET
    @Path("modules/{name}/{revision}")
    public Response module(@PathParam("name") String name, @PathParam("revision") String revision) {
        for (Schemas.Module m : Schemas.RESTCONF_MODULES) {
            if (m.name().equals(name) && m.revision().equals(revision)) return Response.ok(Schemas.text(m), "application/yang").build();
        }
        throw RestconfError.notFound("no module " + name + "@" + revision + " here: see ietf-yang-library:yang-library");
    }

    // ------------------------------------------------------------------ reads

    @GET
    @Path("data")
    public Response getData(@QueryParam("depth") String depth, @QueryParam("fields") String fields,
                            @QueryParam("content") String content, @QueryParam("with-defaults") String withDefaults) {
        return get("", depth, fields, content, withDefaults);
    }

    /**
     * GET (and HEAD) of a data resource with depth, fields, content and with-defaults (RFC 8040
     * sections 4.3, 4.8); REST's request checks refuse any other query parameter.
     */
    @GET
    @Path("data/{path: .+}")
    public Response get(@PathParam("path") @Encoded String path, @QueryParam("depth") String depthText,
                        @QueryParam("fields") String fieldsText, @QueryParam("content") String contentText,
                        @QueryParam("with-defaults") String withDefaultsText) {
        ContainerRequest request = CurrentRequest.get();
        UriInfo uri = request.getUriInfo();
        once(uri);
        ApiPath target = ApiPath.parse(path);
        int depth = depth(depthText);
        Fields fields = uri.getQueryParameters().containsKey("fields") ? Fields.parse(fieldsText) : null;
        Datastore.Content content = content(contentText);
        WithDefaults wd = withDefaults(withDefaultsText);
        Version version = version(target); // before the representation (Version's contract)
        Response unchanged = Validators.notModified(request, false, version, true);
        if (unchanged != null) return unchanged;
        // what the caller may not read is left out, as from NETCONF's get (RFC 8341 3.4.5)
        DataGuard guard = datastores.guard();
        DataNode root = guard.access(CurrentRequest.caller()).readable(Datastore.root(service(), guard, content, wd, base(uri)));
        DataNode node = Datastore.find(root, target).node();
        if (fields != null) node = fields.select(node);
        return document(node, depth, version, request).build();
    }

    /** The document of one node in the client's encoding, streamed, with the validators of {@code version}. */
    private static Response.ResponseBuilder document(DataNode node, int depth, Version version, HttpHeaders headers) {
        Encoding enc = Encoding.accepted(headers);
        StreamingOutput body = out -> {
            if (enc == Encoding.JSON) {
                try (JsonOut json = new JsonOut(out)) {
                    json.document(List.of(node), depth);
                }
            } else {
                try (XmlOut xml = new XmlOut(out)) {
                    xml.declaration();
                    node.write(xml, depth == DataNode.UNBOUNDED ? 65_535 : depth);
                }
            }
        };
        Response.ResponseBuilder r = Response.ok(body, enc.mediaType);
        if (version != null) Validators.validators(r, version, false);
        return r;
    }

    // ------------------------------------------------------------------ writes

    @POST
    @Path("data")
    public Response postData(@QueryParam("insert") String insert, @QueryParam("point") String point, byte[] body) {
        return post("", insert, point, body);
    }

    /** POST: creates the one child the body is, below the target (RFC 8040 section 4.4.1); 201 with its Location. */
    @POST
    @Path("data/{path: .+}")
    public Response post(@PathParam("path") @Encoded String path, @QueryParam("insert") String insert,
                         @QueryParam("point") String point, byte[] body) {
        noInsert(insert, point);
        ApiPath target = ApiPath.parse(path);
        Target child;
        Applied applied;
        try (Write w = write(target, body)) {
            if (!w.edit.exists(w.target)) throw RestconfError.notFound(ConfigEdit.path(w.target).json() + " does not exist");
            child = ConfigEdit.child(w.target, w.data);
            w.edit.create(child, w.data);
            applied = apply(w.edit, target);
        }
        String location;
        if (child == null) {
            location = base(uri()) + "/data/" + Ns.VMM_MODULE + ":NEW-VMM-MIB/vmConfigTable/vmConfigEntry="
                    + applied.only().accepted().vmIndex;
        } else {
            location = base(uri()) + "/data/" + relative(ConfigEdit.path(child));
        }
        return written(Response.created(URI.create(location)), target).build();
    }

    @PUT
    @Path("data")
    public Response putData(@QueryParam("insert") String insert, @QueryParam("point") String point, byte[] body) {
        return put("", insert, point, body);
    }

    /** PUT: creates or replaces the target (RFC 8040 section 4.5); 201 when it was created, else 204. */
    @PUT
    @Path("data/{path: .+}")
    public Response put(@PathParam("path") @Encoded String path, @QueryParam("insert") String insert,
                        @QueryParam("point") String point, byte[] body) {
        noInsert(insert, point);
        ApiPath target = ApiPath.parse(path);
        if (NacmData.targets(target)) return nacm(target, body, Operation.REPLACE);
        boolean existed;
        try (Write w = write(target, body)) {
            existed = w.edit.exists(w.target);
            w.edit.replace(w.target, w.data);
            apply(w.edit, target);
        }
        return written(existed ? Response.noContent() : Response.created(uri().getRequestUri()), target).build();
    }

    @PATCH
    @Path("data")
    public Response patchData(byte[] body) {
        return patch("", body);
    }

    /**
     * PATCH: a plain merge into the target, which must exist (RFC 8040 section 4.6.1), or a YANG
     * Patch (RFC 8072) when the body is {@code application/yang-patch+json|xml}.
     */
    @PATCH
    @Path("data/{path: .+}")
    public Response patch(@PathParam("path") @Encoded String path, byte[] body) {
        ApiPath target = ApiPath.parse(path);
        if (Encoding.isYangPatch(headers())) return yangPatch(target, body);
        if (NacmData.targets(target)) return nacm(target, body, Operation.MERGE);
        try (Write w = write(target, body)) {
            if (!w.edit.exists(w.target)) {
                throw RestconfError.notFound(ConfigEdit.path(w.target).json() + " does not exist: PUT or POST creates it");
            }
            w.edit.merge(w.target, w.data);
            apply(w.edit, target);
        }
        return written(Response.noContent(), target).build();
    }

    private Response yangPatch(ApiPath target, byte[] body) {
        YangPatch patch = YangPatch.read(body, Encoding.sent(headers()));
        Encoding enc = Encoding.accepted(headers());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ConfigEdit edit = begin()) {
            patch.applyTo(edit, target);
            apply(edit, target);
        } catch (YangPatch.Refused r) {
            patch.status(out, enc, r.editId, List.of(r.error));
            return Response.status(r.error.status).type(enc.mediaType).entity(out.toByteArray()).build();
        } catch (RestconfError e) {
            patch.status(out, enc, null, List.of(e));
            return Response.status(e.status).type(enc.mediaType).entity(out.toByteArray()).build();
        }
        patch.status(out, enc, null, List.of());
        return written(Response.ok(out.toByteArray(), enc.mediaType), target).build();
    }

    @DELETE
    @Path("data")
    public Response deleteData() {
        return delete("");
    }

    /** DELETE: the target goes; 409 data-missing when it is not there (RFC 8040 section 4.7). */
    @DELETE
    @Path("data/{path: .+}")
    public Response delete(@PathParam("path") @Encoded String path) {
        ApiPath target = ApiPath.parse(path);
        if (NacmData.targets(target)) return nacm(target, null, Operation.DELETE);
        Target t = ConfigEdit.target(target);
        try (ConfigEdit edit = begin()) {
            edit.delete(t);
            apply(edit, target);
        }
        return Response.noContent().build();
    }

    /** A transaction of running for the request's caller. */
    private ConfigEdit begin() {
        return new ConfigEdit(datastores.begin(CurrentRequest.caller(), io.vrouter.yang.datastore.Datastore.Name.RUNNING));
    }

    /**
     * Commits the edit's transaction, as one change set, with the request's preconditions (If-Match,
     * If-Unmodified-Since, RFC 8040 section 3.4.1.1) as the set's condition on the version of the
     * target's VR or of the datastore, checked under the service's write lock; durable once the
     * transaction is closed. A set that changes nothing is accepted as it is, once its preconditions hold.
     */
    private Applied apply(ConfigEdit edit, ApiPath target) {
        Integer vmIndex = vmIndex(target);
        Version now = version(target);
        Predicate<Version> holds = Validators.condition(headers(), true);
        if (holds != null && !holds.test(now)) throw RestconfError.of(Validators.changed());
        Transaction tx = edit.transaction();
        if (!tx.changes()) return null;
        if (holds != null) tx.require(vmIndex != null && service().version(vmIndex).isPresent() ? vmIndex : null, holds);
        Transaction.Result r;
        try (tx) {
            r = tx.commit(false);
        }
        if (r.denied() != null) {
            throw new RestconfError(403, "application", "access-denied", null, null, "access control (NACM) denies user '"
                    + tx.caller().user() + "' this change of " + r.denied());
        }
        if (!r.refused().isEmpty()) throw RestconfError.of(r.refused().get(0));
        r.awaitDurable();
        return r.applied();
    }

    /** A write of /nacm (PUT, PATCH, DELETE; the body null for DELETE). */
    private Response nacm(ApiPath target, byte[] body, Operation op) {
        InNode node = body == null ? null : one(InNode.read(body, Encoding.sent(headers())));
        NacmData.write(datastores, CurrentRequest.caller(), target, node, op);
        return Response.noContent().build();
    }

    /** A successful write's answer, with the validators of the target as it is now. */
    private Response.ResponseBuilder written(Response.ResponseBuilder r, ApiPath target) {
        Version v = version(target);
        return Validators.validators(r, v, false);
    }

    // ------------------------------------------------------------------ helpers

    /** The VR a path is within (the key of vmConfigEntry, vmEntry, or any table keyed by vmIndex), or null. */
    private static Integer vmIndex(ApiPath path) {
        if (path.steps().size() < 3 || !path.steps().get(0).ns().equals(Ns.VMM)) return null;
        List<String> keys = path.steps().get(2).keys();
        if (keys == null || keys.isEmpty()) return null;
        try {
            return Integer.valueOf(keys.get(0));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** The version of what a path names: its VR's, or the datastore's. */
    private Version version(ApiPath path) {
        Integer vmIndex = vmIndex(path);
        return vmIndex == null ? service().version() : service().version(vmIndex).orElse(service().version());
    }

    /** The path below {@code /restconf/data} of an instance, for Location. */
    private static String relative(DataPath path) {
        StringBuilder sb = new StringBuilder();
        String ns = null;
        for (DataPath.Seg s : path.segs) {
            if (sb.length() > 0) sb.append('/');
            if (!s.ns().equals(ns)) sb.append(JsonOut.module(s.ns())).append(':');
            sb.append(s.name());
            if (!s.keys().isEmpty()) {
                sb.append('=');
                sb.append(String.join(",", s.keys().values().stream().map(ApiPath::encode).toList()));
            }
            ns = s.ns();
        }
        return sb.toString();
    }

    /** The one node of a body (JSON may give an array of entries: one is allowed). */
    /** What a POST, PUT or plain PATCH works with: the node its path names, the one node its body is, an edit to fill. */
    private record Write(Target target, InNode data, ConfigEdit edit) implements AutoCloseable {
        @Override
        public void close() {
            edit.close();
        }
    }

    /** The path and body read first, then the transaction begun: the caller closes it. */
    private Write write(ApiPath path, byte[] body) {
        return new Write(ConfigEdit.target(path), one(InNode.read(body, Encoding.sent(headers()))), begin());
    }

    private static InNode one(List<InNode> nodes) {
        if (nodes.size() != 1) throw RestconfError.malformed("the body must hold exactly one resource, not " + nodes.size());
        return nodes.get(0);
    }

    /** A query parameter given twice is refused (RFC 8040 section 4.8); which ones an operation takes, REST's request checks hold. */
    private static void once(UriInfo uri) {
        for (java.util.Map.Entry<String, List<String>> p : uri.getQueryParameters().entrySet()) {
            if (p.getValue().size() > 1) throw RestconfError.invalidValue("query parameter '" + p.getKey() + "' is given twice");
        }
    }

    /** insert and point apply to lists ordered by the user; those of NEW-VMM-MIB are ordered by the system (section 4.8.5). */
    private void noInsert(String insert, String point) {
        once(uri());
        if (insert != null || point != null) {
            throw RestconfError.invalidValue("insert and point apply to lists ordered by the user; those of NEW-VMM-MIB"
                    + " are ordered by the system");
        }
    }

    /** RFC 8040 section 4.8.2's depth: 1 to 65535, or unbounded. */
    static int depth(String text) {
        if (text == null || text.equals("unbounded")) return DataNode.UNBOUNDED;
        try {
            int d = Integer.parseInt(text);
            if (d >= 1 && d <= 65_535) return d;
        } catch (NumberFormatException e) {
            // refused below
        }
        throw RestconfError.invalidValue("depth '" + text + "' is not a number from 1 to 65535 nor 'unbounded'");
    }

    static Datastore.Content content(String text) {
        if (text == null || text.equals("all")) return Datastore.Content.ALL;
        if (text.equals("config")) return Datastore.Content.CONFIG;
        if (text.equals("nonconfig")) return Datastore.Content.NONCONFIG;
        throw RestconfError.invalidValue("content '" + text + "' is not config, nonconfig or all");
    }

    static WithDefaults withDefaults(String text) {
        if (text == null) return WithDefaults.BASIC;
        WithDefaults wd = WithDefaults.ofLabel(text);
        if (wd == null) {
            throw RestconfError.invalidValue("with-defaults '" + text + "' is not supported: this server offers"
                    + " report-all, trim and report-all-tagged");
        }
        return wd;
    }
}
