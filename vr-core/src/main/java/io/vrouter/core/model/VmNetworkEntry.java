package io.vrouter.core.model;

import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlType;

/** One row of vmNetworkTable (RFC 7666): an interface as the hypervisor reports it. */
@XmlType(name = "vmNetworkEntry", propOrder = {"vmNetworkIndex", "vmNetworkIfIndex", "vmNetworkParent",
        "vmNetworkModel", "vmNetworkPhysAddress"})
@XmlAccessorType(XmlAccessType.FIELD)
public class VmNetworkEntry {
    public Integer vmNetworkIndex;
    /** The ifIndex of the interface on the host, 0 when it has none. */
    public Integer vmNetworkIfIndex;
    /** The host network (bridge) the interface is attached to. */
    public String vmNetworkParent;
    public String vmNetworkModel;
    public String vmNetworkPhysAddress;
}
