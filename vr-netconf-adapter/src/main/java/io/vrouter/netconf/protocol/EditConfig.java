package io.vrouter.netconf.protocol;

import io.vrouter.core.model.Column;
import io.vrouter.core.model.ConfigColumn;
import io.vrouter.core.model.NetworkColumn;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import io.vrouter.yang.Ns;
import io.vrouter.netconf.protocol.RpcError.Type;
import io.vrouter.netconf.xml.SecureXml;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.w3c.dom.Element;

/**
 * Applies the {@code <config>} of an edit-config (RFC 6241 section 7.2) to a copy of a configuration
 * datastore: the operations merge, replace, create, delete, remove and none, on the NEW-VMM-MIB
 * container, the two tables, their entries and their leaves, each leaf parsed by the kind the column
 * table gives it. What the edited configuration may be is the service's to say ({@link Changes}).
 *
 * <p>Entries are replaced whole in the copy only once they are complete, so an error leaves each
 * entry either as it was or fully edited; with {@code continue-on-error} the failing entry is skipped
 * and the others are edited; with the other options the edit stops at the first error. Whether an
 * edit with errors is applied at all is the caller's decision (test-option and error-option).
 */
public final class EditConfig {
    public enum Op { MERGE, REPLACE, CREATE, DELETE, REMOVE, NONE }

    public enum ErrorOption { STOP_ON_ERROR, CONTINUE_ON_ERROR, ROLLBACK_ON_ERROR }

    private static final Set<String> STATE = Set.of("vmHypervisor", "vmObjects", "vmTable", "vmCpuTable",
            "vmCpuAffinityTable", "vmStorageTable", "vmNetworkTable");

    private final ConfigData data;
    private final ErrorOption errorOption;
    private final List<RpcError> errors = new ArrayList<>();
    private boolean stopped;

    /** @param data the copy to edit */
    public EditConfig(ConfigData data, ErrorOption errorOption) {
        this.data = data;
        this.errorOption = errorOption;
    }

    public ConfigData data() {
        return data;
    }

    public List<RpcError> errors() {
        return errors;
    }

    /** Applies the children of {@code <config>}; returns the errors (empty on success). */
    public List<RpcError> apply(Element config, Op defaultOp) {
        for (Element top : SecureXml.children(config)) {
            if (stopped) break;
            try {
                if (!Ns.VMM.equals(top.getNamespaceURI()) || !"NEW-VMM-MIB".equals(top.getLocalName())) {
                    throw RpcError.unknownElement(Type.APPLICATION, "/", top.getLocalName(),
                            "unknown element '" + top.getLocalName() + "' in namespace '" + top.getNamespaceURI()
                                    + "': this server has the data of module NEW-VMM-MIB (" + Ns.VMM + ")");
                }
                root(top, operation(top, defaultOp, Paths.ROOT));
            } catch (RpcError e) {
                fail(e);
            }
        }
        return errors;
    }

    private void fail(RpcError e) {
        errors.add(e);
        if (errorOption != ErrorOption.CONTINUE_ON_ERROR) stopped = true;
    }

    // ------------------------------------------------------------------ containers

    private void root(Element top, Op op) throws RpcError {
        if (containerOp(op, Paths.ROOT, !data.isEmpty())) return;
        // vmConfigTable first, so that interfaces of a VR created in the same edit find it.
        List<Element> kids = SecureXml.children(top);
        List<Element> ordered = new ArrayList<>();
        for (Element k : kids) if ("vmConfigTable".equals(k.getLocalName())) ordered.add(k);
        for (Element k : kids) if (!"vmConfigTable".equals(k.getLocalName())) ordered.add(k);
        for (Element k : ordered) {
            if (stopped) return;
            String name = k.getLocalName();
            if (!Ns.VMM.equals(k.getNamespaceURI())) {
                throw RpcError.unknownElement(Type.APPLICATION, Paths.ROOT, name, "unknown element '" + name + "'");
            }
            if (STATE.contains(name)) {
                throw RpcError.invalidValue(Paths.child(Paths.ROOT, name), name
                        + " is state data (config false): it cannot be edited").info("bad-element", name);
            }
            Op kop = operation(k, op, Paths.child(Paths.ROOT, name));
            switch (name) {
                case "vmConfigTable" -> configTable(k, kop);
                case "vmNetworkConfigTable" -> networkTable(k, kop);
                default -> throw RpcError.unknownElement(Type.APPLICATION, Paths.ROOT, name,
                        "NEW-VMM-MIB has no node '" + name + "'");
            }
        }
    }

