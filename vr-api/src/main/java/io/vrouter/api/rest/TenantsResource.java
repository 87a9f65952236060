package io.vrouter.api.rest;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import io.vrouter.core.config.Tenants;
import io.vrouter.core.model.Commitment;
import io.vrouter.core.spi.VirtualRouters;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The tenants with their quotas and usage: the provider's users see every tenant, a tenant's users
 * their own. Both come from the caller's view of the core, which shows only the tenants and VRs the
 * caller may see; usage is counted over those VRs as the quota check counts them (every VR, whatever
 * its state).
 */
@Path("api/v1/tenants")
@Tag(name = "tenants")
@Produces({MediaType.APPLICATION_JSON, MediaType.APPLICATION_XML})
public class TenantsResource {
    @Inject
    private VirtualRouters service;

    @GET
    @Operation(operationId = "listTenants", summary = "The tenants the caller may see (the provider's users: all;"
            + " a tenant's users: their own), each with its quota (an amount left out has no limit) and its usage: what"
            + " its VRs commit, whatever their state (VRs, vCPUs, memory in MiB)")
    public TenantList list() {
        Map<String, Commitment> usage = new HashMap<>();
        for (int vmIndex : service.indices()) {
            service.getConfig(vmIndex).filter(row -> row.vmConfigTenant != null)
                    .ifPresent(row -> usage.computeIfAbsent(row.vmConfigTenant, t -> new Commitment()).add(row, 1));
        }
        List<TenantList.Tenant> tenants = new ArrayList<>();
        for (Tenants.Tenant t : service.tenants()) {
            TenantList.Tenant out = new TenantList.Tenant();
            out.name = t.name();
            out.quota = new TenantList.TenantAmounts(t.vrs(), t.vcpus(), t.memoryMib());
            Commitment u = usage.getOrDefault(t.name(), new Commitment());
            out.usage = new TenantList.TenantAmounts((int) u.vrs(), (int) u.cpus(), u.memory());
            tenants.add(out);
        }
        return new TenantList(tenants);
    }
}
