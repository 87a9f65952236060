package io.vrouter.api.rest;

import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What is wrong with a request before any resource reads it, said as a clear 400 (or 415) rather
 * than guessed at: a JSON body in a charset other than UTF-8, a query parameter without a name, an
 * index in the path outside its range, a query parameter the operation does not take. Kept apart
 * from the resources, so that what they do with a request can change without these checks moving.
 */
final class RequestChecks {
    private RequestChecks() {
    }

    /** Charset and path indices: checked before the request is matched to a resource. */
    @PreMatching
    @Priority(Priorities.HEADER_DECORATOR)
    static final class Head implements ContainerRequestFilter {
        /** A vmIndex (and an interface's index after it) in the path, however many digits it has. */
        private static final Pattern INDICES = Pattern.compile("^/?api/v1/routers/([0-9]+)(?:/interfaces/([0-9]+))?(?:/.*)?$");

        @Override
        public void filter(ContainerRequestContext request) {
            MediaType type = request.getMediaType();
            if (type != null && request.hasEntity() && (type.getSubtype().equals("json") || type.getSubtype().endsWith("+json"))) {
                String charset = type.getParameters().get(MediaType.CHARSET_PARAMETER);
                if (charset != null && !charset.equalsIgnoreCase("utf-8") && !charset.equalsIgnoreCase("utf8")) {
                    throw new ProblemException(Response.Status.UNSUPPORTED_MEDIA_TYPE, "JSON is read as UTF-8 only "
                            + "(RFC 8259): send charset=utf-8, or no charset, not " + charset, null, null);
                }
                refuseWideUnicode(request);
            }
            String query = request.getUriInfo().getRequestUri().getRawQuery();
            for (String parameter : query == null ? new String[0] : query.split("&")) {
                // Jersey drops a parameter without a name; the client meant something by it.
                if (parameter.startsWith("=")) {
                    throw new ProblemException(Response.Status.BAD_REQUEST, "a query parameter has no name: '"
                            + (parameter.length() > 40 ? parameter.substring(0, 40) + "..." : parameter) + "'", null, null);
                }
            }
            Matcher m = INDICES.matcher(request.getUriInfo().getPath());
            if (m.matches()) {
                inRange("vmIndex", m.group(1), Integer.MAX_VALUE);
                if (m.group(2) != null) inRange("vmNetworkConfigIndex", m.group(2), 65535);
            }
        }

        /**
         * Jackson would detect UTF-16 and UTF-32 by themselves and read them; JSON is UTF-8 (RFC 8259
         * section 8.1), so such a body is refused like a declared charset. Their mark: a byte order
         * mark, or a zero byte among the first four (JSON text starts with an ASCII character, which
         * UTF-8 never encodes with a zero byte outside a string).
         */
        private static void refuseWideUnicode(ContainerRequestContext request) {
            BufferedInputStream body = new BufferedInputStream(request.getEntityStream(), 8192);
            byte[] start = new byte[4];
            int n;
            try {
                body.mark(start.length);
                n = body.readNBytes(start, 0, start.length);
                body.reset();
            } catch (IOException e) {
                throw new ProblemException(Response.Status.BAD_REQUEST, "the body could not be read", null, null);
            }
            request.setEntityStream(body);
            boolean bom = n >= 2 && ((start[0] == (byte) 0xFE && start[1] == (byte) 0xFF)
                    || (start[0] == (byte) 0xFF && start[1] == (byte) 0xFE));
            boolean zero = false;
            for (int i = 0; i < n; i++) zero |= start[i] == 0;
            if (bom || zero) {
                throw new ProblemException(Response.Status.UNSUPPORTED_MEDIA_TYPE, "JSON is read as UTF-8 only "
                        + "(RFC 8259): this body is in UTF-16 or UTF-32", null, null);
            }
        }

        private static void inRange(String field, String digits, long max) {
            // Leading zeros dropped, one digit kept (not a regex: this runs on every request naming a VR).
            int first = 0;
            while (first < digits.length() - 1 && digits.charAt(first) == '0') first++;
            String number = digits.substring(first);
            if (number.length() > 10 || Long.parseLong(number) < 1 || Long.parseLong(number) > max) {
                throw new ProblemException(Response.Status.BAD_REQUEST, field + " must be between 1 and " + max
                        + ", not " + (digits.length() > 20 ? digits.substring(0, 20) + "..." : digits), field, null);
            }
        }
    }

    /** Query parameters: each operation takes the ones it declares and no other. */
    @Priority(Priorities.USER)
    static final class Query implements ContainerRequestFilter {
        private final ConcurrentHashMap<Method, Set<String>> declared = new ConcurrentHashMap<>();

        @Override
        public void filter(ContainerRequestContext request) {
            // Jersey's UriInfo of the request is its ResourceInfo too: read directly, not through the
            // proxy an injected ResourceInfo is (a lookup in the request scope on every call)
            Method method = request.getUriInfo() instanceof ResourceInfo resource ? resource.getResourceMethod() : null;
            if (method == null) return;
            Set<String> takes = declared.computeIfAbsent(method, Query::queryParams);
            for (String name : request.getUriInfo().getQueryParameters().keySet()) {
                if (!takes.contains(name)) {
                    throw new ProblemException(Response.Status.BAD_REQUEST, "unknown query parameter '" + name + "'; "
                            + (takes.isEmpty() ? "this operation takes none" : "this operation takes "
                            + String.join(", ", takes)), name, null);
                }
            }
        }

        private static Set<String> queryParams(Method method) {
            Set<String> names = new TreeSet<>();
            for (Annotation[] parameter : method.getParameterAnnotations()) {
                for (Annotation a : parameter) {
                    if (a instanceof QueryParam q) names.add(q.value());
                }
            }
            return names;
        }
    }
}
