package io.vrouter.api.rest;

import io.vrouter.core.spi.VirtualRouters;
import java.util.function.Supplier;
import org.glassfish.jersey.server.ContainerRequest;

/**
 * What a resource gets when it injects {@link VirtualRouters}: the view of the request's caller, made
 * once at authentication ({@link CallerPrincipal}). Bound per request and proxied, so that the
 * singleton resources reach the view of the request they serve. A resource of the public paths (no
 * login) gets none: it must be given what it reads another way.
 *
 * <p>One instance serves every request; it finds the request as {@link CurrentRequest} keeps it, not
 * through HK2 (made per request with its request injected, it cost 6% of the CPU of a GET of one VR).
 */
public final class CallerView implements Supplier<VirtualRouters> {
    @Override
    public VirtualRouters get() {
        return current();
    }

    /**
     * The view of the request on this thread, for the singleton resources to read directly: through
     * the injected proxy, every call is a lookup in HK2's request scope.
     */
    public static VirtualRouters current() {
        ContainerRequest request = CurrentRequest.get();
        if (request.getSecurityContext().getUserPrincipal() instanceof CallerPrincipal caller) return caller.view();
        throw new IllegalStateException("no authenticated caller on " + request.getPath(true));
    }
}
