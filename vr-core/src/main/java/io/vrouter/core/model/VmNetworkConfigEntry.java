package io.vrouter.core.model;

import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlRootElement;
import jakarta.xml.bind.annotation.XmlType;

/** One row of vmNetworkConfigTable: an interface the operator asked for on a VR. */
@XmlRootElement(name = "vmNetworkConfigEntry")
@XmlType(name = "vmNetworkConfigEntry", propOrder = {"vmNetworkConfigIndex", "vmNetworkConfigParent",
        "vmNetworkConfigPhysAddress", "vmNetworkConfigAddressType", "vmNetworkConfigAddress",
        "vmNetworkConfigPrefixLength"})
@XmlAccessorType(XmlAccessType.FIELD)
public class VmNetworkConfigEntry {
    /** Interface index within the VR, 1..65535; the next free one when absent. */
    public Integer vmNetworkConfigIndex;
    /** The host network the interface attaches to (a bridge or XenServer network name). */
    public String vmNetworkConfigParent;
    /** MAC address as six colon-separated hex octets; generated when absent. */
    public String vmNetworkConfigPhysAddress;
    public InetAddressType vmNetworkConfigAddressType;
    public String vmNetworkConfigAddress;
    public Integer vmNetworkConfigPrefixLength;

    public VmNetworkConfigEntry copy() {
        VmNetworkConfigEntry c = new VmNetworkConfigEntry();
        c.vmNetworkConfigIndex = vmNetworkConfigIndex;
        for (NetworkColumn n : NetworkColumn.values()) n.set(c, n.get(this));
        return c;
    }
}
