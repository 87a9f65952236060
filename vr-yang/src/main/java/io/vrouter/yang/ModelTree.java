package io.vrouter.yang;

import static io.vrouter.yang.Ns.VMM;

import io.vrouter.core.model.ConfigColumn;
import io.vrouter.core.model.Hypervisor;
import io.vrouter.core.model.NetworkColumn;
import io.vrouter.core.model.VirtualRouter;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.SmiEnum;
import io.vrouter.core.model.VmCpuEntry;
import io.vrouter.core.model.VmEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import io.vrouter.core.model.VmNetworkEntry;
import io.vrouter.core.model.VmStorageEntry;
import io.vrouter.core.spi.VirtualRouters;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The NEW-VMM-MIB data tree of the YANG module, built from the core model. Tables are lazy: each
 * walk asks the service for one VR at a time.
 */
public final class ModelTree {
    private ModelTree() {
    }

    /** Where configuration rows come from: the running datastore (the service) or a candidate. */
    public interface ConfigSource {
        /** The vmIndex values of the rows, in order. */
        Iterable<Integer> indices();

        /** One row, or null. */
        VmConfigEntry get(int vmIndex);
    }

    /** The running configuration, read from the service row by row. */
    public static ConfigSource running(VirtualRouters service) {
        return new ConfigSource() {
            @Override
            public Iterable<Integer> indices() {
                return service.indices();
            }

            @Override
            public VmConfigEntry get(int vmIndex) {
                return service.getConfig(vmIndex).orElse(null);
            }
        };
    }

    /** The config true part: vmConfigTable and vmNetworkConfigTable. */
    public static DataNode config(ConfigSource source) {
        return DataNode.lazy(VMM, "NEW-VMM-MIB", () -> List.of(configTable(source), networkConfigTable(source)).iterator());
    }

    /** Everything: state and configuration (the running configuration), for {@code <get>}. */
    public static DataNode all(VirtualRouters service) {
        return DataNode.lazy(VMM, "NEW-VMM-MIB", () -> {
            List<DataNode> top = new ArrayList<>(stateNodes(service));
            ConfigSource running = running(service);
            top.add(configTable(running));
            top.add(networkConfigTable(running));
            return top.iterator();
        });
    }

    /** The config false part: the hypervisor, the scalars and the state tables (NMDA's config-filter false). */
    public static DataNode state(VirtualRouters service) {
        return DataNode.lazy(VMM, "NEW-VMM-MIB", () -> stateNodes(service).iterator());
    }

    private static List<DataNode> stateNodes(VirtualRouters service) {
        return List.of(
                hypervisor(service), objects(service),
                table(service, "vmTable", ModelTree::vmEntry),
                table(service, "vmCpuTable", vr -> flat(vr.vmCpuTable, c -> cpuEntry(vr.vmIndex, c))),
                table(service, "vmCpuAffinityTable", vr -> flat(pinned(vr.vmCpuTable), c -> affinityEntry(vr.vmIndex, c))),
                table(service, "vmStorageTable", vr -> flat(vr.vmStorageTable, s -> storageEntry(vr.vmIndex, s))),
                table(service, "vmNetworkTable", vr -> flat(vr.vmNetworkTable, n -> networkEntry(vr.vmIndex, n))));
    }

    private static DataNode hypervisor(VirtualRouters service) {
        Hypervisor h = service.hypervisor();
        return DataNode.inner(VMM, "vmHypervisor")
                .add("vmHvSoftware", h.vmHvSoftware).add("vmHvVersion", h.vmHvVersion)
                .add("vmHvObjectID", h.vmHvObjectID).addUnsigned32("vmHvUpTime", h.vmHvUpTime);
    }

    private static DataNode objects(VirtualRouters service) {
        Hypervisor h = service.hypervisor();
        return DataNode.inner(VMM, "vmObjects")
                .add("vmNumber", h.vmNumber).addUnsigned32("vmTableLastChange", h.vmTableLastChange)
                .add("vmPerVMNotificationsEnabled", h.vmPerVMNotificationsEnabled)
                .add("vmBulkNotificationsEnabled", h.vmBulkNotificationsEnabled)
                .add("vmConfigNextAvailableVmIndex", h.vmConfigNextAvailableVmIndex)
                .add("vmConfiguredVMs", h.vmConfiguredVMs).add("vmActiveVMs", h.vmActiveVMs);
    }

    /** A state table: one VR view per step, turned into zero or more entries. */
    private static DataNode table(VirtualRouters service, String name, Function<VirtualRouter, List<DataNode>> rows) {
        return DataNode.byVr(VMM, name, service::indices, i -> service.get(i).map(rows).orElse(List.of()));
    }

