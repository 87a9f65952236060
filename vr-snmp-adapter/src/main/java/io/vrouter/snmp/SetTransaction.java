package io.vrouter.snmp;

import static io.vrouter.snmp.VmmMib.*;

import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.InetAddressType;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import io.vrouter.core.service.Accepted;
import io.vrouter.core.service.ValidationException;
import io.vrouter.core.service.Validator;
import io.vrouter.core.service.VirtualRouterService;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.snmp4j.PDU;
import org.snmp4j.agent.request.SubRequest;
import org.snmp4j.smi.OID;
import org.snmp4j.smi.OctetString;
import org.snmp4j.smi.SMIConstants;
import org.snmp4j.smi.Variable;

/**
 * One SET PDU on NEW-VMM-MIB. {@link #prepare} checks every varbind and then every row as a whole
 * (RFC 3416 order of checks: names, then types, lengths and values, then consistency) and works out
 * what the PDU asks of the service; it throws a {@link SetError} naming the varbind at fault and
 * changes nothing. {@link #commit} then carries out the whole plan, new rows first and all of them in
 * one {@link VirtualRouterService#createAll} call, then the changes of existing rows (one
 * {@link VirtualRouterService#reconfigure} call per row, ordered with its vmAdminState change as the
 * REST PATCH orders them).
 */
final class SetTransaction {
    /** A refusal: the error-status and the varbind it is reported against. */
    static final class SetError extends Exception {
        final int status;
        final transient SubRequest<?> subRequest;

        SetError(int status, SubRequest<?> subRequest, String message) {
            super(message, null, false, false);
            this.status = status;
            this.subRequest = subRequest;
        }
    }

    private static final class ConfigRowOp {
        final int vmIndex;
        final Map<Integer, SubRequest<?>> columns = new LinkedHashMap<>();
        SubRequest<?> rowStatus;
        VmConfigEntry creation;

        ConfigRowOp(int vmIndex) {
            this.vmIndex = vmIndex;
        }

        SubRequest<?> first() {
            return rowStatus != null ? rowStatus : columns.values().iterator().next();
        }
    }

    private static final class NetRowOp {
        final int vmIndex;
        final int netIndex;
        final Map<Integer, SubRequest<?>> columns = new LinkedHashMap<>();
        SubRequest<?> rowStatus;

        NetRowOp(int vmIndex, int netIndex) {
            this.vmIndex = vmIndex;
            this.netIndex = netIndex;
        }

        SubRequest<?> first() {
            return rowStatus != null ? rowStatus : columns.values().iterator().next();
        }
    }

    private record InterfaceRef(int vmIndex, VmNetworkConfigEntry entry) {
    }

    /**
     * What a PDU changes in an existing row: its vmAdminState (null: unchanged) and the other columns
     * (only those that differ, null: none), with the values they had, to put back on a failed commit.
     */
    private record RowChange(int vmIndex, AdminState previousAdmin, AdminState admin, VmConfigEntry changes,
                             VmConfigEntry previous) {
    }

    private final VirtualRouterService service;
    private final PendingRows pending;

    // The plan.
    private final List<VmConfigEntry> creations = new ArrayList<>();
    private final List<InterfaceRef> interfaceAdds = new ArrayList<>();
    private final Map<Integer, RowChange> rowChanges = new LinkedHashMap<>();
    /** Existing rows renamed (vmIndex to the vmName varbind), checked against every other name in checkNames. */
    private final Map<Integer, SubRequest<?>> renames = new LinkedHashMap<>();
    private final List<int[]> interfaceRemovals = new ArrayList<>();
    private final List<Integer> removals = new ArrayList<>();
    private final Map<Integer, Optional<PendingRows.ConfigRow>> pendingConfigs = new LinkedHashMap<>();
    private final Map<Long, Optional<PendingRows.NetRow>> pendingNets = new LinkedHashMap<>();
    private Boolean perVmNotifications;
    private Boolean bulkNotifications;
    private boolean committed;

    SetTransaction(VirtualRouterService service, PendingRows pending) {
        this.service = service;
        this.pending = pending;
    }

    boolean committed() {
        return committed;
    }

    // ------------------------------------------------------------------ prepare

