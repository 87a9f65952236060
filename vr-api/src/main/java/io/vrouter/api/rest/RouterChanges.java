package io.vrouter.api.rest;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.vrouter.core.model.VirtualRouter;
import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlElement;
import jakarta.xml.bind.annotation.XmlElementWrapper;
import jakarta.xml.bind.annotation.XmlRootElement;
import jakarta.xml.bind.annotation.XmlType;
import java.util.List;

/**
 * Changes of several VRs in one transaction ({@code PATCH /api/v1/routers}): VRs to create, as
 * {@code POST /routers} takes them; changes of existing VRs, each as {@code PATCH /routers/{vmIndex}}
 * takes it, named by its vmIndex; and the vmIndex of each VR to remove. All are made, or none.
 * (JSON names the lists by their XML wrappers, which Jackson's own annotation says.)
 */
@XmlRootElement(name = "routerChanges")
@XmlType(name = "routerChanges", propOrder = {"create", "change", "remove"})
@XmlAccessorType(XmlAccessType.FIELD)
public class RouterChanges {
    @JsonProperty("create")
    @XmlElementWrapper(name = "create")
    @XmlElement(name = "virtualRouter")
    public List<VirtualRouter> create;

    @JsonProperty("change")
    @XmlElementWrapper(name = "change")
    @XmlElement(name = "virtualRouter")
    public List<VirtualRouter> change;

    @JsonProperty("remove")
    @XmlElementWrapper(name = "remove")
    @XmlElement(name = "vmIndex")
    public List<Integer> remove;
}
