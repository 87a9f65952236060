package io.vrouter.core.model;

import jakarta.xml.bind.annotation.XmlEnum;
import jakarta.xml.bind.annotation.XmlEnumValue;
import jakarta.xml.bind.annotation.XmlType;

/** VirtualMachineOperState of RFC 7666: what a VR is right now. */
@XmlType(name = "VirtualMachineOperState")
@XmlEnum
public enum OperState implements SmiEnum {
    @XmlEnumValue("unknown") UNKNOWN(1),
    @XmlEnumValue("other") OTHER(2),
    @XmlEnumValue("preparing") PREPARING(3),
    @XmlEnumValue("running") RUNNING(4),
    @XmlEnumValue("suspending") SUSPENDING(5),
    @XmlEnumValue("suspended") SUSPENDED(6),
    @XmlEnumValue("resuming") RESUMING(7),
    @XmlEnumValue("paused") PAUSED(8),
    @XmlEnumValue("migrating") MIGRATING(9),
    @XmlEnumValue("shuttingdown") SHUTTINGDOWN(10),
    @XmlEnumValue("shutdown") SHUTDOWN(11),
    @XmlEnumValue("crashed") CRASHED(12);

    private final int code;

    OperState(int code) {
        this.code = code;
    }

    @Override
    public int code() {
        return code;
    }

    /** True while an operation is moving the VR between two stable states. */
    public boolean isTransitional() {
        return this == PREPARING || this == SUSPENDING || this == RESUMING
                || this == MIGRATING || this == SHUTTINGDOWN;
    }

    public static OperState ofCode(int code) {
        return SmiEnum.ofCode(OperState.class, code);
    }

    public static OperState ofLabel(String label) {
        return SmiEnum.ofLabel(OperState.class, label);
    }
}