    void prepare(List<SubRequest<?>> subs) throws SetError {
        Map<Integer, ConfigRowOp> configOps = new LinkedHashMap<>();
        Map<Long, NetRowOp> netOps = new LinkedHashMap<>();
        for (SubRequest<?> sr : subs) {
            OID oid = sr.getVariableBinding().getOid();
            Variable value = sr.getVariableBinding().getVariable();
            if (oid.equals(scalar(VM_PER_VM_NOTIFICATIONS_ENABLED))) {
                perVmNotifications = truth(sr, value);
            } else if (oid.equals(scalar(VM_BULK_NOTIFICATIONS_ENABLED))) {
                bulkNotifications = truth(sr, value);
            } else if (VmmInstrumentation.column(oid, VM_CONFIG_ENTRY) >= 0) {
                int column = VmmInstrumentation.column(oid, VM_CONFIG_ENTRY);
                if (column < VM_NAME || column > VM_CONFIG_ROW_STATUS || oid.size() != VM_CONFIG_ENTRY.size() + 2
                        || oid.last() < 1) {
                    throw new SetError(PDU.noCreation, sr, "no such vmConfigTable instance");
                }
                checkConfigValue(sr, column, value);
                ConfigRowOp op = configOps.computeIfAbsent(oid.last(), ConfigRowOp::new);
                if (column == VM_CONFIG_ROW_STATUS) {
                    op.rowStatus = sr;
                } else {
                    op.columns.put(column, sr);
                }
            } else if (VmmInstrumentation.column(oid, VM_NETWORK_CONFIG_ENTRY) >= 0) {
                int column = VmmInstrumentation.column(oid, VM_NETWORK_CONFIG_ENTRY);
                int n = VM_NETWORK_CONFIG_ENTRY.size();
                if (column < NET_PARENT || column > NET_ROW_STATUS || oid.size() != n + 3
                        || oid.get(n + 1) < 1 || oid.get(n + 2) < 1 || oid.get(n + 2) > Validator.MAX_NETWORK_INDEX) {
                    throw new SetError(PDU.noCreation, sr, "no such vmNetworkConfigTable instance");
                }
                checkNetValue(sr, column, value);
                NetRowOp op = netOps.computeIfAbsent(PendingRows.netKey(oid.get(n + 1), oid.get(n + 2)),
                        k -> new NetRowOp(oid.get(n + 1), oid.get(n + 2)));
                if (column == NET_ROW_STATUS) {
                    op.rowStatus = sr;
                } else {
                    op.columns.put(column, sr);
                }
            } else if (oid.startsWith(VM_AFFECTED_VMS)) {
                throw new SetError(PDU.noAccess, sr, "vmAffectedVMs is accessible-for-notify");
            } else if (VmmInstrumentation.isObject(oid) && exists(oid)) {
                throw new SetError(PDU.notWritable, sr, "read-only object");
            } else {
                throw new SetError(PDU.noCreation, sr, "no such object or instance");
            }
        }
        for (ConfigRowOp op : configOps.values()) planConfigRow(op);
        for (NetRowOp op : netOps.values()) planNetRow(op, configOps);
        checkNames(configOps);
    }

    private boolean exists(OID oid) {
        Integer vm = VmmInstrumentation.vmIndexOf(oid);
        return (vm == null || vm > 0) && new MibView(service, pending, vm).get(oid) != null;
    }

    private static boolean truth(SubRequest<?> sr, Variable v) throws SetError {
        int i = integer(sr, v);
        if (i != 1 && i != 2) throw new SetError(PDU.wrongValue, sr, "TruthValue is true(1) or false(2)");
        return i == 1;
    }

    private static int integer(SubRequest<?> sr, Variable v) throws SetError {
        if (v.getSyntax() != SMIConstants.SYNTAX_INTEGER32) throw new SetError(PDU.wrongType, sr, "INTEGER expected");
        return v.toInt();
    }

    private static OctetString octets(SubRequest<?> sr, Variable v, int min, int max) throws SetError {
        if (v.getSyntax() != SMIConstants.SYNTAX_OCTET_STRING) {
            throw new SetError(PDU.wrongType, sr, "OCTET STRING expected");
        }
        OctetString s = (OctetString) v;
        if (s.length() < min || s.length() > max) {
            throw new SetError(PDU.wrongLength, sr, "length must be " + min + ".." + max);
        }
        return s;
    }

    private static void range(SubRequest<?> sr, long value, long min, long max) throws SetError {
        if (value < min || value > max) {
            throw new SetError(PDU.wrongValue, sr, "value must be " + min + ".." + max);
        }
    }

