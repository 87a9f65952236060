package io.vrouter.api.rest;

import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlElement;
import jakarta.xml.bind.annotation.XmlRootElement;
import jakarta.xml.bind.annotation.XmlType;
import java.util.List;

/** The answer of /api/v1/tenants: the tenants the caller may see, each with its quotas and what its VRs commit. */
@XmlRootElement(name = "tenants")
@XmlType(name = "tenants")
@XmlAccessorType(XmlAccessType.FIELD)
public class TenantList {
    @XmlElement(name = "tenant")
    public List<Tenant> tenant;

    public TenantList() {
    }

    TenantList(List<Tenant> tenant) {
        this.tenant = tenant;
    }

    /** A tenant (tenant.NAME in the settings): its quotas, and its VRs' use of them. */
    @XmlType(name = "tenant", propOrder = {"name", "quota", "usage"})
    @XmlAccessorType(XmlAccessType.FIELD)
    public static class Tenant {
        @Schema(description = "the tenant's name, as vmConfigTenant holds it")
        public String name;
        /** What the tenant may have (tenant.NAME = vrs=N, vcpus=N, memory=MiB); an amount left out has no limit. */
        public TenantAmounts quota;
        /** What the tenant's VRs have now: every VR counts, whatever its state, as the quota check counts them. */
        public TenantAmounts usage;
    }

    /** VRs, vCPUs (vmConfigCpuNumber) and memory in MiB (vmConfigMemory). */
    @XmlType(name = "tenantAmounts", propOrder = {"vrs", "vcpus", "memory"})
    @XmlAccessorType(XmlAccessType.FIELD)
    public static class TenantAmounts {
        @Schema(description = "VRs")
        public Integer vrs;
        @Schema(description = "vCPUs: the sum of vmConfigCpuNumber")
        public Integer vcpus;
        @Schema(description = "MiB: the sum of vmConfigMemory")
        public Long memory;

        public TenantAmounts() {
        }

        TenantAmounts(Integer vrs, Integer vcpus, Long memory) {
            this.vrs = vrs;
            this.vcpus = vcpus;
            this.memory = memory;
        }
    }
}
