package io.vrouter.yang.edit;

import io.vrouter.core.model.Column;
import io.vrouter.core.model.ConfigColumn;
import io.vrouter.core.model.NetworkColumn;
import io.vrouter.core.model.Schema;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import io.vrouter.core.spi.ChangeSet;
import io.vrouter.yang.Ns;
import io.vrouter.yang.edit.EditError.Kind;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The edit engine: merge, replace, create, delete and remove (and NETCONF's none) on the config
 * true nodes of NEW-VMM-MIB, applied to a copy of a configuration ({@link ConfigData}). NETCONF's
 * edit-config and RESTCONF's writes and YANG Patch edits only parse their input into a target, an
 * operation and the data ({@link EditNode}), and map the {@link EditError}s to their own terms.
 * Each leaf is parsed by the kind its column declares; every rule about VRs is the service's, which
 * checks the edited configuration as one change set ({@link ConfigData#changesFrom}).
 *
 * <p>An operation inside the data (NETCONF's {@code operation} attribute) applies to its node and
 * is inherited below it; create and replace leave merge to their children. An entry is put in the
 * copy only once it is complete, so an error leaves each entry either as it was or fully edited.
 * With {@code continueOnError} an entry that fails is skipped and the others are edited; otherwise
 * the edit stops at the first error. Whether an edit with errors is applied at all is the caller's
 * decision.
 */
public final class TreeEdit {
    private static final String VMM = Ns.VMM;
    private static final String TOP = "NEW-VMM-MIB";
    private static final String CONFIG_TABLE = Schema.Table.CONFIG.tableName();
    private static final String CONFIG_ENTRY = Schema.Table.CONFIG.entryName();
    private static final String NETWORK_ENTRY = Schema.Table.NETWORK_CONFIG.entryName();
    private static final String VM_INDEX = Schema.Table.CONFIG.vrKey();
    private static final String NETWORK_INDEX = Schema.Table.NETWORK_CONFIG.rowKey();

    /** The entry a creation without vmIndex is about (the service picks its index). */
    public static final Target NEW_ENTRY = Target.configEntry(0);

    private final ConfigData data;
    private final boolean continueOnError;
    private final List<EditError> errors = new ArrayList<>();
    /** New entries without a vmIndex: the service picks one. */
    private final List<VmConfigEntry> creations = new ArrayList<>();
    private boolean stopped;

    /** @param data the copy to edit */
    public TreeEdit(ConfigData data, boolean continueOnError) {
        this.data = data;
        this.continueOnError = continueOnError;
    }

    public ConfigData data() {
        return data;
    }

    /** The errors so far, in order (empty on success). */
    public List<EditError> errors() {
        return errors;
    }

    /** The change set from {@code base} to the edited copy, creations without vmIndex included. */
    public ChangeSet.Builder changesFrom(ConfigData base) {
        ChangeSet.Builder b = ChangeSet.builder();
        for (ChangeSet.Change c : data.changesFrom(base).changes()) b.add(c);
        for (VmConfigEntry row : creations) b.create(row);
        return b;
    }

    /**
     * Applies {@code op} at {@code target} with {@code node} (the target's node; null for delete and
     * remove), whose own operation attribute, if any, overrides {@code op}. Returns the errors so far.
     */
    public List<EditError> apply(Target target, Operation op, EditNode node) {
        if (stopped) return errors;
        try {
            Operation own = node == null ? op : operation(node, op, target.parent());
            switch (target.kind()) {
                case ROOT -> root(own, node);
                case TOP -> top(own, node);
                case CONFIG_TABLE -> configTable(own, node);
                case NETWORK_TABLE -> networkTable(own, node);
                case CONFIG_ENTRY -> configEntry(target, own, node);
                case NETWORK_ENTRY -> networkEntry(target, own, node);
                case CONFIG_LEAF, NETWORK_LEAF -> leafTarget(target, own, node);
                case KEY_LEAF -> throw new EditError(Kind.INVALID_VALUE, target.entry(), target.key(), target.key()
                        + (own == Operation.DELETE || own == Operation.REMOVE ? " is a key: delete the entry instead"
                        : " is a key: it cannot change"));
            }
        } catch (EditError e) {
            fail(e);
        }
        return errors;
    }

    /** A new vmConfigEntry without vmIndex (RESTCONF's POST to vmConfigTable): the service picks its index. */
    public List<EditError> createNew(EditNode entry) {
        if (stopped) return errors;
        try {
            VmConfigEntry row = new VmConfigEntry();
            configLeaves(row, entry, NEW_ENTRY, Operation.MERGE, false);
            creations.add(row);
        } catch (EditError e) {
            fail(e);
        }
        return errors;
    }

    /** Whether the node is there: entries and leaves by the data; the datastore, containers and tables always. */
    public boolean exists(Target t) {
        return switch (t.kind()) {
            case CONFIG_ENTRY -> data.get(t.vmIndex()) != null;
            case CONFIG_LEAF -> data.get(t.vmIndex()) != null && t.configColumn().get(data.get(t.vmIndex())) != null;
            case NETWORK_ENTRY -> iface(data.get(t.vmIndex()), t.networkIndex()) != null;
            case NETWORK_LEAF -> {
                VmNetworkConfigEntry n = iface(data.get(t.vmIndex()), t.networkIndex());
                yield n != null && t.networkColumn().get(n) != null;
            }
            default -> true;
        };
    }

    private void fail(EditError e) {
        errors.add(e);
        if (!continueOnError) stopped = true;
    }

    // ------------------------------------------------------------------ containers

    /** The datastore: its children are NEW-VMM-MIB (RESTCONF's {@code data}). */
    private void root(Operation op, EditNode node) {
        if (containerOp(op, Target.ROOT, data::clear)) return;
        if (node == null) return;
        for (EditNode top : children(node, Target.ROOT)) {
            if (stopped) return;
            if (!VMM.equals(top.ns()) || !top.name().equals(TOP)) {
                if (VMM.equals(top.ns()) && Target.isState(top.name())) throw notConfig(Target.ROOT, top.name());
                throw new EditError(Kind.UNKNOWN_ELEMENT, Target.ROOT, top.name(),
                        "the datastore has no " + top.name() + " (this server has the data of module NEW-VMM-MIB)");
            }
            // the datastore is replaced already: what is below is merged into it
            top(operation(top, op.forChildren(), Target.ROOT), top);
        }
    }

    private void top(Operation op, EditNode node) {
        if (containerOp(op, Target.TOP, data::clear)) return;
        if (node == null) return;
        // vmConfigTable first, so that interfaces of a VR created in the same edit find it.
        List<EditNode> ordered = new ArrayList<>();
        for (EditNode k : children(node, Target.TOP)) if (k.name().equals(CONFIG_TABLE)) ordered.add(k);
        for (EditNode k : children(node, Target.TOP)) if (!k.name().equals(CONFIG_TABLE)) ordered.add(k);
        for (EditNode k : ordered) {
            if (stopped) return;
            String name = k.name();
            if (!VMM.equals(k.ns())) throw new EditError(Kind.UNKNOWN_ELEMENT, Target.TOP, name, "unknown element '" + name + "'");
            if (Target.isState(name)) throw notConfig(Target.TOP, name);
            Schema.Table table = Schema.Table.named(name);
            if (table == Schema.Table.CONFIG) {
                configTable(operation(k, op, Target.TOP), k);
            } else if (table == Schema.Table.NETWORK_CONFIG) {
                networkTable(operation(k, op, Target.TOP), k);
            } else {
                throw new EditError(Kind.UNKNOWN_ELEMENT, Target.TOP, name, "NEW-VMM-MIB has no node '" + name + "'");
            }
        }
    }

    /**
     * delete, remove, create and replace on a container holding everything of the datastore;
     * returns true when the children need no further processing.
     */
    private boolean containerOp(Operation op, Target at, Runnable clear) {
        switch (op) {
            case DELETE -> {
                if (data.isEmpty()) throw new EditError(Kind.DATA_MISSING, at, null, "there is no data to delete");
                clear.run();
                return true;
            }
            case REMOVE -> {
                clear.run();
                return true;
            }
            case CREATE -> {
                if (!data.isEmpty()) throw new EditError(Kind.DATA_EXISTS, at, null, "the data exists already");
                return false;
            }
            case REPLACE -> {
                clear.run();
                return false;
            }
            default -> {
                return false;
            }
        }
    }

    private void configTable(Operation op, EditNode node) {
        if (op == Operation.REPLACE) {
            // the entries the data has stay (with their interfaces, another list) and are replaced; the others go
            Set<Integer> kept = new HashSet<>();
            for (EditNode e : children(node, Target.CONFIG_TABLE)) {
                EditNode k = e.child(VM_INDEX);
                if (k == null) continue;
                try {
                    kept.add(Integer.parseInt(k.value().trim()));
                } catch (NumberFormatException ignored) {
                    // the entry's own error, below
                }
            }
            List<Integer> gone = new ArrayList<>();
            for (Integer i : data.indices()) if (!kept.contains(i)) gone.add(i);
            for (Integer i : gone) data.remove(i);
        } else if (containerOp(op, Target.CONFIG_TABLE, data::clear)) {
            return;
        }
        if (node == null) return;
        for (EditNode e : children(node, Target.CONFIG_TABLE)) {
            if (stopped) return;
            try {
                if (!e.name().equals(CONFIG_ENTRY) || !VMM.equals(e.ns())) {
                    throw new EditError(Kind.UNKNOWN_ELEMENT, Target.CONFIG_TABLE, e.name(),
                            CONFIG_TABLE + " holds " + CONFIG_ENTRY + " elements only, not '" + e.name() + "'");
                }
                int vmIndex = key(e, VM_INDEX, Target.CONFIG_TABLE, Integer.MAX_VALUE);
                configEntry(Target.configEntry(vmIndex), operation(e, op, Target.CONFIG_TABLE), e);
            } catch (EditError err) {
                fail(err);
            }
        }
    }

    private void networkTable(Operation op, EditNode node) {
        switch (op) {
            case DELETE, REMOVE, REPLACE -> {
                if (op == Operation.DELETE && !anyInterface()) {
                    throw new EditError(Kind.DATA_MISSING, Target.NETWORK_TABLE, null, "there are no interfaces to delete");
                }
                List<VmConfigEntry> withInterfaces = new ArrayList<>();
                for (VmConfigEntry c : data.values()) if (!c.interfaces().isEmpty()) withInterfaces.add(c);
                for (VmConfigEntry c : withInterfaces) {
                    VmConfigEntry n = c.copy();
                    n.vmNetworkConfigTable = null;
                    data.put(n);
                }
                if (op != Operation.REPLACE) return;
            }
            case CREATE -> {
                if (anyInterface()) throw new EditError(Kind.DATA_EXISTS, Target.NETWORK_TABLE, null, Schema.Table.NETWORK_CONFIG.tableName() + " exists already");
            }
            default -> {
                // merge and none: the entries say
            }
        }
        if (node == null) return;
        for (EditNode e : children(node, Target.NETWORK_TABLE)) {
            if (stopped) return;
            try {
                if (!e.name().equals(NETWORK_ENTRY) || !VMM.equals(e.ns())) {
                    throw new EditError(Kind.UNKNOWN_ELEMENT, Target.NETWORK_TABLE, e.name(),
                            Schema.Table.NETWORK_CONFIG.tableName() + " holds " + NETWORK_ENTRY + " elements only, not '" + e.name() + "'");
                }
                int vmIndex = key(e, VM_INDEX, Target.NETWORK_TABLE, Integer.MAX_VALUE);
                int netIndex = key(e, NETWORK_INDEX, Target.NETWORK_TABLE, NetworkColumn.MAX_INDEX);
                networkEntry(Target.networkEntry(vmIndex, netIndex), operation(e, op, Target.NETWORK_TABLE), e);
            } catch (EditError err) {
                fail(err);
            }
        }
    }

    /** Whether any VR has an interface (reads every row: only the operations on the whole table ask). */
    private boolean anyInterface() {
        for (VmConfigEntry c : data.values()) if (!c.interfaces().isEmpty()) return true;
        return false;
    }

    // ------------------------------------------------------------------ entries

    private void configEntry(Target t, Operation op, EditNode e) {
        int vmIndex = t.vmIndex();
        VmConfigEntry existing = data.get(vmIndex);
        switch (op) {
            case DELETE -> {
                if (existing == null) throw new EditError(Kind.DATA_MISSING, t, null, "there is no VR with vmIndex " + vmIndex);
                data.remove(vmIndex);
                return;
            }
            case REMOVE -> {
                data.remove(vmIndex);
                return;
            }
            case CREATE -> {
                if (existing != null) throw new EditError(Kind.DATA_EXISTS, t, null, "a VR with vmIndex " + vmIndex + " exists already");
            }
            case NONE -> {
                if (existing == null) throw new EditError(Kind.DATA_MISSING, t, null, "there is no VR with vmIndex " + vmIndex);
            }
            default -> {
                // merge and replace: below
            }
        }
        VmConfigEntry row = new VmConfigEntry();
        row.vmIndex = vmIndex;
        if (existing != null && op != Operation.REPLACE) {
            row = existing.copy();
        } else if (existing != null) {
            // The entry's leaves are replaced; its interfaces are another list and stay.
            row.vmNetworkConfigTable = existing.vmNetworkConfigTable;
        }
        configLeaves(row, e, t, op.forChildren(), existing != null && op != Operation.REPLACE);
        data.put(row);
    }

    /** The leaves of a vmConfigEntry's data into {@code row}; a vmIndex given must be the entry's. */
    private void configLeaves(VmConfigEntry row, EditNode e, Target t, Operation leafOp, boolean existed) {
        if (e == null) return;
        for (EditNode leaf : children(e, t)) {
            String name = leaf.name();
            if (!VMM.equals(leaf.ns())) throw new EditError(Kind.UNKNOWN_ELEMENT, t, name, "unknown element '" + name + "'");
            if (name.equals(VM_INDEX)) {
                if (t != NEW_ENTRY) sameKey(leaf, t.vmIndex(), t);
                continue;
            }
            ConfigColumn column = ConfigColumn.ofField(name);
            if (column == null) {
                String hint = name.startsWith("vmNetworkConfig") ? " (interfaces are entries of " + Schema.Table.NETWORK_CONFIG.tableName() + ")" : "";
                throw new EditError(Kind.UNKNOWN_ELEMENT, t, name, CONFIG_ENTRY + " has no leaf '" + name + "'" + hint);
            }
            leaf(leaf, column, row, operation(leaf, leafOp, t), existed, t);
        }
    }

    private void networkEntry(Target t, Operation op, EditNode e) {
        int vmIndex = t.vmIndex();
        int netIndex = t.networkIndex();
        VmConfigEntry vr = data.get(vmIndex);
        VmNetworkConfigEntry existing = iface(vr, netIndex);
        if ((op == Operation.DELETE || op == Operation.NONE) && existing == null) {
            throw new EditError(Kind.DATA_MISSING, t, null, "there is no such interface");
        }
        if (op == Operation.CREATE && existing != null) throw new EditError(Kind.DATA_EXISTS, t, null, "the interface exists already");
        if (op == Operation.REMOVE && existing == null) return;
        if (vr == null) {
            throw new EditError(Kind.INSTANCE_REQUIRED, t, VM_INDEX,
                    VM_INDEX + " " + vmIndex + " names no " + CONFIG_ENTRY + ": create the VR first (or in the same edit)");
        }
        List<VmNetworkConfigEntry> ifaces = new ArrayList<>(vr.interfaces());
        ifaces.removeIf(n -> n.vmNetworkConfigIndex != null && n.vmNetworkConfigIndex == netIndex);
        if (op != Operation.DELETE && op != Operation.REMOVE) {
            VmNetworkConfigEntry row;
            if (existing == null || op == Operation.REPLACE) {
                row = new VmNetworkConfigEntry();
                row.vmNetworkConfigIndex = netIndex;
            } else {
                row = existing.copy();
            }
            Operation leafOp = op.forChildren();
            boolean existed = existing != null && op != Operation.REPLACE;
            for (EditNode leaf : e == null ? List.<EditNode>of() : children(e, t)) {
                String name = leaf.name();
                if (VMM.equals(leaf.ns()) && name.equals(VM_INDEX)) {
                    sameKey(leaf, vmIndex, t);
                    continue;
                }
                if (VMM.equals(leaf.ns()) && name.equals(NETWORK_INDEX)) {
                    sameKey(leaf, netIndex, t);
                    continue;
                }
                NetworkColumn column = VMM.equals(leaf.ns()) ? NetworkColumn.ofField(name) : null;
                if (column == null) {
                    throw new EditError(Kind.UNKNOWN_ELEMENT, t, name, NETWORK_ENTRY + " has no leaf '" + name + "'");
                }
                leaf(leaf, column, row, operation(leaf, leafOp, t), existed, t);
            }
            ifaces.add(row);
            ifaces.sort((a, b) -> Integer.compare(a.vmNetworkConfigIndex, b.vmNetworkConfigIndex));
        }
        VmConfigEntry next = vr.copy();
        next.vmNetworkConfigTable = ifaces.isEmpty() ? null : ifaces;
        data.put(next);
    }

    private static VmNetworkConfigEntry iface(VmConfigEntry vr, int networkIndex) {
        if (vr == null) return null;
        for (VmNetworkConfigEntry n : vr.interfaces()) {
            if (n.vmNetworkConfigIndex != null && n.vmNetworkConfigIndex == networkIndex) return n;
        }
        return null;
    }

    // ------------------------------------------------------------------ leaves

    /** A leaf named by the target itself (RESTCONF's path to a leaf): its entry must exist. */
    private void leafTarget(Target t, Operation op, EditNode node) {
        Target entry = t.entry();
        VmConfigEntry vr = data.get(t.vmIndex());
        boolean network = t.kind() == Target.Kind.NETWORK_LEAF;
        VmNetworkConfigEntry n = network ? iface(vr, t.networkIndex()) : null;
        if (vr == null || network && n == null) {
            if (op == Operation.REMOVE) return;
            if (op == Operation.DELETE) throw new EditError(Kind.DATA_MISSING, entry, t.leaf(), t.leaf() + " is not set");
            throw new EditError(Kind.NOT_FOUND, entry, null, network
                    ? "VR " + t.vmIndex() + " has no interface " + t.networkIndex() : "no VR with vmIndex " + t.vmIndex());
        }
        VmConfigEntry next = vr.copy();
        if (!network) {
            leaf(node, t.configColumn(), next, op, true, entry);
        } else {
            VmNetworkConfigEntry changed = n.copy();
            leaf(node, t.networkColumn(), changed, op, true, entry);
            List<VmNetworkConfigEntry> ifaces = new ArrayList<>(vr.interfaces());
            ifaces.replaceAll(x -> x == n ? changed : x);
            next.vmNetworkConfigTable = ifaces;
        }
        data.put(next);
    }

    /** One leaf of an entry: its operation, and its value parsed as the column's kind. */
    private static <R> void leaf(EditNode leaf, Column<R> column, R row, Operation op, boolean existed, Target entry) {
        String name = column.field();
        if (leaf != null && !leaf.isLeaf()) {
            throw new EditError(Kind.INVALID_VALUE, entry, name, name + " is a leaf: it has no child elements");
        }
        boolean set = column.get(row) != null;
        switch (op) {
            case NONE -> {
                return;
            }
            case DELETE -> {
                if (!set) throw new EditError(Kind.DATA_MISSING, entry, name, name + " is not set");
                column.set(row, null);
                return;
            }
            case REMOVE -> {
                column.set(row, null);
                return;
            }
            case CREATE -> {
                if (set && existed) throw new EditError(Kind.DATA_EXISTS, entry, name, name + " is set already");
            }
            default -> {
                // merge and replace: the value
            }
        }
        String v = leaf == null ? "" : leaf.value();
        try {
            column.set(row, column.kind().parse(v));
        } catch (IllegalArgumentException e) {
            throw badValue(entry, name, v, column.kind().expected());
        }
    }

    // ------------------------------------------------------------------ helpers

    /** The node's own operation attribute, or the inherited one; {@code parent} is where the node is. */
    private static Operation operation(EditNode n, Operation inherited, Target parent) {
        String v = n.operation();
        if (v == null || v.isEmpty()) return inherited;
        Operation op = Operation.ofAttribute(v);
        if (op == null) {
            throw new EditError(Kind.BAD_OPERATION, parent, n.name(),
                    "operation must be merge, replace, create, delete or remove, not '" + v + "'");
        }
        return op;
    }

    /** The children of an inner node; an empty container may come as an empty leaf (XML {@code <a/>}). */
    private static List<? extends EditNode> children(EditNode n, Target at) {
        if (n.isLeaf() && n.value() != null && !n.value().isBlank()) {
            throw new EditError(Kind.INVALID_VALUE, at, null, n.name() + " is not a leaf");
        }
        return n.children();
    }

    /** A list entry's key, from its data. */
    private static int key(EditNode entry, String name, Target list, int max) {
        EditNode k = entry.child(name);
        if (k == null || !VMM.equals(k.ns())) {
            throw new EditError(Kind.MISSING_ELEMENT, list, name, entry.name() + " needs its key " + name);
        }
        int v = integer(k, list);
        if (v < 1 || v > max) throw badValue(list, name, String.valueOf(v), "1.." + max);
        return v;
    }

    private static int integer(EditNode leaf, Target at) {
        String text = leaf.isLeaf() && leaf.value() != null ? leaf.value().trim() : "";
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw badValue(at, leaf.name(), text, "a whole number");
        }
    }

    /** A key leaf in an entry's data: it must be the entry's. */
    private static void sameKey(EditNode leaf, int expected, Target entry) {
        if (!leaf.isLeaf() || integer(leaf, entry) != expected) {
            throw new EditError(Kind.INVALID_VALUE, entry, leaf.name(), leaf.name() + " in the data (" + leaf.value()
                    + ") is not the entry's, " + expected);
        }
    }

    private static EditError badValue(Target at, String name, String v, String expected) {
        return new EditError(Kind.INVALID_VALUE, at, name, "'" + v + "' is not a valid value of " + name + ": expected " + expected);
    }

    private static EditError notConfig(Target at, String name) {
        return new EditError(Kind.NOT_CONFIG, at, name, name + " is state data (config false): it cannot be edited");
    }
}
