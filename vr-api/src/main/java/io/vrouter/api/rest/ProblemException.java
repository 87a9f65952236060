package io.vrouter.api.rest;

import jakarta.ws.rs.core.Response;

/** Ends a request with a problem details answer of the given status. */
final class ProblemException extends RuntimeException {
    final Response.StatusType status;
    final String field;
    /** A WWW-Authenticate challenge, for 401. */
    final String challenge;

    ProblemException(Response.StatusType status, String detail, String field, String challenge) {
        super(detail);
        this.status = status;
        this.field = field;
        this.challenge = challenge;
    }
}
