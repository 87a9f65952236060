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
            n -> n.vmNetworkConfigPrefixLength, (n, v) -> n.vmNetworkConfigPrefixLength = (Integer) v),
    // SNMP column 7 is vmNetworkConfigRowStatus, SNMP's own.
    /** How the interface is attached; absent: bridge (docs/adr/0018-links.md). */
    LINK_TYPE("vmNetworkConfigLinkType", 8, Kind.LINK_TYPE, 0, 0,
            n -> n.vmNetworkConfigLinkType, (n, v) -> n.vmNetworkConfigLinkType = (LinkType) v),
    /** A peer link's far end: the vmIndex of a VR of this router. */
    PEER_ROUTER("vmNetworkConfigPeerRouter", 9, Kind.UNSIGNED, 1, Integer.MAX_VALUE,
            n -> n.vmNetworkConfigPeerRouter, (n, v) -> n.vmNetworkConfigPeerRouter = (Integer) v),
    /** A peer link's far end: the vmNetworkConfigIndex of that VR's interface. */
    PEER_INTERFACE("vmNetworkConfigPeerInterface", 10, Kind.UNSIGNED, 1, 65_535,
            n -> n.vmNetworkConfigPeerInterface, (n, v) -> n.vmNetworkConfigPeerInterface = (Integer) v),
    /** A VXLAN link's network identifier, the same at both ends. */
    VNI("vmNetworkConfigVni", 11, Kind.UNSIGNED, 1, 16_777_215,
            n -> n.vmNetworkConfigVni, (n, v) -> n.vmNetworkConfigVni = (Integer) v),
    /** A VXLAN link's far router: its underlay address. */
    REMOTE("vmNetworkConfigRemote", 12, Kind.INET_ADDRESS, 0, 0,
            n -> n.vmNetworkConfigRemote, (n, v) -> n.vmNetworkConfigRemote = (String) v),
    /** What the VR may receive on the interface, kbit/s; absent: unlimited. Set live. */
    RATE_IN("vmNetworkConfigRateIn", 13, Kind.UNSIGNED, 64, 100_000_000,
            n -> n.vmNetworkConfigRateIn, (n, v) -> n.vmNetworkConfigRateIn = (Integer) v),
    /** What the VR may send on the interface, kbit/s; absent: unlimited. Set live. */
    RATE_OUT("vmNetworkConfigRateOut", 14, Kind.UNSIGNED, 64, 100_000_000,
            n -> n.vmNetworkConfigRateOut, (n, v) -> n.vmNetworkConfigRateOut = (Integer) v);

    /** The columns a driver changes on a live interface (RateLimits) instead of detaching and attaching it again. */
    public boolean live() {
        return this == RATE_IN || this == RATE_OUT;
    }

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
