package io.vrouter.core.model;

import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlElement;
import jakarta.xml.bind.annotation.XmlRootElement;
import jakarta.xml.bind.annotation.XmlType;
import java.util.List;

/** One page of VRs, in vmIndex order. */
@XmlRootElement(name = "virtualRouters")
@XmlType(name = "virtualRouters", propOrder = {"total", "offset", "limit", "virtualRouter"})
@XmlAccessorType(XmlAccessType.FIELD)
public class VirtualRouterList {
    /** How many VRs matched the filter, over all pages. */
    public int total;
    public int offset;
    public int limit;
    @XmlElement(name = "virtualRouter")
    public List<VirtualRouter> virtualRouter;

    public VirtualRouterList() {
    }

    public VirtualRouterList(int total, int offset, int limit, List<VirtualRouter> virtualRouter) {
        this.total = total;
        this.offset = offset;
        this.limit = limit;
        this.virtualRouter = virtualRouter;
    }
}
