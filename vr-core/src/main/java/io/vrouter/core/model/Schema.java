package io.vrouter.core.model;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Every table of NEW-VMM-MIB and every column of each, declared once: SNMP's view, the YANG data
 * tree (XML and RFC 7951 JSON) and REST's checks iterate these. The writable tables are
 * {@link ConfigColumn} and {@link NetworkColumn}; the read-only ones are the enums here, one line per
 * leaf in SNMP column order (which is also the order of the YANG module's leaves). A new state column
 * is a field of its model row, a line here, an object in the MIB and a leaf in the YANG module.
 */
public final class Schema {
    private Schema() {
    }

    private static final long INT32 = Integer.MAX_VALUE;
    private static final long UINT32 = 0xFFFF_FFFFL;
    private static final long UINT64 = Long.MAX_VALUE;

    /** vmTable: one row per VR, what the hypervisor reports of it (its key is the VR's vmIndex). */
    public enum Vm implements Column<VmEntry> {
        UUID(Spec.state("vmUUID", 3, Kind.UUID, 0, 36, null, "", e -> e.vmUUID)),
        OS_TYPE(Spec.state("vmOSType", 4, Kind.TEXT, 0, 255, null, "", e -> e.vmOSType)),
        OPER_STATE(Spec.state("vmOperState", 6, Kind.ENUM, 0, 0, null, OperState.UNKNOWN, e -> e.vmOperState)),
        AUTO_START(Spec.state("vmAutoStart", 7, Kind.ENUM, 0, 0, null, VmEntry.AutoStart.UNKNOWN, e -> e.vmAutoStart)),
        PERSISTENT(Spec.state("vmPersistent", 8, Kind.ENUM, 0, 0, null, VmEntry.Persistent.UNKNOWN, e -> e.vmPersistent)),
        CUR_CPU_NUMBER(Spec.state("vmCurCpuNumber", 9, Kind.INTEGER, 0, INT32, null, 0, e -> e.vmCurCpuNumber)),
        MIN_CPU_NUMBER(Spec.state("vmMinCpuNumber", 10, Kind.INTEGER, -1, INT32, null, -1, e -> e.vmMinCpuNumber)),
        MAX_CPU_NUMBER(Spec.state("vmMaxCpuNumber", 11, Kind.INTEGER, -1, INT32, null, -1, e -> e.vmMaxCpuNumber)),
        MEM_UNIT(Spec.state("vmMemUnit", 12, Kind.INTEGER, 1, INT32, "bytes", 1, e -> e.vmMemUnit)),
        CUR_MEM(Spec.state("vmCurMem", 13, Kind.INT64, 0, INT32, "vmMemUnit", 0L, e -> e.vmCurMem)),
        MIN_MEM(Spec.state("vmMinMem", 14, Kind.INT64, -1, INT32, "vmMemUnit", -1L, e -> e.vmMinMem)),
        MAX_MEM(Spec.state("vmMaxMem", 15, Kind.INT64, -1, INT32, "vmMemUnit", -1L, e -> e.vmMaxMem)),
        UP_TIME(Spec.state("vmUpTime", 16, Kind.TIME_TICKS, 0, UINT32, "centiseconds", 0L, e -> e.vmUpTime)),
        CPU_TIME(Spec.state("vmCpuTime", 17, Kind.COUNTER64, 0, UINT64, "microseconds", 0L, e -> e.vmCpuTime)),
        ROUTE_ENTRIES(Spec.state("vmRouteEntries", 18, Kind.GAUGE32, 0, UINT32, "routes", 0L, e -> e.vmRouteEntries)),
        FIB_ENTRIES(Spec.state("vmFibEntries", 19, Kind.GAUGE32, 0, UINT32, "entries", 0L, e -> e.vmFibEntries)),
        ROUTING_PROTOCOLS(Spec.state("vmRoutingProtocols", 20, Kind.TEXT, 0, 255, null, "", e -> e.vmRoutingProtocols)),
        ROUTER_ADDR_TYPE(Spec.state("vmRouterAddrType", 21, Kind.ADDRESS_TYPE, 0, 0, null, InetAddressType.UNKNOWN,
                e -> e.vmRouterAddrType)),
        ROUTER_ADDR(Spec.state("vmRouterAddr", 22, Kind.INET_ADDRESS, 0, 0, null, "", e -> e.vmRouterAddr)),
        OPER_STATE_REASON(Spec.state("vmOperStateReason", 23, Kind.TEXT, 0, 255, null, "", e -> e.vmOperStateReason));
        // SNMP columns 1 (vmIndex, the key), 2 and 5 (vmName and vmAdminState: vmConfigTable's).

        private final Spec<VmEntry> spec;

        Vm(Spec<VmEntry> spec) {
            this.spec = spec;
        }

        @Override
        public Spec<VmEntry> spec() {
            return spec;
        }
    }

    /** vmCpuTable: a row per virtual CPU. */
    public enum Cpu implements Column<VmCpuEntry> {
        INDEX(Spec.index("vmCpuIndex", 1, 1, INT32, c -> c.vmCpuIndex)),
        CORE_TIME(Spec.state("vmCpuCoreTime", 2, Kind.COUNTER64, 0, UINT64, "microseconds", 0L, c -> c.vmCpuCoreTime));

        private final Spec<VmCpuEntry> spec;

        Cpu(Spec<VmCpuEntry> spec) {
            this.spec = spec;
        }

        @Override
        public Spec<VmCpuEntry> spec() {
            return spec;
        }
    }

    /** vmCpuAffinityTable: a row per virtual CPU pinned to a physical one. */
    public enum CpuAffinity implements Column<VmCpuEntry> {
        /** vmCpuTable's index (column 1 there, none here). */
        CPU_INDEX(Spec.index("vmCpuIndex", 0, 1, INT32, c -> c.vmCpuIndex)),
        PHYS_INDEX(Spec.index("vmCpuPhysIndex", 2, 1, INT32, c -> c.vmCpuPhysIndex)),
        AFFINITY(Spec.state("vmCpuAffinity", 3, Kind.ENUM, 0, 0, null, VmCpuEntry.Affinity.UNKNOWN, c -> c.vmCpuAffinity));

        private final Spec<VmCpuEntry> spec;

        CpuAffinity(Spec<VmCpuEntry> spec) {
            this.spec = spec;
        }

        @Override
        public Spec<VmCpuEntry> spec() {
            return spec;
        }
    }

    /** vmStorageTable: a row per virtual storage device (its first key, vmStorageVmIndex, is the VR's vmIndex). */
    public enum Storage implements Column<VmStorageEntry> {
        INDEX(Spec.index("vmStorageIndex", 2, 1, INT32, s -> s.vmStorageIndex)),
        PARENT(Spec.state("vmStorageParent", 3, Kind.INTEGER, 0, INT32, null, 0, s -> s.vmStorageParent)),
        SOURCE_TYPE(Spec.state("vmStorageSourceType", 4, Kind.ENUM, 0, 0, null, VmStorageEntry.SourceType.UNKNOWN,
                s -> s.vmStorageSourceType)),
        SOURCE_TYPE_STRING(Spec.state("vmStorageSourceTypeString", 5, Kind.TEXT, 0, 255, null, "",
                s -> s.vmStorageSourceTypeString)),
        RESOURCE_ID(Spec.state("vmStorageResourceID", 6, Kind.TEXT, 0, 255, null, "", s -> s.vmStorageResourceID)),
        ACCESS(Spec.state("vmStorageAccess", 7, Kind.ENUM, 0, 0, null, VmStorageEntry.Access.UNKNOWN, s -> s.vmStorageAccess)),
        MEDIA_TYPE(Spec.state("vmStorageMediaType", 8, Kind.ENUM, 0, 0, null, VmStorageEntry.MediaType.UNKNOWN,
                s -> s.vmStorageMediaType)),
        MEDIA_TYPE_STRING(Spec.state("vmStorageMediaTypeString", 9, Kind.TEXT, 0, 255, null, "",
                s -> s.vmStorageMediaTypeString)),
        SIZE_UNIT(Spec.state("vmStorageSizeUnit", 10, Kind.INTEGER, 1, INT32, "bytes", 1, s -> s.vmStorageSizeUnit)),
        DEFINED_SIZE(Spec.state("vmStorageDefinedSize", 11, Kind.INT64, -1, INT32, "vmStorageSizeUnit", -1L,
                s -> s.vmStorageDefinedSize)),
        ALLOCATED_SIZE(Spec.state("vmStorageAllocatedSize", 12, Kind.INT64, -1, INT32, "vmStorageSizeUnit", -1L,
                s -> s.vmStorageAllocatedSize)),
        READ_IOS(Spec.state("vmStorageReadIOs", 13, Kind.COUNTER64, 0, UINT64, "operations", 0L, s -> s.vmStorageReadIOs)),
        WRITE_IOS(Spec.state("vmStorageWriteIOs", 14, Kind.COUNTER64, 0, UINT64, "operations", 0L, s -> s.vmStorageWriteIOs)),
        READ_OCTETS(Spec.state("vmStorageReadOctets", 15, Kind.COUNTER64, 0, UINT64, "octets", 0L, s -> s.vmStorageReadOctets)),
        WRITE_OCTETS(Spec.state("vmStorageWriteOctets", 16, Kind.COUNTER64, 0, UINT64, "octets", 0L, s -> s.vmStorageWriteOctets)),
        READ_LATENCY(Spec.state("vmStorageReadLatency", 17, Kind.COUNTER64, 0, UINT64, "microseconds", 0L,
                s -> s.vmStorageReadLatency)),
        WRITE_LATENCY(Spec.state("vmStorageWriteLatency", 18, Kind.COUNTER64, 0, UINT64, "microseconds", 0L,
                s -> s.vmStorageWriteLatency));

        private final Spec<VmStorageEntry> spec;

        Storage(Spec<VmStorageEntry> spec) {
            this.spec = spec;
        }

        @Override
        public Spec<VmStorageEntry> spec() {
            return spec;
        }
    }

    /**
     * vmNetworkTable: a row per interface as the hypervisor reports it. Its counters are there only
     * where the host keeps them: an absent one is no SNMP instance and no leaf, never a 0.
     */
    public enum Network implements Column<VmNetworkEntry> {
        INDEX(Spec.index("vmNetworkIndex", 1, 1, INT32, n -> n.vmNetworkIndex)),
        IF_INDEX(Spec.state("vmNetworkIfIndex", 2, Kind.INTEGER, 0, INT32, null, 0, n -> n.vmNetworkIfIndex)),
        PARENT(Spec.state("vmNetworkParent", 3, Kind.TEXT, 0, 255, null, "", n -> n.vmNetworkParent)),
        MODEL(Spec.state("vmNetworkModel", 4, Kind.TEXT, 0, 255, null, "", n -> n.vmNetworkModel)),
        PHYS_ADDRESS(Spec.state("vmNetworkPhysAddress", 5, Kind.MAC, 0, 0, null, "", n -> n.vmNetworkPhysAddress)),
        IN_OCTETS(Spec.state("vmNetworkInOctets", 6, Kind.COUNTER64, 0, UINT64, "octets", null, n -> n.vmNetworkInOctets)),
        IN_PKTS(Spec.state("vmNetworkInPkts", 7, Kind.COUNTER64, 0, UINT64, "packets", null, n -> n.vmNetworkInPkts)),
        OUT_OCTETS(Spec.state("vmNetworkOutOctets", 8, Kind.COUNTER64, 0, UINT64, "octets", null, n -> n.vmNetworkOutOctets)),
        OUT_PKTS(Spec.state("vmNetworkOutPkts", 9, Kind.COUNTER64, 0, UINT64, "packets", null, n -> n.vmNetworkOutPkts)),
        IN_ERRORS(Spec.state("vmNetworkInErrors", 10, Kind.COUNTER64, 0, UINT64, "packets", null, n -> n.vmNetworkInErrors)),
        OUT_ERRORS(Spec.state("vmNetworkOutErrors", 11, Kind.COUNTER64, 0, UINT64, "packets", null, n -> n.vmNetworkOutErrors)),
        IN_DISCARDS(Spec.state("vmNetworkInDiscards", 12, Kind.COUNTER64, 0, UINT64, "packets", null, n -> n.vmNetworkInDiscards)),
        OUT_DISCARDS(Spec.state("vmNetworkOutDiscards", 13, Kind.COUNTER64, 0, UINT64, "packets", null, n -> n.vmNetworkOutDiscards)),
        // A link's health as the router probes it (peer and VXLAN links; docs/adr/0018-links.md).
        LINK_STATUS(Spec.state("vmNetworkLinkStatus", 14, Kind.ENUM, 0, 0, null, LinkStatus.UNKNOWN, n -> n.vmNetworkLinkStatus)),
        LINK_DELAY(Spec.state("vmNetworkLinkDelay", 15, Kind.GAUGE32, 0, UINT32, "microseconds", 0L, n -> n.vmNetworkLinkDelay)),
        LINK_LOSS(Spec.state("vmNetworkLinkLoss", 16, Kind.GAUGE32, 0, UINT32, "percent", 0L, n -> n.vmNetworkLinkLoss));

        private final Spec<VmNetworkEntry> spec;

        Network(Spec<VmNetworkEntry> spec) {
            this.spec = spec;
        }

        @Override
        public Spec<VmNetworkEntry> spec() {
            return spec;
        }
    }

    /**
     * The tables: their YANG container and list names, their child number under vmObjects (SNMP
     * vmObjects.N.1 is the entry), the key that names the VR, their columns and the model class of a
     * row. The index columns follow the VR's key as the list's other keys, in order.
     */
    public enum Table {
        VM("vmTable", "vmEntry", 4, "vmIndex", Vm.values(), VmEntry.class),
        CPU("vmCpuTable", "vmCpuEntry", 5, "vmIndex", Cpu.values(), VmCpuEntry.class),
        CPU_AFFINITY("vmCpuAffinityTable", "vmCpuAffinityEntry", 6, "vmIndex", CpuAffinity.values(), VmCpuEntry.class),
        STORAGE("vmStorageTable", "vmStorageEntry", 7, "vmStorageVmIndex", Storage.values(), VmStorageEntry.class),
        NETWORK("vmNetworkTable", "vmNetworkEntry", 8, "vmIndex", Network.values(), VmNetworkEntry.class),
        CONFIG("vmConfigTable", "vmConfigEntry", 12, "vmIndex", ConfigColumn.values(), VmConfigEntry.class),
        // vmNetworkConfigIndex is the key of the only table whose index is not a model column.
        NETWORK_CONFIG("vmNetworkConfigTable", "vmNetworkConfigEntry", 13, "vmIndex", NetworkColumn.values(),
                VmNetworkConfigEntry.class, "vmNetworkConfigIndex");

        private final String name;
        private final String entry;
        private final int snmpTable;
        private final String vrKey;
        private final Column<?>[] columns;
        private final Class<?> rowType;
        private final List<String> keys;
        private final Column<?>[] bySnmpColumn;

        Table(String name, String entry, int snmpTable, String vrKey, Column<?>[] columns, Class<?> rowType) {
            this(name, entry, snmpTable, vrKey, columns, rowType, null);
        }

        /** A table whose rows within a VR are named by {@code rowKey}, a key leaf that is no model column. */
        Table(String name, String entry, int snmpTable, String vrKey, Column<?>[] columns, Class<?> rowType, String rowKey) {
            this.name = name;
            this.entry = entry;
            this.snmpTable = snmpTable;
            this.vrKey = vrKey;
            this.columns = columns;
            this.rowType = rowType;
            List<String> k = new java.util.ArrayList<>(List.of(vrKey));
            if (rowKey != null) k.add(rowKey);
            int last = 0;
            for (Column<?> c : columns) {
                if (c.index()) k.add(c.field());
                last = Math.max(last, c.snmpColumn());
            }
            this.keys = List.copyOf(k);
            this.bySnmpColumn = new Column<?>[last + 1];
            for (Column<?> c : columns) {
                if (c.snmpColumn() > 0 && !c.index()) bySnmpColumn[c.snmpColumn()] = c;
            }
        }

        /** The YANG container and the SNMP table's descriptor, for example vmNetworkTable. */
        public String tableName() {
            return name;
        }

        /** The YANG list and the SNMP entry's descriptor, for example vmNetworkEntry. */
        public String entryName() {
            return entry;
        }

        /** The table's child number under vmObjects. */
        public int snmpTable() {
            return snmpTable;
        }

        /** The key leaf that names the VR (its vmIndex). */
        public String vrKey() {
            return vrKey;
        }

        /** Every key leaf, the VR's first. */
        public List<String> keys() {
            return keys;
        }

        /** The key leaf that names a row among the VR's (its last key): the VR's key in a table of a row per VR. */
        public String rowKey() {
            return keys.get(keys.size() - 1);
        }

        /** The table with this YANG container name, or null. */
        public static Table named(String tableName) {
            for (Table t : values()) if (t.name.equals(tableName)) return t;
            return null;
        }

        /** The table whose YANG list (SNMP entry) has this name, or null. */
        public static Table ofEntry(String entryName) {
            for (Table t : values()) if (t.entry.equals(entryName)) return t;
            return null;
        }

        /** The columns, in SNMP column order; the caller must not change the array. */
        public Column<?>[] columns() {
            return columns;
        }

        /** The class of a row's model object. */
        public Class<?> rowType() {
            return rowType;
        }

        /** Whether the table is configuration (YANG config true). */
        public boolean config() {
            return columns[0].config();
        }

        /** The readable column (not an index) with this SNMP column number, or null. */
        public Column<?> bySnmpColumn(int column) {
            return column > 0 && column < bySnmpColumn.length ? bySnmpColumn[column] : null;
        }

        /** The SNMP column numbers of the readable columns, ascending. */
        public int[] snmpColumns() {
            return java.util.Arrays.stream(columns).filter(c -> !c.index() && c.snmpColumn() > 0)
                    .mapToInt(Column::snmpColumn).sorted().toArray();
        }

        /** The rows a VR has in this state table, in the model's order (the affinity table: pinned vCPUs only). */
        public List<?> rows(VirtualRouter vr) {
            return switch (this) {
                case VM -> List.of(vr.vmEntry == null ? new VmEntry() : vr.vmEntry);
                case CPU -> orEmpty(vr.vmCpuTable);
                // RFC 7666: a vCPU has an affinity row for a physical CPU (vmCpuPhysIndex 1 and up).
                case CPU_AFFINITY -> vr.vmCpuTable == null ? List.of()
                        : vr.vmCpuTable.stream().filter(c -> c.vmCpuPhysIndex != null && c.vmCpuPhysIndex >= 1).toList();
                case STORAGE -> orEmpty(vr.vmStorageTable);
                case NETWORK -> orEmpty(vr.vmNetworkTable);
                case CONFIG -> List.of(vr);
                case NETWORK_CONFIG -> vr.interfaces();
            };
        }

        private static <T> List<T> orEmpty(List<T> rows) {
            return rows == null ? List.of() : rows;
        }
    }

    /** The state tables, in the order of the YANG module (and of SNMP). */
    public static final List<Table> STATE_TABLES = List.of(Table.VM, Table.CPU, Table.CPU_AFFINITY, Table.STORAGE, Table.NETWORK);

    /**
     * RFC 7666's VM-MIB (mib-2.236), which the SNMP agent also serves, read-only, from these tables:
     * a state table's columns up to the last that RFC 7666 defines are its columns, at the same
     * number under its arc (NEW-VMM-MIB's vmTable columns 18 and up and vmNetworkTable's 6 and up
     * are additions), and vmName and vmAdminState, which NEW-VMM-MIB moved to vmConfigTable, are
     * vmTable's columns 2 and 5 there.
     */
    public static final class Rfc7666 {
        private Rfc7666() {
        }

        /** The last column RFC 7666 defines in a table, 0 for the tables it does not have. */
        public static int lastColumn(Table t) {
            return switch (t) {
                case VM -> Vm.CPU_TIME.snmpColumn();
                case CPU -> Cpu.CORE_TIME.snmpColumn();
                case CPU_AFFINITY -> CpuAffinity.AFFINITY.snmpColumn();
                case STORAGE -> Storage.WRITE_LATENCY.snmpColumn();
                case NETWORK -> Network.PHYS_ADDRESS.snmpColumn();
                case CONFIG, NETWORK_CONFIG -> 0;
            };
        }

        /** vmConfigTable's columns that are vmTable's in RFC 7666, by their vmTable column. */
        public static final Map<Integer, ConfigColumn> VM_COLUMNS_FROM_CONFIG = Map.of(
                2, ConfigColumn.VM_NAME, 5, ConfigColumn.VM_ADMIN_STATE);

        /**
         * The column whose syntax RFC 7666 defines otherwise: vmNetworkParent is there the parent's
         * ifIndex (InterfaceIndexOrZero), here the host network's name.
         */
        public static final Column<?> OTHER_SYNTAX = Network.PARENT;
    }

    private static final Map<String, Column<?>> BY_LEAF = byLeaf();

    private static Map<String, Column<?>> byLeaf() {
        Map<String, Column<?>> m = new HashMap<>();
        for (Table t : Table.values()) {
            for (Column<?> c : t.columns()) m.putIfAbsent(c.field(), c);
        }
        return Map.copyOf(m);
    }

    /**
     * The column with this YANG leaf name, or null (also for the keys that name the VR and
     * vmNetworkConfigIndex, which are no model columns). Leaf names other than keys are unique across
     * the tables.
     */
    public static Column<?> column(String leaf) {
        return BY_LEAF.get(leaf);
    }

    /** Whether the leaf is configuration (YANG config true); false for state leaves and names that are none. */
    public static boolean isConfig(String leaf) {
        Column<?> c = BY_LEAF.get(leaf);
        return c != null && c.config();
    }

    /** A column's value read by its getter: for callers that hold a row of unknown type. */
    @SuppressWarnings("unchecked")
    public static Object get(Column<?> column, Object row) {
        return ((Column<Object>) column).get(row);
    }
}