    /**
     * Handles delete, remove and replace on a container holding everything of the datastore;
     * returns true when the children need no further processing.
     */
    private boolean containerOp(Op op, String path, boolean exists) throws RpcError {
        switch (op) {
            case DELETE:
                if (!exists) throw dataMissing(path, "there is no data to delete");
                data.clear();
                return true;
            case REMOVE:
                data.clear();
                return true;
            case CREATE:
                if (exists) throw dataExists(path, "the data exists already");
                return false;
            case REPLACE:
                data.clear();
                return false;
            default:
                return false;
        }
    }

    private void configTable(Element table, Op op) throws RpcError {
        if (containerOp(op, Paths.CONFIG_TABLE, !data.isEmpty())) return;
        for (Element e : SecureXml.children(table)) {
            if (stopped) return;
            if (!"vmConfigEntry".equals(e.getLocalName()) || !Ns.VMM.equals(e.getNamespaceURI())) {
                fail(RpcError.unknownElement(Type.APPLICATION, Paths.CONFIG_TABLE, e.getLocalName(),
                        "vmConfigTable holds vmConfigEntry elements only, not '" + e.getLocalName() + "'"));
                continue;
            }
            try {
                configEntry(e, operation(e, op, Paths.CONFIG_TABLE));
            } catch (RpcError err) {
                fail(err);
            }
        }
    }

    private void networkTable(Element table, Op op) throws RpcError {
        switch (op) {
            case DELETE:
            case REMOVE:
            case REPLACE:
                if (op == Op.DELETE && !anyInterface()) throw dataMissing(Paths.NETWORK_TABLE, "there are no interfaces to delete");
                List<VmConfigEntry> withInterfaces = new ArrayList<>();
                for (VmConfigEntry c : data.values()) if (!c.interfaces().isEmpty()) withInterfaces.add(c);
                for (VmConfigEntry c : withInterfaces) {
                    VmConfigEntry n = c.copy();
                    n.vmNetworkConfigTable = null;
                    data.put(n);
                }
                if (op != Op.REPLACE) return;
                break;
            case CREATE:
                if (anyInterface()) throw dataExists(Paths.NETWORK_TABLE, "vmNetworkConfigTable exists already");
                break;
            default:
                break;
        }
        for (Element e : SecureXml.children(table)) {
            if (stopped) return;
            if (!"vmNetworkConfigEntry".equals(e.getLocalName()) || !Ns.VMM.equals(e.getNamespaceURI())) {
                fail(RpcError.unknownElement(Type.APPLICATION, Paths.NETWORK_TABLE, e.getLocalName(),
                        "vmNetworkConfigTable holds vmNetworkConfigEntry elements only, not '" + e.getLocalName() + "'"));
                continue;
            }
            try {
                networkEntry(e, operation(e, op, Paths.NETWORK_TABLE));
            } catch (RpcError err) {
                fail(err);
            }
        }
    }

    /** Whether any VR has an interface (reads every row: only the operations on the whole table ask). */
    private boolean anyInterface() {
        for (VmConfigEntry c : data.values()) if (!c.interfaces().isEmpty()) return true;
        return false;
    }

    // ------------------------------------------------------------------ vmConfigEntry

