package io.vrouter.netconf.protocol;

import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.InetAddressType;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import io.vrouter.core.service.ValidationException;
import io.vrouter.core.service.Validator;
import io.vrouter.netconf.Ns;
import io.vrouter.netconf.protocol.RpcError.Type;
import io.vrouter.netconf.xml.SecureXml;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.w3c.dom.Element;

/**
 * Applies the {@code <config>} of an edit-config (RFC 6241 section 7.2) to a copy of a configuration
 * datastore: the operations merge, replace, create, delete, remove and none, on the NEW-VMM-MIB
 * container, the two tables, their entries and their leaves; then validates the result as YANG and
 * the core's rules require.
 *
 * <p>Entries are replaced whole in the copy only once they are complete, so an error leaves each
 * entry either as it was or fully edited; with {@code continue-on-error} the failing entry is skipped
 * and the others are edited; with the other options the edit stops at the first error. The entries
 * edited are then validated, and one that fails is put back as it was. Whether an edit with errors
 * is applied at all is the caller's decision (test-option and error-option).
 */
public final class EditConfig {
    public enum Op { MERGE, REPLACE, CREATE, DELETE, REMOVE, NONE }

    public enum ErrorOption { STOP_ON_ERROR, CONTINUE_ON_ERROR, ROLLBACK_ON_ERROR }

    private static final Set<String> STATE = Set.of("vmHypervisor", "vmObjects", "vmTable", "vmCpuTable",
            "vmCpuAffinityTable", "vmStorageTable", "vmNetworkTable");

    private final ConfigData data;
    private final ConfigData running;
    private final ErrorOption errorOption;
    private final List<RpcError> errors = new ArrayList<>();
    /** Entries this edit created or changed: they are validated at the end. */
    private final Set<Integer> touched = new HashSet<>();
    private boolean stopped;
    /** The datastore before the edit, to put back entries that fail validation. */
    private final ConfigData before;

    /**
     * @param data    the copy to edit
     * @param running the running configuration, to refuse changes of what cannot change on an existing VR
     */
    public EditConfig(ConfigData data, ConfigData running, ErrorOption errorOption) {
        this.data = data;
        this.before = data.copy();
        this.running = running;
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
        validate();
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
                for (VmConfigEntry c : new ArrayList<>(data.values())) data.remove(c.vmIndex);
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
        boolean any = data.values().stream().anyMatch(c -> !c.interfaces().isEmpty());
        switch (op) {
            case DELETE:
            case REMOVE:
            case REPLACE:
                if (op == Op.DELETE && !any) throw dataMissing(Paths.NETWORK_TABLE, "there are no interfaces to delete");
                for (VmConfigEntry c : new ArrayList<>(data.values())) {
                    if (c.interfaces().isEmpty()) continue;
                    VmConfigEntry n = c.copy();
                    n.vmNetworkConfigTable = null;
                    data.put(n);
                    touched.add(n.vmIndex);
                }
                if (op != Op.REPLACE) return;
                break;
            case CREATE:
                if (any) throw dataExists(Paths.NETWORK_TABLE, "vmNetworkConfigTable exists already");
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
            if (!CONFIG_LEAVES.contains(name)) {
                throw RpcError.unknownElement(Type.APPLICATION, path, name, "vmConfigEntry has no leaf '" + name + "'");
            }
            if (!SecureXml.children(leaf).isEmpty()) {
                throw RpcError.invalidValue(lpath, name + " is a leaf: it has no child elements").info("bad-element", name);
            }
            boolean set = configLeaf(row, name) != null;
            switch (lop) {
                case NONE:
                    continue;
                case DELETE:
                    if (!set) throw dataMissing(lpath, name + " is not set");
                    setConfigLeaf(row, name, null, lpath);
                    continue;
                case REMOVE:
                    setConfigLeaf(row, name, null, lpath);
                    continue;
                case CREATE:
                    if (set && existing != null && op != Op.REPLACE) throw dataExists(lpath, name + " is set already");
                    break;
                default:
                    break;
            }
            setConfigLeaf(row, name, SecureXml.text(leaf).trim(), lpath);
        }
        data.put(row);
        touched.add(vmIndex);
    }

    private static final List<String> CONFIG_LEAVES = List.of("vmName", "vmAdminState", "vmConfigTemplate",
            "vmConfigCpuNumber", "vmConfigMemory", "vmConfigAutoStart");

    private static Object configLeaf(VmConfigEntry r, String name) {
        return switch (name) {
            case "vmName" -> r.vmName;
            case "vmAdminState" -> r.vmAdminState;
            case "vmConfigTemplate" -> r.vmConfigTemplate;
            case "vmConfigCpuNumber" -> r.vmConfigCpuNumber;
            case "vmConfigMemory" -> r.vmConfigMemory;
            case "vmConfigAutoStart" -> r.vmConfigAutoStart;
            default -> null;
        };
    }

