package io.vrouter.api.rest;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.vrouter.core.model.ModelJson;
import jakarta.ws.rs.ext.ContextResolver;
import jakarta.ws.rs.ext.Provider;

/** Gives Jersey's Jackson provider the model's one JSON mapping. */
@Provider
final class JsonMapping implements ContextResolver<ObjectMapper> {
    private final ObjectMapper mapper = ModelJson.mapper();

    @Override
    public ObjectMapper getContext(Class<?> type) {
        return mapper;
    }
}