    private void configEntry(Element e, Op op) throws RpcError {
        int vmIndex = key(e, "vmIndex", Paths.CONFIG_TABLE + "/" + Ns.VMM_PREFIX + ":vmConfigEntry", 1, Integer.MAX_VALUE);
        String path = Paths.entry(vmIndex);
        VmConfigEntry existing = data.get(vmIndex);
        switch (op) {
            case DELETE:
                if (existing == null) throw dataMissing(path, "there is no VR with vmIndex " + vmIndex);
                data.remove(vmIndex);
                return;
            case REMOVE:
                data.remove(vmIndex);
                return;
            case CREATE:
                if (existing != null) throw dataExists(path, "a VR with vmIndex " + vmIndex + " exists already");
                break;
            case NONE:
                if (existing == null) throw dataMissing(path, "there is no VR with vmIndex " + vmIndex);
                break;
            default:
                break;
        }
        VmConfigEntry row;
        if (existing == null) {
            row = new VmConfigEntry();
            row.vmIndex = vmIndex;
        } else {
            row = existing.copy();
        }
        if (op == Op.REPLACE && existing != null) {
            // The entry's leaves are replaced; its interfaces are another list and stay.
            VmConfigEntry fresh = new VmConfigEntry();
            fresh.vmIndex = vmIndex;
            fresh.vmNetworkConfigTable = row.vmNetworkConfigTable;
            row = fresh;
        }
        Op leafDefault = op == Op.CREATE || op == Op.REPLACE ? Op.MERGE : op;
        for (Element leaf : SecureXml.children(e)) {
            String name = leaf.getLocalName();
            if (!Ns.VMM.equals(leaf.getNamespaceURI())) {
                throw RpcError.unknownElement(Type.APPLICATION, path, name, "unknown element '" + name + "'");
            }
            if (name.equals("vmIndex")) continue;
            String lpath = Paths.child(path, name);
            Op lop = operation(leaf, leafDefault, lpath);
            ConfigColumn column = ConfigColumn.ofField(name);
            if (column == null) {
                throw RpcError.unknownElement(Type.APPLICATION, path, name, "vmConfigEntry has no leaf '" + name + "'");
            }
            leaf(leaf, column, row, lop, existing != null && op != Op.REPLACE, lpath);
        }
        data.put(row);
    }

    /** One leaf of an entry: its operation, and its value parsed as the column's kind. */
    private static <R> void leaf(Element leaf, Column<R> column, R row, Op lop, boolean existed, String lpath)
            throws RpcError {
        String name = column.field();
        if (!SecureXml.children(leaf).isEmpty()) {
            throw RpcError.invalidValue(lpath, name + " is a leaf: it has no child elements").info("bad-element", name);
        }
        boolean set = column.get(row) != null;
        switch (lop) {
            case NONE:
                return;
            case DELETE:
                if (!set) throw dataMissing(lpath, name + " is not set");
                column.set(row, null);
                return;
            case REMOVE:
                column.set(row, null);
                return;
            case CREATE:
                if (set && existed) throw dataExists(lpath, name + " is set already");
                break;
            default:
                break;
        }
        String v = SecureXml.text(leaf).trim();
        try {
            column.set(row, column.kind().parse(v));
        } catch (IllegalArgumentException e) {
            throw badValue(lpath, name, v, column.kind().expected());
        }
    }

    // ------------------------------------------------------------------ vmNetworkConfigEntry

