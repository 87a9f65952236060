package io.vrouter.core.model;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlElement;
import jakarta.xml.bind.annotation.XmlElementWrapper;
import jakarta.xml.bind.annotation.XmlRootElement;
import jakarta.xml.bind.annotation.XmlType;
import java.util.List;

/**
 * A VR as the management interfaces show it: its vmConfigTable row (inherited, flat, the part a
 * client writes) and the rows of the state tables that share its vmIndex, each under its MIB name.
 */
@XmlRootElement(name = "virtualRouter")
@XmlType(name = "virtualRouter", propOrder = {"vmEntry", "vmNetworkTable", "vmCpuTable", "vmStorageTable"})
@XmlAccessorType(XmlAccessType.FIELD)
// JSON keeps XML's order: the configured row first, then the state (JAXB's propOrder covers only this class).
@JsonPropertyOrder({"vmIndex", "vmName", "vmAdminState", "vmConfigTemplate", "vmConfigCpuNumber", "vmConfigMemory",
        "vmConfigAutoStart", "vmConfigDescription", "vmConfigTenant", "vmConfigCpuWeight", "vmNetworkConfigTable", "vmEntry", "vmNetworkTable", "vmCpuTable", "vmStorageTable"})
public class VirtualRouter extends VmConfigEntry {
    public VmEntry vmEntry;

    @XmlElementWrapper(name = "vmNetworkTable")
    @XmlElement(name = "vmNetworkEntry")
    public List<VmNetworkEntry> vmNetworkTable;

    @XmlElementWrapper(name = "vmCpuTable")
    @XmlElement(name = "vmCpuEntry")
    public List<VmCpuEntry> vmCpuTable;

    @XmlElementWrapper(name = "vmStorageTable")
    @XmlElement(name = "vmStorageEntry")
    public List<VmStorageEntry> vmStorageTable;

    /** The operational state, a shortcut for {@code vmEntry.vmOperState}. */
    public OperState operState() {
        return vmEntry == null ? null : vmEntry.vmOperState;
    }
}
