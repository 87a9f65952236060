package io.vrouter.api.restconf;

import io.vrouter.core.model.Column;
import io.vrouter.core.model.ConfigColumn;
import io.vrouter.core.model.NetworkColumn;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import io.vrouter.core.service.ChangeSet;
import io.vrouter.core.spi.VirtualRouters;
import io.vrouter.yang.Ns;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A RESTCONF write (a PUT, POST, PATCH, DELETE or every edit of a YANG Patch) made on a working copy
 * of the configuration it touches, then handed to the service as ONE change set: the difference
 * from the rows as read ({@link ChangeSet#between}), plus the creations whose vmIndex the service
 * picks. Only what RESTCONF's operations mean is here (create, merge, replace, delete, remove on
 * the config true nodes of NEW-VMM-MIB, the leaves parsed by the column table); every rule about VRs
 * is the service's, which checks the whole set before anything changes.
 */
final class ConfigEdit {
    /** The kinds of config true node of NEW-VMM-MIB that a write can name. */
    enum Kind { ROOT, TOP, CONFIG_TABLE, NETWORK_TABLE, CONFIG_ENTRY, CONFIG_LEAF, NETWORK_ENTRY, NETWORK_LEAF, KEY_LEAF }

    /**
     * A node a write names: the datastore, the top container, a table, an entry (by its keys), a
     * leaf of an entry (its column), or a key leaf (which names the entry and cannot change).
     */
    record Target(Kind kind, int vmIndex, Integer networkIndex, ConfigColumn configColumn, NetworkColumn networkColumn,
                  String key) {
        static final Target ROOT = new Target(Kind.ROOT, 0, null, null, null, null);
        static final Target TOP = new Target(Kind.TOP, 0, null, null, null, null);
        static final Target CONFIG_TABLE = new Target(Kind.CONFIG_TABLE, 0, null, null, null, null);
        static final Target NETWORK_TABLE = new Target(Kind.NETWORK_TABLE, 0, null, null, null, null);

        static Target configEntry(int vmIndex) {
            return new Target(Kind.CONFIG_ENTRY, vmIndex, null, null, null, null);
        }

        static Target networkEntry(int vmIndex, int networkIndex) {
            return new Target(Kind.NETWORK_ENTRY, vmIndex, networkIndex, null, null, null);
        }

        static Target configLeaf(int vmIndex, ConfigColumn c) {
            return new Target(Kind.CONFIG_LEAF, vmIndex, null, c, null, null);
        }

        static Target networkLeaf(int vmIndex, int networkIndex, NetworkColumn c) {
            return new Target(Kind.NETWORK_LEAF, vmIndex, networkIndex, null, c, null);
        }

        static Target keyLeaf(int vmIndex, Integer networkIndex, String key) {
            return new Target(Kind.KEY_LEAF, vmIndex, networkIndex, null, null, key);
        }
    }

    private static final String VMM = Ns.VMM;
    private static final Set<String> STATE = Set.of("vmHypervisor", "vmObjects", "vmTable", "vmCpuTable",
            "vmCpuAffinityTable", "vmStorageTable", "vmNetworkTable");

    private final VirtualRouters service;
    /** The rows read, as they were. */
    private final Map<Integer, VmConfigEntry> base = new TreeMap<>();
    /** The same rows as the write makes them (absent: removed); a row is copied before its first change. */
    private final Map<Integer, VmConfigEntry> work = new TreeMap<>();
    private final Set<Integer> read = new HashSet<>();
    /** New entries without a vmIndex: the service picks one. */
    private final List<VmConfigEntry> creations = new ArrayList<>();
    private boolean readAll;

    ConfigEdit(VirtualRouters service) {
        this.service = service;
    }

    // ------------------------------------------------------------------ the working copy

    private VmConfigEntry row(int vmIndex) {
        if (read.add(vmIndex)) {
            service.getConfig(vmIndex).ifPresent(r -> {
                base.put(vmIndex, r);
                work.put(vmIndex, r);
            });
        }
        return work.get(vmIndex);
    }

    /** The row to change, copied on its first change; null when there is none. */
    private VmConfigEntry mutable(int vmIndex) {
        VmConfigEntry r = row(vmIndex);
        if (r != null && r == base.get(vmIndex)) {
            r = r.copy();
            work.put(vmIndex, r);
        }
        return r;
    }

    private void readAll() {
        if (readAll) return;
        for (Integer i : service.indices()) row(i);
        readAll = true;
    }

    /** The change set of everything edited (empty when nothing changes), for the caller to add conditions to. */
    ChangeSet.Builder changes() {
        ChangeSet.Builder b = ChangeSet.builder();
        for (ChangeSet.Change c : ChangeSet.between(base, work).changes()) b.add(c);
        for (VmConfigEntry row : creations) b.create(row);
        return b;
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
        if (STATE.contains(table.name()) && table.ns().equals(VMM)) {
            throw RestconfError.notSupported(table.name() + " is state data (config false): it cannot be written");
        }
        boolean config = table.name().equals("vmConfigTable");
        if (!table.ns().equals(VMM) || !config && !table.name().equals("vmNetworkConfigTable") || table.keys() != null) {
            throw RestconfError.notFound("NEW-VMM-MIB has no " + table.name());
        }
        if (s.size() == 2) return config ? Target.CONFIG_TABLE : Target.NETWORK_TABLE;
        ApiPath.Step entry = s.get(2);
        String entryName = config ? "vmConfigEntry" : "vmNetworkConfigEntry";
        if (!entry.name().equals(entryName) || !entry.ns().equals(VMM)) {
            throw RestconfError.notFound(table.name() + " has no " + entry.name());
        }
        int keyCount = config ? 1 : 2;
        if (entry.keys() == null || entry.keys().size() != keyCount) {
            throw RestconfError.invalidValue(entryName + " is a list: name one entry by its " + (config ? "key (vmConfigEntry=5)"
                    : "keys (vmNetworkConfigEntry=5,1)"));
        }
        int vmIndex = index(entry.keys().get(0), "vmIndex");
        Integer networkIndex = config ? null : index(entry.keys().get(1), "vmNetworkConfigIndex");
        if (s.size() == 3) return config ? Target.configEntry(vmIndex) : Target.networkEntry(vmIndex, networkIndex);
        ApiPath.Step leaf = s.get(3);
        if (s.size() > 4 || leaf.keys() != null || !leaf.ns().equals(VMM)) {
            throw RestconfError.notFound(entryName + " has no " + leaf.name() + " below which to go");
        }
        if (leaf.name().equals("vmIndex") || !config && leaf.name().equals("vmNetworkConfigIndex")) {
            return Target.keyLeaf(vmIndex, networkIndex, leaf.name());
        }
        if (config) {
            ConfigColumn c = ConfigColumn.ofField(leaf.name());
            if (c == null) throw RestconfError.notFound("vmConfigEntry has no leaf " + leaf.name());
            return Target.configLeaf(vmIndex, c);
        }
        NetworkColumn c = NetworkColumn.ofField(leaf.name());
        if (c == null) throw RestconfError.notFound("vmNetworkConfigEntry has no leaf " + leaf.name());
        return Target.networkLeaf(vmIndex, networkIndex, c);
    }

    private static int index(String text, String key) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw RestconfError.invalidValue(key + " '" + text + "' is not a whole number");
        }
    }

    /** The node name of a target (what the body of a PUT or PATCH must be), null for the datastore. */
    static String name(Target t) {
        return switch (t.kind()) {
            case ROOT -> null;
            case TOP -> "NEW-VMM-MIB";
            case CONFIG_TABLE -> "vmConfigTable";
            case NETWORK_TABLE -> "vmNetworkConfigTable";
            case CONFIG_ENTRY -> "vmConfigEntry";
            case NETWORK_ENTRY -> "vmNetworkConfigEntry";
            case CONFIG_LEAF -> t.configColumn().field();
            case NETWORK_LEAF -> t.networkColumn().field();
            case KEY_LEAF -> t.key();
        };
    }

    /** Where a target is, for error-path. */
    static DataPath path(Target t) {
        return switch (t.kind()) {
            case ROOT -> null;
            case TOP -> DataPath.TOP;
            case CONFIG_TABLE -> DataPath.CONFIG_TABLE;
            case NETWORK_TABLE -> DataPath.NETWORK_TABLE;
            case CONFIG_ENTRY -> DataPath.configEntry(t.vmIndex());
            case NETWORK_ENTRY -> DataPath.networkEntry(t.vmIndex(), t.networkIndex());
            case CONFIG_LEAF -> DataPath.configEntry(t.vmIndex()).child(t.configColumn().field());
            case NETWORK_LEAF -> DataPath.networkEntry(t.vmIndex(), t.networkIndex()).child(t.networkColumn().field());
            case KEY_LEAF -> entryOf(t).child(t.key());
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
            case TOP -> n.equals("vmConfigTable") ? Target.CONFIG_TABLE : n.equals("vmNetworkConfigTable")
                    ? Target.NETWORK_TABLE : stateOrUnknown(n, "NEW-VMM-MIB");
            case CONFIG_TABLE -> {
                if (!n.equals("vmConfigEntry")) yield stateOrUnknown(n, "vmConfigTable");
                InNode key = data.child("vmIndex");
                yield key == null ? null : Target.configEntry(index(key.value(), "vmIndex"));
            }
            case NETWORK_TABLE -> {
                if (!n.equals("vmNetworkConfigEntry")) yield stateOrUnknown(n, "vmNetworkConfigTable");
                InNode vm = data.child("vmIndex");
                InNode net = data.child("vmNetworkConfigIndex");
                if (vm == null || net == null) {
                    throw RestconfError.invalidValue("a vmNetworkConfigEntry needs its keys vmIndex and vmNetworkConfigIndex")
                            .at(DataPath.NETWORK_TABLE);
                }
                yield Target.networkEntry(index(vm.value(), "vmIndex"), index(net.value(), "vmNetworkConfigIndex"));
            }
            case CONFIG_ENTRY -> leafTarget(parent.vmIndex(), null, n);
            case NETWORK_ENTRY -> leafTarget(parent.vmIndex(), parent.networkIndex(), n);
            default -> throw RestconfError.invalidValue("a leaf has no children to create");
        };
    }

    private static Target leafTarget(int vmIndex, Integer networkIndex, String name) {
        ApiPath.Step top = new ApiPath.Step(VMM, "NEW-VMM-MIB", null);
        ApiPath.Step table = new ApiPath.Step(VMM, networkIndex == null ? "vmConfigTable" : "vmNetworkConfigTable", null);
        ApiPath.Step entry = new ApiPath.Step(VMM, networkIndex == null ? "vmConfigEntry" : "vmNetworkConfigEntry",
                networkIndex == null ? List.of(Integer.toString(vmIndex)) : List.of(Integer.toString(vmIndex), networkIndex.toString()));
        return target(new ApiPath(List.of(top, table, entry, new ApiPath.Step(VMM, name, null))));
    }

    private static Target stateOrUnknown(String name, String parent) {
        if (STATE.contains(name)) throw RestconfError.notSupported(name + " is state data (config false): it cannot be written");
        throw RestconfError.unknownElement(parent + " has no " + name).at(DataPath.TOP);
    }

    // ------------------------------------------------------------------ what exists

    boolean exists(Target t) {
        return switch (t.kind()) {
            case CONFIG_ENTRY -> row(t.vmIndex()) != null;
            case CONFIG_LEAF -> row(t.vmIndex()) != null && t.configColumn().get(row(t.vmIndex())) != null;
            case NETWORK_ENTRY -> iface(t.vmIndex(), t.networkIndex()) != null;
            case NETWORK_LEAF -> iface(t.vmIndex(), t.networkIndex()) != null
                    && t.networkColumn().get(iface(t.vmIndex(), t.networkIndex())) != null;
            case KEY_LEAF -> true;
            default -> true; // the datastore, the top container and the tables are always there
        };
    }

    private VmNetworkConfigEntry iface(int vmIndex, int networkIndex) {
        VmConfigEntry r = row(vmIndex);
        if (r == null) return null;
        for (VmNetworkConfigEntry n : r.interfaces()) {
            if (n.vmNetworkConfigIndex != null && n.vmNetworkConfigIndex == networkIndex) return n;
        }
        return null;
    }

    // ------------------------------------------------------------------ operations (RFC 8072 section 2.5)

    /** create: the target must not exist; then as merge. A new VR without vmIndex gets one from the service. */
    void create(Target t, InNode data) {
        if (t == null) {
            VmConfigEntry row = new VmConfigEntry();
            columns(row, data, DataPath.CONFIG_TABLE.child("vmConfigEntry"), null);
            creations.add(row);
            return;
        }
        if (exists(t)) throw RestconfError.dataExists(describe(t) + " exists already").at(path(t));
        merge(t, data);
    }

    /** merge: the data into the target, creating what is missing. */
    void merge(Target t, InNode data) {
        write(t, data, false);
    }

    /** replace: the target becomes the data, created if missing. */
    void replace(Target t, InNode data) {
        write(t, data, true);
    }

    /** delete: the target must exist; then as remove. */
    void delete(Target t) {
        if (!exists(t)) throw RestconfError.dataMissing(describe(t) + " does not exist").at(path(t));
        remove(t);
    }

    /** remove: the target goes, if it is there (a leaf goes back to its default). */
    void remove(Target t) {
        switch (t.kind()) {
            case ROOT -> clearAll();
            case TOP -> clearAll();
            case CONFIG_TABLE -> clearAll();
            case NETWORK_TABLE -> {
                readAll();
                for (Integer i : List.copyOf(work.keySet())) mutable(i).vmNetworkConfigTable = null;
            }
            case CONFIG_ENTRY -> {
                row(t.vmIndex());
                work.remove(t.vmIndex());
            }
            case CONFIG_LEAF -> {
                if (row(t.vmIndex()) != null) t.configColumn().set(mutable(t.vmIndex()), null);
            }
            case NETWORK_ENTRY -> {
                if (iface(t.vmIndex(), t.networkIndex()) == null) return;
                VmConfigEntry r = mutable(t.vmIndex());
                List<VmNetworkConfigEntry> list = new ArrayList<>(r.interfaces());
                list.removeIf(n -> t.networkIndex().equals(n.vmNetworkConfigIndex));
                r.vmNetworkConfigTable = list.isEmpty() ? null : list;
            }
            case NETWORK_LEAF -> {
                if (iface(t.vmIndex(), t.networkIndex()) != null) {
                    VmNetworkConfigEntry n = mutableIface(t.vmIndex(), t.networkIndex(), false);
                    t.networkColumn().set(n, null);
                }
            }
            case KEY_LEAF -> throw RestconfError.invalidValue(t.key() + " is a key: delete the entry instead")
                    .at(path(t));
        }
    }

    private void clearAll() {
        readAll();
        work.clear();
    }

    private void write(Target t, InNode data, boolean replace) {
        String expected = name(t);
        if (expected != null && (!data.name().equals(expected) || !data.ns().equals(VMM))) {
            throw RestconfError.invalidValue("the body must be the target's node, " + expected + ", not " + data.name())
                    .at(path(t));
        }
        switch (t.kind()) {
            case ROOT -> {
                if (replace) clearAll();
                for (InNode top : data.ns().equals(Ns.RESTCONF) && data.name().equals("data") ? children(data) : List.of(data)) {
                    Target c = child(t, top);
                    write(c, top, false);
                }
            }
            case TOP -> {
                if (replace) clearAll();
                // Entries first, so that interfaces of a VR the same body creates find their VR.
                for (InNode c : children(data)) {
                    if (c.name().equals("vmConfigTable")) write(Target.CONFIG_TABLE, c, false);
                }
                for (InNode c : children(data)) {
                    Target ct = child(t, c);
                    if (ct.kind() == Kind.NETWORK_TABLE) write(ct, c, false);
                }
            }
            case CONFIG_TABLE -> {
                if (replace) {
                    readAll();
                    Set<Integer> kept = new HashSet<>();
                    for (InNode e : children(data)) kept.add(keyOf(e));
                    for (Integer i : List.copyOf(work.keySet())) {
                        if (!kept.contains(i)) work.remove(i);
                    }
                }
                for (InNode e : children(data)) write(Target.configEntry(keyOf(e)), e, replace);
            }
            case NETWORK_TABLE -> {
                if (replace) remove(t);
                for (InNode e : children(data)) write(child(t, e), e, replace);
            }
            case CONFIG_ENTRY -> {
                VmConfigEntry was = row(t.vmIndex());
                VmConfigEntry r;
                if (was == null || replace) {
                    r = new VmConfigEntry();
                    r.vmIndex = t.vmIndex();
                    if (was != null) r.vmNetworkConfigTable = was.vmNetworkConfigTable;
                } else {
                    r = mutable(t.vmIndex());
                }
                columns(r, data, path(t), t.vmIndex());
                work.put(t.vmIndex(), r);
            }
            case NETWORK_ENTRY -> {
                if (row(t.vmIndex()) == null) {
                    throw new RestconfError(409, "application", "data-missing", "instance-required", path(t),
                            "VR " + t.vmIndex() + " has no vmConfigEntry for this interface");
                }
                VmNetworkConfigEntry n = mutableIface(t.vmIndex(), t.networkIndex(), replace);
                for (InNode leaf : children(data)) {
                    if (leaf.name().equals("vmIndex")) {
                        sameKey(leaf, t.vmIndex(), path(t));
                    } else if (leaf.name().equals("vmNetworkConfigIndex")) {
                        sameKey(leaf, t.networkIndex(), path(t));
                    } else {
                        NetworkColumn c = NetworkColumn.ofField(leaf.name());
                        if (c == null || !leaf.isLeaf()) {
                            throw RestconfError.unknownElement("vmNetworkConfigEntry has no leaf " + leaf.name()).at(path(t));
                        }
                        c.set(n, parse(c, leaf, path(t).child(leaf.name())));
                    }
                }
            }
            case CONFIG_LEAF -> {
                if (row(t.vmIndex()) == null) {
                    throw RestconfError.notFound("no VR with vmIndex " + t.vmIndex()).at(DataPath.configEntry(t.vmIndex()));
                }
                t.configColumn().set(mutable(t.vmIndex()), parse(t.configColumn(), data, path(t)));
            }
            case NETWORK_LEAF -> {
                if (iface(t.vmIndex(), t.networkIndex()) == null) {
                    throw RestconfError.notFound("VR " + t.vmIndex() + " has no interface " + t.networkIndex())
                            .at(DataPath.networkEntry(t.vmIndex(), t.networkIndex()));
                }
                t.networkColumn().set(mutableIface(t.vmIndex(), t.networkIndex(), false), parse(t.networkColumn(), data, path(t)));
            }
            case KEY_LEAF -> throw RestconfError.invalidValue(t.key() + " is a key: it cannot change").at(path(t));
        }
    }

    /** The children of an inner node; an empty container may come as an empty leaf (XML {@code <a/>}). */
    private static List<InNode> children(InNode data) {
        if (data.isLeaf() && !data.value().isBlank()) {
            throw RestconfError.invalidValue(data.name() + " is not a leaf");
        }
        return data.children();
    }

    private int keyOf(InNode entry) {
        Target t = child(Target.CONFIG_TABLE, entry);
        if (t == null) {
            throw RestconfError.invalidValue("a vmConfigEntry needs its key vmIndex (POST it to vmConfigTable to have one"
                    + " picked)").at(DataPath.CONFIG_TABLE);
        }
        return t.vmIndex();
    }

    /** The interface to change: a copy in a copied row; a fresh one (only its index) when new or replaced. */
    private VmNetworkConfigEntry mutableIface(int vmIndex, int networkIndex, boolean fresh) {
        VmConfigEntry r = mutable(vmIndex);
        List<VmNetworkConfigEntry> list = new ArrayList<>(r.interfaces());
        VmNetworkConfigEntry n = null;
        for (int i = 0; i < list.size(); i++) {
            if (list.get(i).vmNetworkConfigIndex != null && list.get(i).vmNetworkConfigIndex == networkIndex) {
                n = fresh ? new VmNetworkConfigEntry() : list.get(i).copy();
                n.vmNetworkConfigIndex = networkIndex;
                list.set(i, n);
            }
        }
        if (n == null) {
            n = new VmNetworkConfigEntry();
            n.vmNetworkConfigIndex = networkIndex;
            list.add(n);
        }
        r.vmNetworkConfigTable = list;
        return n;
    }

    /** Sets the columns a vmConfigEntry body gives; its vmIndex, if given, must be {@code vmIndex}. */
    private static void columns(VmConfigEntry row, InNode data, DataPath where, Integer vmIndex) {
        for (InNode leaf : children(data)) {
            if (!leaf.ns().equals(VMM)) throw RestconfError.unknownElement(leaf.name() + " is not of NEW-VMM-MIB").at(where);
            if (leaf.name().equals("vmIndex")) {
                if (vmIndex != null) sameKey(leaf, vmIndex, where);
                continue;
            }
            ConfigColumn c = ConfigColumn.ofField(leaf.name());
            if (c == null || !leaf.isLeaf()) {
                String hint = leaf.name().startsWith("vmNetworkConfig") ? " (interfaces are entries of vmNetworkConfigTable)" : "";
                throw RestconfError.unknownElement("vmConfigEntry has no leaf " + leaf.name() + hint).at(where);
            }
            c.set(row, parse(c, leaf, where.child(leaf.name())));
        }
    }

    private static void sameKey(InNode leaf, int expected, DataPath where) {
        if (!leaf.isLeaf() || !leaf.value().equals(Integer.toString(expected))) {
            throw RestconfError.invalidValue(leaf.name() + " in the body (" + leaf.value() + ") is not the entry's, "
                    + expected).at(where.child(leaf.name()));
        }
    }

    /** A leaf's text as its column's kind of value. */
    private static Object parse(Column<?> c, InNode leaf, DataPath where) {
        if (!leaf.isLeaf()) throw RestconfError.invalidValue(leaf.name() + " is a leaf, not a container").at(where);
        try {
            return c.kind().parse(leaf.value());
        } catch (IllegalArgumentException e) {
            throw new RestconfError(400, "application", "invalid-value", null, where, e.getMessage());
        }
    }

    private static DataPath entryOf(Target key) {
        return key.networkIndex() == null ? DataPath.configEntry(key.vmIndex())
                : DataPath.networkEntry(key.vmIndex(), key.networkIndex());
    }

    private static String describe(Target t) {
        DataPath p = path(t);
        return p == null ? "the datastore" : p.json();
    }
}
