package io.vrouter.netconf.protocol;

import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.service.VirtualRouterService;
import io.vrouter.yang.ModelTree;
import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;

/**
 * The content of a configuration datastore: vmConfigTable rows by vmIndex, each with its
 * vmNetworkConfigTable rows. Rows are never changed in place (writers put a changed copy), so a
 * copy of the map is a snapshot.
 */
public final class ConfigData implements ModelTree.ConfigSource {
    private final TreeMap<Integer, VmConfigEntry> rows;

    public ConfigData(Map<Integer, VmConfigEntry> rows) {
        this.rows = new TreeMap<>(rows);
    }

    /** The running configuration as the service holds it now. */
    public static ConfigData of(VirtualRouterService service) {
        TreeMap<Integer, VmConfigEntry> rows = new TreeMap<>();
        for (Integer i : service.indices()) service.getConfig(i).ifPresent(c -> rows.put(i, c));
        return new ConfigData(rows);
    }

    public ConfigData copy() {
        return new ConfigData(rows);
    }

    @Override
    public VmConfigEntry get(int vmIndex) {
        return rows.get(vmIndex);
    }

    public void put(VmConfigEntry row) {
        rows.put(row.vmIndex, row);
    }

    public VmConfigEntry remove(int vmIndex) {
        return rows.remove(vmIndex);
    }

    public void clear() {
        rows.clear();
    }

    public boolean isEmpty() {
        return rows.isEmpty();
    }

    public Map<Integer, VmConfigEntry> rows() {
        return java.util.Collections.unmodifiableMap(rows);
    }

    public Collection<VmConfigEntry> values() {
        return rows.values();
    }

    @Override
    public Iterable<Integer> indices() {
        return rows.keySet();
    }
}
