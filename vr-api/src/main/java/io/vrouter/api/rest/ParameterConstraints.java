package io.vrouter.api.rest;

import io.swagger.v3.core.filter.AbstractSpecFilter;
import io.swagger.v3.core.model.ApiDescription;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.parameters.Parameter;
import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.NetworkColumn;
import io.vrouter.core.model.OperState;
import io.vrouter.core.model.SmiEnum;
import io.vrouter.core.spi.RouterQuery;
import java.math.BigDecimal;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The OpenAPI document's ranges and patterns of the path and query parameters, which have no model
 * field to carry a {@code @Schema}: declared once here by parameter name, from the same constants the
 * server checks them with, instead of on every resource method. A swagger spec filter, so a
 * build-time generator can apply it as the server does.
 */
public final class ParameterConstraints extends AbstractSpecFilter {

    @Override
    @SuppressWarnings({"rawtypes", "unchecked"})
    public Optional<Parameter> filterParameter(Parameter parameter, Operation operation, ApiDescription api,
                                               Map<String, List<String>> params, Map<String, String> cookies,
                                               Map<String, List<String>> headers) {
        Schema schema = parameter.getSchema();
        if (schema == null) return Optional.of(parameter);
        switch (parameter.getName()) {
            case "vmIndex" -> schema.minimum(BigDecimal.ONE).maximum(BigDecimal.valueOf(Integer.MAX_VALUE));
            case "networkIndex" -> schema.minimum(BigDecimal.ONE).maximum(BigDecimal.valueOf(NetworkColumn.MAX_INDEX));
            case "offset" -> schema.minimum(BigDecimal.ZERO);
            case "limit" -> schema.minimum(BigDecimal.ZERO).maximum(BigDecimal.valueOf(RouterQuery.MAX_LIMIT));
            case "wait" -> schema.pattern(Prefer.WAIT_PATTERN);
            case "operState" -> schema._enum(labels(OperState.values()));
            case "adminState" -> schema._enum(labels(AdminState.values()));
            default -> {
                // no constraint beyond the type
            }
        }
        return Optional.of(parameter);
    }

    private static List<String> labels(SmiEnum[] values) {
        return Arrays.stream(values).map(SmiEnum::label).toList();
    }
}
