package io.vrouter.api.restconf;

import static io.vrouter.core.model.Schema.Table.CONFIG;
import static io.vrouter.core.model.Schema.Table.NETWORK_CONFIG;

import io.vrouter.core.model.ConfigColumn;
import io.vrouter.core.model.NetworkColumn;
import io.vrouter.core.model.Schema;
import io.vrouter.yang.Ns;
import io.vrouter.yang.datastore.Transaction;
import io.vrouter.yang.edit.EditError;
import io.vrouter.yang.edit.Operation;
import io.vrouter.yang.edit.Target;
import io.vrouter.yang.edit.TreeEdit;
import java.util.List;

/**
 * A RESTCONF write (a PUT, POST, PATCH, DELETE or every edit of a YANG Patch) translated for the
 * datastore's transaction ({@link Transaction}): the request's path as the edit engine's
 * {@link Target}, the body ({@link InNode}) as its data, the method as its {@link Operation}, and the
 * engine's errors as RESTCONF's. The transaction commits the edits as ONE change set; every rule about
 * VRs is the service's, access control's and the locks' are the transaction's.
 */
final class ConfigEdit implements AutoCloseable {
    private static final String VMM = Ns.VMM;

    private final Transaction tx;

    ConfigEdit(Transaction tx) {
        this.tx = tx;
    }

    Transaction transaction() {
        return tx;
    }

    @Override
    public void close() {
        tx.close();
    }

    // ------------------------------------------------------------------ targets

    /** The config true node a path names; the path's errors in RESTCONF's terms. */
    static Target target(ApiPath path) {
        List<ApiPath.Step> s = path.steps();
        if (s.isEmpty()) return Target.ROOT;
        ApiPath.Step top = s.get(0);
        if (!top.ns().equals(VMM) || !top.name().equals("NEW-VMM-MIB")) {
            throw RestconfError.notSupported("/" + top.name() + " is state data: it cannot be written");
        }
        if (top.keys() != null) throw RestconfError.invalidValue("NEW-VMM-MIB is a container: it has no keys");
        if (s.size() == 1) return Target.TOP;
        ApiPath.Step table = s.get(1);
        if (Target.isState(table.name()) && table.ns().equals(VMM)) {
            throw RestconfError.notSupported(table.name() + " is state data (config false): it cannot be written");
        }
        Schema.Table list = table.ns().equals(VMM) ? Schema.Table.named(table.name()) : null;
        boolean config = list == CONFIG;
        if (!config && list != NETWORK_CONFIG || table.keys() != null) {
            throw RestconfError.notFound("NEW-VMM-MIB has no " + table.name());
        }
        if (s.size() == 2) return config ? Target.CONFIG_TABLE : Target.NETWORK_TABLE;
        ApiPath.Step entry = s.get(2);
        String entryName = list.entryName();
        if (!entry.name().equals(entryName) || !entry.ns().equals(VMM)) {
            throw RestconfError.notFound(table.name() + " has no " + entry.name());
        }
        int keyCount = list.keys().size();
        if (entry.keys() == null || entry.keys().size() != keyCount) {
            throw RestconfError.invalidValue(entryName + " is a list: name one entry by its " + (config ? "key (" + entryName + "=5)"
                    : "keys (" + entryName + "=5,1)"));
        }
        int vmIndex = index(entry.keys().get(0), list.vrKey());
        Integer networkIndex = config ? null : index(entry.keys().get(1), list.rowKey());
        if (s.size() == 3) return config ? Target.configEntry(vmIndex) : Target.networkEntry(vmIndex, networkIndex);
        ApiPath.Step leaf = s.get(3);
        if (s.size() > 4 || leaf.keys() != null || !leaf.ns().equals(VMM)) {
            throw RestconfError.notFound(entryName + " has no " + leaf.name() + " below which to go");
        }
        if (list.keys().contains(leaf.name())) {
            return Target.keyLeaf(vmIndex, networkIndex, leaf.name());
        }
        if (config) {
            ConfigColumn c = ConfigColumn.ofField(leaf.name());
            if (c == null) throw RestconfError.notFound(entryName + " has no leaf " + leaf.name());
            return Target.configLeaf(vmIndex, c);
        }
        NetworkColumn c = NetworkColumn.ofField(leaf.name());
        if (c == null) throw RestconfError.notFound(entryName + " has no leaf " + leaf.name());
        return Target.networkLeaf(vmIndex, networkIndex, c);
    }