    private static void rowStatus(SubRequest<?> sr, Variable v) throws SetError {
        int rs = integer(sr, v);
        if (rs < ACTIVE || rs > DESTROY || rs == NOT_READY) {
            throw new SetError(PDU.wrongValue, sr, "RowStatus " + rs + " cannot be set");
        }
    }

    private static void checkConfigValue(SubRequest<?> sr, int column, Variable v) throws SetError {
        switch (column) {
            case VM_NAME, VM_CONFIG_TEMPLATE -> octets(sr, v, 1, 64);
            case VM_ADMIN_STATE -> range(sr, integer(sr, v), 1, 4);
            case VM_CONFIG_CPU_NUMBER -> range(sr, integer(sr, v), 1, 64);
            case VM_CONFIG_MEMORY -> range(sr, integer(sr, v), 64, 1_048_576);
            case VM_CONFIG_AUTO_START -> truth(sr, v);
            case VM_CONFIG_ROW_STATUS -> rowStatus(sr, v);
            default -> throw new SetError(PDU.noCreation, sr, "no such column");
        }
    }

    private static void checkNetValue(SubRequest<?> sr, int column, Variable v) throws SetError {
        switch (column) {
            case NET_PARENT -> octets(sr, v, 1, 64);
            case NET_PHYS_ADDRESS -> octets(sr, v, 6, 6);
            case NET_ADDRESS_TYPE -> range(sr, integer(sr, v), 0, 2);
            case NET_ADDRESS -> {
                int len = octets(sr, v, 0, 255).length();
                if (len != 0 && len != 4 && len != 16) {
                    throw new SetError(PDU.wrongValue, sr, "an address has 4 (ipv4) or 16 (ipv6) octets");
                }
            }
            case NET_PREFIX_LENGTH -> {
                if (v.getSyntax() != SMIConstants.SYNTAX_GAUGE32) {
                    throw new SetError(PDU.wrongType, sr, "Unsigned32 expected");
                }
                range(sr, v.toLong(), 0, 128);
            }
            case NET_ROW_STATUS -> rowStatus(sr, v);
            default -> throw new SetError(PDU.noCreation, sr, "no such column");
        }
    }

    /** The row's columns written onto a copy of {@code base} (a new entry when null). */
    private static VmConfigEntry withColumns(int vmIndex, VmConfigEntry base, Map<Integer, SubRequest<?>> columns) {
        VmConfigEntry e = base == null ? new VmConfigEntry() : base.copy();
        e.vmIndex = vmIndex;
        columns.forEach((column, sr) -> {
            Variable v = sr.getVariableBinding().getVariable();
            switch (column) {
                case VM_NAME -> e.vmName = Codec.text((OctetString) v);
                case VM_ADMIN_STATE -> e.vmAdminState = AdminState.ofCode(v.toInt());
                case VM_CONFIG_TEMPLATE -> e.vmConfigTemplate = Codec.text((OctetString) v);
                case VM_CONFIG_CPU_NUMBER -> e.vmConfigCpuNumber = v.toInt();
                case VM_CONFIG_MEMORY -> e.vmConfigMemory = v.toInt();
                case VM_CONFIG_AUTO_START -> e.vmConfigAutoStart = v.toInt() == 1;
                default -> throw new IllegalStateException("column " + column);
            }
        });
        return e;
    }

