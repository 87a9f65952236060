package io.vrouter.api.rest;

import io.vrouter.core.config.Caller;
import io.vrouter.core.spi.VirtualRouters;
import java.security.Principal;

/**
 * Who a request authenticated as ({@link BasicAuthFilter}), and the core as that caller may see and
 * change it ({@code VirtualRouters.as}): its tenant's VRs only, its change sets stamped with it. The
 * request's SecurityContext carries it; every resource's {@link VirtualRouters} is its {@link #view}
 * ({@link CallerView}), so that no resource holds the unfiltered port.
 */
record CallerPrincipal(Caller caller, VirtualRouters view) implements Principal {
    @Override
    public String getName() {
        return caller.user();
    }
}
