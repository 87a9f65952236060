package io.vrouter.core.model;

import jakarta.xml.bind.annotation.XmlEnum;
import jakarta.xml.bind.annotation.XmlEnumValue;
import jakarta.xml.bind.annotation.XmlType;

/** vmNetworkLinkStatus: whether the far end of a peer or VXLAN link answers the router's probe. */
@XmlType(name = "LinkStatus")
@XmlEnum
public enum LinkStatus implements SmiEnum {
    @XmlEnumValue("up") UP(1),
    @XmlEnumValue("down") DOWN(2),
    /** Not probed: a bridge or macvlan interface, or a VR that is not running. */
    @XmlEnumValue("unknown") UNKNOWN(3);

    private final int code;

    LinkStatus(int code) {
        this.code = code;
    }

    @Override
    public int code() {
        return code;
    }
}
