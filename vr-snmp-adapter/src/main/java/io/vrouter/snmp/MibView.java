package io.vrouter.snmp;

import static io.vrouter.snmp.VmmMib.*;

import io.vrouter.core.model.Column;
import io.vrouter.core.model.ConfigColumn;
import io.vrouter.core.model.Hypervisor;
import io.vrouter.core.model.InetAddressType;
import io.vrouter.core.model.NetworkColumn;
import io.vrouter.core.model.Scalar;
import io.vrouter.core.model.Schema;
import io.vrouter.core.model.VirtualRouter;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import io.vrouter.core.spi.VirtualRouters;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.IntStream;
import org.snmp4j.agent.MOScope;
import org.snmp4j.agent.request.SubRequest;
import org.snmp4j.smi.Gauge32;
import org.snmp4j.smi.Integer32;
import org.snmp4j.smi.OID;
import org.snmp4j.smi.TimeTicks;
import org.snmp4j.smi.Variable;

/**
 * The instances of NEW-VMM-MIB for one request, read from the service as the request reaches them.
 *
 * <p>A GETNEXT or GETBULK answers from the requested OID onward: a table is walked column by column
 * (the lexicographic order of its instances), and within a column only the VRs from the requested
 * vmIndex on are read, one at a time, until an instance is found. So a request reads the rows it
 * returns (and, per table, the VRs without a row there that lie between them), never the whole table,
 * and its cost does not grow with the number of VRs. The VRs a request has read are kept for the
 * length of the request, so that the repetitions of a GETBULK and the columns of one row see one
 * picture of each VR; nothing is kept between requests. A walk of vmConfigTable never asks the
 * hypervisor about the VRs (it reads the configured rows only), and a GET reads only the VR it names.
 */
final class MibView {
    private static final int FIRST = 1;
    /** vmCommittedMemory, the last child of vmObjects. */
    private static final int LAST = 20;
    private static final long MAX_VM_INDEX = Integer.MAX_VALUE;

    /** One instance and its value. */
    record Cell(OID oid, Variable value) {
        /** Answers a GETNEXT's sub-request with this instance, when there is one (null: none in its scope). */
        static boolean answer(SubRequest<?> sr, Cell cell) {
            if (cell == null) return false;
            sr.getVariableBinding().setOid(cell.oid);
            sr.getVariableBinding().setVariable(cell.value);
            sr.completed();
            return true;
        }
    }

    /** A row of a table: its index after the vmIndex (empty for one row per VR), its data, its RowStatus. */
    private record Row(int[] suffix, Object data, int rowStatus) {
        Row(int[] suffix, Object data) {
            this(suffix, data, ACTIVE);
        }
    }

    /** The port as the request's caller sees it: a tenant's user, its tenant's VRs only. */
    private final VirtualRouters service;
    /** The port itself, for the one global fact: which vmIndex no VR holds (vmConfigNextAvailableVmIndex). */
    private final VirtualRouters all;
    private final PendingRows pending;
    /** The rows waiting after createAndWait of every tenant: their indices are no one's next (vmConfigNextAvailableVmIndex). */
    private final PendingRows held;
    private final Integer only;
    private TreeMap<OID, Variable> scalars;
    private final Map<Integer, Optional<VirtualRouter>> state = new HashMap<>();
    private final Map<Integer, Optional<VmConfigEntry>> configs = new HashMap<>();
    /** The rows {@link #rowsOf} made last. */
    private Table lastTable;
    private int lastVm;
    private List<Row> lastRows;

    /**
     * A view of every VR {@code service} shows, or of the VR {@code only} (with the scalars) when it is
     * not null; {@code all} is the port itself.
     */
    MibView(VirtualRouters service, VirtualRouters all, PendingRows pending, Integer only) {
        this(service, all, pending, pending, only);
    }

    /** {@code pending}: the waiting rows the caller sees; {@code held}: every tenant's. */
    MibView(VirtualRouters service, VirtualRouters all, PendingRows pending, PendingRows held) {
        this(service, all, pending, held, null);
    }

    private MibView(VirtualRouters service, VirtualRouters all, PendingRows pending, PendingRows held, Integer only) {
        this.service = service;
        this.all = all;
        this.pending = pending;
        this.held = held;
        this.only = only;
    }

