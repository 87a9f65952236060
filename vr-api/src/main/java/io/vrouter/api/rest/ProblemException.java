package io.vrouter.api.rest;

import jakarta.ws.rs.core.Response;

/** Ends a request with a problem details answer of the given status. */
final class ProblemException extends RuntimeException {
    final Response.StatusType status;
    final String field;
    /** A WWW-Authenticate challenge, for 401. */
    final String challenge;
    /** Seconds for Retry-After, for 429 and 503; 0 for none. */
    int retryAfter;

    ProblemException(Response.StatusType status, String detail, String field, String challenge) {
        super(detail);
        this.status = status;
        this.field = field;
        this.challenge = challenge;
    }

    /** A status JAX-RS 3.1 has no constant for (422, 421). */
    record Status(int code, String reason) implements Response.StatusType {
        @Override
        public int getStatusCode() {
            return code;
        }

        @Override
        public Response.Status.Family getFamily() {
            return Response.Status.Family.familyOf(code);
        }

        @Override
        public String getReasonPhrase() {
            return reason;
        }
    }

    ProblemException retryAfter(int seconds) {
        this.retryAfter = seconds;
        return this;
    }
}