    private static VmNetworkConfigEntry withNetColumns(int netIndex, VmNetworkConfigEntry base,
                                                       Map<Integer, SubRequest<?>> columns) throws SetError {
        VmNetworkConfigEntry e = base == null ? new VmNetworkConfigEntry() : base.copy();
        e.vmNetworkConfigIndex = netIndex;
        for (Map.Entry<Integer, SubRequest<?>> c : columns.entrySet()) {
            Variable v = c.getValue().getVariableBinding().getVariable();
            switch (c.getKey()) {
                case NET_PARENT -> e.vmNetworkConfigParent = Codec.text((OctetString) v);
                case NET_PHYS_ADDRESS -> e.vmNetworkConfigPhysAddress = Codec.mac((OctetString) v);
                case NET_ADDRESS_TYPE -> e.vmNetworkConfigAddressType = InetAddressType.ofCode(v.toInt());
                case NET_ADDRESS -> {
                    OctetString s = (OctetString) v;
                    try {
                        e.vmNetworkConfigAddress = s.length() == 0 ? null : Codec.inet(s);
                    } catch (UnknownHostException ex) {
                        throw new SetError(PDU.wrongValue, c.getValue(), "not an address");
                    }
                }
                case NET_PREFIX_LENGTH -> e.vmNetworkConfigPrefixLength = v.toInt();
                default -> throw new IllegalStateException("column " + c.getKey());
            }
        }
        if (e.vmNetworkConfigAddressType == InetAddressType.UNKNOWN && e.vmNetworkConfigAddress == null) {
            e.vmNetworkConfigAddressType = null;
        }
        if (e.vmNetworkConfigAddress != null && e.vmNetworkConfigAddressType != null
                && e.vmNetworkConfigAddressType != Codec.inetType(Codec.inet(e.vmNetworkConfigAddress).length())) {
            SubRequest<?> at = columns.getOrDefault(NET_ADDRESS, columns.get(NET_ADDRESS_TYPE));
            if (at != null) throw new SetError(PDU.inconsistentValue, at, "address does not match its type");
        }
        return e;
    }

    private boolean removedHere(int vmIndex) {
        return removals.contains(vmIndex);
    }

    private void planConfigRow(ConfigRowOp op) throws SetError {
        int i = op.vmIndex;
        Optional<VmConfigEntry> existing = service.getConfig(i);
        PendingRows.ConfigRow waiting = existing.isPresent() ? null : pending.config(i);
        int rs = op.rowStatus == null ? 0 : op.rowStatus.getVariableBinding().getVariable().toInt();
        switch (rs) {
            case CREATE_AND_GO -> {
                if (existing.isPresent() || waiting != null) {
                    throw new SetError(PDU.inconsistentValue, op.rowStatus, "row " + i + " exists");
                }
                op.creation = withColumns(i, null, op.columns);
            }
            case CREATE_AND_WAIT -> {
                if (existing.isPresent() || waiting != null) {
                    throw new SetError(PDU.inconsistentValue, op.rowStatus, "row " + i + " exists");
                }
                pendingConfigs.put(i, Optional.of(new PendingRows.ConfigRow(withColumns(i, null, op.columns),
                        System.nanoTime())));
            }
            case ACTIVE -> {
                if (waiting != null) {
                    op.creation = withColumns(i, waiting.entry(), op.columns);
                    pendingConfigs.put(i, Optional.empty());
                } else if (existing.isPresent()) {
                    changeExisting(op, existing.get());
                } else {
                    throw new SetError(PDU.inconsistentValue, op.rowStatus, "row " + i + " does not exist");
                }
            }
            case NOT_IN_SERVICE -> {
                if (waiting == null) {
                    throw new SetError(PDU.inconsistentValue, op.rowStatus,
                            existing.isPresent() ? "an active VR cannot be taken out of service" : "no row " + i);
                }
                pendingConfigs.put(i, Optional.of(new PendingRows.ConfigRow(withColumns(i, waiting.entry(), op.columns),
                        waiting.createdNanos())));
            }
            case DESTROY -> {
                if (existing.isPresent()) {
                    removals.add(i);
                } else if (waiting != null) {
                    pendingConfigs.put(i, Optional.empty());
                }
            }
            default -> {
                if (waiting != null) {
                    pendingConfigs.put(i, Optional.of(new PendingRows.ConfigRow(
                            withColumns(i, waiting.entry(), op.columns), waiting.createdNanos())));
                } else if (existing.isPresent()) {
                    changeExisting(op, existing.get());
                } else {
                    throw new SetError(PDU.inconsistentName, op.first(),
                            "row " + i + " does not exist: create it with vmConfigRowStatus");
                }
            }
        }
        if (op.creation != null && op.creation.vmName == null) {
            throw new SetError(PDU.inconsistentValue, op.rowStatus, "vmName is required to create a row");
        }
    }

