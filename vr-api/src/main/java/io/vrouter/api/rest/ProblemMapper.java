package io.vrouter.api.rest;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.InvalidNullException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import io.vrouter.api.restconf.Restconf;
import io.vrouter.core.spi.AccessDeniedException;
import io.vrouter.core.spi.VrException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.ext.ExceptionMapper;
import org.glassfish.jersey.server.ParamException;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns every failure into RFC 9457 problem details: JSON, or XML when the client prefers XML (or
 * sent XML and accepts anything).
 */
final class ProblemMapper implements ExceptionMapper<Throwable> {
    private static final Logger log = LoggerFactory.getLogger(ProblemMapper.class);

    @Context
    private HttpHeaders headers;

    @Context
    private UriInfo uri;

    @Override
    public Response toResponse(Throwable failure) {
        Problem p = problem(failure);
        if (uri != null) p.instance = "/" + uri.getPath();
        if (p.status >= 500) logged(p, failure);
        // RESTCONF's refusals made before its resources run (login, limits, routing) are its own errors.
        Response.ResponseBuilder r = uri != null && Restconf.owns(uri.getPath())
                ? Response.fromResponse(Restconf.error(p.status, p.detail, headers))
                : Response.status(p.status).type(wantsXml() ? Problem.XML : Problem.JSON).entity(p);
        if (failure instanceof ProblemException pe && pe.challenge != null) {
            r.header(HttpHeaders.WWW_AUTHENTICATE, pe.challenge);
        }
        if (failure instanceof ProblemException pe && pe.retryAfter > 0) r.header(HttpHeaders.RETRY_AFTER, pe.retryAfter);
        if (failure instanceof WebApplicationException wae && wae.getResponse().getStatus() == 405) {
            r.allow(wae.getResponse().getAllowedMethods());
        }
        return r.build();
    }

