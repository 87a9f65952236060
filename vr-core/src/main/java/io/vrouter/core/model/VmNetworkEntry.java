package io.vrouter.core.model;

import io.swagger.v3.oas.annotations.media.Schema;

import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlType;

/** One row of vmNetworkTable (RFC 7666): an interface as the hypervisor reports it. */
@XmlType(name = "vmNetworkEntry", propOrder = {"vmNetworkIndex", "vmNetworkIfIndex", "vmNetworkParent",
        "vmNetworkModel", "vmNetworkPhysAddress", "vmNetworkInOctets", "vmNetworkInPkts", "vmNetworkOutOctets",
        "vmNetworkOutPkts", "vmNetworkInErrors", "vmNetworkOutErrors", "vmNetworkInDiscards", "vmNetworkOutDiscards",
        "vmNetworkLinkStatus", "vmNetworkLinkDelay", "vmNetworkLinkLoss"})
@XmlAccessorType(XmlAccessType.FIELD)
public class VmNetworkEntry {
    public Integer vmNetworkIndex;
    /** The ifIndex of the interface on the host, 0 when it has none. */
    public Integer vmNetworkIfIndex;
    /** The host network (bridge) the interface is attached to. */
    public String vmNetworkParent;
    public String vmNetworkModel;
    public String vmNetworkPhysAddress;
    /** Octets the VR received on the interface; absent where the hypervisor does not count them. */
    public Long vmNetworkInOctets;
    /** Packets the VR received on the interface. */
    public Long vmNetworkInPkts;
    /** Octets the VR sent on the interface. */
    public Long vmNetworkOutOctets;
    /** Packets the VR sent on the interface. */
    public Long vmNetworkOutPkts;
    /** Packets received with errors (the host's rx_errors). */
    public Long vmNetworkInErrors;
    /** Packets that could not be sent because of errors (tx_errors). */
    public Long vmNetworkOutErrors;
    /** Packets received without error but dropped (rx_dropped). */
    public Long vmNetworkInDiscards;
    /** Packets to send without error but dropped (tx_dropped). */
    public Long vmNetworkOutDiscards;
    /** Whether a peer or VXLAN link's far end answers the router's probe; unknown where nothing is probed. */
    public LinkStatus vmNetworkLinkStatus;
    /** The link's round-trip delay to its far end, microseconds (the median of the last probes); absent when unknown. */
    @Schema(description = "round-trip delay to the link's far end in microseconds, the median of the last probes")
    public Long vmNetworkLinkDelay;
    /** The share of the last probes the far end did not answer, percent; absent when unknown. */
    @Schema(description = "percent of the last probes the link's far end did not answer")
    public Long vmNetworkLinkLoss;
}