    private void networkEntry(Element e, Op op) throws RpcError {
        String listPath = Paths.NETWORK_TABLE + "/" + Ns.VMM_PREFIX + ":vmNetworkConfigEntry";
        int vmIndex = key(e, "vmIndex", listPath, 1, Integer.MAX_VALUE);
        int netIndex = key(e, "vmNetworkConfigIndex", listPath, 1, NetworkColumn.MAX_INDEX);
        String path = Paths.networkEntry(vmIndex, netIndex);
        VmConfigEntry vr = data.get(vmIndex);
        VmNetworkConfigEntry existing = null;
        if (vr != null) {
            for (VmNetworkConfigEntry n : vr.interfaces()) {
                if (n.vmNetworkConfigIndex == netIndex) existing = n;
            }
        }
        if (op == Op.DELETE && existing == null) throw dataMissing(path, "there is no such interface");
        if (op == Op.CREATE && existing != null) throw dataExists(path, "the interface exists already");
        if (op == Op.NONE && existing == null) throw dataMissing(path, "there is no such interface");
        if (op == Op.REMOVE && existing == null) return;
        if (vr == null) {
            throw new RpcError(Type.APPLICATION, "data-missing", "instance-required", Paths.child(path, "vmIndex"),
                    "vmIndex " + vmIndex + " names no vmConfigEntry: create the VR first (or in the same edit)");
        }
        List<VmNetworkConfigEntry> ifaces = new ArrayList<>(vr.interfaces());
        ifaces.removeIf(n -> n.vmNetworkConfigIndex == netIndex);
        if (op != Op.DELETE && op != Op.REMOVE) {
            VmNetworkConfigEntry row;
            if (existing == null || op == Op.REPLACE) {
                row = new VmNetworkConfigEntry();
                row.vmNetworkConfigIndex = netIndex;
            } else {
                row = existing.copy();
            }
            Op leafDefault = op == Op.CREATE || op == Op.REPLACE ? Op.MERGE : op;
            for (Element leaf : SecureXml.children(e)) {
                String name = leaf.getLocalName();
                if (name.equals("vmIndex") || name.equals("vmNetworkConfigIndex")) continue;
                String lpath = Paths.child(path, name);
                NetworkColumn column = Ns.VMM.equals(leaf.getNamespaceURI()) ? NetworkColumn.ofField(name) : null;
                if (column == null) {
                    throw RpcError.unknownElement(Type.APPLICATION, path, name,
                            "vmNetworkConfigEntry has no leaf '" + name + "'");
                }
                leaf(leaf, column, row, operation(leaf, leafDefault, lpath), existing != null && op != Op.REPLACE, lpath);
            }
            ifaces.add(row);
            ifaces.sort((a, b) -> Integer.compare(a.vmNetworkConfigIndex, b.vmNetworkConfigIndex));
        }
        VmConfigEntry next = vr.copy();
        next.vmNetworkConfigTable = ifaces.isEmpty() ? null : ifaces;
        data.put(next);
    }

    // ------------------------------------------------------------------ helpers

    /** The element's operation attribute, or the inherited one. */
    static Op operation(Element e, Op inherited, String path) throws RpcError {
        String v = e.getAttributeNS(Ns.BASE, "operation");
        if (v == null || v.isEmpty()) return inherited;
        return switch (v) {
            case "merge" -> Op.MERGE;
            case "replace" -> Op.REPLACE;
            case "create" -> Op.CREATE;
            case "delete" -> Op.DELETE;
            case "remove" -> Op.REMOVE;
            default -> throw new RpcError(Type.PROTOCOL, "bad-attribute", null, path,
                    "operation must be merge, replace, create, delete or remove, not '" + v + "'")
                    .info("bad-attribute", "operation").info("bad-element", e.getLocalName());
        };
    }

    private static int key(Element entry, String name, String listPath, int min, int max) throws RpcError {
        Element k = SecureXml.child(entry, Ns.VMM, name);
        if (k == null) {
            throw RpcError.missingElement(Type.PROTOCOL, listPath, name, entry.getLocalName() + " needs its key " + name);
        }
        int v = integer(Paths.child(listPath, name), name, SecureXml.text(k).trim());
        if (v < min || v > max) throw badValue(Paths.child(listPath, name), name, String.valueOf(v), min + ".." + max);
        return v;
    }

    private static int integer(String path, String name, String v) throws RpcError {
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw badValue(path, name, v, "a whole number");
        }
    }

    private static RpcError badValue(String path, String name, String v, String expected) {
        return RpcError.invalidValue(path, "'" + v + "' is not a valid value of " + name + ": expected " + expected)
                .info("bad-element", name);
    }

    private static RpcError dataMissing(String path, String message) {
        return new RpcError(Type.APPLICATION, "data-missing", null, path, message);
    }

    private static RpcError dataExists(String path, String message) {
        return new RpcError(Type.APPLICATION, "data-exists", null, path, message);
    }
}
