package io.vrouter.core.model;

import jakarta.xml.bind.annotation.XmlEnum;
import jakarta.xml.bind.annotation.XmlEnumValue;
import jakarta.xml.bind.annotation.XmlType;

/** VirtualMachineAdminState of RFC 7666: what the operator wants a VR to be. */
@XmlType(name = "VirtualMachineAdminState")
@XmlEnum
public enum AdminState implements SmiEnum {
    @XmlEnumValue("running") RUNNING(1),
    @XmlEnumValue("suspended") SUSPENDED(2),
    @XmlEnumValue("paused") PAUSED(3),
    @XmlEnumValue("shutdown") SHUTDOWN(4);

    private final int code;

    AdminState(int code) {
        this.code = code;
    }

    @Override
    public int code() {
        return code;
    }

    public static AdminState ofCode(int code) {
        return SmiEnum.ofCode(AdminState.class, code);
    }

    public static AdminState ofLabel(String label) {
        return SmiEnum.ofLabel(AdminState.class, label);
    }
}
