package io.vrouter.core.model;

import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlRootElement;
import jakarta.xml.bind.annotation.XmlType;

/** The vmHypervisor group and the NEW-VMM-MIB scalars. */
@XmlRootElement(name = "vmHypervisor")
@XmlType(name = "vmHypervisor", propOrder = {"vmHvSoftware", "vmHvVersion", "vmHvObjectID", "vmHvUpTime",
        "vmNumber", "vmTableLastChange", "vmPerVMNotificationsEnabled", "vmBulkNotificationsEnabled",
        "vmConfigNextAvailableVmIndex", "vmConfiguredVMs", "vmActiveVMs", "vmHvCpus", "vmHvMemory", "vmCommittedCpus",
        "vmCommittedMemory"})
@XmlAccessorType(XmlAccessType.FIELD)
public class Hypervisor {
    public String vmHvSoftware;
    public String vmHvVersion;
    /** The hypervisor's OBJECT IDENTIFIER in dotted form, "0.0" when it has none. */
    public String vmHvObjectID;
    /** Hypervisor uptime in hundredths of a second. */
    public Long vmHvUpTime;
    /** Rows in vmTable. */
    public Integer vmNumber;
    /** vmHvUpTime-relative time of the last row added to or removed from vmTable, in hundredths. */
    public Long vmTableLastChange;
    public Boolean vmPerVMNotificationsEnabled;
    public Boolean vmBulkNotificationsEnabled;
    public Integer vmConfigNextAvailableVmIndex;
    public Integer vmConfiguredVMs;
    /** VRs whose vmOperState is running. */
    public Integer vmActiveVMs;
    /** The host's CPUs as the driver reports them; null when it reports none (no limit from the host). */
    public Integer vmHvCpus;
    /** The host's memory in MiB as the driver reports it; null when it reports none. */
    public Integer vmHvMemory;
    /** vmConfigCpuNumber summed over the VRs the requester may see, whatever their state. */
    public Long vmCommittedCpus;
    /** vmConfigMemory (MiB) summed over the VRs the requester may see, whatever their state. */
    public Long vmCommittedMemory;
}
