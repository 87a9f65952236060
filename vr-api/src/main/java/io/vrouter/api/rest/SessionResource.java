package io.vrouter.api.rest;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import io.vrouter.core.config.Credentials;
import io.vrouter.core.spi.VirtualRouters;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.SecurityContext;
import java.util.List;
import java.util.Locale;

/** The caller's user and role, and what the driver offers: how a client learns what it may ask for. */
@Path("api/v1/session")
@Tag(name = "session")
@Produces({MediaType.APPLICATION_JSON, MediaType.APPLICATION_XML})
public class SessionResource {
    @Inject
    private VirtualRouters service;

    @Context
    private SecurityContext security;

    @GET
    @Operation(operationId = "getSession", summary = "Who the caller is (user, role, tenant) and what the driver offers"
            + " (the admin states it can bring a VR to, its templates)")
    public Session get() {
        Session s = new Session();
        s.user = security.getUserPrincipal().getName();
        s.tenant = ((CallerPrincipal) security.getUserPrincipal()).caller().tenant();
        s.role = (security.isUserInRole(Credentials.Role.OPERATOR.name()) ? Credentials.Role.OPERATOR
                : Credentials.Role.VIEWER).name().toLowerCase(Locale.ROOT);
        s.driver = service.driverName();
        s.adminStates = service.adminStates().stream().sorted().toList();
        s.templates = List.copyOf(service.templates());
        return s;
    }
}
