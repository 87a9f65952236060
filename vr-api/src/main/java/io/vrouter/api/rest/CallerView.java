package io.vrouter.api.rest;

import io.vrouter.core.spi.VirtualRouters;
import jakarta.inject.Inject;
import java.util.function.Supplier;
import org.glassfish.jersey.server.ContainerRequest;

/**
 * What a resource gets when it injects {@link VirtualRouters}: the view of the request's caller, made
 * once at authentication ({@link CallerPrincipal}). Bound per request and proxied, so that the
 * singleton resources reach the view of the request they serve. A resource of the public paths (no
 * login) gets none: it must be given what it reads another way.
 */
final class CallerView implements Supplier<VirtualRouters> {
    private final ContainerRequest request;

    @Inject
    CallerView(ContainerRequest request) {
        this.request = request;
    }

    @Override
    public VirtualRouters get() {
        if (request.getSecurityContext().getUserPrincipal() instanceof CallerPrincipal caller) return caller.view();
        throw new IllegalStateException("no authenticated caller on " + request.getPath(true));
    }
}
