package io.vrouter.core.model;

import jakarta.xml.bind.annotation.XmlEnum;
import jakarta.xml.bind.annotation.XmlEnumValue;
import jakarta.xml.bind.annotation.XmlType;

/** VirtualMachineAdminState of RFC 7666: what the operator wants a VR to be. */
@XmlType(name = "VirtualMachineAdminState")
@XmlEnum
public enum AdminState {
    @XmlEnumValue("running") RUNNING(1),
    @XmlEnumValue("suspended") SUSPENDED(2),
    @XmlEnumValue("paused") PAUSED(3),
    @XmlEnumValue("shutdown") SHUTDOWN(4);

    private final int code;

    AdminState(int code) {
        this.code = code;
    }

    /** The SNMP enumeration value. */
    public int code() {
        return code;
    }

    /** The label used by REST and NETCONF. */
    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    public static AdminState ofCode(int code) {
        for (AdminState s : values()) {
            if (s.code == code) return s;
        }
        throw new IllegalArgumentException("no vmAdminState with value " + code);
    }

    public static AdminState ofLabel(String label) {
        for (AdminState s : values()) {
            if (s.label().equals(label)) return s;
        }
        throw new IllegalArgumentException("no vmAdminState named '" + label + "'");
    }
}