    /**
     * A SET of columns of an existing (active) row: vmAdminState, vmName, vmConfigCpuNumber,
     * vmConfigMemory and vmConfigAutoStart change, checked here as {@link VirtualRouterService#reconfigure}
     * and {@link VirtualRouterService#setAdminState} will check them, so that commit does not fail.
     * vmConfigTemplate may be set to the value it has, never changed (the VM was cloned from it).
     */
    private void changeExisting(ConfigRowOp op, VmConfigEntry current) throws SetError {
        VmConfigEntry wanted = withColumns(op.vmIndex, current, op.columns);
        AdminState admin = null;
        SubRequest<?> adminVb = op.columns.get(VM_ADMIN_STATE);
        if (adminVb != null && wanted.vmAdminState != current.vmAdminState) {
            if ((wanted.vmAdminState == AdminState.SUSPENDED || wanted.vmAdminState == AdminState.PAUSED)
                    && current.vmAdminState == AdminState.SHUTDOWN) {
                throw new SetError(PDU.inconsistentValue, adminVb,
                        "a shut down VR cannot be " + wanted.vmAdminState.label());
            }
            if (!service.adminStates().contains(wanted.vmAdminState)) {
                throw new SetError(PDU.inconsistentValue, adminVb, "driver '" + service.driverName()
                        + "' cannot make a VR " + wanted.vmAdminState.label());
            }
            admin = wanted.vmAdminState;
        }
        VmConfigEntry changes = new VmConfigEntry();
        VmConfigEntry previous = new VmConfigEntry();
        boolean changed = false;
        for (Map.Entry<Integer, SubRequest<?>> c : op.columns.entrySet()) {
            int column = c.getKey();
            if (column == VM_ADMIN_STATE || sameConfigColumn(column, wanted, current)) continue;
            switch (column) {
                case VM_CONFIG_TEMPLATE -> throw new SetError(PDU.inconsistentValue, c.getValue(), "VR " + op.vmIndex
                        + " was made from template '" + current.vmConfigTemplate
                        + "': destroy the row and create it again to change the template");
                case VM_NAME -> {
                    changes.vmName = wanted.vmName;
                    previous.vmName = current.vmName;
                    renames.put(op.vmIndex, c.getValue());
                }
                case VM_CONFIG_CPU_NUMBER -> {
                    changes.vmConfigCpuNumber = wanted.vmConfigCpuNumber;
                    previous.vmConfigCpuNumber = current.vmConfigCpuNumber;
                }
                case VM_CONFIG_MEMORY -> {
                    changes.vmConfigMemory = wanted.vmConfigMemory;
                    previous.vmConfigMemory = current.vmConfigMemory;
                }
                case VM_CONFIG_AUTO_START -> {
                    changes.vmConfigAutoStart = wanted.vmConfigAutoStart;
                    previous.vmConfigAutoStart = current.vmConfigAutoStart;
                }
                default -> throw new IllegalStateException("column " + column);
            }
            changed = true;
        }
        if (changed) {
            try {
                Validator.forReconfigure(current, changes);
            } catch (ValidationException e) {
                SubRequest<?> column = configColumn(op, e.field());
                throw new SetError(column == null ? PDU.inconsistentValue : PDU.wrongValue, at(column, op.first()),
                        e.getMessage());
            }
            // CPUs and memory change only while shut down: stopped in this PDU (stop, then resize) or before.
            boolean shutDown = admin == AdminState.SHUTDOWN || current.vmAdminState == AdminState.SHUTDOWN;
            if (!shutDown && (changes.vmConfigMemory != null || changes.vmConfigCpuNumber != null)) {
                SubRequest<?> at = changes.vmConfigMemory != null ? op.columns.get(VM_CONFIG_MEMORY)
                        : op.columns.get(VM_CONFIG_CPU_NUMBER);
                throw new SetError(PDU.inconsistentValue, at, "VR " + op.vmIndex + " is "
                        + current.vmAdminState.label() + ": set vmAdminState to shutdown(4) before (or in the same"
                        + " PDU as) a change of its CPUs or memory");
            }
        }
        if (admin != null || changed) {
            rowChanges.put(op.vmIndex, new RowChange(op.vmIndex, current.vmAdminState, admin,
                    changed ? changes : null, previous));
        }
    }

    private static boolean sameConfigColumn(int column, VmConfigEntry a, VmConfigEntry b) {
        return switch (column) {
            case VM_NAME -> Objects.equals(a.vmName, b.vmName);
            case VM_CONFIG_TEMPLATE -> Objects.equals(a.vmConfigTemplate, b.vmConfigTemplate);
            case VM_CONFIG_CPU_NUMBER -> Objects.equals(a.vmConfigCpuNumber, b.vmConfigCpuNumber);
            case VM_CONFIG_MEMORY -> Objects.equals(a.vmConfigMemory, b.vmConfigMemory);
            case VM_CONFIG_AUTO_START -> Objects.equals(a.vmConfigAutoStart, b.vmConfigAutoStart);
            default -> false;
        };
    }