    /** The value of one instance, or null when there is no such instance. */
    Variable get(OID oid) {
        int c = section(oid);
        if (c < FIRST || c > LAST) return null;
        Table t = TABLES[c];
        if (t == null) return scalars().get(oid);
        int n = t.entry.size();
        if (!oid.startsWith(t.entry) || oid.size() < n + 2) return null;
        long vm = oid.getUnsigned(n + 1);
        if (vm < 1 || vm > MAX_VM_INDEX || (only != null && vm != only)) return null;
        int[] suffix = Arrays.copyOfRange(oid.getValue(), n + 2, oid.size());
        for (Row row : rowsOf(t, (int) vm)) {
            if (Arrays.equals(row.suffix, suffix)) return t.value(row, oid.get(n));
        }
        return null;
    }

    /** The first instance in the range that passes the filter (null: none). */
    Cell first(MOScope range, Function<OID, Boolean> filter) {
        OID lower = range.getLowerBound() == null ? OBJECTS : range.getLowerBound();
        boolean inclusive = range.getLowerBound() == null || range.isLowerIncluded();
        while (true) {
            Cell cell = next(lower, inclusive);
            if (cell == null || !range.covers(cell.oid)) return null;
            if (filter == null || filter.apply(cell.oid)) return cell;
            lower = cell.oid;
            inclusive = false;
        }
    }

    /** The first instance at or after (after, when not inclusive) {@code lower}. */
    private Cell next(OID lower, boolean inclusive) {
        for (int c = Math.max(FIRST, section(lower)); c <= LAST; c++) {
            Table t = TABLES[c];
            Cell cell = t == null ? nextScalar(c, lower, inclusive) : t.next(this, lower, inclusive);
            if (cell != null) return cell;
        }
        return null;
    }

    private Cell nextScalar(int c, OID lower, boolean inclusive) {
        Map.Entry<OID, Variable> e = inclusive ? scalars().ceilingEntry(lower) : scalars().higherEntry(lower);
        return e != null && section(e.getKey()) == c ? new Cell(e.getKey(), e.getValue()) : null;
    }

    /** The child of vmObjects an OID falls in: 0 before the first, LAST + 1 after the last. */
    private static int section(OID oid) {
        if (!oid.startsWith(OBJECTS)) return oid.compareTo(OBJECTS) < 0 ? 0 : LAST + 1;
        return oid.size() == OBJECTS.size() ? 0 : (int) Math.min(oid.getUnsigned(OBJECTS.size()), LAST + 1);
    }

    // ------------------------------------------------------------------ what the request reads, once each

    /**
     * The rows of one VR in a table, made once for the columns that follow one another: a GET of a
     * VR's row names its columns one by one, and each would make the same rows again.
     */
    private List<Row> rowsOf(Table t, int vmIndex) {
        if (t != lastTable || vmIndex != lastVm) {
            lastRows = t.rows(this, vmIndex);
            lastTable = t;
            lastVm = vmIndex;
        }
        return lastRows;
    }

    private VirtualRouter router(int vmIndex) {
        return state.computeIfAbsent(vmIndex, service::get).orElse(null);
    }

    private VmConfigEntry config(int vmIndex) {
        return configs.computeIfAbsent(vmIndex, service::getConfig).orElse(null);
    }

    /**
     * A row being created (createAndWait) as a read shows it: the columns not set yet that have a
     * default (their DEFVAL, the driver's first template) have it, as RFC 2579 asks of such rows.
     */
    private VmConfigEntry withDefaults(VmConfigEntry waiting) {
        VmConfigEntry e = waiting.copy();
        for (ConfigColumn c : ConfigColumn.values()) {
            if (c.get(e) == null && c.defaultValue() != null) c.set(e, c.defaultValue());
        }
        if (e.vmConfigTemplate == null && !service.templates().isEmpty()) e.vmConfigTemplate = service.templates().get(0);
        return e;
    }

