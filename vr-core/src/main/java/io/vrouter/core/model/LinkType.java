package io.vrouter.core.model;

import jakarta.xml.bind.annotation.XmlEnum;
import jakarta.xml.bind.annotation.XmlEnumValue;
import jakarta.xml.bind.annotation.XmlType;

/**
 * How a VR interface is attached (vmNetworkConfigLinkType): to a host bridge, straight to another VR's
 * interface on this router, to an interface on another router over VXLAN, or to a host NIC by macvlan
 * (docs/adr/0018-links.md).
 */
@XmlType(name = "LinkType")
@XmlEnum
public enum LinkType implements SmiEnum {
    /** vmNetworkConfigParent names the host bridge. */
    @XmlEnumValue("bridge") BRIDGE(1),
    /** vmNetworkConfigPeerRouter and vmNetworkConfigPeerInterface name the far end, a VR of this router. */
    @XmlEnumValue("peer") PEER(2),
    /** vmNetworkConfigVni and vmNetworkConfigRemote name the overlay and the far router; the parent, the underlay. */
    @XmlEnumValue("vxlan") VXLAN(3),
    /** vmNetworkConfigParent names the host NIC. */
    @XmlEnumValue("macvlan") MACVLAN(4);

    private final int code;

    LinkType(int code) {
        this.code = code;
    }

    @Override
    public int code() {
        return code;
    }

    /** The type of an interface row: bridge when the row names none, as every row did before links. */
    public static LinkType of(VmNetworkConfigEntry n) {
        return n.vmNetworkConfigLinkType == null ? BRIDGE : n.vmNetworkConfigLinkType;
    }

    /** Whether the type attaches to a host device named by vmNetworkConfigParent that is the provider's (a NIC, an underlay). */
    public boolean usesHostNic() {
        return this == VXLAN || this == MACVLAN;
    }
}
