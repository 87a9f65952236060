package io.vrouter.core.model;

import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlRootElement;
import jakarta.xml.bind.annotation.XmlType;

/** One row of vmNetworkConfigTable: an interface the operator asked for on a VR. */
@XmlRootElement(name = "vmNetworkConfigEntry")
@XmlType(name = "vmNetworkConfigEntry", propOrder = {"vmNetworkConfigIndex", "vmNetworkConfigParent",
        "vmNetworkConfigPhysAddress", "vmNetworkConfigAddressType", "vmNetworkConfigAddress",
        "vmNetworkConfigPrefixLength", "vmNetworkConfigLinkType", "vmNetworkConfigPeerRouter",
        "vmNetworkConfigPeerInterface", "vmNetworkConfigVni", "vmNetworkConfigRemote", "vmNetworkConfigRateIn",
        "vmNetworkConfigRateOut"})
@XmlAccessorType(XmlAccessType.FIELD)
public class VmNetworkConfigEntry {
    /** What a vmNetworkConfigPhysAddress looks like: the OpenAPI document declares it, the service checks it. */
    public static final String MAC_PATTERN = "^[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}$";

    /** Interface index within the VR, 1..65535; the next free one when absent. */
    @Schema(minimum = "1", maximum = "65535")
    public Integer vmNetworkConfigIndex;
    /** The host network the interface attaches to (a bridge or XenServer network name). */
    @Schema(minLength = 1, maxLength = 64)
    public String vmNetworkConfigParent;
    /** MAC address as six colon-separated hex octets; generated when absent. */
    @Schema(pattern = MAC_PATTERN)
    public String vmNetworkConfigPhysAddress;
    public InetAddressType vmNetworkConfigAddressType;
    public String vmNetworkConfigAddress;
    @Schema(minimum = "0", maximum = "128", description = "0..32 for IPv4, 0..128 for IPv6")
    public Integer vmNetworkConfigPrefixLength;
    /** How the interface is attached: bridge (the default), peer, vxlan or macvlan. */
    @Schema(description = "bridge (default): vmNetworkConfigParent is a host bridge; peer: a point-to-point link to"
            + " vmNetworkConfigPeerInterface of VR vmNetworkConfigPeerRouter on this router; vxlan: a link to another"
            + " router, vmNetworkConfigVni and vmNetworkConfigRemote (its underlay address), vmNetworkConfigParent the"
            + " local underlay device; macvlan: vmNetworkConfigParent is a host NIC")
    public LinkType vmNetworkConfigLinkType;
    /** A peer link's far VR (its vmIndex on this router). */
    @Schema(minimum = "1", maximum = "2147483647", description = "peer links: the far VR's vmIndex")
    public Integer vmNetworkConfigPeerRouter;
    /** A peer link's far interface (its vmNetworkConfigIndex there). */
    @Schema(minimum = "1", maximum = "65535", description = "peer links: the far VR's vmNetworkConfigIndex")
    public Integer vmNetworkConfigPeerInterface;
    /** A VXLAN link's network identifier. */
    @Schema(minimum = "1", maximum = "16777215", description = "vxlan links: the VXLAN network identifier both ends use")
    public Integer vmNetworkConfigVni;
    /** A VXLAN link's far router, by its underlay address. */
    @Schema(description = "vxlan links: the far router's underlay address")
    public String vmNetworkConfigRemote;
    /** The most the VR may receive on the interface, in kbit/s; absent: unlimited. Changed on a running VR. */
    @Schema(minimum = "64", maximum = "100000000", description = "kbit/s the VR receives at most; absent: no limit")
    public Integer vmNetworkConfigRateIn;
    /** The most the VR may send on the interface, in kbit/s; absent: unlimited. Changed on a running VR. */
    @Schema(minimum = "64", maximum = "100000000", description = "kbit/s the VR sends at most; absent: no limit")
    public Integer vmNetworkConfigRateOut;

    /** The prefix length an address gets when none is given: 24 for IPv4, 64 for IPv6. */
    public static int defaultPrefixLength(boolean ipv4) {
        return ipv4 ? 24 : 64;
    }

    public VmNetworkConfigEntry copy() {
        VmNetworkConfigEntry c = new VmNetworkConfigEntry();
        c.vmNetworkConfigIndex = vmNetworkConfigIndex;
        for (NetworkColumn n : NetworkColumn.values()) n.set(c, n.get(this));
        return c;
    }
}
