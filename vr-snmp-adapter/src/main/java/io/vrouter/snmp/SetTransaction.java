package io.vrouter.snmp;

import static io.vrouter.snmp.VmmMib.*;

import io.vrouter.core.config.Caller;
import io.vrouter.core.model.Column;
import io.vrouter.core.model.ConfigColumn;
import io.vrouter.core.model.InetAddressType;
import io.vrouter.core.model.NetworkColumn;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import io.vrouter.core.spi.AccessDeniedException;
import io.vrouter.core.spi.ChangeSet;
import io.vrouter.core.spi.ConflictException;
import io.vrouter.core.spi.NotFoundException;
import io.vrouter.core.spi.VirtualRouters;
import io.vrouter.core.spi.VrException;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.snmp4j.PDU;
import org.snmp4j.agent.request.SubRequest;
import org.snmp4j.smi.OID;
import org.snmp4j.smi.OctetString;
import org.snmp4j.smi.SMIConstants;
import org.snmp4j.smi.Variable;

/**
 * One SET PDU on NEW-VMM-MIB, turned into one {@link ChangeSet}. {@link #prepare} checks what is
 * SNMP's own (RFC 3416 order: names, then each varbind's type, length and value against its column's
 * syntax, then the rows' RowStatus), keeps rows in createAndWait aside as SNMP state, and has the
 * service check the rest as a whole; the service's refusal is reported against the varbind of the
 * column it names. Nothing changes in prepare. {@link #commit} applies the set in one call.
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

    /** The varbinds of one row of vmConfigTable (netIndex null) or vmNetworkConfigTable, by column. */
    private static final class RowOp {
        final int vmIndex;
        final Integer netIndex;
        final Map<Integer, SubRequest<?>> columns = new LinkedHashMap<>();
        SubRequest<?> rowStatus;

        RowOp(int vmIndex, Integer netIndex) {
            this.vmIndex = vmIndex;
            this.netIndex = netIndex;
        }

        SubRequest<?> first() {
            return rowStatus != null ? rowStatus : columns.values().iterator().next();
        }

        int rowStatus() {
            return rowStatus == null ? 0 : rowStatus.getVariableBinding().getVariable().toInt();
        }

        /** The varbind that sets the column, or null. */
        SubRequest<?> of(Column<?> column) {
            return column == null ? null : columns.get(column.snmpColumn());
        }
    }

    /** What the PDU asks of one VR: to create it (with its interfaces), to change it, or to remove it. */
    private static final class VrPlan {
        VmConfigEntry create;
        /** The VR is created by activating its row waiting after createAndWait: its waiting interfaces go with it. */
        boolean activated;
        ChangeSet.RowEdit edit;
        boolean remove;

        void edit(ChangeSet.RowEdit more) {
            edit = edit == null ? more : ChangeSet.both(edit, more);
        }
    }

    /** The port as the PDU's caller sees it. */
    private final VirtualRouters service;
    /** The port itself, to tell a vmIndex no VR holds from one another tenant's VR holds. */
    private final VirtualRouters all;
    private final Caller caller;
    private final PendingRows pending;
    private final Map<Integer, RowOp> configOps = new LinkedHashMap<>();
    private final Map<Long, RowOp> netOps = new LinkedHashMap<>();
    /** By VR, in the order the PDU first names each: also the order the service looks for errors in. */
    private final Map<Integer, VrPlan> plans = new LinkedHashMap<>();
    private final Map<Integer, Optional<PendingRows.ConfigRow>> pendingConfigs = new LinkedHashMap<>();
    private final Map<Long, Optional<PendingRows.NetRow>> pendingNets = new LinkedHashMap<>();
    private ChangeSet set;
    /** The set was applied in {@link #prepare}. */
    private boolean applied;
    private Boolean perVmNotifications;
    private Boolean bulkNotifications;
    private boolean committed;

    SetTransaction(VirtualRouters all, Caller caller, PendingRows pending) {
        this.service = all.as(caller);
        this.all = all;
        this.caller = caller;
        this.pending = pending;
    }

    boolean committed() {
        return committed;
    }

    // ------------------------------------------------------------------ prepare

    /**
     * Checks the PDU's varbinds, and has the service check the set ({@code applyNow} false) or apply it
     * ({@code applyNow} true: one check, not one here and another when {@link #commit} applies it; for a
     * PDU no other managed object has a part in, so that nothing can refuse it after this).
     */
    void prepare(List<SubRequest<?>> subs, boolean applyNow) throws SetError {
        for (SubRequest<?> sr : subs) varbind(sr);
        for (RowOp op : configOps.values()) configRow(op);
        for (RowOp op : netOps.values()) netRow(op);
        waitingInterfaces();
        waitingNames();
        ChangeSet.Builder b = ChangeSet.builder();
        plans.forEach((i, p) -> {
            if (p.create != null) b.create(p.create);
            if (p.edit != null) b.edit(i, p.edit);
            if (p.remove) b.remove(i);
        });
        if (b.isEmpty()) return;
        set = b.build();
        try {
            if (applyNow) {
                service.apply(set);
                applied = true;
            } else {
                service.validate(set);
            }
        } catch (VrException e) {
            throw refusal(e);
        }
    }

    /** Sorts a varbind to its row, after checking its name and its value's syntax. */
    private void varbind(SubRequest<?> sr) throws SetError {
        OID oid = sr.getVariableBinding().getOid();
        int configColumn = VmmInstrumentation.column(oid, VM_CONFIG_ENTRY);
        int netColumn = VmmInstrumentation.column(oid, VM_NETWORK_CONFIG_ENTRY);
        if (oid.equals(scalar(VM_PER_VM_NOTIFICATIONS_ENABLED))) {
            perVmNotifications = (Boolean) decode(sr, Column.Kind.TRUTH, 0, 0);
        } else if (oid.equals(scalar(VM_BULK_NOTIFICATIONS_ENABLED))) {
            bulkNotifications = (Boolean) decode(sr, Column.Kind.TRUTH, 0, 0);
        } else if (configColumn >= 0) {
            ConfigColumn column = ConfigColumn.ofSnmpColumn(configColumn);
            if ((column == null && configColumn != VM_CONFIG_ROW_STATUS) || oid.size() != VM_CONFIG_ENTRY.size() + 2
                    || oid.last() < 1) {
                throw new SetError(PDU.noCreation, sr, "no such vmConfigTable instance");
            }
            RowOp op = configOps.computeIfAbsent(oid.last(), i -> new RowOp(i, null));
            plans.computeIfAbsent(op.vmIndex, i -> new VrPlan());
            column(op, sr, column);
        } else if (netColumn >= 0) {
            NetworkColumn column = NetworkColumn.ofSnmpColumn(netColumn);
            int n = VM_NETWORK_CONFIG_ENTRY.size();
            if ((column == null && netColumn != NET_ROW_STATUS) || oid.size() != n + 3 || oid.get(n + 1) < 1
                    || oid.get(n + 2) < 1 || oid.get(n + 2) > NetworkColumn.MAX_INDEX) {
                throw new SetError(PDU.noCreation, sr, "no such vmNetworkConfigTable instance");
            }
            RowOp op = netOps.computeIfAbsent(PendingRows.netKey(oid.get(n + 1), oid.get(n + 2)),
                    k -> new RowOp(oid.get(n + 1), oid.get(n + 2)));
            plans.computeIfAbsent(op.vmIndex, i -> new VrPlan());
            column(op, sr, column);
        } else if (oid.startsWith(VM_AFFECTED_VMS)) {
            throw new SetError(PDU.noAccess, sr, "vmAffectedVMs is accessible-for-notify");
        } else if (VmmInstrumentation.isObject(oid) && exists(oid)) {
            throw new SetError(PDU.notWritable, sr, "read-only object");
        } else {
            Integer vm = VmmInstrumentation.vmIndexOf(oid);
            if (vm != null && vm > 0) othersVr(vm, sr, false);
            throw new SetError(PDU.noCreation, sr, "no such object or instance");
        }
    }

    private static void column(RowOp op, SubRequest<?> sr, Column<?> column) throws SetError {
        if (column == null) {
            int rs = (Integer) decode(sr, Column.Kind.INTEGER, ACTIVE, DESTROY);
            if (rs == NOT_READY) throw new SetError(PDU.wrongValue, sr, "RowStatus notReady cannot be set");
            op.rowStatus = sr;
        } else {
            decode(sr, column.kind(), column.min(), column.max());
            op.columns.put(column.snmpColumn(), sr);
        }
    }

    private boolean exists(OID oid) {
        Integer vm = VmmInstrumentation.vmIndexOf(oid);
        return (vm == null || vm > 0) && new MibView(service, service, pending, vm).get(oid) != null;
    }

    /**
     * A varbind's value as a value of the column's kind, its SNMP syntax checked: wrongType,
     * wrongLength (octets outside the column's lengths), wrongValue (a number outside the column's
     * range, an enumeration value that does not exist). Whether the value suits the VR is the service's.
     */
    private static Object decode(SubRequest<?> sr, Column.Kind kind, long min, long max) throws SetError {
        Variable v = sr.getVariableBinding().getVariable();
        int syntax = switch (kind) {
            case TEXT, MAC, INET_ADDRESS -> SMIConstants.SYNTAX_OCTET_STRING;
            case UNSIGNED -> SMIConstants.SYNTAX_GAUGE32;
            default -> SMIConstants.SYNTAX_INTEGER32;
        };
        if (v == null || v.getSyntax() != syntax) {
            throw new SetError(PDU.wrongType, sr, kind.expected() + " expected, as " + (syntax == SMIConstants.SYNTAX_OCTET_STRING
                    ? "OCTET STRING" : syntax == SMIConstants.SYNTAX_GAUGE32 ? "Unsigned32" : "INTEGER"));
        }
        return switch (kind) {
            case TEXT -> {
                OctetString s = (OctetString) v;
                if (s.length() < min || s.length() > max) throw new SetError(PDU.wrongLength, sr, "length must be " + min + ".." + max);
                try {
                    yield StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                            .decode(ByteBuffer.wrap(s.getValue())).toString();
                } catch (CharacterCodingException e) {
                    throw new SetError(PDU.wrongValue, sr, "not UTF-8 text");
                }
            }
            case MAC -> {
                if (((OctetString) v).length() != 6) throw new SetError(PDU.wrongLength, sr, "a MAC address is 6 octets");
                yield Codec.mac((OctetString) v);
            }
            case INET_ADDRESS -> {
                OctetString s = (OctetString) v;
                if (s.length() > 255) throw new SetError(PDU.wrongLength, sr, "length must be 0..255");
                if (s.length() == 0) yield null;
                if (s.length() != 4 && s.length() != 16) {
                    throw new SetError(PDU.wrongValue, sr, "an address has 4 (ipv4) or 16 (ipv6) octets");
                }
                try {
                    yield Codec.inet(s);
                } catch (UnknownHostException e) {
                    throw new SetError(PDU.wrongValue, sr, "not an address");
                }
            }
            case INTEGER, UNSIGNED -> {
                long n = kind == Column.Kind.UNSIGNED ? v.toLong() : v.toInt();
                if (n < min || n > max) throw new SetError(PDU.wrongValue, sr, "value must be " + min + ".." + max);
                yield (int) n;
            }
            default -> {
                try {
                    yield Codec.decode(kind, v.toInt());
                } catch (IllegalArgumentException e) {
                    throw new SetError(PDU.wrongValue, sr, e.getMessage());
                }
            }
        };
    }

    /** The row's columns written onto a copy of {@code base} (a new row when null). */
    private static <R> R withColumns(R row, RowOp op, Column<R>[] table) throws SetError {
        for (Column<R> c : table) {
            SubRequest<?> sr = op.of(c);
            if (sr != null) c.set(row, decode(sr, c.kind(), c.min(), c.max()));
        }
        return row;
    }

    private static VmConfigEntry configRow(int vmIndex, VmConfigEntry base, RowOp op) throws SetError {
        VmConfigEntry e = base == null ? new VmConfigEntry() : base.copy();
        e.vmIndex = vmIndex;
        return withColumns(e, op, ConfigColumn.values());
    }

    private static VmNetworkConfigEntry netRow(int netIndex, VmNetworkConfigEntry base, RowOp op) throws SetError {
        VmNetworkConfigEntry e = base == null ? new VmNetworkConfigEntry() : base.copy();
        e.vmNetworkConfigIndex = netIndex;
        withColumns(e, op, NetworkColumn.values());
        noPrefixWithoutAddress(e);
        // RFC 4001: unknown(0) with an empty address is no address at all.
        if (e.vmNetworkConfigAddressType == InetAddressType.UNKNOWN && e.vmNetworkConfigAddress == null) {
            e.vmNetworkConfigAddressType = null;
        }
        return e;
    }

    /** A prefix length of 0 on an interface without an address is what a read shows for none: no prefix. */
    private static void noPrefixWithoutAddress(VmNetworkConfigEntry e) {
        if (e.vmNetworkConfigAddress == null && Integer.valueOf(0).equals(e.vmNetworkConfigPrefixLength)) {
            e.vmNetworkConfigPrefixLength = null;
        }
    }

    /** A vmConfigTable row: what its RowStatus (or its absence) asks, given the row as it is. */
    private void configRow(RowOp op) throws SetError {
        int i = op.vmIndex;
        VrPlan plan = plans.get(i);
        boolean exists = service.getConfig(i).isPresent();
        PendingRows.ConfigRow waiting = exists ? null : pending.config(i);
        if (!exists && waiting == null) {
            othersVr(i, op.first(), op.rowStatus() == CREATE_AND_GO || op.rowStatus() == CREATE_AND_WAIT);
        }
        switch (op.rowStatus()) {
            case CREATE_AND_GO, CREATE_AND_WAIT -> {
                if (exists || waiting != null) throw new SetError(PDU.inconsistentValue, op.rowStatus, "row " + i + " exists");
                if (op.rowStatus() == CREATE_AND_GO) {
                    plan.create = configRow(i, null, op);
                } else {
                    pendingConfigs.put(i, Optional.of(new PendingRows.ConfigRow(configRow(i, null, op), System.nanoTime())));
                }
            }
            case ACTIVE -> {
                if (waiting != null) {
                    plan.create = configRow(i, waiting.entry(), op);
                    plan.activated = true;
                    pendingConfigs.put(i, Optional.empty());
                } else if (exists) {
                    plan.edit(ChangeSet.columns(configRow(i, new VmConfigEntry(), op)));
                } else {
                    throw new SetError(PDU.inconsistentValue, op.rowStatus, "row " + i + " does not exist");
                }
            }
            case NOT_IN_SERVICE -> {
                if (waiting == null) {
                    throw new SetError(PDU.inconsistentValue, op.rowStatus,
                            exists ? "an active VR cannot be taken out of service" : "no row " + i);
                }
                pendingConfigs.put(i, Optional.of(new PendingRows.ConfigRow(configRow(i, waiting.entry(), op),
                        waiting.createdNanos())));
            }
            case DESTROY -> {
                if (exists) plan.remove = true;
                if (waiting != null) pendingConfigs.put(i, Optional.empty());
            }
            default -> {
                if (waiting != null) {
                    pendingConfigs.put(i, Optional.of(new PendingRows.ConfigRow(configRow(i, waiting.entry(), op),
                            waiting.createdNanos())));
                } else if (exists) {
                    plan.edit(ChangeSet.columns(configRow(i, new VmConfigEntry(), op)));
                } else {
                    throw new SetError(PDU.inconsistentName, op.first(),
                            "row " + i + " does not exist: create it with vmConfigRowStatus");
                }
            }
        }
    }

    /** A vmNetworkConfigTable row: an interface created (with its VR, or on one that exists), changed or destroyed. */
    private void netRow(RowOp op) throws SetError {
        int i = op.vmIndex;
        int k = op.netIndex;
        VrPlan plan = plans.get(i);
        boolean exists = service.getConfig(i).map(c -> hasInterface(c, k)).orElse(false) && !plan.remove;
        PendingRows.NetRow waiting = pending.net(i, k);
        long key = PendingRows.netKey(i, k);
        if (plan.create == null && waiting == null && !vrWaiting(i) && service.getConfig(i).isEmpty()) othersVr(i, op.first(), false);
        switch (op.rowStatus()) {
            case CREATE_AND_GO, CREATE_AND_WAIT -> {
                if (exists || waiting != null || (plan.create != null && hasInterface(plan.create, k))) {
                    throw new SetError(PDU.inconsistentValue, op.rowStatus, "interface " + i + "." + k + " exists");
                }
                if (vrWaiting(i)) {
                    // Its VR is being filled in (createAndWait): the interface waits with it, to be
                    // created with it when it is made active (createAndGo cannot make it active sooner).
                    pendingNets.put(key, Optional.of(new PendingRows.NetRow(i, netRow(k, null, op), System.nanoTime())));
                } else if (op.rowStatus() == CREATE_AND_GO) {
                    add(plan, netRow(k, null, op));
                } else if (plan.create == null && service.getConfig(i).isEmpty()) {
                    throw new SetError(PDU.inconsistentName, op.rowStatus, "no VR with vmIndex " + i);
                } else {
                    pendingNets.put(key, Optional.of(new PendingRows.NetRow(i, netRow(k, null, op), System.nanoTime())));
                }
            }
            case ACTIVE -> {
                if (waiting != null && vrWaiting(i)) {
                    throw new SetError(PDU.inconsistentValue, op.rowStatus, "VR " + i
                            + " is not active yet: its interfaces become active with it");
                } else if (waiting != null) {
                    add(plan, netRow(k, waiting.entry(), op));
                    pendingNets.put(key, Optional.empty());
                } else if (exists) {
                    plan.edit(changeInterface(k, op));
                } else {
                    throw new SetError(PDU.inconsistentValue, op.rowStatus, "interface " + i + "." + k + " does not exist");
                }
            }
            case NOT_IN_SERVICE -> {
                if (waiting == null) {
                    throw new SetError(PDU.inconsistentValue, op.rowStatus, "only a row being created can be notInService");
                }
                pendingNets.put(key, Optional.of(new PendingRows.NetRow(i, netRow(k, waiting.entry(), op), waiting.createdNanos())));
            }
            case DESTROY -> {
                if (exists) plan.edit(ChangeSet.removeInterface(k));
                if (waiting != null) pendingNets.put(key, Optional.empty());
            }
            default -> {
                if (waiting != null) {
                    pendingNets.put(key, Optional.of(new PendingRows.NetRow(i, netRow(k, waiting.entry(), op),
                            waiting.createdNanos())));
                } else if (exists) {
                    plan.edit(changeInterface(k, op));
                } else {
                    throw new SetError(PDU.inconsistentName, op.first(),
                            "interface " + i + "." + k + " does not exist: create it with vmNetworkConfigRowStatus");
                }
            }
        }
    }

    /**
     * A row of a VR the caller does not see: none, or another tenant's. Another tenant's is answered
     * as a row that does not exist (the caller's view has neither), whatever the PDU asks of it, so
     * that no SET tells the two apart: a column is inconsistentName, destroy changes nothing and is no
     * error. Only its creation is refused, noAccess (RFC 3416 4.2.5), since vmIndex is one space for
     * the host and a missing row would be created. A viewer changes nothing: noAccess, the core's reason.
     */
    private void othersVr(int vmIndex, SubRequest<?> at, boolean createsVr) throws SetError {
        if (!caller.mayChange()) {
            try {
                service.validate(ChangeSet.builder().edit(vmIndex, row -> { }).build());
            } catch (VrException e) {
                if (e.reason() == VrException.Reason.DENIED) throw new SetError(PDU.noAccess, at, e.getMessage());
            }
            return;
        }
        if (createsVr && all.getConfig(vmIndex).map(row -> !caller.sees(row.vmConfigTenant)).orElse(false)) {
            throw new SetError(PDU.noAccess, at, "vmIndex " + vmIndex + " cannot be used");
        }
    }

    /** Whether the VR's row waits after createAndWait, and still will after this PDU. */
    private boolean vrWaiting(int vmIndex) {
        Optional<PendingRows.ConfigRow> here = pendingConfigs.get(vmIndex);
        if (here != null) return here.isPresent();
        return pending.config(vmIndex) != null && service.getConfig(vmIndex).isEmpty();
    }

    /**
     * The interface rows waiting with their VR, as they are after this PDU: a VR made active takes
     * them into its creation (each must have its vmNetworkConfigParent by then); a waiting VR
     * destroyed takes them away.
     */
    private void waitingInterfaces() throws SetError {
        for (Map.Entry<Integer, VrPlan> e : plans.entrySet()) {
            int i = e.getKey();
            VrPlan plan = e.getValue();
            boolean dropped = pendingConfigs.containsKey(i) && pendingConfigs.get(i).isEmpty() && !plan.activated;
            if (!plan.activated && !dropped) continue;
            Map<Long, PendingRows.NetRow> rows = new java.util.TreeMap<>();
            long first = PendingRows.netKey(i, 0);
            rows.putAll(pending.nets().subMap(first, first + (1L << 16)));
            pendingNets.forEach((key, row) -> {
                if (key >= first && key < first + (1L << 16)) {
                    if (row.isPresent()) rows.put(key, row.get()); else rows.remove(key);
                }
            });
            for (Map.Entry<Long, PendingRows.NetRow> r : rows.entrySet()) {
                pendingNets.put(r.getKey(), Optional.empty());
                if (dropped) continue;
                VmNetworkConfigEntry iface = r.getValue().entry();
                if (!r.getValue().ready()) {
                    RowOp op = configOps.get(i);
                    throw new SetError(PDU.inconsistentValue, op.rowStatus, "interface " + i + "."
                            + iface.vmNetworkConfigIndex + " has no vmNetworkConfigParent yet: set it or destroy the row");
                }
                if (!hasInterface(plan.create, iface.vmNetworkConfigIndex)) add(plan, iface);
            }
        }
    }

    private static boolean hasInterface(VmConfigEntry c, int k) {
        return c.interfaces().stream().anyMatch(n -> n.vmNetworkConfigIndex == k);
    }

    /** A new interface: part of its VR's creation, or added to the VR. */
    private static void add(VrPlan plan, VmNetworkConfigEntry iface) {
        if (plan.create != null) {
            List<VmNetworkConfigEntry> list = new ArrayList<>(plan.create.interfaces());
            list.add(iface);
            plan.create.vmNetworkConfigTable = list;
        } else {
            plan.edit(row -> {
                if (hasInterface(row, iface.vmNetworkConfigIndex)) {
                    throw new ConflictException(VrException.Reason.EXISTS, null, "interface " + row.vmIndex + "."
                            + iface.vmNetworkConfigIndex + " exists").at(row.vmIndex, iface.vmNetworkConfigIndex);
                }
                ChangeSet.putInterface(iface).apply(row);
            });
        }
    }

    /** The columns set on an existing interface, made on the interface as it is when the set is applied. */
    private static ChangeSet.RowEdit changeInterface(int k, RowOp op) throws SetError {
        VmNetworkConfigEntry columns = netRow(k, null, op);
        return row -> {
            VmNetworkConfigEntry now = row.interfaces().stream().filter(n -> n.vmNetworkConfigIndex == k).findFirst()
                    .orElseThrow(() -> new NotFoundException("VR " + row.vmIndex + " has no interface " + k).at(row.vmIndex, k));
            VmNetworkConfigEntry next = now.copy();
            for (NetworkColumn c : NetworkColumn.values()) {
                if (op.of(c) != null) c.set(next, c.get(columns));
            }
            noPrefixWithoutAddress(next);
            ChangeSet.putInterface(next).apply(row);
        };
    }

    /** A row waiting for activation (createAndWait) keeps its name: SNMP's own reservation. */
    private void waitingNames() throws SetError {
        for (PendingRows.ConfigRow w : pending.configs().values()) {
            String name = w.entry().vmName;
            if (name == null || pendingConfigs.containsKey(w.entry().vmIndex)) continue;
            for (RowOp op : configOps.values()) {
                SubRequest<?> nameVb = op.of(ConfigColumn.VM_NAME);
                if (nameVb != null && op.vmIndex != w.entry().vmIndex
                        && name.equals(Codec.text((OctetString) nameVb.getVariableBinding().getVariable()))) {
                    throw new SetError(PDU.inconsistentValue, nameVb, "the row being created with vmIndex "
                            + w.entry().vmIndex + " is named '" + name + "'");
                }
            }
        }
    }

    /**
     * The service's refusal against the varbind of the column it names (or the row's RowStatus, or
     * its first varbind): wrongValue for text the column can never hold, inconsistentName for a row
     * that does not exist, inconsistentValue for everything that depends on the rest.
     */
    private SetError refusal(VrException e) {
        Integer vm = e.vmIndex();
        RowOp op = null;
        if (vm != null) {
            op = e.networkIndex() != null ? netOps.get(PendingRows.netKey(vm, e.networkIndex())) : configOps.get(vm);
            for (RowOp o : netOps.values()) if (op == null && o.vmIndex == vm) op = o;
        }
        if (op == null) op = configOps.isEmpty() ? netOps.values().iterator().next() : configOps.values().iterator().next();
        Column<?> column = op.netIndex == null ? ConfigColumn.ofField(e.field()) : NetworkColumn.ofField(e.field());
        SubRequest<?> at = op.of(column);
        int status = switch (e.reason()) {
            case INVALID -> at != null && (column.kind() == Column.Kind.TEXT || column.kind() == Column.Kind.MAC)
                    ? PDU.wrongValue : PDU.inconsistentValue;
            case NOT_FOUND -> PDU.inconsistentName;
            case FAILED -> PDU.commitFailed;
            // LOCKED: running is locked by another session (a NETCONF <lock>); the message names it.
            // IN_USE: the VR is moving to a peer.
            case UNAVAILABLE, QUOTA, LOCKED, IN_USE -> PDU.resourceUnavailable;
            // RFC 3416 4.2.5: a variable outside the requester's view is noAccess; another tenant's
            // VR is answered as one that does not exist.
            case DENIED -> e instanceof AccessDeniedException d && d.hidden() ? PDU.inconsistentName : PDU.noAccess;
            default -> PDU.inconsistentValue;
        };
        return new SetError(status, at != null ? at : op.first(), e.getMessage());
    }

    // ------------------------------------------------------------------ commit

    /**
     * Applies the set unless prepare did (one call: all of it or nothing; should the VRs have changed
     * since prepare so that the service refuses it now, nothing is changed and the PDU fails with
     * commitFailed), then the rows waiting for activation and the notification switches.
     */
    void commit() {
        committed = true;
        if (set != null && !applied) service.apply(set);
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

    /** For tests and logs. */
    @Override
    public String toString() {
        return "SetTransaction{" + set + " pending=" + pendingConfigs.keySet() + "/" + pendingNets.keySet() + "}";
    }
}