    private static void setConfigLeaf(VmConfigEntry r, String name, String v, String path) throws RpcError {
        switch (name) {
            case "vmName" -> r.vmName = v;
            case "vmAdminState" -> {
                try {
                    r.vmAdminState = v == null ? null : AdminState.ofLabel(v);
                } catch (IllegalArgumentException ex) {
                    throw badValue(path, name, v, "running, suspended, paused or shutdown");
                }
            }
            case "vmConfigTemplate" -> r.vmConfigTemplate = v;
            case "vmConfigCpuNumber" -> r.vmConfigCpuNumber = v == null ? null : integer(path, name, v);
            case "vmConfigMemory" -> r.vmConfigMemory = v == null ? null : integer(path, name, v);
            case "vmConfigAutoStart" -> {
                if (v == null) r.vmConfigAutoStart = null;
                else if (v.equals("true")) r.vmConfigAutoStart = Boolean.TRUE;
                else if (v.equals("false")) r.vmConfigAutoStart = Boolean.FALSE;
                else throw badValue(path, name, v, "true or false");
            }
            default -> throw new IllegalArgumentException(name);
        }
    }

    // ------------------------------------------------------------------ vmNetworkConfigEntry

    private void networkEntry(Element e, Op op) throws RpcError {
        String listPath = Paths.NETWORK_TABLE + "/" + Ns.VMM_PREFIX + ":vmNetworkConfigEntry";
        int vmIndex = key(e, "vmIndex", listPath, 1, Integer.MAX_VALUE);
        int netIndex = key(e, "vmNetworkConfigIndex", listPath, 1, Validator.MAX_NETWORK_INDEX);
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
                if (!Ns.VMM.equals(leaf.getNamespaceURI()) || !NETWORK_LEAVES.contains(name)) {
                    throw RpcError.unknownElement(Type.APPLICATION, path, name,
                            "vmNetworkConfigEntry has no leaf '" + name + "'");
                }
                Op lop = operation(leaf, leafDefault, lpath);
                boolean set = networkLeaf(row, name) != null;
                if (lop == Op.NONE) continue;
                if (lop == Op.DELETE && !set) throw dataMissing(lpath, name + " is not set");
                if (lop == Op.CREATE && set && existing != null && op != Op.REPLACE) {
                    throw dataExists(lpath, name + " is set already");
                }
                String v = lop == Op.DELETE || lop == Op.REMOVE ? null : SecureXml.text(leaf).trim();
                setNetworkLeaf(row, name, v, lpath);
            }
            ifaces.add(row);
            ifaces.sort((a, b) -> Integer.compare(a.vmNetworkConfigIndex, b.vmNetworkConfigIndex));
        }
        VmConfigEntry next = vr.copy();
        next.vmNetworkConfigTable = ifaces.isEmpty() ? null : ifaces;
        data.put(next);
        touched.add(vmIndex);
    }

    private static final List<String> NETWORK_LEAVES = List.of("vmNetworkConfigParent", "vmNetworkConfigPhysAddress",
            "vmNetworkConfigAddressType", "vmNetworkConfigAddress", "vmNetworkConfigPrefixLength");

    private static Object networkLeaf(VmNetworkConfigEntry n, String name) {
        return switch (name) {
            case "vmNetworkConfigParent" -> n.vmNetworkConfigParent;
            case "vmNetworkConfigPhysAddress" -> n.vmNetworkConfigPhysAddress;
            case "vmNetworkConfigAddressType" -> n.vmNetworkConfigAddressType;
            case "vmNetworkConfigAddress" -> n.vmNetworkConfigAddress;
            case "vmNetworkConfigPrefixLength" -> n.vmNetworkConfigPrefixLength;
            default -> null;
        };
    }

    private static void setNetworkLeaf(VmNetworkConfigEntry n, String name, String v, String path) throws RpcError {
        switch (name) {
            case "vmNetworkConfigParent" -> n.vmNetworkConfigParent = v;
            case "vmNetworkConfigPhysAddress" -> n.vmNetworkConfigPhysAddress = v;
            case "vmNetworkConfigAddressType" -> {
                if (v == null) {
                    n.vmNetworkConfigAddressType = null;
                } else {
                    try {
                        n.vmNetworkConfigAddressType = InetAddressType.valueOf(v.toUpperCase(Locale.ROOT));
                        if (!n.vmNetworkConfigAddressType.label().equals(v)) throw new IllegalArgumentException(v);
                    } catch (IllegalArgumentException ex) {
                        throw badValue(path, name, v, "unknown, ipv4 or ipv6");
                    }
                }
            }
            case "vmNetworkConfigAddress" -> n.vmNetworkConfigAddress = v;
            case "vmNetworkConfigPrefixLength" -> n.vmNetworkConfigPrefixLength = v == null ? null : integer(path, name, v);
            default -> throw new IllegalArgumentException(name);
        }
    }

    // ------------------------------------------------------------------ validation

    /**
     * Validates the entries this edit touched: a new VR as the core would accept its creation
     * (defaults filled in), an existing one for what may change (see {@link #completeExisting});
     * vmName unique across the datastore.
     */
    private void validate() {
        Map<String, Integer> names = new HashMap<>();
        for (VmConfigEntry c : data.values()) {
            if (c.vmName != null && !touched.contains(c.vmIndex)) names.put(c.vmName, c.vmIndex);
        }
        for (Integer i : new java.util.TreeSet<>(touched)) {
            VmConfigEntry c = data.get(i);
            if (c == null) continue;
            try {
                VmConfigEntry base = running.get(i);
                VmConfigEntry done = base == null ? completeNew(c) : completeExisting(base, c);
                Integer other = names.putIfAbsent(done.vmName, i);
                if (other != null && other != i.intValue()) {
                    throw new RpcError(Type.APPLICATION, "operation-failed", "data-not-unique",
                            Paths.child(Paths.entry(i), "vmName"), "vmName '" + done.vmName
                            + "' is used by vmIndex " + other + " and " + i)
                            .info("non-unique", Paths.child(Paths.entry(other), "vmName"));
                }
                data.put(done);
            } catch (RpcError e) {
                errors.add(e);
                VmConfigEntry was = before.get(i);
                if (was == null) {
                    data.remove(i);
                } else {
                    data.put(was);
                }
            }
        }
    }

    private static VmConfigEntry completeNew(VmConfigEntry c) throws RpcError {
        try {
            VmConfigEntry done = Validator.forCreate(c);
            if (done.vmConfigTemplate == null) done.vmConfigTemplate = VmConfigEntry.Defaults.TEMPLATE;
            return done;
        } catch (ValidationException e) {
            throw fromValidation(c.vmIndex, e);
        }
    }

    /**
     * Checks what changed on a VR that exists and completes its new interfaces. vmName,
     * vmConfigCpuNumber, vmConfigMemory and vmConfigAutoStart may change (the service's reconfigure),
     * CPUs and memory only while the VR is shut down or is stopped by the same edit; vmConfigTemplate
     * cannot change.
     */
    static VmConfigEntry completeExisting(VmConfigEntry base, VmConfigEntry c) throws RpcError {
        String path = Paths.entry(c.vmIndex);
        VmConfigEntry out = c.copy();
        if (out.vmAdminState == null) out.vmAdminState = AdminState.RUNNING;
        if (out.vmConfigTemplate == null) out.vmConfigTemplate = VmConfigEntry.Defaults.TEMPLATE;
        if (out.vmConfigCpuNumber == null) out.vmConfigCpuNumber = VmConfigEntry.Defaults.CPU_NUMBER;
        if (out.vmConfigMemory == null) out.vmConfigMemory = VmConfigEntry.Defaults.MEMORY_MIB;
        if (out.vmConfigAutoStart == null) out.vmConfigAutoStart = Boolean.FALSE;
        if (out.vmName == null) {
            throw new RpcError(Type.APPLICATION, "data-missing", "mandatory", Paths.child(path, "vmName"),
                    "vmName is mandatory");
        }
        if (!Objects.equals(base.vmConfigTemplate, out.vmConfigTemplate)) {
            throw templateFixed(c.vmIndex, base.vmConfigTemplate, out.vmConfigTemplate);
        }
        VmConfigEntry changes = reconfiguration(base, out);
        if (changes != null) {
            try {
                Validator.forReconfigure(base, changes);
            } catch (ValidationException e) {
                throw fromValidation(c.vmIndex, e);
            }
            String resized = changes.vmConfigMemory != null ? "vmConfigMemory"
                    : changes.vmConfigCpuNumber != null ? "vmConfigCpuNumber" : null;
            if (resized != null && base.vmAdminState != AdminState.SHUTDOWN && out.vmAdminState != AdminState.SHUTDOWN) {
                throw notShutDown(c.vmIndex, resized, base.vmAdminState.label());
            }
        }
        Set<Integer> used = new HashSet<>();
        for (VmNetworkConfigEntry n : out.interfaces()) used.add(n.vmNetworkConfigIndex);
        List<VmNetworkConfigEntry> ifaces = new ArrayList<>();
        for (VmNetworkConfigEntry n : out.interfaces()) {
            if (base.interfaces().stream().anyMatch(b -> sameInterface(b, n))) {
                ifaces.add(n);
                continue;
            }
            try {
                ifaces.add(Validator.forInterface(n, used, c.vmIndex));
            } catch (ValidationException e) {
                throw new RpcError(Type.APPLICATION, "invalid-value", null,
                        Paths.child(Paths.networkEntry(c.vmIndex, n.vmNetworkConfigIndex), e.field()), e.getMessage());
            }
        }
        out.vmNetworkConfigTable = ifaces.isEmpty() ? null : List.copyOf(ifaces);
        return out;
    }

    static boolean sameInterface(VmNetworkConfigEntry a, VmNetworkConfigEntry b) {
        return java.util.Objects.equals(a.vmNetworkConfigIndex, b.vmNetworkConfigIndex)
                && java.util.Objects.equals(a.vmNetworkConfigParent, b.vmNetworkConfigParent)
                && java.util.Objects.equals(a.vmNetworkConfigPhysAddress, b.vmNetworkConfigPhysAddress)
                && java.util.Objects.equals(a.vmNetworkConfigAddressType, b.vmNetworkConfigAddressType)
                && java.util.Objects.equals(a.vmNetworkConfigAddress, b.vmNetworkConfigAddress)
                && java.util.Objects.equals(a.vmNetworkConfigPrefixLength, b.vmNetworkConfigPrefixLength);
    }

    /**
     * The columns the service's reconfigure changes from {@code from} to {@code to} (vmName,
     * vmConfigCpuNumber, vmConfigMemory, vmConfigAutoStart; the others null), or null when none
     * differs. Both entries are complete.
     */
    static VmConfigEntry reconfiguration(VmConfigEntry from, VmConfigEntry to) {
        VmConfigEntry d = new VmConfigEntry();
        if (!Objects.equals(from.vmName, to.vmName)) d.vmName = to.vmName;
        if (!Objects.equals(from.vmConfigCpuNumber, to.vmConfigCpuNumber)) d.vmConfigCpuNumber = to.vmConfigCpuNumber;
        if (!Objects.equals(from.vmConfigMemory, to.vmConfigMemory)) d.vmConfigMemory = to.vmConfigMemory;
        if (!Objects.equals(from.vmConfigAutoStart, to.vmConfigAutoStart)) d.vmConfigAutoStart = to.vmConfigAutoStart;
        boolean any = d.vmName != null || d.vmConfigCpuNumber != null || d.vmConfigMemory != null || d.vmConfigAutoStart != null;
        return any ? d : null;
    }

    /**
     * A template change of an existing VR: operation-not-supported, as it is the operation (changing
     * the template of a VR that exists) that this server cannot do, whatever the value; naming the
     * template the VR has is fine.
     */
    static RpcError templateFixed(int vmIndex, String was, String now) {
        return new RpcError(Type.APPLICATION, "operation-not-supported", null,
                Paths.child(Paths.entry(vmIndex), "vmConfigTemplate"), "vmConfigTemplate of an existing VR cannot change"
                + " (from '" + was + "' to '" + now + "'): delete the VR and create it again from the other template")
                .info("bad-element", "vmConfigTemplate");
    }

    /** A resize of a VR that is not shut down: operation-failed, app-tag {@value #NOT_SHUT_DOWN}. */
    static RpcError notShutDown(int vmIndex, String leaf, String adminState) {
        return new RpcError(Type.APPLICATION, "operation-failed", NOT_SHUT_DOWN, Paths.child(Paths.entry(vmIndex), leaf),
                "VR " + vmIndex + " is " + adminState + ": stop it (vmAdminState shutdown, before or in the same edit)"
                + " to change its CPUs or memory").info("bad-element", leaf);
    }

    /** The error-app-tag of a resize refused because the VR is not shut down. */
    static final String NOT_SHUT_DOWN = "vr-not-shut-down";

    static RpcError fromValidation(int vmIndex, ValidationException e) {
        String field = e.field();
        String path = field == null || field.equals("body") ? Paths.entry(vmIndex) : Paths.child(Paths.entry(vmIndex), field);
        if (field != null && field.startsWith("vmNetworkConfig")) path = Paths.child(Paths.NETWORK_TABLE, field);
        if (e.getMessage().endsWith("is required")) {
            return new RpcError(Type.APPLICATION, "data-missing", "mandatory", path, e.getMessage());
        }
        return new RpcError(Type.APPLICATION, "invalid-value", null, path, e.getMessage());
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
