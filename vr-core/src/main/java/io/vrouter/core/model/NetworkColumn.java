package io.vrouter.core.model;

import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * The writable columns of vmNetworkConfigTable, declared once for every interface (see
 * {@link ConfigColumn}). The key, vmNetworkConfigIndex (SNMP column 1, not accessible), is not one.
 */
public enum NetworkColumn implements Column<VmNetworkConfigEntry> {
    PARENT("vmNetworkConfigParent", 2, Kind.TEXT, 1, 64,
            n -> n.vmNetworkConfigParent, (n, v) -> n.vmNetworkConfigParent = (String) v),
    PHYS_ADDRESS("vmNetworkConfigPhysAddress", 3, Kind.MAC, 0, 0,
            n -> n.vmNetworkConfigPhysAddress, (n, v) -> n.vmNetworkConfigPhysAddress = (String) v),
    ADDRESS_TYPE("vmNetworkConfigAddressType", 4, Kind.ADDRESS_TYPE, 0, 0,
            n -> n.vmNetworkConfigAddressType, (n, v) -> n.vmNetworkConfigAddressType = (InetAddressType) v),
    ADDRESS("vmNetworkConfigAddress", 5, Kind.INET_ADDRESS, 0, 0,
            n -> n.vmNetworkConfigAddress, (n, v) -> n.vmNetworkConfigAddress = (String) v),
    PREFIX_LENGTH("vmNetworkConfigPrefixLength", 6, Kind.UNSIGNED, 0, 128,
            n -> n.vmNetworkConfigPrefixLength, (n, v) -> n.vmNetworkConfigPrefixLength = (Integer) v);
    // SNMP column 7 is vmNetworkConfigRowStatus, SNMP's own.

    /** The largest vmNetworkConfigIndex. */
    public static final int MAX_INDEX = 65535;


    private final Spec<VmNetworkConfigEntry> spec;

    NetworkColumn(String field, int snmpColumn, Kind kind, long min, long max,
                  Function<VmNetworkConfigEntry, Object> getter, BiConsumer<VmNetworkConfigEntry, Object> setter) {
        this.spec = new Spec<>(field, snmpColumn, kind, min, max, getter, setter);
    }

    @Override
    public Spec<VmNetworkConfigEntry> spec() {
        return spec;
    }

    /** The column with this field name, or null. */
    public static NetworkColumn ofField(String field) {
        return Column.find(NetworkColumn.class, field, -1);
    }

    /** The column with this SNMP column number, or null. */
    public static NetworkColumn ofSnmpColumn(int column) {
        // the schema's table by number: SNMP asks for every varbind, and find() walks a copy of values()
        return (NetworkColumn) Schema.Table.NETWORK_CONFIG.bySnmpColumn(column);
    }
}
