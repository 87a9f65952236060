package io.vrouter.api.rest;

import io.vrouter.api.restconf.Restconf;
import io.vrouter.core.config.Caller;
import io.vrouter.core.config.Credentials;
import io.vrouter.core.spi.VirtualRouters;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.Base64;
import java.util.Optional;

/**
 * HTTP Basic authentication for /api/v1 and RESTCONF's /restconf. Reads (GET, HEAD) need a viewer
 * or an operator; every other method needs an operator. The OpenAPI document, /health, /metrics and
 * RESTCONF's discovery document /.well-known/host-meta are public.
 *
 * <p>A request that logs in carries its caller (user, tenant, role, "rest" or "restconf", the client's
 * address) and the core's view for it ({@link CallerPrincipal}) in its SecurityContext: everything the
 * resources read and change goes through that view, which is where tenants are enforced.
 */
@PreMatching
@Priority(Priorities.AUTHENTICATION)
final class BasicAuthFilter implements ContainerRequestFilter {
    static final String REALM = "Basic realm=\"vrouter\", charset=\"UTF-8\"";
    private final Credentials credentials;
    private final VirtualRouters core;

    BasicAuthFilter(Credentials credentials, VirtualRouters core) {
        this.credentials = credentials;
        this.core = core;
    }

    @Override
    public void filter(ContainerRequestContext request) {
        String path = request.getUriInfo().getPath();
        boolean api = path.startsWith("api/v1") && !path.startsWith("api/v1/openapi.");
        if (!api && !Restconf.owns(path)) return;
        String header = request.getHeaderString(HttpHeaders.AUTHORIZATION);
        Optional<String[]> userAndPassword = decode(header);
        if (header == null) {
            throw new ProblemException(Response.Status.UNAUTHORIZED, "authentication is required", null, REALM);
        }
        Credentials.Login login = credentials.login("rest", ClientAddress.current(),
                userAndPassword.map(up -> up[0]).orElse(null), userAndPassword.map(up -> up[1]).orElse(null));
        if (login.throttled()) {
            throw new ProblemException(Response.Status.TOO_MANY_REQUESTS, "too many failed logins from this address:"
                    + " try again in a moment", null, null).retryAfter(1);
        }
        Optional<Credentials.Role> role = login.role();
        if (role.isEmpty()) {
            throw new ProblemException(Response.Status.UNAUTHORIZED, "wrong user name or password", null, REALM);
        }
        boolean read = request.getMethod().equals("GET") || request.getMethod().equals("HEAD");
        if (!read && role.get() != Credentials.Role.OPERATOR) {
            throw new ProblemException(Response.Status.FORBIDDEN,
                    "user '" + userAndPassword.get()[0] + "' may only read: changes need the operator role", null, null);
        }
        String user = userAndPassword.get()[0];
        // Empty when a reload removed the user since its password was checked: never taken for the provider.
        Caller caller = credentials.caller(user, role.get(), api ? "rest" : "restconf", ClientAddress.current())
                .orElseThrow(() -> new ProblemException(Response.Status.UNAUTHORIZED, "wrong user name or password", null, REALM));
        CallerPrincipal principal = new CallerPrincipal(caller, core.as(caller));
        boolean secure = request.getSecurityContext().isSecure();
        request.setSecurityContext(new SecurityContext() {
            @Override
            public Principal getUserPrincipal() {
                return principal;
            }

            @Override
            public boolean isUserInRole(String r) {
                return role.get().name().equalsIgnoreCase(r);
            }

            @Override
            public boolean isSecure() {
                return secure;
            }

            @Override
            public String getAuthenticationScheme() {
                return BASIC_AUTH;
            }
        });
    }

    private static Optional<String[]> decode(String header) {
        if (header == null || !header.regionMatches(true, 0, "Basic ", 0, 6)) return Optional.empty();
        try {
            String decoded = new String(Base64.getDecoder().decode(header.substring(6).trim()), StandardCharsets.UTF_8);
            int colon = decoded.indexOf(':');
            return colon < 0 ? Optional.empty()
                    : Optional.of(new String[] {decoded.substring(0, colon), decoded.substring(colon + 1)});
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
