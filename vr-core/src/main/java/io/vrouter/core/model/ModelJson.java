package io.vrouter.core.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.module.jakarta.xmlbind.JakartaXmlBindAnnotationModule;

/**
 * The one JSON mapping of the model, read from its JAXB annotations, so that JSON and XML name every
 * object alike: the REST interface and the data directory both use it.
 */
public final class ModelJson {
    private ModelJson() {
    }

    public static ObjectMapper newMapper() {
        return JsonMapper.builder()
                // JAXB names everything; Jackson's own annotations (only @JsonPropertyOrder) go first.
                .addModule(new JakartaXmlBindAnnotationModule().setPriority(JakartaXmlBindAnnotationModule.Priority.SECONDARY))
                .enable(MapperFeature.USE_WRAPPER_NAME_AS_PROPERTY_NAME)
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .enable(DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS)
                .serializationInclusion(JsonInclude.Include.NON_NULL)
                .build();
    }
}
