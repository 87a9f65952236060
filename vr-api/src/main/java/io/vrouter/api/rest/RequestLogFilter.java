package io.vrouter.api.rest;

import io.vrouter.core.metrics.VrMetrics;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.UriInfo;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import org.glassfish.jersey.server.ExtendedUriInfo;
import org.glassfish.jersey.uri.UriTemplate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One debug line and one timer sample per request, tagged with the matched route. */
@PreMatching
final class RequestLogFilter implements ContainerRequestFilter, ContainerResponseFilter {
    private static final Logger log = LoggerFactory.getLogger("io.vrouter.api.rest.requests");
    private static final String START = RequestLogFilter.class.getName() + ".start";
    /** A template's parameter with its pattern, {vmIndex: [0-9]{1,10}}, said as {vmIndex}. */
    private static final Pattern PARAMETER = Pattern.compile("\\{(\\w+):[^}]*}");
    /** Each route as said, by its templates: as many as the application's resource methods. */
    private static final Map<String, String> ROUTES = new ConcurrentHashMap<>();
    private final VrMetrics metrics;

    RequestLogFilter(VrMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public void filter(ContainerRequestContext request) {
        request.setProperty(START, System.nanoTime());
    }

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        Object start = request.getProperty(START);
        if (start == null) return;
        long nanos = System.nanoTime() - (Long) start;
        String route = route(request.getUriInfo());
        String operation = request.getMethod() + " " + route;
        int status = response.getStatus();
        metrics.recordRequest("rest", operation, status < 400 ? "success" : status < 500 ? "client-error" : "server-error", nanos);
        if (log.isDebugEnabled()) {
            log.debug("{} /{} {} {} us user={}", request.getMethod(), request.getUriInfo().getPath(), status, nanos / 1000,
                    request.getSecurityContext().getUserPrincipal() == null ? "-"
                            : request.getSecurityContext().getUserPrincipal().getName());
        }
    }

    /** The matched path template, so that metrics do not get one series per vmIndex. */
    private static String route(UriInfo info) {
        if (info instanceof ExtendedUriInfo ext && !ext.getMatchedTemplates().isEmpty()) {
            StringBuilder sb = new StringBuilder();
            java.util.List<UriTemplate> templates = ext.getMatchedTemplates();
            for (int i = templates.size() - 1; i >= 0; i--) {
                String t = templates.get(i).getTemplate();
                if (!t.startsWith("/") && sb.length() > 0) sb.append('/');
                sb.append(t);
            }
            return ROUTES.computeIfAbsent(sb.toString(), t -> PARAMETER.matcher(t).replaceAll("{$1}"));
        }
        return "unmatched";
    }
}