    private static int index(String text, String key) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw RestconfError.invalidValue(key + " '" + text + "' is not a whole number");
        }
    }

    /** Where a target is, for error-path (null: the datastore); a new entry is the list's. */
    static DataPath path(Target t) {
        if (t == TreeEdit.NEW_ENTRY) return DataPath.CONFIG_TABLE.child(CONFIG.entryName());
        return switch (t.kind()) {
            case ROOT -> null;
            case TOP -> DataPath.TOP;
            case CONFIG_TABLE -> DataPath.CONFIG_TABLE;
            case NETWORK_TABLE -> DataPath.NETWORK_TABLE;
            case CONFIG_ENTRY -> DataPath.configEntry(t.vmIndex());
            case NETWORK_ENTRY -> DataPath.networkEntry(t.vmIndex(), t.networkIndex());
            case CONFIG_LEAF, NETWORK_LEAF, KEY_LEAF -> path(t.entry()).child(t.leaf());
        };
    }

    /**
     * The child a POST to {@code parent} creates: the node {@code data} is, below the parent. An entry
     * of vmConfigTable without vmIndex is a new VR whose index the service picks (null).
     */
    static Target child(Target parent, InNode data) {
        String n = data.name();
        if (!data.ns().equals(VMM)) throw RestconfError.unknownElement(n + " is not a node of NEW-VMM-MIB");
        return switch (parent.kind()) {
            case ROOT -> n.equals("NEW-VMM-MIB") ? Target.TOP : stateOrUnknown(n, "the datastore");
            case TOP -> n.equals(CONFIG.tableName()) ? Target.CONFIG_TABLE : n.equals(NETWORK_CONFIG.tableName())
                    ? Target.NETWORK_TABLE : stateOrUnknown(n, "NEW-VMM-MIB");
            case CONFIG_TABLE -> {
                if (!n.equals(CONFIG.entryName())) yield stateOrUnknown(n, CONFIG.tableName());
                InNode key = data.child(CONFIG.vrKey());
                yield key == null ? null : Target.configEntry(index(key.value(), CONFIG.vrKey()));
            }
            case NETWORK_TABLE -> {
                if (!n.equals(NETWORK_CONFIG.entryName())) yield stateOrUnknown(n, NETWORK_CONFIG.tableName());
                InNode vm = data.child(NETWORK_CONFIG.vrKey());
                InNode net = data.child(NETWORK_CONFIG.rowKey());
                if (vm == null || net == null) {
                    throw RestconfError.invalidValue("a " + NETWORK_CONFIG.entryName() + " needs its keys "
                            + String.join(" and ", NETWORK_CONFIG.keys())).at(DataPath.NETWORK_TABLE);
                }
                yield Target.networkEntry(index(vm.value(), NETWORK_CONFIG.vrKey()), index(net.value(), NETWORK_CONFIG.rowKey()));
            }
            case CONFIG_ENTRY -> leafTarget(parent.vmIndex(), null, n);
            case NETWORK_ENTRY -> leafTarget(parent.vmIndex(), parent.networkIndex(), n);
            default -> throw RestconfError.invalidValue("a leaf has no children to create");
        };
    }

    private static Target leafTarget(int vmIndex, Integer networkIndex, String name) {
        ApiPath.Step top = new ApiPath.Step(VMM, "NEW-VMM-MIB", null);
        Schema.Table list = networkIndex == null ? CONFIG : NETWORK_CONFIG;
        ApiPath.Step table = new ApiPath.Step(VMM, list.tableName(), null);
        ApiPath.Step entry = new ApiPath.Step(VMM, list.entryName(),
                networkIndex == null ? List.of(Integer.toString(vmIndex)) : List.of(Integer.toString(vmIndex), networkIndex.toString()));
        return target(new ApiPath(List.of(top, table, entry, new ApiPath.Step(VMM, name, null))));
    }

    private static Target stateOrUnknown(String name, String parent) {
        if (Target.isState(name)) throw RestconfError.notSupported(name + " is state data (config false): it cannot be written");
        throw RestconfError.unknownElement(parent + " has no " + name).at(DataPath.TOP);
    }

    // ------------------------------------------------------------------ operations (RFC 8072 section 2.5)

    boolean exists(Target t) {
        return tx.exists(t);
    }

    /** create: the target must not exist; then as merge. A new VR without vmIndex (null) gets one from the service. */
    void create(Target t, InNode data) {
        if (t == null) {
            check(tx.createNew(data));
        } else {
            write(t, Operation.CREATE, data);
        }
    }

    /** merge: the data into the target, creating what is missing. */
    void merge(Target t, InNode data) {
        write(t, Operation.MERGE, data);
    }

    /** replace: the target becomes the data, created if missing. */
    void replace(Target t, InNode data) {
        write(t, Operation.REPLACE, data);
    }

    /** delete: the target must exist; then as remove. */
    void delete(Target t) {
        check(tx.edit(t, Operation.DELETE, null));
    }

    /** remove: the target goes, if it is there (a leaf goes back to its default). */
    void remove(Target t) {
        check(tx.edit(t, Operation.REMOVE, null));
    }

    /** The body must be the target's node; the datastore's is {@code data} or its one child. */
    private void write(Target t, Operation op, InNode data) {
        String expected = t.name();
        if (expected != null && (!data.name().equals(expected) || !data.ns().equals(VMM))) {
            throw RestconfError.invalidValue("the body must be the target's node, " + expected + ", not " + data.name())
                    .at(path(t));
        }
        InNode node = t.kind() != Target.Kind.ROOT || data.ns().equals(Ns.RESTCONF) && data.name().equals("data")
                ? data : new InNode(Ns.RESTCONF, "data", null, List.of(data));
        check(tx.edit(t, op, node));
    }

    private static void check(List<EditError> errors) {
        if (!errors.isEmpty()) throw error(errors.get(0));
    }

    /** The engine's error in RESTCONF's terms (RFC 8040 section 7). */
    static RestconfError error(EditError e) {
        DataPath at = e.at() == null ? null : path(e.at());
        DataPath where = at == null || e.child() == null || e.kind() == EditError.Kind.MISSING_ELEMENT
                || e.kind() == EditError.Kind.UNKNOWN_ELEMENT ? at : at.child(e.child());
        String m = e.getMessage();
        RestconfError r = switch (e.kind()) {
            case DATA_EXISTS -> RestconfError.dataExists(m);
            case DATA_MISSING -> RestconfError.dataMissing(m);
            case INSTANCE_REQUIRED -> new RestconfError(409, "application", "data-missing", "instance-required", null, m);
            case NOT_FOUND -> RestconfError.notFound(m);
            case INVALID_VALUE -> new RestconfError(400, "application", "invalid-value", null, null, m);
            case MISSING_ELEMENT, BAD_OPERATION -> RestconfError.invalidValue(m);
            case UNKNOWN_ELEMENT -> RestconfError.unknownElement(m);
            case NOT_CONFIG -> RestconfError.notSupported(m);
            case IN_USE -> new RestconfError(409, "protocol", "in-use", null, null, m);
            case LOCK_DENIED -> new RestconfError(409, "protocol", "lock-denied", null, null, m);
            case OPERATION_FAILED -> new RestconfError(500, "protocol", "operation-failed", null, null, m);
        };
        return where == null ? r : r.at(where);
    }
}
