package io.vrouter.snmp;

import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import java.util.Map;
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

    /**
     * The waiting rows of every tenant, as the provider sees them (a copy, for one request): each
     * configuration row with vmConfigTenant naming the tenant whose row it is (the key of
     * {@code byTenant}, "" the provider's). The rows stay theirs to complete or destroy.
     */
    static PendingRows union(Map<String, PendingRows> byTenant) {
        PendingRows all = new PendingRows();
        byTenant.forEach((tenant, rows) -> {
            for (ConfigRow r : rows.configs().values()) {
                VmConfigEntry e = r.entry().copy();
                if (!tenant.isEmpty()) e.vmConfigTenant = tenant;
                all.putConfig(new ConfigRow(e, r.createdNanos()));
            }
            rows.nets().values().forEach(all::putNet);
        });
        return all;
    }

    private void purge() {
        long now = System.nanoTime();
        configs.values().removeIf(r -> now - r.createdNanos() > TTL_NANOS);
        nets.values().removeIf(r -> now - r.createdNanos() > TTL_NANOS);
    }
}