    private void planNetRow(NetRowOp op, Map<Integer, ConfigRowOp> configOps) throws SetError {
        int i = op.vmIndex;
        int k = op.netIndex;
        ConfigRowOp createdHere = configOps.get(i);
        VmConfigEntry creation = createdHere == null ? null : createdHere.creation;
        Optional<VmConfigEntry> vr = service.getConfig(i).filter(c -> !removedHere(i));
        Optional<VmNetworkConfigEntry> existing = vr.flatMap(c -> c.interfaces().stream()
                .filter(n -> n.vmNetworkConfigIndex == k).findFirst());
        PendingRows.NetRow waiting = pending.net(i, k);
        boolean vrThere = vr.isPresent() || creation != null;
        int rs = op.rowStatus == null ? 0 : op.rowStatus.getVariableBinding().getVariable().toInt();
        switch (rs) {
            case CREATE_AND_GO, CREATE_AND_WAIT -> {
                if (existing.isPresent() || waiting != null || (creation != null && hasInterface(creation, k))) {
                    throw new SetError(PDU.inconsistentValue, op.rowStatus, "interface " + i + "." + k + " exists");
                }
                if (!vrThere) {
                    throw new SetError(PDU.inconsistentName, op.rowStatus, "no VR with vmIndex " + i);
                }
                VmNetworkConfigEntry entry = withNetColumns(k, null, op.columns);
                if (rs == CREATE_AND_GO) {
                    addInterface(op, creation, vr, entry);
                } else {
                    pendingNets.put(PendingRows.netKey(i, k), Optional.of(new PendingRows.NetRow(i, entry, System.nanoTime())));
                }
            }
            case ACTIVE -> {
                if (waiting != null) {
                    if (!vrThere) throw new SetError(PDU.inconsistentValue, op.rowStatus, "VR " + i + " is gone");
                    addInterface(op, creation, vr, withNetColumns(k, waiting.entry(), op.columns));
                    pendingNets.put(PendingRows.netKey(i, k), Optional.empty());
                } else if (existing.isPresent()) {
                    sameInterface(op, existing.get());
                } else {
                    throw new SetError(PDU.inconsistentValue, op.rowStatus, "interface " + i + "." + k + " does not exist");
                }
            }
            case NOT_IN_SERVICE -> {
                if (waiting == null) {
                    throw new SetError(PDU.inconsistentValue, op.rowStatus, "only a row being created can be notInService");
                }
                pendingNets.put(PendingRows.netKey(i, k), Optional.of(new PendingRows.NetRow(i,
                        withNetColumns(k, waiting.entry(), op.columns), waiting.createdNanos())));
            }
            case DESTROY -> {
                if (existing.isPresent()) {
                    interfaceRemovals.add(new int[]{i, k});
                } else if (waiting != null) {
                    pendingNets.put(PendingRows.netKey(i, k), Optional.empty());
                }
            }
            default -> {
                if (waiting != null) {
                    pendingNets.put(PendingRows.netKey(i, k), Optional.of(new PendingRows.NetRow(i,
                            withNetColumns(k, waiting.entry(), op.columns), waiting.createdNanos())));
                } else if (existing.isPresent()) {
                    sameInterface(op, existing.get());
                } else {
                    throw new SetError(PDU.inconsistentName, op.first(),
                            "interface " + i + "." + k + " does not exist: create it with vmNetworkConfigRowStatus");
                }
            }
        }
    }

    private static boolean hasInterface(VmConfigEntry c, int k) {
        return c.interfaces().stream().anyMatch(n -> n.vmNetworkConfigIndex == k);
    }