    /**
     * An interface as a read shows it: the prefix length its address has when none was given (24 or
     * 64: a row still waiting to be created), 0 when it has no address. The MAC the hypervisor
     * generated is in the row once the VM has it (the service records it), so no read asks the driver.
     */
    private static VmNetworkConfigEntry effective(VmNetworkConfigEntry n) {
        if (n.vmNetworkConfigPrefixLength != null) return n;
        VmNetworkConfigEntry e = n.copy();
        e.vmNetworkConfigPrefixLength = e.vmNetworkConfigAddress == null ? 0 : VmNetworkConfigEntry.defaultPrefixLength(
                e.vmNetworkConfigAddressType != null ? e.vmNetworkConfigAddressType == InetAddressType.IPV4
                        : !e.vmNetworkConfigAddress.contains(":"));
        return e;
    }

    /** The smallest configured vmIndex at or after {@code from}, or null. */
    private Integer configuredFrom(long from) {
        if (from > MAX_VM_INDEX) return null;
        if (only != null) return from <= only && service.getConfig(only).isPresent() ? only : null;
        // nextIndexAfter, not indices(): a tenant's view skips others' VRs from here on, not all of them each time.
        return service.nextIndexAfter((int) Math.max(from, 1) - 1).orElse(null);
    }

    private static Integer min(Integer a, Integer b) {
        if (a == null) return b;
        if (b == null) return a;
        return Math.min(a, b);
    }

    private TreeMap<OID, Variable> scalars() {
        if (scalars != null) return scalars;
        TreeMap<OID, Variable> m = new TreeMap<>();
        Hypervisor h = service.hypervisor();
        for (Scalar s : Scalar.values()) {
            // The next free index skips the rows createAndWait holds, which only the agent knows.
            Object v = s == Scalar.CONFIG_NEXT_AVAILABLE_VM_INDEX ? nextFree(all, held) : s.get(h);
            m.put(scalar(VmmMib.scalar(s)), encode(s.syntax(), v));
        }
        scalars = m;
        return m;
    }

    /** A scalar's value in its SNMP syntax. */
    private static Variable encode(Scalar.Syntax syntax, Object v) {
        return switch (syntax) {
            case TEXT -> Codec.text((String) v);
            case OBJECT_ID -> objectId((String) v);
            case TIME_TICKS -> new TimeTicks(nonNegative((Long) v));
            case INTEGER32 -> new Integer32((Integer) v);
            case TRUTH -> Codec.truth((Boolean) v);
            case GAUGE32 -> v instanceof Long l ? new Gauge32(Codec.unsigned32(l)) : new Gauge32((Integer) v);
        };
    }

    /** The next available index, skipping the indices that createAndWait rows hold. */
    static int nextFree(VirtualRouters service, PendingRows pending) {
        int i = service.nextAvailableVmIndex();
        while (pending.configs().containsKey(i) || service.getConfig(i).isPresent()) {
            i = i == Integer.MAX_VALUE ? 1 : i + 1;
        }
        return i;
    }

    // ------------------------------------------------------------------ the tables

    /**
     * A table of the MIB indexed by vmIndex first: its entry OID, its columns in order, the VRs that
     * may have rows in it, the rows of one VR and the value of a row's column.
     */
    private abstract static class Table {
        final OID entry;
        final int[] columns;
        /** One row per VR, indexed by vmIndex alone. */
        final boolean oneRowPerVr;

        Table(OID entry, boolean oneRowPerVr, int... columns) {
            this.entry = entry;
            this.oneRowPerVr = oneRowPerVr;
            this.columns = columns;
        }

        /** The smallest vmIndex at or after {@code from} that may have rows here, or null. */
        Integer vmFrom(MibView v, long from) {
            return v.configuredFrom(from);
        }

        /** The rows of one VR, in the order of their index. */
        abstract List<Row> rows(MibView v, int vmIndex);

        /** The value of a column of a row; null when the row has no such instance. */
        abstract Variable value(Row row, int column);

