package io.vrouter.api.rest;

import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlElement;
import jakarta.xml.bind.annotation.XmlElementWrapper;
import jakarta.xml.bind.annotation.XmlRootElement;
import jakarta.xml.bind.annotation.XmlType;
import java.util.List;

/** The answer of /health: UP once the service has reconciled with the hypervisor, while it can follow it and record changes. */
@XmlRootElement(name = "health")
@XmlType(name = "health", propOrder = {"status", "version", "commit", "driver", "driverProblem", "storageProblem", "routers",
        "unresolvedVms", "drained", "drainedSince", "peers"})
@XmlAccessorType(XmlAccessType.FIELD)
public class Health {
    public String status;
    /** The server's version (its jar's Implementation-Version); absent in a development build. */
    public String version;
    /** The git commit the server was built from, when its build knew it. */
    public String commit;
    public String driver;
    /** What keeps the driver from knowing the host's state, when something does. */
    public String driverProblem;
    /** What keeps the server from recording changes (its data directory refuses writes), when something does. */
    public String storageProblem;
    public int routers;
    /** VMs on the host that carry our marker but have no configuration. */
    public int unresolvedVms;
    /** Whether the router is drained for maintenance: it takes no new VRs until opened (it stays UP). */
    public boolean drained;
    /** Since when it is drained; absent while open. */
    public String drainedSince;
    /** The routers this one may move VRs to, as last probed (absent when it has none); they do not make it DOWN. */
    @XmlElementWrapper(name = "peers")
    @XmlElement(name = "peer")
    public List<Peer> peers;

    /** A peer: its name (setting peer.NAME) and whether its /health answered when last asked. */
    @XmlType(name = "healthPeer")
    @XmlAccessorType(XmlAccessType.FIELD)
    public static class Peer {
        public String name;
        public boolean reachable;
    }
}
