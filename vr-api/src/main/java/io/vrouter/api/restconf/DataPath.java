package io.vrouter.api.restconf;

import io.vrouter.core.model.NetworkColumn;
import io.vrouter.core.model.Schema;
import io.vrouter.yang.JsonOut;
import io.vrouter.yang.Ns;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An instance of the data tree named by its nodes and list keys: the error-path of an error, an
 * instance-identifier in JSON (module names, RFC 7951 section 6.11) or XML (prefixes) form.
 */
final class DataPath {
    /** One node: its namespace, name, and key leaves with their values (empty for a container or leaf). */
    record Seg(String ns, String name, Map<String, String> keys) {
    }

    final List<Seg> segs;

    DataPath(List<Seg> segs) {
        this.segs = List.copyOf(segs);
    }

    DataPath child(String ns, String name, Map<String, String> keys) {
        List<Seg> s = new ArrayList<>(segs);
        s.add(new Seg(ns, name, keys));
        return new DataPath(s);
    }

    DataPath child(String name) {
        return child(Ns.VMM, name, Map.of());
    }

    static final DataPath TOP = new DataPath(List.of(new Seg(Ns.VMM, "NEW-VMM-MIB", Map.of())));
    static final DataPath CONFIG_TABLE = TOP.child(Schema.Table.CONFIG.tableName());
    static final DataPath NETWORK_TABLE = TOP.child(Schema.Table.NETWORK_CONFIG.tableName());

    /** An entry of the table by the values of its keys, in the table's order of them. */
    static DataPath entry(Schema.Table table, int... keys) {
        Map<String, String> named = new LinkedHashMap<>();
        for (int k = 0; k < keys.length; k++) named.put(table.keys().get(k), Integer.toString(keys[k]));
        return TOP.child(table.tableName()).child(Ns.VMM, table.entryName(), named);
    }

    static DataPath configEntry(int vmIndex) {
        return entry(Schema.Table.CONFIG, vmIndex);
    }

    static DataPath networkEntry(int vmIndex, int networkIndex) {
        return entry(Schema.Table.NETWORK_CONFIG, vmIndex, networkIndex);
    }

    /** Where the service's error is: the VR's entry or interface, down to the column's leaf when there is one. */
    static DataPath ofError(Integer vmIndex, Integer networkIndex, String field) {
        boolean networkField = field != null && field.startsWith("vmNetworkConfig");
        boolean leaf = field != null && !field.equals("body") && (!networkField || NetworkColumn.ofField(field) != null);
        if (vmIndex == null) return networkField ? NETWORK_TABLE : CONFIG_TABLE;
        if (networkIndex != null) {
            DataPath entry = networkEntry(vmIndex, networkIndex);
            return leaf && networkField ? entry.child(field) : entry;
        }
        if (networkField) return NETWORK_TABLE;
        return leaf ? configEntry(vmIndex).child(field) : configEntry(vmIndex);
    }

    /** The JSON form: {@code /NEW-VMM-MIB:NEW-VMM-MIB/vmConfigTable/vmConfigEntry[vmIndex='5']}. */
    String json() {
        StringBuilder sb = new StringBuilder();
        String ns = null;
        for (Seg s : segs) {
            sb.append('/');
            if (!s.ns().equals(ns)) sb.append(JsonOut.module(s.ns())).append(':');
            sb.append(s.name());
            for (Map.Entry<String, String> k : s.keys().entrySet()) {
                sb.append('[').append(k.getKey()).append("='").append(k.getValue()).append("']");
            }
            ns = s.ns();
        }
        return sb.toString();
    }

    /** The XML form, every name with the prefix {@link #prefix} gives its namespace (declared by the writer). */
    String xml() {
        StringBuilder sb = new StringBuilder();
        for (Seg s : segs) {
            String p = prefix(s.ns());
            sb.append('/').append(p).append(':').append(s.name());
            for (Map.Entry<String, String> k : s.keys().entrySet()) {
                sb.append('[').append(p).append(':').append(k.getKey()).append("='").append(k.getValue()).append("']");
            }
        }
        return sb.toString();
    }

    /** The prefix of a namespace in the XML form: the module's own prefix for NEW-VMM-MIB, the module name for others. */
    static String prefix(String ns) {
        return ns.equals(Ns.VMM) ? Ns.VMM_PREFIX : JsonOut.module(ns);
    }

    /** The namespaces the XML form uses. */
    List<String> namespaces() {
        List<String> out = new ArrayList<>();
        for (Seg s : segs) {
            if (!out.contains(s.ns())) out.add(s.ns());
        }
        return out;
    }

    @Override
    public String toString() {
        return json();
    }
}
