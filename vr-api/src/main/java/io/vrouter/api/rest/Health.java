package io.vrouter.api.rest;

import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlRootElement;
import jakarta.xml.bind.annotation.XmlType;

/** The answer of /health: UP once the service has reconciled with the hypervisor, while it can follow it and record changes. */
@XmlRootElement(name = "health")
@XmlType(name = "health", propOrder = {"status", "version", "commit", "driver", "driverProblem", "storageProblem", "routers",
        "unresolvedVms"})
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
}