        /** The first instance of this table at or after {@code lower}, reading VRs from lower's vmIndex on. */
        Cell next(MibView v, OID lower, boolean inclusive) {
            int n = entry.size();
            long fromColumn = 0;
            if (lower.startsWith(entry)) {
                if (lower.size() > n) fromColumn = lower.getUnsigned(n);
            } else if (lower.compareTo(entry) > 0) {
                return null;
            }
            for (int column : columns) {
                if (column < fromColumn) continue;
                boolean bounded = column == fromColumn && lower.size() > n + 1;
                long fromVm = bounded ? lower.getUnsigned(n + 1) : 1;
                // After entry.column.vm itself, a table with one row per VR goes on at the next VR: vm is not read.
                if (bounded && !inclusive && oneRowPerVr && lower.size() == n + 2) fromVm++;
                for (Integer vm = vmFrom(v, fromVm); vm != null; vm = vm == MAX_VM_INDEX ? null : vmFrom(v, vm + 1L)) {
                    for (Row row : v.rowsOf(this, vm)) {
                        OID oid = instance(column, vm, row.suffix);
                        if (bounded) {
                            int cmp = oid.compareTo(lower);
                            if (cmp < 0 || (cmp == 0 && !inclusive)) continue;
                        }
                        Variable value = value(row, column);
                        if (value != null) return new Cell(oid, value);
                    }
                }
            }
            return null;
        }

        OID instance(int column, int vmIndex, int[] suffix) {
            int n = entry.size();
            int[] ids = Arrays.copyOf(entry.getValue(), n + 2 + suffix.length);
            ids[n] = column;
            ids[n + 1] = vmIndex;
            System.arraycopy(suffix, 0, ids, n + 2, suffix.length);
            return new OID(ids);
        }
    }

    /** The column numbers of a configuration table: those of the column table, and its RowStatus. */
    static int[] writable(Column<?>[] table, int rowStatus) {
        return IntStream.concat(Arrays.stream(table).mapToInt(Column::snmpColumn), IntStream.of(rowStatus))
                .sorted().toArray();
    }

    private static final int[] NO_SUFFIX = new int[0];

    /**
     * A state table, read by its schema table: the rows are the VR's, indexed by the values of the
     * table's index columns; a column's value is the row's in the column's encoding, or what SNMP shows
     * when the host reports none (no instance for the counters a host does not keep).
     */
    private static final class StateTable extends Table {
        private final Schema.Table schema;
        private final List<Column<?>> indices;

        StateTable(Schema.Table schema) {
            super(VmmMib.sub(OBJECTS, schema.snmpTable(), 1), schema.keys().size() == 1, schema.snmpColumns());
            this.schema = schema;
            this.indices = Arrays.stream(schema.columns()).filter(Column::index).toList();
        }

        @Override
        List<Row> rows(MibView v, int vmIndex) {
            VirtualRouter r = v.router(vmIndex);
            if (r == null) return List.of();
            List<?> entries = schema.rows(r);
            if (oneRowPerVr) return List.of(new Row(NO_SUFFIX, entries.get(0)));
            // The driver reports rows in any order; SNMP walks them in the order of their index.
            List<Row> rows = new ArrayList<>(entries.size());
            for (Object e : entries) rows.add(new Row(suffix(e), e));
            rows.sort((a, b) -> Arrays.compare(a.suffix, b.suffix));
            return rows;
        }

        private int[] suffix(Object entry) {
            int[] suffix = new int[indices.size()];
            for (int i = 0; i < suffix.length; i++) suffix[i] = (Integer) Schema.get(indices.get(i), entry);
            return suffix;
        }

        @Override
        Variable value(Row row, int column) {
            Column<?> c = schema.bySnmpColumn(column);
            if (c == null) return null;
            Object value = Schema.get(c, row.data);
            if (value == null) value = c.snmpAbsent();
            return value == null ? null : Codec.encode(c.kind(), value);
        }
    }

