package io.vrouter.api.rest;

import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.Response;
import java.net.URI;
import java.util.Locale;
import java.util.Set;

/**
 * Defence against cross-site request forgery for every state-changing request (any method but GET,
 * HEAD and OPTIONS).
 *
 * <p>A browser attaches Basic credentials it has cached by itself, so a page of another site could
 * make it POST to vrouter. But a browser also marks what it sends: {@code Sec-Fetch-Site} names the
 * site that made the request, {@code Origin} the origin of the page, and a page cannot remove either;
 * nor can it add a header of its own to a request for another origin without a CORS preflight, which
 * vrouter never grants. So a write that carries {@code Origin} or {@code Sec-Fetch-Site} comes from a
 * browser and is accepted only when it comes from vrouter's own pages: Sec-Fetch-Site, if sent, is
 * {@code same-origin}; Origin, if sent, is the origin the request was sent to (its Host); and it
 * carries the header {@value #HEADER} (the console sends it; any value).
 *
 * <p>Programs (curl, generated OpenAPI clients, scripts) send none of the browser's headers and are
 * not affected. Runs before authentication, so a forged write is refused whatever its credentials.
 */
@PreMatching
@Priority(Priorities.AUTHENTICATION - 100)
final class CsrfFilter implements ContainerRequestFilter {
    /** The custom header a browser's write must carry (the name Jersey's CsrfProtectionFilter uses). */
    static final String HEADER = "X-Requested-By";
    private static final Set<String> SAFE = Set.of("GET", "HEAD", "OPTIONS");

    @Override
    public void filter(ContainerRequestContext request) {
        if (SAFE.contains(request.getMethod())) return;
        String site = request.getHeaderString("Sec-Fetch-Site");
        String origin = request.getHeaderString("Origin");
        if (site == null && origin == null) return;
        if (site != null && !site.equals("same-origin")) {
            refuse("a write from another site (Sec-Fetch-Site: " + site + ") is refused");
        }
        if (origin != null && !sameOrigin(origin, request.getHeaderString("Host"))) {
            refuse("a write from a page of another origin is refused");
        }
        if (request.getHeaderString(HEADER) == null) {
            refuse("a write from a browser must carry the header " + HEADER + " (the console sends it)");
        }
    }

    /** Whether Origin's host and port are the Host the request was sent to (default ports filled in). */
    static boolean sameOrigin(String origin, String host) {
        if (host == null || origin.equals("null")) return false;
        URI o;
        URI h;
        try {
            o = URI.create(origin);
            h = URI.create(o.getScheme() + "://" + host);
        } catch (IllegalArgumentException e) {
            return false;
        }
        if (o.getHost() == null || h.getHost() == null) return false;
        return o.getHost().toLowerCase(Locale.ROOT).equals(h.getHost().toLowerCase(Locale.ROOT))
                && port(o) == port(h);
    }

    private static int port(URI u) {
        if (u.getPort() >= 0) return u.getPort();
        return "https".equalsIgnoreCase(u.getScheme()) ? 443 : 80;
    }

    private static void refuse(String detail) {
        throw new ProblemException(Response.Status.FORBIDDEN, detail, null, null);
    }
}
