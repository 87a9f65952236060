package io.vrouter.api.rest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import io.vrouter.core.service.VrException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.ext.ExceptionMapper;
import org.glassfish.jersey.server.ParamException;
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
        Response.ResponseBuilder r = Response.status(p.status).type(wantsXml() ? Problem.XML : Problem.JSON).entity(p);
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
        if (failure instanceof VrException ve) return new Problem(status(ve.reason()), ve.getMessage(), ve.field());
        if (failure instanceof ParamException pe) {
            return new Problem(Response.Status.BAD_REQUEST, "parameter '" + pe.getParameterName() + "' has a value of the"
                    + " wrong type", pe.getParameterName());
        }
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof JsonProcessingException jpe) return jsonProblem(jpe);
            if (t instanceof SafeXmlReader.BadXml bad) return new Problem(Response.Status.BAD_REQUEST, bad.getMessage(), null);
        }
        if (failure instanceof WebApplicationException wae) {
            Response.StatusType status = wae.getResponse().getStatusInfo();
            String detail = status.getStatusCode() == 404 ? "no such resource" : failure.getMessage();
            if (status.getStatusCode() == 415) detail = "unsupported media type: send application/json or application/xml";
            return new Problem(status, detail, null);
        }
        log.error("request failed", failure);
        return new Problem(Response.Status.INTERNAL_SERVER_ERROR, "internal error: " + failure, null);
    }

    /** The service's one error, by its reason. */
    private static Response.StatusType status(VrException.Reason reason) {
        return switch (reason) {
            case INVALID, MISSING -> Response.Status.BAD_REQUEST;
            case NOT_FOUND -> Response.Status.NOT_FOUND;
            case EXISTS, NOT_UNIQUE, NOT_SHUT_DOWN, STATE, FIXED, NOT_SUPPORTED -> Response.Status.CONFLICT;
            // Accepted, then the hypervisor failed (and the change was undone): an upstream's failure.
            case FAILED -> Response.Status.BAD_GATEWAY;
            // If-Match named a version the VR is no longer at.
            case CHANGED -> Response.Status.PRECONDITION_FAILED;
        };
    }

    private static Problem jsonProblem(JsonProcessingException e) {
        String field = null;
        if (e instanceof JsonMappingException jme && !jme.getPath().isEmpty()) {
            field = jme.getPath().get(jme.getPath().size() - 1).getFieldName();
        }
        String detail;
        if (e instanceof UnrecognizedPropertyException upe) {
            detail = "unknown field '" + upe.getPropertyName() + "'";
        } else if (e instanceof MismatchedInputException mie && field != null && mie.getTargetType() != null) {
            detail = "'" + field + "' must be " + expected(mie.getTargetType());
        } else if (e instanceof MismatchedInputException mie && mie.getTargetType() != null) {
            detail = "the body must be " + expected(mie.getTargetType());
        } else {
            detail = "malformed JSON: " + e.getOriginalMessage().replaceAll("\\s+", " ");
        }
        return new Problem(Response.Status.BAD_REQUEST, detail, field);
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