    private void addInterface(NetRowOp op, VmConfigEntry creation, Optional<VmConfigEntry> vr,
                              VmNetworkConfigEntry entry) throws SetError {
        if (entry.vmNetworkConfigParent == null) {
            throw new SetError(PDU.inconsistentValue, op.rowStatus, "vmNetworkConfigParent is required");
        }
        if (creation != null) {
            List<VmNetworkConfigEntry> list = new ArrayList<>(creation.interfaces());
            list.add(entry);
            creation.vmNetworkConfigTable = list;
            return;
        }
        Set<Integer> used = new HashSet<>();
        for (VmNetworkConfigEntry n : vr.get().interfaces()) used.add(n.vmNetworkConfigIndex);
        for (InterfaceRef r : interfaceAdds) {
            if (r.vmIndex() == op.vmIndex) used.add(r.entry().vmNetworkConfigIndex);
        }
        try {
            Validator.forInterface(entry, used, op.vmIndex);
        } catch (ValidationException e) {
            throw new SetError(statusFor(e.field(), netColumn(op, e.field())), at(netColumn(op, e.field()), op.rowStatus),
                    e.getMessage());
        }
        interfaceAdds.add(new InterfaceRef(op.vmIndex, entry));
    }

    private static void sameInterface(NetRowOp op, VmNetworkConfigEntry current) throws SetError {
        VmNetworkConfigEntry wanted = withNetColumns(op.netIndex, current, op.columns);
        for (Map.Entry<Integer, SubRequest<?>> c : op.columns.entrySet()) {
            boolean same = switch (c.getKey()) {
                case NET_PARENT -> Objects.equals(wanted.vmNetworkConfigParent, current.vmNetworkConfigParent);
                case NET_PHYS_ADDRESS -> Objects.equals(wanted.vmNetworkConfigPhysAddress, current.vmNetworkConfigPhysAddress);
                case NET_ADDRESS_TYPE -> Objects.equals(wanted.vmNetworkConfigAddressType, current.vmNetworkConfigAddressType);
                case NET_ADDRESS -> Objects.equals(wanted.vmNetworkConfigAddress, current.vmNetworkConfigAddress);
                case NET_PREFIX_LENGTH -> Objects.equals(wanted.vmNetworkConfigPrefixLength, current.vmNetworkConfigPrefixLength);
                default -> false;
            };
            if (!same) {
                throw new SetError(PDU.inconsistentValue, c.getValue(), "an existing interface cannot change");
            }
        }
    }

    private static SubRequest<?> netColumn(NetRowOp op, String field) {
        return switch (field) {
            case "vmNetworkConfigParent" -> op.columns.get(NET_PARENT);
            case "vmNetworkConfigPhysAddress" -> op.columns.get(NET_PHYS_ADDRESS);
            case "vmNetworkConfigAddress" -> op.columns.get(NET_ADDRESS);
            case "vmNetworkConfigPrefixLength" -> op.columns.get(NET_PREFIX_LENGTH);
            default -> null;
        };
    }

    private static SubRequest<?> at(SubRequest<?> preferred, SubRequest<?> fallback) {
        return preferred != null ? preferred : fallback;
    }

    /**
     * wrongValue when the varbind's own value can never be right (a name with characters a name may not
     * have), inconsistentValue when it is the combination that is wrong or a column is missing.
     */
    private static int statusFor(String field, SubRequest<?> column) {
        if (column == null) return PDU.inconsistentValue;
        return switch (field) {
            case "vmName", "vmConfigTemplate", "vmNetworkConfigParent", "vmNetworkConfigPhysAddress" -> PDU.wrongValue;
            default -> PDU.inconsistentValue;
        };
    }

    /**
     * Checks the rows created and the names of renamed rows: a name must not be any other VR's (one
     * being removed keeps its name until it is gone), nor a row's waiting for activation, nor another
     * new name of this PDU. Two rows cannot swap names in one PDU: the service renames one at a time.
     */
    private void checkNames(Map<Integer, ConfigRowOp> configOps) throws SetError {
        Map<String, Integer> names = new HashMap<>();
        for (PendingRows.ConfigRow r : pending.configs().values()) {
            if (r.entry().vmName != null && !pendingConfigs.containsKey(r.entry().vmIndex)) {
                names.put(r.entry().vmName, r.entry().vmIndex);
            }
        }
        for (ConfigRowOp op : configOps.values()) {
            if (op.creation == null) continue;
            SubRequest<?> nameVb = at(op.columns.get(VM_NAME), op.first());
            try {
                creations.add(Validator.forCreate(op.creation));
            } catch (ValidationException e) {
                SubRequest<?> column = configColumn(op, e.field());
                throw new SetError(statusFor(e.field(), column), at(column, op.first()), e.getMessage());
            }
            taken(op.creation.vmName, op.vmIndex, nameVb, names);
        }
        for (Map.Entry<Integer, SubRequest<?>> r : renames.entrySet()) {
            taken(rowChanges.get(r.getKey()).changes().vmName, r.getKey(), r.getValue(), names);
        }
    }

