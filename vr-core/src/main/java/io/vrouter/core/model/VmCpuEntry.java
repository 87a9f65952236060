package io.vrouter.core.model;

import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlEnum;
import jakarta.xml.bind.annotation.XmlEnumValue;
import jakarta.xml.bind.annotation.XmlType;

/** One row of vmCpuTable (RFC 7666), with the row's affinity (vmCpuAffinityTable) to physical CPUs. */
@XmlType(name = "vmCpuEntry", propOrder = {"vmCpuIndex", "vmCpuCoreTime", "vmCpuPhysIndex", "vmCpuAffinity"})
@XmlAccessorType(XmlAccessType.FIELD)
public class VmCpuEntry {
    public Integer vmCpuIndex;
    /** CPU time of this virtual CPU in microseconds. */
    public Long vmCpuCoreTime;
    /** The physical CPU (hrDeviceIndex) this virtual CPU is pinned to, 0 when unpinned. */
    public Integer vmCpuPhysIndex;
    /** RFC 7666 vmCpuAffinity: whether the virtual CPU is pinned to vmCpuPhysIndex. */
    public Affinity vmCpuAffinity;

    /** RFC 7666 vmCpuAffinity. */
    @XmlType(name = "VirtualMachineCpuAffinity")
    @XmlEnum
    public enum Affinity implements SmiEnum {
        @XmlEnumValue("unknown") UNKNOWN(0),
        @XmlEnumValue("enable") ENABLE(1),
        @XmlEnumValue("disable") DISABLE(2);

        private final int code;

        Affinity(int code) {
            this.code = code;
        }

        @Override
        public int code() {
            return code;
        }
    }
}