    private static DataNode configTable(ConfigSource source) {
        return DataNode.byVr(VMM, "vmConfigTable", source::indices, i -> {
            VmConfigEntry c = source.get(i);
            return c == null ? List.of() : List.of(configEntry(c));
        });
    }

    private static DataNode networkConfigTable(ConfigSource source) {
        return DataNode.byVr(VMM, "vmNetworkConfigTable", source::indices, i -> {
            VmConfigEntry c = source.get(i);
            return c == null ? List.of() : flat(c.vmNetworkConfigTable, n -> networkConfigEntry(c.vmIndex, n));
        });
    }

    /** A vmConfigEntry: its key, then a leaf per column of the column table that has a value. */
    public static DataNode configEntry(VmConfigEntry c) {
        return new ConfigEntry(c);
    }

    private static DataNode.Inner configLeaves(VmConfigEntry c) {
        DataNode.Inner e = DataNode.inner(VMM, "vmConfigEntry", "vmIndex").add("vmIndex", c.vmIndex);
        for (ConfigColumn col : ConfigColumn.values()) e.add(col.field(), col.text(c), json(col.kind()));
        return e;
    }

    /**
     * A vmConfigEntry that writes its XML itself, the row's leaves escaped as the JDK's writer escapes
     * text, straight into a reply's stream: a get-config of 1,000 VRs then costs a string per row
     * instead of 8,000 leaf nodes each written byte by byte through the JDK's XMLStreamWriter (issue 16).
     * Its leaves are built only for what needs them (filters, with-defaults, JSON).
     */
    private static final class ConfigEntry extends DataNode {
        private static final List<String> KEYS = List.of("vmIndex");
        private static final ConfigColumn[] COLUMNS = ConfigColumn.values();

        private final VmConfigEntry row;
        private DataNode.Inner leaves;

        ConfigEntry(VmConfigEntry row) {
            super(VMM, "vmConfigEntry");
            this.row = row;
        }

        private DataNode.Inner leaves() {
            if (leaves == null) leaves = configLeaves(row);
            return leaves;
        }

        @Override
        public Iterable<DataNode> children() {
            return leaves().children();
        }

        @Override
        public List<String> keys() {
            return KEYS;
        }

        @Override
        public void write(XmlOut out) {
            if (!out.raw(VMM, xml())) leaves().write(out);
        }

        /** The entry as {@link DataNode#write} writes its leaves inside an element of its namespace. */
        private byte[] xml() {
            StringBuilder b = new StringBuilder(320).append("<vmConfigEntry>");
            if (row.vmIndex != null) leaf(b, "vmIndex", String.valueOf(row.vmIndex));
            for (ConfigColumn col : COLUMNS) {
                String v = col.text(row);
                if (v != null) leaf(b, col.field(), v);
            }
            return b.append("</vmConfigEntry>").toString().getBytes(StandardCharsets.UTF_8);
        }

        private static void leaf(StringBuilder b, String name, String value) {
            b.append('<').append(name).append('>');
            XmlOut.escape(b, value);
            b.append("</").append(name).append('>');
        }
    }

    public static DataNode networkConfigEntry(int vmIndex, VmNetworkConfigEntry n) {
        DataNode.Inner e = DataNode.inner(VMM, "vmNetworkConfigEntry", "vmIndex", "vmNetworkConfigIndex")
                .add("vmIndex", vmIndex).add("vmNetworkConfigIndex", n.vmNetworkConfigIndex);
        for (NetworkColumn col : NetworkColumn.values()) e.add(col.field(), col.text(n), json(col.kind()));
        return e;
    }

    private static List<DataNode> vmEntry(VirtualRouter vr) {
        VmEntry e = vr.vmEntry == null ? new VmEntry() : vr.vmEntry;
        return List.of(DataNode.inner(VMM, "vmEntry", "vmIndex")
                .add("vmIndex", vr.vmIndex).add("vmUUID", e.vmUUID).add("vmOSType", e.vmOSType)
                .add("vmOperState", label(e.vmOperState))
                .add("vmAutoStart", label(e.vmAutoStart))
                .add("vmPersistent", label(e.vmPersistent))
                .add("vmCurCpuNumber", e.vmCurCpuNumber).add("vmMinCpuNumber", e.vmMinCpuNumber)
                .add("vmMaxCpuNumber", e.vmMaxCpuNumber).add("vmMemUnit", e.vmMemUnit)
                .add("vmCurMem", e.vmCurMem).add("vmMinMem", e.vmMinMem).add("vmMaxMem", e.vmMaxMem)
                .addUnsigned32("vmUpTime", e.vmUpTime).add("vmCpuTime", e.vmCpuTime)
                .addUnsigned32("vmRouteEntries", e.vmRouteEntries).addUnsigned32("vmFibEntries", e.vmFibEntries)
                .add("vmRoutingProtocols", e.vmRoutingProtocols)
                .add("vmRouterAddrType", label(e.vmRouterAddrType))
                .add("vmRouterAddr", e.vmRouterAddr).add("vmOperStateReason", e.vmOperStateReason));
    }

