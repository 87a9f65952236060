package io.vrouter.api.rest;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.core.HttpHeaders;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Says HEAD in Allow (the answers to OPTIONS and 405) wherever GET is: Jersey answers HEAD for every
 * GET resource but leaves it out of the Allow it builds (RFC 9110 §9.3.2: a GET resource serves HEAD).
 */
final class AllowHead implements ContainerResponseFilter {
    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        Set<String> allowed = new LinkedHashSet<>(response.getAllowedMethods());
        if (allowed.contains("GET") && allowed.add("HEAD")) {
            response.getHeaders().putSingle(HttpHeaders.ALLOW, String.join(",", allowed));
        }
    }
}
