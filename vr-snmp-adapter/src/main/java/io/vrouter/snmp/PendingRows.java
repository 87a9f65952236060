package io.vrouter.snmp;

import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import java.util.NavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * Rows created with createAndWait and not yet made active. They are SNMP protocol state (a row being
 * filled in over several SETs), not VR state: nothing reaches the service until the row is active.
 * As RFC 2579 suggests, a row left unfinished for five minutes is dropped.
 */
final class PendingRows {
    static final long TTL_NANOS = 5L * 60 * 1_000_000_000L;

    record ConfigRow(VmConfigEntry entry, long createdNanos) {
        boolean ready() {
            return entry.vmName != null;
        }
    }

    record NetRow(int vmIndex, VmNetworkConfigEntry entry, long createdNanos) {
        boolean ready() {
            return entry.vmNetworkConfigParent != null;
        }
    }

    private final ConcurrentSkipListMap<Integer, ConfigRow> configs = new ConcurrentSkipListMap<>();
    private final ConcurrentSkipListMap<Long, NetRow> nets = new ConcurrentSkipListMap<>();

    static long netKey(int vmIndex, int netIndex) {
        return ((long) vmIndex << 16) | netIndex;
    }

    ConfigRow config(int vmIndex) {
        purge();
        return configs.get(vmIndex);
    }

    NetRow net(int vmIndex, int netIndex) {
        purge();
        return nets.get(netKey(vmIndex, netIndex));
    }

    NavigableMap<Integer, ConfigRow> configs() {
        purge();
        return configs;
    }

    NavigableMap<Long, NetRow> nets() {
        purge();
        return nets;
    }

    void putConfig(ConfigRow row) {
        configs.put(row.entry().vmIndex, row);
    }

    void removeConfig(int vmIndex) {
        configs.remove(vmIndex);
    }

    void putNet(NetRow row) {
        nets.put(netKey(row.vmIndex(), row.entry().vmNetworkConfigIndex), row);
    }

    void removeNet(int vmIndex, int netIndex) {
        nets.remove(netKey(vmIndex, netIndex));
    }

    private void purge() {
        long now = System.nanoTime();
        configs.values().removeIf(r -> now - r.createdNanos() > TTL_NANOS);
        nets.values().removeIf(r -> now - r.createdNanos() > TTL_NANOS);
    }
}