    private static Problem problem(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof BodyLimitFilter.TooLarge) {
                return new Problem(Response.Status.REQUEST_ENTITY_TOO_LARGE, t.getMessage(), null);
            }
        }
        if (failure instanceof ProblemException pe) return new Problem(pe.status, pe.getMessage(), pe.field);
        if (failure instanceof VrException ve) return new Problem(status(ve), ve.getMessage(), ve.field());
        if (failure instanceof ParamException pe) {
            return new Problem(Response.Status.BAD_REQUEST, "parameter '" + pe.getParameterName() + "' has a value of the"
                    + " wrong type", pe.getParameterName());
        }
        if (Nesting.exceeded(failure)) return new Problem(Response.Status.BAD_REQUEST, Nesting.DETAIL, null);
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof JsonProcessingException jpe) return jsonProblem(jpe);
            if (t instanceof SafeXmlReader.BadXml bad) return new Problem(Response.Status.BAD_REQUEST, bad.getMessage(), bad.field);
        }
        if (failure instanceof WebApplicationException wae) {
            Response.StatusType status = wae.getResponse().getStatusInfo();
            String detail = status.getStatusCode() == 404 ? "no such resource" : failure.getMessage();
            if (status.getStatusCode() == 415) detail = "unsupported media type: send application/json or application/xml";
            return new Problem(status, detail, null);
        }
        // What went wrong inside stays in the log, under the id the client is given.
        return new Problem(Response.Status.INTERNAL_SERVER_ERROR, "internal error", null);
    }

    /**
     * Every 5xx gets an id, in the problem details and in the log line that says what happened, so
     * that what a client reports can be found; no exception text reaches the client.
     */
    static void logged(Problem p, Throwable failure) {
        p.errorId = UUID.randomUUID().toString();
        if (p.detail == null || p.status == 500) p.detail = "internal error; the server's log names it " + p.errorId;
        if (p.status == 500) {
            log.error("{} {} (error {}): {}", p.status, p.instance, p.errorId, p.title, failure);
        } else {
            log.warn("{} {} (error {}): {}", p.status, p.instance, p.errorId, failure == null ? p.detail : failure.toString());
        }
    }

    /** The service's one error, by its reason. */
    private static Response.StatusType status(VrException e) {
        return switch (e.reason()) {
            case INVALID, MISSING -> Response.Status.BAD_REQUEST;
            case NOT_FOUND -> Response.Status.NOT_FOUND;
            case EXISTS, NOT_UNIQUE, NOT_SHUT_DOWN, STATE, FIXED, NOT_SUPPORTED -> Response.Status.CONFLICT;
            // Accepted, then the hypervisor failed (and the change was undone): an upstream's failure.
            case FAILED -> Response.Status.BAD_GATEWAY;
            // If-Match named a version the VR is no longer at.
            case CHANGED -> Response.Status.PRECONDITION_FAILED;
            // The data directory refuses writes: the server's state, not the request's fault; try again later.
            case UNAVAILABLE -> Response.Status.SERVICE_UNAVAILABLE;
            // Another tenant's VR is answered as none at all, so that nothing tells it exists.
            case DENIED -> e instanceof AccessDeniedException a && a.hidden() ? Response.Status.NOT_FOUND
                    : Response.Status.FORBIDDEN;
            // A tenant's quota or the host's capacity: the request conflicts with what is committed already.
            case QUOTA -> Response.Status.CONFLICT;
            // Running is locked by another session (a NETCONF <lock>): try again once it is let go.
            case LOCKED -> Response.Status.CONFLICT;
            // The VR is moving to a peer: change it once the move ends.
            case IN_USE -> Response.Status.CONFLICT;
        };
    }

    /** A JSON body that cannot be read, said in the client's terms: the field and what it must be. */
    private static Problem jsonProblem(JsonProcessingException e) {
        String field = null;
        if (e instanceof JsonMappingException jme) {
            // The innermost named field: [null] in a list is the list's fault.
            for (JsonMappingException.Reference r : jme.getPath()) {
                if (r.getFieldName() != null) field = r.getFieldName();
            }
        }
        String detail;
        if (e instanceof UnrecognizedPropertyException upe) {
            detail = "unknown field '" + upe.getPropertyName() + "'";
        } else if (e instanceof InvalidNullException && field != null) {
            detail = "'" + field + "' must not contain null";
        } else if (e instanceof MismatchedInputException mie && field != null && mie.getTargetType() != null) {
            detail = "'" + field + "' must be " + expected(mie.getTargetType());
        } else if (e instanceof MismatchedInputException mie && mie.getTargetType() != null) {
            detail = "the body must be " + expected(mie.getTargetType());
        } else if (e instanceof JsonParseException) {
            detail = "malformed JSON" + where(e.getLocation()) + ": " + withoutSource(e.getOriginalMessage());
        } else {
            detail = field == null ? "the body does not fit the schema" : "'" + field + "' does not fit the schema";
        }
        return new Problem(Response.Status.BAD_REQUEST, detail, field);
    }

    private static String where(JsonLocation at) {
        return at == null || at.getLineNr() < 1 ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr();
    }

    /** Jackson's parse message without its "[Source: ...]" part, which names the server's own classes. */
    private static String withoutSource(String message) {
        return message.replaceAll("\\s*\\(start marker at \\[Source:[^]]*][^)]*\\)", "")
                .replaceAll("\\s*at \\[Source:[^]]*]", "").replace('`', '\'').replaceAll("\\s+", " ").trim();
    }

    /** What a JSON value of the type looks like, in the client's terms rather than Java's. */
    private static String expected(Class<?> type) {
        if (type == Integer.class || type == int.class || type == Long.class || type == long.class) return "a whole number";
        if (type == String.class) return "a string";
        if (type == Boolean.class || type == boolean.class) return "true or false";
        if (type.isEnum()) {
            java.util.List<String> labels = new java.util.ArrayList<>();
            for (Object c : type.getEnumConstants()) {
                labels.add(c instanceof io.vrouter.core.model.SmiEnum smi ? smi.label() : c.toString());
            }
            return "one of " + String.join(", ", labels);
        }
        if (java.util.Collection.class.isAssignableFrom(type)) return "a list";
        return "an object";
    }

    private boolean wantsXml() {
        if (headers == null) return false;
        for (MediaType m : headers.getAcceptableMediaTypes()) {
            if (m.getSubtype().endsWith("xml")) return true;
            if (m.getSubtype().endsWith("json")) return false;
            if (m.isWildcardType() || m.isWildcardSubtype()) break;
        }
        MediaType sent = headers.getMediaType();
        return sent != null && sent.getSubtype().endsWith("xml");
    }
}