    /** vmConfigTable: the configured rows, and the rows created with createAndWait not yet active. */
    private static final Table CONFIG_TABLE = new Table(VM_CONFIG_ENTRY, true, writable(ConfigColumn.values(), VM_CONFIG_ROW_STATUS)) {
        @Override
        Integer vmFrom(MibView v, long from) {
            if (from > MAX_VM_INDEX) return null;
            int f = (int) Math.max(from, v.only != null ? v.only : 1);
            Integer pendingVm = v.pending.configs().ceilingKey(f);
            if (v.only != null && !v.only.equals(pendingVm)) pendingVm = null;
            return min(v.configuredFrom(from), pendingVm);
        }

        @Override
        List<Row> rows(MibView v, int vmIndex) {
            VmConfigEntry c = v.config(vmIndex);
            if (c != null) return List.of(new Row(new int[0], c));
            PendingRows.ConfigRow p = v.pending.config(vmIndex);
            return p == null ? List.of()
                    : List.of(new Row(new int[0], v.withDefaults(p.entry()), p.ready() ? NOT_IN_SERVICE : NOT_READY));
        }

        @Override
        Variable value(Row row, int column) {
            if (column == VM_CONFIG_ROW_STATUS) return new Integer32(row.rowStatus);
            ConfigColumn c = ConfigColumn.ofSnmpColumn(column);
            if (c == null) return null;
            Object v = c.get((VmConfigEntry) row.data);
            // Text that may be empty is there, empty, when absent (its DEFVAL is "").
            return Codec.encode(c.kind(), v == null && c.kind() == Column.Kind.TEXT && c.min() == 0 ? "" : v);
        }
    };

    /** vmNetworkConfigTable: the configured interfaces, and those created with createAndWait not yet active. */
    private static final Table NETWORK_CONFIG_TABLE = new Table(VM_NETWORK_CONFIG_ENTRY, false, writable(NetworkColumn.values(), NET_ROW_STATUS)) {
        @Override
        Integer vmFrom(MibView v, long from) {
            if (from > MAX_VM_INDEX) return null;
            int f = (int) Math.max(from, v.only != null ? v.only : 1);
            Long key = v.pending.nets().ceilingKey(PendingRows.netKey(f, 0));
            Integer pendingVm = key == null ? null : (int) (key >>> 16);
            if (v.only != null && !v.only.equals(pendingVm)) pendingVm = null;
            return min(v.configuredFrom(from), pendingVm);
        }

        @Override
        List<Row> rows(MibView v, int vmIndex) {
            TreeMap<Integer, Row> rows = new TreeMap<>();
            VmConfigEntry c = v.config(vmIndex);
            if (c != null) {
                for (VmNetworkConfigEntry n : c.interfaces()) {
                    rows.put(n.vmNetworkConfigIndex, new Row(new int[]{n.vmNetworkConfigIndex}, effective(n)));
                }
            }
            long first = PendingRows.netKey(vmIndex, 0);
            for (PendingRows.NetRow r : v.pending.nets().subMap(first, first + (1L << 16)).values()) {
                int k = r.entry().vmNetworkConfigIndex;
                rows.put(k, new Row(new int[]{k}, effective(r.entry()), r.ready() ? NOT_IN_SERVICE : NOT_READY));
            }
            return List.copyOf(rows.values());
        }

        @Override
        Variable value(Row row, int column) {
            if (column == NET_ROW_STATUS) return new Integer32(row.rowStatus);
            NetworkColumn c = NetworkColumn.ofSnmpColumn(column);
            return c == null ? null : Codec.encode(c.kind(), c.get((VmNetworkConfigEntry) row.data));
        }
    };

    /** The tables by their child number under vmObjects; null for the scalars (and vmAffectedVMs, 11). */
    private static final Table[] TABLES = new Table[LAST + 1];

    static {
        for (Schema.Table t : Schema.STATE_TABLES) TABLES[t.snmpTable()] = new StateTable(t);
        TABLES[Schema.Table.CONFIG.snmpTable()] = CONFIG_TABLE;
        TABLES[Schema.Table.NETWORK_CONFIG.snmpTable()] = NETWORK_CONFIG_TABLE;
    }

    /** True when the OID names an instance of one of the tables' columns (for noSuchInstance against noSuchObject). */
    static boolean isColumnInstance(OID oid) {
        int c = section(oid);
        Table t = c >= FIRST && c <= LAST ? TABLES[c] : null;
        if (t == null || oid.size() <= t.entry.size() + 1 || !oid.startsWith(t.entry)) return false;
        return Arrays.binarySearch(t.columns, oid.get(t.entry.size())) >= 0;
    }

    private static OID objectId(String dotted) {
        try {
            OID o = new OID(dotted == null ? "0.0" : dotted);
            return o.size() < 2 ? new OID("0.0") : o;
        } catch (RuntimeException e) {
            return new OID("0.0");
        }
    }

    private static long nonNegative(Long v) {
        return Codec.unsigned32(v);
    }
}
