package io.vrouter.core.model;

import jakarta.xml.bind.annotation.XmlEnum;
import jakarta.xml.bind.annotation.XmlEnumValue;
import jakarta.xml.bind.annotation.XmlType;

/** The two address families of RFC 4001's InetAddressType that a VR interface can carry. */
@XmlType(name = "InetAddressType")
@XmlEnum
public enum InetAddressType implements SmiEnum {
    @XmlEnumValue("unknown") UNKNOWN(0),
    @XmlEnumValue("ipv4") IPV4(1),
    @XmlEnumValue("ipv6") IPV6(2);

    private final int code;

    InetAddressType(int code) {
        this.code = code;
    }

    @Override
    public int code() {
        return code;
    }

    public static InetAddressType ofCode(int code) {
        return SmiEnum.ofCode(InetAddressType.class, code);
    }
}
