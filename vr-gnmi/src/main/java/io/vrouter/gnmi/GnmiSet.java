package io.vrouter.gnmi;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.gnmi.proto.Path;
import com.github.gnmi.proto.PathElem;
import com.github.gnmi.proto.SetRequest;
import com.github.gnmi.proto.SetResponse;
import com.github.gnmi.proto.TypedValue;
import com.github.gnmi.proto.Update;
import com.github.gnmi.proto.UpdateResult;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.vrouter.core.model.ConfigColumn;
import io.vrouter.core.model.NetworkColumn;
import io.vrouter.core.model.Schema;
import io.vrouter.core.spi.AccessDeniedException;
import io.vrouter.core.spi.VrException;
import io.vrouter.core.config.Caller;
import io.vrouter.yang.Ns;
import io.vrouter.yang.datastore.Datastore;
import io.vrouter.yang.datastore.Datastores;
import io.vrouter.yang.datastore.Transaction;
import io.vrouter.yang.edit.EditError;
import io.vrouter.yang.edit.EditNode;
import io.vrouter.yang.edit.Operation;
import io.vrouter.yang.edit.Target;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * gNMI Set (specification 3.4) on NEW-VMM-MIB's configuration: the deletes, then the replaces, then the
 * updates of one request, made in one transaction of running ({@link Transaction}, the one NETCONF and
 * RESTCONF use), committed as ONE change set through the caller's view under access control and the
 * locks: all of it is done, or none (a failure at any operation changes nothing). Errors are gNMI's status
 * codes: INVALID_ARGUMENT (a path or value the model does not take), NOT_FOUND (a node that must exist),
 * PERMISSION_DENIED (a viewer, another tenant's VR), FAILED_PRECONDITION (a state or rule that forbids
 * the change), RESOURCE_EXHAUSTED (a quota or the host's capacity).
 */
final class GnmiSet {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String VMM = Ns.VMM;

    private GnmiSet() {
    }

    static SetResponse set(Datastores datastores, Caller caller, SetRequest request) {
        if (request.getExtensionCount() > 0) throw GnmiPaths.invalid("extensions are not supported in Set");
        SetResponse.Builder response = SetResponse.newBuilder().setPrefix(request.getPrefix());
        Path prefix = request.getPrefix();
        Transaction.Result r;
        try (Transaction tx = datastores.begin(caller, Datastore.Name.RUNNING)) {
            for (Path p : request.getDeleteList()) {
                // A delete of what is not there is accepted silently (specification 3.4.6): remove, not delete.
                check(tx.edit(target(prefix, p), Operation.REMOVE, null));
                response.addResponse(UpdateResult.newBuilder().setPath(p).setOp(UpdateResult.Operation.DELETE));
            }
            for (Update u : request.getReplaceList()) {
                Target t = target(prefix, u.getPath());
                check(tx.edit(t, Operation.REPLACE, node(t, u.getVal())));
                response.addResponse(UpdateResult.newBuilder().setPath(u.getPath()).setOp(UpdateResult.Operation.REPLACE));
            }
            for (Update u : request.getUpdateList()) {
                Target t = target(prefix, u.getPath());
                check(tx.edit(t, Operation.MERGE, node(t, u.getVal())));
                response.addResponse(UpdateResult.newBuilder().setPath(u.getPath()).setOp(UpdateResult.Operation.UPDATE));
            }
            // Access control (NACM) checks the whole edit, as for NETCONF and RESTCONF: refused whole.
            r = tx.commit(false);
        }
        if (r.denied() != null) {
            throw Status.PERMISSION_DENIED.withDescription("access control (NACM) denies this change of " + r.denied())
                    .asRuntimeException();
        }
        if (!r.refused().isEmpty()) throw status(r.refused().get(0));
        r.awaitDurable();
        return response.setTimestamp(System.currentTimeMillis() * 1_000_000L).build();
    }

    // ------------------------------------------------------------------ paths

    /** The config node a path (under the prefix) names; only NEW-VMM-MIB's configuration is written. */
    static Target target(Path prefix, Path path) {
        String origin = GnmiPaths.origin(prefix, path);
        if (origin.equals(OpenConfigInterfaces.ORIGIN)) {
            throw Status.INVALID_ARGUMENT.withDescription("openconfig-interfaces is read-only here: write "
                    + GnmiPaths.ORIGIN + "'s vmConfigTable and vmNetworkConfigTable").asRuntimeException();
        }
        List<PathElem> e = GnmiPaths.join(prefix, path);
        for (PathElem x : e) {
            if (x.getName().equals(GnmiPaths.ANY) || x.getName().equals(GnmiPaths.ANY_DEPTH) || x.getKeyMap().containsValue("*")) {
                throw GnmiPaths.invalid("a Set names one node: no wildcards, in " + GnmiPaths.text(e));
            }
        }
        if (e.isEmpty()) throw GnmiPaths.invalid("a Set names /NEW-VMM-MIB or a node below it, not the root");
        if (!GnmiPaths.name(e.get(0)).equals("NEW-VMM-MIB")) throw notFound(e);
        if (e.size() == 1) return Target.TOP;
        String tableName = GnmiPaths.name(e.get(1));
        if (Target.isState(tableName)) {
            throw GnmiPaths.invalid(tableName + " is state data (config false): it cannot be written");
        }
        Schema.Table table = Schema.Table.named(tableName);
        boolean config = table == Schema.Table.CONFIG;
        if (!config && table != Schema.Table.NETWORK_CONFIG) throw notFound(e);
        if (e.size() == 2) return config ? Target.CONFIG_TABLE : Target.NETWORK_TABLE;
        PathElem entry = e.get(2);
        if (!GnmiPaths.name(entry).equals(table.entryName())) throw notFound(e);
        int vmIndex = key(entry, table.vrKey(), e);
        Integer networkIndex = config ? null : key(entry, table.rowKey(), e);
        if (e.size() == 3) return config ? Target.configEntry(vmIndex) : Target.networkEntry(vmIndex, networkIndex);
        String leaf = GnmiPaths.name(e.get(3));
        if (e.size() > 4) throw notFound(e);
        if (table.keys().contains(leaf)) {
            return Target.keyLeaf(vmIndex, networkIndex, leaf);
        }
        if (config) {
            ConfigColumn c = ConfigColumn.ofField(leaf);
            if (c == null) throw notFound(e);
            return Target.configLeaf(vmIndex, c);
        }
        NetworkColumn c = NetworkColumn.ofField(leaf);
        if (c == null) throw notFound(e);
        return Target.networkLeaf(vmIndex, networkIndex, c);
    }

    private static int key(PathElem entry, String key, List<PathElem> path) {
        String v = entry.getKeyMap().get(key);
        if (v == null) throw GnmiPaths.invalid(entry.getName() + " needs its key " + key + ", in " + GnmiPaths.text(path));
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException ex) {
            throw GnmiPaths.invalid(key + " '" + v + "' is not a whole number, in " + GnmiPaths.text(path));
        }
    }

    private static StatusRuntimeException notFound(List<PathElem> path) {
        return GnmiPaths.invalid("no configuration node " + GnmiPaths.text(path) + " in " + GnmiPaths.ORIGIN);
    }

    // ------------------------------------------------------------------ values

    /** The node a value brings for the target: a scalar for a leaf, a JSON object for anything else. */
    static EditNode node(Target t, TypedValue v) {
        String name = t.name();
        JsonNode json = switch (v.getValueCase()) {
            case JSON_IETF_VAL -> parse(v.getJsonIetfVal().toStringUtf8());
            case JSON_VAL -> parse(v.getJsonVal().toStringUtf8());
            case STRING_VAL -> JSON.getNodeFactory().textNode(v.getStringVal());
            case ASCII_VAL -> JSON.getNodeFactory().textNode(v.getAsciiVal());
            case INT_VAL -> JSON.getNodeFactory().numberNode(v.getIntVal());
            case UINT_VAL -> JSON.getNodeFactory().numberNode(v.getUintVal());
            case BOOL_VAL -> JSON.getNodeFactory().booleanNode(v.getBoolVal());
            default -> throw GnmiPaths.invalid("a value of type " + v.getValueCase() + " is not taken: send json_ietf_val,"
                    + " json_val or a scalar");
        };
        Node n = of(name, json);
        // An entry's keys are in its path; the engine reads them from the entry's data.
        if (t.kind() == Target.Kind.CONFIG_ENTRY || t.kind() == Target.Kind.NETWORK_ENTRY) {
            List<String> keys = t.table().keys();
            if (n.child(keys.get(0)) == null) n.children.add(leaf(keys.get(0), Integer.toString(t.vmIndex())));
            if (t.networkIndex() != null && n.child(keys.get(1)) == null) {
                n.children.add(leaf(keys.get(1), t.networkIndex().toString()));
            }
        }
        return n;
    }

    private static JsonNode parse(String text) {
        try {
            return JSON.readTree(text);
        } catch (IOException e) {
            // The parser's own words name its classes and settings: the client is told where, not how.
            String where = e instanceof com.fasterxml.jackson.core.JsonProcessingException j && j.getLocation() != null
                    ? " (line " + j.getLocation().getLineNr() + ", column " + j.getLocation().getColumnNr() + ")" : "";
            throw GnmiPaths.invalid("the value is not JSON as RFC 7951 writes it" + where
                    + ": a string is quoted, e.g. \"text\"");
        }
    }

    private static Node of(String name, JsonNode v) {
        if (v.isObject()) {
            Node n = new Node(name, null, new ArrayList<>());
            Iterator<Map.Entry<String, JsonNode>> it = v.fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> m = it.next();
                String member = m.getKey().substring(m.getKey().indexOf(':') + 1); // RFC 7951's module:name
                if (m.getValue().isArray()) {
                    for (JsonNode item : m.getValue()) n.children.add(of(member, item));
                } else {
                    n.children.add(of(member, m.getValue()));
                }
            }
            return n;
        }
        if (v.isValueNode() && !v.isNull()) return leaf(name, v.asText());
        throw GnmiPaths.invalid("'" + name + "' has a value of the wrong kind: " + v.getNodeType().toString().toLowerCase());
    }

    private static Node leaf(String name, String value) {
        return new Node(name, value, new ArrayList<>());
    }

    /** A node of a Set's value, in NEW-VMM-MIB's namespace. */
    private record Node(String name, String value, List<Node> children) implements EditNode {
        @Override
        public String ns() {
            return VMM;
        }

        @Override
        public boolean isLeaf() {
            return value != null;
        }
    }

    // ------------------------------------------------------------------ errors

    private static void check(List<EditError> errors) {
        if (!errors.isEmpty()) throw status(errors.get(0));
    }

    /** The edit engine's error as a gNMI status. */
    static StatusRuntimeException status(EditError e) {
        Status s = switch (e.kind()) {
            case DATA_MISSING, NOT_FOUND, INSTANCE_REQUIRED -> Status.NOT_FOUND;
            case DATA_EXISTS -> Status.ALREADY_EXISTS;
            case INVALID_VALUE, UNKNOWN_ELEMENT, MISSING_ELEMENT, BAD_OPERATION, NOT_CONFIG -> Status.INVALID_ARGUMENT;
            case IN_USE, LOCK_DENIED, OPERATION_FAILED -> Status.FAILED_PRECONDITION;
        };
        return s.withDescription(e.getMessage()).asRuntimeException();
    }

    /** The core's refusal as a gNMI status; nothing was changed. */
    static StatusRuntimeException status(VrException e) {
        Status s = switch (e.reason()) {
            case INVALID, MISSING -> Status.INVALID_ARGUMENT;
            case NOT_FOUND -> Status.NOT_FOUND;
            case EXISTS -> Status.ALREADY_EXISTS;
            case DENIED -> e instanceof AccessDeniedException a && a.hidden() ? Status.NOT_FOUND : Status.PERMISSION_DENIED;
            case QUOTA -> Status.RESOURCE_EXHAUSTED;
            case UNAVAILABLE -> Status.UNAVAILABLE;
            case FIXED, NOT_SUPPORTED -> Status.UNIMPLEMENTED;
            case NOT_UNIQUE, NOT_SHUT_DOWN, STATE, FAILED, CHANGED, LOCKED, IN_USE -> Status.FAILED_PRECONDITION;
        };
        return s.withDescription(e.getMessage()).asRuntimeException();
    }
}
