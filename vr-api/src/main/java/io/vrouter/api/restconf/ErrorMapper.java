package io.vrouter.api.restconf;

import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import java.util.List;

/** A RESTCONF error as {@code ietf-restconf:errors} with its status. */
final class ErrorMapper implements ExceptionMapper<RestconfError> {
    @Context
    private HttpHeaders headers;

    @Override
    public Response toResponse(RestconfError e) {
        return Errors.response(List.of(e), headers);
    }
}
