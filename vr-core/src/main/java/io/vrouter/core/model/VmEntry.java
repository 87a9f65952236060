package io.vrouter.core.model;

import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlEnum;
import jakarta.xml.bind.annotation.XmlEnumValue;
import jakarta.xml.bind.annotation.XmlType;

/**
 * The state columns of one vmTable row (RFC 7666, less vmName and vmAdminState, which moved to
 * vmConfigTable) plus the five routing objects taken from VR-MIB's vrStatTable.
 */
@XmlType(name = "vmEntry", propOrder = {"vmOperState", "vmOperStateReason", "vmUUID", "vmOSType",
        "vmAutoStart", "vmPersistent", "vmCurCpuNumber", "vmMinCpuNumber", "vmMaxCpuNumber", "vmMemUnit",
        "vmCurMem", "vmMinMem", "vmMaxMem", "vmUpTime", "vmCpuTime", "vmRouteEntries", "vmFibEntries",
        "vmRoutingProtocols", "vmRouterAddrType", "vmRouterAddr"})
@XmlAccessorType(XmlAccessType.FIELD)
public class VmEntry {
    public OperState vmOperState;
    /** Why the VR is crashed (the driver's error), or absent. */
    public String vmOperStateReason;
    public String vmUUID;
    public String vmOSType;
    public AutoStart vmAutoStart;
    public Persistent vmPersistent;
    public Integer vmCurCpuNumber;
    public Integer vmMinCpuNumber;
    public Integer vmMaxCpuNumber;
    /** Bytes per unit of vmCurMem, vmMinMem and vmMaxMem. */
    public Integer vmMemUnit;
    public Long vmCurMem;
    public Long vmMinMem;
    public Long vmMaxMem;
    /** Time the VR has been running, in hundredths of a second (TimeTicks). */
    public Long vmUpTime;
    /** CPU time the VR has consumed, in microseconds. */
    public Long vmCpuTime;
    /** Routes in the VR's routing table (VR-MIB vrStatRouteEntries). */
    public Long vmRouteEntries;
    /** Entries in the VR's forwarding table (VR-MIB vrStatFIBEntries). */
    public Long vmFibEntries;
    /** Routing protocols active in the VR, comma separated, for example "static,ospf". */
    public String vmRoutingProtocols;
    public InetAddressType vmRouterAddrType;
    /** The VR's router address (router id). */
    public String vmRouterAddr;

    /** RFC 7666 VirtualMachineAutoStart. */
    @XmlType(name = "VirtualMachineAutoStart")
    @XmlEnum
    public enum AutoStart implements SmiEnum {
        @XmlEnumValue("unknown") UNKNOWN(1), @XmlEnumValue("enabled") ENABLED(2), @XmlEnumValue("disabled") DISABLED(3);

        private final int code;

        AutoStart(int code) {
            this.code = code;
        }

        @Override
        public int code() {
            return code;
        }
    }

    /** RFC 7666 VirtualMachinePersistent. */
    @XmlType(name = "VirtualMachinePersistent")
    @XmlEnum
    public enum Persistent implements SmiEnum {
        @XmlEnumValue("unknown") UNKNOWN(1), @XmlEnumValue("persistent") PERSISTENT(2), @XmlEnumValue("transient") TRANSIENT(3);

        private final int code;

        Persistent(int code) {
            this.code = code;
        }

        @Override
        public int code() {
            return code;
        }
    }
}
