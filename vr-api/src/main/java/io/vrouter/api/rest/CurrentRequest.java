package io.vrouter.api.rest;

import jakarta.annotation.Priority;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.UriInfo;
import io.vrouter.core.config.Caller;
import io.vrouter.core.spi.VirtualRouters;
import org.glassfish.jersey.server.ContainerRequest;

/**
 * The request this thread serves, for the singleton resources and {@link CallerView}: set first
 * thing on every request (before any resource can run), so a thread never sees an earlier request.
 *
 * <p>Why not Jersey's {@code @Context} proxies: each call through one is a lookup in HK2's request
 * scope, and the first of a request makes the request's own supplier by reflection; together 7% of
 * the CPU of a GET of one VR. Jersey serves a request on one thread, its response's body included
 * (event streams too), so a thread-local holds the same request those proxies find.
 */
@PreMatching
@Priority(Integer.MIN_VALUE)
public final class CurrentRequest implements ContainerRequestFilter {
    private static final ThreadLocal<ContainerRequest> CURRENT = new ThreadLocal<>();

    @Override
    public void filter(ContainerRequestContext request) {
        CURRENT.set((ContainerRequest) request);
    }

    /** The request on this thread; fails outside one rather than answer with another's. */
    public static ContainerRequest get() {
        ContainerRequest r = CURRENT.get();
        if (r == null) throw new IllegalStateException("no request on this thread");
        return r;
    }

    /** The core as this request's caller sees it ({@link CallerView}). */
    public static VirtualRouters service() {
        return CallerView.current();
    }

    /** Who sent this request, as authentication found it. */
    public static Caller caller() {
        ContainerRequest request = get();
        if (request.getSecurityContext().getUserPrincipal() instanceof CallerPrincipal p) return p.caller();
        throw new IllegalStateException("no authenticated caller on " + request.getPath(true));
    }

    /** This request's headers (an injected proxy would look them up in HK2 on every call). */
    public static HttpHeaders headers() {
        return get();
    }

    /** This request's URI. */
    public static UriInfo uri() {
        return get().getUriInfo();
    }

    /** Drops the request when the server is done with it (the JDK server's {@link AdmissionFilter}). */
    static void clear() {
        CURRENT.remove();
    }
}
