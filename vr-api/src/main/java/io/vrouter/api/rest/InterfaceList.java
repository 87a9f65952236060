package io.vrouter.api.rest;

import io.vrouter.core.model.VmNetworkConfigEntry;
import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlElement;
import jakarta.xml.bind.annotation.XmlRootElement;
import jakarta.xml.bind.annotation.XmlType;
import java.util.List;

/** The vmNetworkConfigTable rows of one VR. */
@XmlRootElement(name = "vmNetworkConfigTable")
@XmlType(name = "vmNetworkConfigTable")
@XmlAccessorType(XmlAccessType.FIELD)
public class InterfaceList {
    @XmlElement(name = "vmNetworkConfigEntry")
    public List<VmNetworkConfigEntry> vmNetworkConfigEntry;

    public InterfaceList() {
    }

    public InterfaceList(List<VmNetworkConfigEntry> entries) {
        this.vmNetworkConfigEntry = entries;
    }
}
