package io.vrouter.yang;

import static io.vrouter.core.model.Schema.Table.CONFIG;
import static io.vrouter.core.model.Schema.Table.NETWORK_CONFIG;
import static io.vrouter.yang.Ns.VMM;

import io.vrouter.core.model.Column;
import io.vrouter.core.model.ConfigColumn;
import io.vrouter.core.model.Hypervisor;
import io.vrouter.core.model.NetworkColumn;
import io.vrouter.core.model.Scalar;
import io.vrouter.core.model.Schema;
import io.vrouter.core.model.VirtualRouter;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
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
        List<DataNode> nodes = new ArrayList<>(2 + Schema.STATE_TABLES.size());
        Hypervisor h = service.hypervisor();
        for (Scalar.Group g : Scalar.Group.values()) nodes.add(scalars(g, h));
        for (Schema.Table t : Schema.STATE_TABLES) nodes.add(table(service, t));
        return nodes;
    }

    /** A group of scalars (vmHypervisor, vmObjects) as the schema declares it; a Long is an unsigned 32-bit leaf. */
    private static DataNode scalars(Scalar.Group group, Hypervisor h) {
        DataNode.Inner node = DataNode.inner(VMM, group.yangName());
        for (Scalar s : group.scalars()) {
            Object v = s.get(h);
            if (v instanceof Long l) node.addUnsigned32(s.leafName(), l);
            else node.add(s.leafName(), v);
        }
        return node;
    }

    /** A state table: one VR view per step, turned into zero or more entries. */
    private static DataNode table(VirtualRouters service, Schema.Table table) {
        return DataNode.byVr(VMM, table.tableName(), service::indices,
                i -> service.get(i).map(vr -> entries(table, vr)).orElse(List.of()));
    }

    private static DataNode configTable(ConfigSource source) {
        return DataNode.byVr(VMM, CONFIG.tableName(), source::indices, i -> {
            VmConfigEntry c = source.get(i);
            return c == null ? List.of() : List.of(configEntry(c));
        });
    }

    private static DataNode networkConfigTable(ConfigSource source) {
        return DataNode.byVr(VMM, NETWORK_CONFIG.tableName(), source::indices, i -> {
            VmConfigEntry c = source.get(i);
            return c == null ? List.of() : flat(c.vmNetworkConfigTable, n -> networkConfigEntry(c.vmIndex, n));
        });
    }

    /** A vmConfigEntry: its key, then a leaf per column of the column table that has a value. */
    public static DataNode configEntry(VmConfigEntry c) {
        return new ConfigEntry(c);
    }

    private static DataNode.Inner configLeaves(VmConfigEntry c) {
        DataNode.Inner e = new DataNode.Inner(VMM, CONFIG.entryName(), CONFIG.keys()).add(CONFIG.vrKey(), c.vmIndex);
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
        private static final ConfigColumn[] COLUMNS = ConfigColumn.values();

        private final VmConfigEntry row;
        private DataNode.Inner leaves;

        ConfigEntry(VmConfigEntry row) {
            super(VMM, CONFIG.entryName());
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
            return CONFIG.keys();
        }

        @Override
        public void write(XmlOut out) {
            if (!out.raw(VMM, xml())) leaves().write(out);
        }

        /** The entry as {@link DataNode#write} writes its leaves inside an element of its namespace. */
        private byte[] xml() {
            StringBuilder b = new StringBuilder(320).append('<').append(CONFIG.entryName()).append('>');
            if (row.vmIndex != null) leaf(b, CONFIG.vrKey(), String.valueOf(row.vmIndex));
            for (ConfigColumn col : COLUMNS) {
                String v = col.text(row);
                if (v != null) leaf(b, col.field(), v);
            }
            return b.append("</").append(CONFIG.entryName()).append('>').toString().getBytes(StandardCharsets.UTF_8);
        }

        private static void leaf(StringBuilder b, String name, String value) {
            b.append('<').append(name).append('>');
            XmlOut.escape(b, value);
            b.append("</").append(name).append('>');
        }
    }

    public static DataNode networkConfigEntry(int vmIndex, VmNetworkConfigEntry n) {
        DataNode.Inner e = new DataNode.Inner(VMM, NETWORK_CONFIG.entryName(), NETWORK_CONFIG.keys())
                .add(NETWORK_CONFIG.vrKey(), vmIndex).add(NETWORK_CONFIG.rowKey(), n.vmNetworkConfigIndex);
        for (NetworkColumn col : NetworkColumn.values()) e.add(col.field(), col.text(n), json(col.kind()));
        return e;
    }

    /** A VR's entries in a state table: a leaf per column of the schema table that has a value. */
    private static List<DataNode> entries(Schema.Table table, VirtualRouter vr) {
        List<?> rows = table.rows(vr);
        List<DataNode> out = new ArrayList<>(rows.size());
        for (Object row : rows) out.add(entry(table, vr.vmIndex, row));
        return out;
    }

    /** One entry of a state table: the VR's key, then every column (the row's own keys first) that has a value. */
    private static DataNode entry(Schema.Table table, int vmIndex, Object row) {
        DataNode.Inner e = new DataNode.Inner(VMM, table.entryName(), table.keys()).add(table.vrKey(), vmIndex);
        for (Column<?> c : table.columns()) {
            Object v = Schema.get(c, row);
            if (v != null) e.add(c.field(), c.kind().format(v), json(c.kind()));
        }
        return e;
    }

    /** How a column's kind of value is written in JSON. */
    private static DataNode.Json json(Column.Kind kind) {
        return switch (kind.json()) {
            case NUMBER -> DataNode.Json.NUMBER;
            case BOOLEAN -> DataNode.Json.BOOLEAN;
            case STRING -> DataNode.Json.STRING;
        };
    }

    private static <T> List<DataNode> flat(List<T> rows, Function<T, DataNode> f) {
        if (rows == null) return List.of();
        List<DataNode> out = new ArrayList<>(rows.size());
        for (T r : rows) out.add(f.apply(r));
        return out;
    }
}
