package io.vrouter.api.rest;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import io.vrouter.core.model.Hypervisor;
import io.vrouter.core.spi.VirtualRouters;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

@Path("api/v1/hypervisor")
@Tag(name = "hypervisor")
@Produces({MediaType.APPLICATION_JSON, MediaType.APPLICATION_XML})
public class HypervisorResource {
    @Inject
    private VirtualRouters service;

    @GET
    @Operation(operationId = "getHypervisor", summary = "The vmHypervisor group and the NEW-VMM-MIB scalars")
    public Hypervisor get() {
        return service.hypervisor();
    }
}
