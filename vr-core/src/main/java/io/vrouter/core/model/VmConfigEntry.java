package io.vrouter.core.model;

import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlElement;
import jakarta.xml.bind.annotation.XmlElementWrapper;
import jakarta.xml.bind.annotation.XmlRootElement;
import jakarta.xml.bind.annotation.XmlType;
import java.util.ArrayList;
import java.util.List;

/**
 * One row of vmConfigTable: what the operator asked for one VR. This is the part that is persisted,
 * and the part that REST POST, SNMP row creation and NETCONF edit-config write.
 *
 * <p>Instances held by the service are never mutated once published; writers build a new one.
 */
@XmlRootElement(name = "vmConfigEntry")
@XmlType(name = "vmConfigEntry", propOrder = {"vmIndex", "vmName", "vmAdminState", "vmConfigTemplate",
        "vmConfigCpuNumber", "vmConfigMemory", "vmConfigAutoStart", "vmConfigDescription", "vmConfigTenant",
        "vmConfigCpuWeight", "vmNetworkConfigTable"})
@XmlAccessorType(XmlAccessType.FIELD)
public class VmConfigEntry {
    /** What a vmName looks like: the OpenAPI document declares it, the service checks it. */
    public static final String NAME_PATTERN = "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$";

    /** The row's index, 1..2147483647; chosen by the service when absent on creation. */
    @Schema(minimum = "1", maximum = "2147483647")
    public Integer vmIndex;
    /** Unique name of the VR, also its name on the hypervisor. */
    @Schema(minLength = 1, maxLength = 64, pattern = NAME_PATTERN)
    public String vmName;
    /** Desired state; running or shutdown on creation. Default running. */
    public AdminState vmAdminState;
    /** Hypervisor template the VR is cloned from; fixed once it exists. Default: the driver's first. */
    @Schema(minLength = 1, maxLength = 64, description = "one of the templates the driver offers (the simulated"
            + " one: vyos, openwrt)")
    public String vmConfigTemplate;
    /** Virtual CPUs. Default 1. */
    @Schema(minimum = "1", maximum = "64")
    public Integer vmConfigCpuNumber;
    /** Memory in MiB. Default 512. */
    @Schema(minimum = "64", maximum = "1048576")
    public Integer vmConfigMemory;
    /** Whether the hypervisor starts the VR when the host boots. Default false. */
    public Boolean vmConfigAutoStart;
    /** Free text about the VR, for its operators (up to 255 octets of UTF-8); kept by vrouter, not the host. */
    @Schema(maxLength = 255, description = "free text, up to 255 octets of UTF-8")
    public String vmConfigDescription;
    /**
     * The tenant that owns the VR, or absent (the infrastructure provider's). Set from the creating
     * user's tenant; only the provider's users may set or change it (the empty string: the provider's).
     */
    @Schema(maxLength = 32, description = "the owning tenant, one the server's settings declare; absent: the"
            + " infrastructure provider's. Only the provider's users may set it")
    public String vmConfigTenant;
    /**
     * The VR's CPU weight under contention, relative to the other VRs' (1..10000; absent: 100, as
     * cgroup v2's cpu.weight). Changed on a running VR.
     */
    @Schema(minimum = "1", maximum = "10000", description = "relative CPU weight under contention; absent: 100")
    public Integer vmConfigCpuWeight;

    @XmlElementWrapper(name = "vmNetworkConfigTable")
    @XmlElement(name = "vmNetworkConfigEntry")
    public List<VmNetworkConfigEntry> vmNetworkConfigTable;

    public VmConfigEntry() {
    }

    /** A deep copy, so that a writer can change it without touching a published row. */
    public VmConfigEntry copy() {
        VmConfigEntry c = new VmConfigEntry();
        copyColumnsTo(c);
        if (vmNetworkConfigTable != null) {
            c.vmNetworkConfigTable = new ArrayList<>(vmNetworkConfigTable.size());
            for (VmNetworkConfigEntry n : vmNetworkConfigTable) c.vmNetworkConfigTable.add(n.copy());
        }
        return c;
    }

    /**
     * Copies this row's columns into another row (a {@link VirtualRouter} view, say). The interface
     * list is shared, not copied: the service never changes a list it has published.
     */
    public void copyColumnsTo(VmConfigEntry target) {
        target.vmIndex = vmIndex;
        for (ConfigColumn c : ConfigColumn.values()) c.set(target, c.get(this));
        target.vmNetworkConfigTable = vmNetworkConfigTable;
    }

    /** The interfaces, never null. */
    public List<VmNetworkConfigEntry> interfaces() {
        return vmNetworkConfigTable == null ? List.of() : vmNetworkConfigTable;
    }

    /** Defaults of absent columns ({@link ConfigColumn#defaultValue}), and the template of drivers that offer no other. */
    public static final class Defaults {
        public static final String TEMPLATE = "vyos";
        public static final int CPU_NUMBER = 1;
        public static final int MEMORY_MIB = 512;
        /** The CPU weight of a VR that names none: cgroup v2's default cpu.weight. */
        public static final int CPU_WEIGHT = 100;

        private Defaults() {
        }
    }
}
