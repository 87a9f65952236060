package io.vrouter.api.rest;

import io.vrouter.core.model.AdminState;
import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlElement;
import jakarta.xml.bind.annotation.XmlElementWrapper;
import jakarta.xml.bind.annotation.XmlRootElement;
import jakarta.xml.bind.annotation.XmlType;
import java.util.List;

/**
 * The answer of /api/v1/session: who the caller is and what it can do here, so that a client (the
 * web console) offers only what the server would accept.
 */
@XmlRootElement(name = "session")
@XmlType(name = "session", propOrder = {"user", "role", "tenant", "driver", "adminStates", "templates"})
@XmlAccessorType(XmlAccessType.FIELD)
public class Session {
    /** The authenticated user name. */
    public String user;
    /** operator (reads and writes) or viewer (reads only). */
    public String role;
    /** The tenant the user belongs to, whose VRs alone it sees; absent: the infrastructure provider's (every VR). */
    public String tenant;
    /** The hypervisor driver's name, as chosen with --driver. */
    public String driver;
    /** The admin states the driver can bring a VR to; asking for another is refused. */
    @XmlElementWrapper(name = "adminStates")
    @XmlElement(name = "adminState")
    public List<AdminState> adminStates;
    /** The vmConfigTemplate values the driver makes VRs from, its default first. */
    @XmlElementWrapper(name = "templates")
    @XmlElement(name = "template")
    public List<String> templates;
}