    private static DataNode cpuEntry(int vmIndex, VmCpuEntry c) {
        return DataNode.inner(VMM, "vmCpuEntry", "vmIndex", "vmCpuIndex")
                .add("vmIndex", vmIndex).add("vmCpuIndex", c.vmCpuIndex).add("vmCpuCoreTime", c.vmCpuCoreTime);
    }

    /** The vCPUs that have an affinity entry: those pinned to a physical CPU (vmCpuPhysIndex 1 and up, as in RFC 7666). */
    private static List<VmCpuEntry> pinned(List<VmCpuEntry> cpus) {
        return cpus == null ? null : cpus.stream().filter(c -> c.vmCpuPhysIndex != null && c.vmCpuPhysIndex >= 1).toList();
    }

    private static DataNode affinityEntry(int vmIndex, VmCpuEntry c) {
        return DataNode.inner(VMM, "vmCpuAffinityEntry", "vmIndex", "vmCpuIndex", "vmCpuPhysIndex")
                .add("vmIndex", vmIndex).add("vmCpuIndex", c.vmCpuIndex)
                .add("vmCpuPhysIndex", c.vmCpuPhysIndex).add("vmCpuAffinity", label(c.vmCpuAffinity));
    }

    private static DataNode storageEntry(int vmIndex, VmStorageEntry s) {
        return DataNode.inner(VMM, "vmStorageEntry", "vmStorageVmIndex", "vmStorageIndex")
                .add("vmStorageVmIndex", vmIndex).add("vmStorageIndex", s.vmStorageIndex)
                .add("vmStorageParent", s.vmStorageParent)
                .add("vmStorageSourceType", label(s.vmStorageSourceType))
                .add("vmStorageSourceTypeString", s.vmStorageSourceTypeString)
                .add("vmStorageResourceID", s.vmStorageResourceID)
                .add("vmStorageAccess", label(s.vmStorageAccess))
                .add("vmStorageMediaType", label(s.vmStorageMediaType))
                .add("vmStorageMediaTypeString", s.vmStorageMediaTypeString)
                .add("vmStorageSizeUnit", s.vmStorageSizeUnit).add("vmStorageDefinedSize", s.vmStorageDefinedSize)
                .add("vmStorageAllocatedSize", s.vmStorageAllocatedSize)
                .add("vmStorageReadIOs", s.vmStorageReadIOs).add("vmStorageWriteIOs", s.vmStorageWriteIOs)
                .add("vmStorageReadOctets", s.vmStorageReadOctets).add("vmStorageWriteOctets", s.vmStorageWriteOctets)
                .add("vmStorageReadLatency", s.vmStorageReadLatency).add("vmStorageWriteLatency", s.vmStorageWriteLatency);
    }

    private static DataNode networkEntry(int vmIndex, VmNetworkEntry n) {
        return DataNode.inner(VMM, "vmNetworkEntry", "vmIndex", "vmNetworkIndex")
                .add("vmIndex", vmIndex).add("vmNetworkIndex", n.vmNetworkIndex)
                .add("vmNetworkIfIndex", n.vmNetworkIfIndex).add("vmNetworkParent", n.vmNetworkParent)
                .add("vmNetworkModel", n.vmNetworkModel).add("vmNetworkPhysAddress", n.vmNetworkPhysAddress)
                .add("vmNetworkInOctets", n.vmNetworkInOctets).add("vmNetworkInPkts", n.vmNetworkInPkts)
                .add("vmNetworkOutOctets", n.vmNetworkOutOctets).add("vmNetworkOutPkts", n.vmNetworkOutPkts);
    }

    /** How a column's kind of value is written in JSON. */
    private static DataNode.Json json(io.vrouter.core.model.Column.Kind kind) {
        return switch (kind) {
            case INTEGER, UNSIGNED -> DataNode.Json.NUMBER;
            case TRUTH -> DataNode.Json.BOOLEAN;
            default -> DataNode.Json.STRING;
        };
    }

    /** An RFC 7666 enumeration value (1-based) as its label. */
    private static String label(SmiEnum e) {
        return e == null ? null : e.label();
    }

    private static <T> List<DataNode> flat(List<T> rows, Function<T, DataNode> f) {
        if (rows == null) return List.of();
        List<DataNode> out = new ArrayList<>(rows.size());
        for (T r : rows) out.add(f.apply(r));
        return out;
    }
}