    private void taken(String name, int vmIndex, SubRequest<?> nameVb, Map<String, Integer> names) throws SetError {
        Optional<Integer> other = service.findByName(name).filter(x -> x != vmIndex);
        Integer twin = names.put(name, vmIndex);
        if (other.isPresent() || twin != null) {
            throw new SetError(PDU.inconsistentValue, nameVb, "a VR named '" + name + "' already exists (vmIndex "
                    + other.orElse(twin) + ")");
        }
    }

    private static SubRequest<?> configColumn(ConfigRowOp op, String field) {
        return switch (field) {
            case "vmName" -> op.columns.get(VM_NAME);
            case "vmAdminState" -> op.columns.get(VM_ADMIN_STATE);
            case "vmConfigTemplate" -> op.columns.get(VM_CONFIG_TEMPLATE);
            case "vmConfigCpuNumber" -> op.columns.get(VM_CONFIG_CPU_NUMBER);
            case "vmConfigMemory" -> op.columns.get(VM_CONFIG_MEMORY);
            default -> null;
        };
    }

    // ------------------------------------------------------------------ commit

    /**
     * Carries out the plan. On a failure it undoes what it did (removes the VRs it created and the
     * interfaces it added, puts back the columns and admin states it changed) and rethrows.
     */
    void commit() {
        committed = true;
        List<Runnable> undo = new ArrayList<>();
        try {
            if (!creations.isEmpty()) {
                for (Accepted a : service.createAll(creations)) {
                    int i = a.accepted().vmIndex;
                    undo.add(() -> service.remove(i));
                }
            }
            for (InterfaceRef r : interfaceAdds) {
                service.addInterface(r.vmIndex(), r.entry());
                undo.add(() -> service.removeInterface(r.vmIndex(), r.entry().vmNetworkConfigIndex));
            }
            for (RowChange c : rowChanges.values()) change(c, undo);
            for (int[] r : interfaceRemovals) service.removeInterface(r[0], r[1]);
            for (Integer i : removals) service.remove(i);
        } catch (RuntimeException e) {
            for (int k = undo.size() - 1; k >= 0; k--) {
                try {
                    undo.get(k).run();
                } catch (RuntimeException ignored) {
                    // already gone or changed again meanwhile: nothing more to put back
                }
            }
            throw e;
        }
        pendingConfigs.forEach((i, row) -> {
            if (row.isPresent()) pending.putConfig(row.get()); else pending.removeConfig(i);
        });
        pendingNets.forEach((key, row) -> {
            if (row.isPresent()) pending.putNet(row.get()); else pending.removeNet((int) (key >> 16), (int) (key & 0xFFFF));
        });
        if (perVmNotifications != null || bulkNotifications != null) {
            service.setNotificationsEnabled(
                    perVmNotifications != null ? perVmNotifications : service.perVmNotificationsEnabled(),
                    bulkNotifications != null ? bulkNotifications : service.bulkNotificationsEnabled());
        }
    }

    /**
     * One existing row's changes, in the REST PATCH's order: a stop before the resize it allows, a
     * start (or suspend, pause) after the columns changed while shut down.
     */
    private void change(RowChange c, List<Runnable> undo) {
        int i = c.vmIndex();
        if (c.admin() == AdminState.SHUTDOWN) admin(c, undo);
        if (c.changes() != null) {
            service.reconfigure(i, c.changes());
            undo.add(() -> service.reconfigure(i, c.previous()));
        }
        if (c.admin() != null && c.admin() != AdminState.SHUTDOWN) admin(c, undo);
    }

    private void admin(RowChange c, List<Runnable> undo) {
        service.setAdminState(c.vmIndex(), c.admin());
        undo.add(() -> service.setAdminState(c.vmIndex(), c.previousAdmin()));
    }

    /** For tests and logs. */
    @Override
    public String toString() {
        return "SetTransaction{create=" + creations.size() + " change=" + rowChanges.keySet() + " remove=" + removals
                + " ifAdd=" + interfaceAdds.size() + " ifRemove=" + interfaceRemovals.size() + "}";
    }

}
