package io.vrouter.core.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.type.LogicalType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.module.jakarta.xmlbind.JakartaXmlBindAnnotationModule;

/**
 * The one JSON mapping of the model, read from its JAXB annotations, so that JSON and XML name every
 * object alike: the REST interface and the data directory both use it.
 */
public final class ModelJson {
    /** Configured once, then only read: safe to share between threads. */
    private static final ObjectMapper SHARED = newMapper();

    private ModelJson() {
    }

    /**
     * The process's one mapper: every user shares its serializer caches instead of building and
     * warming its own (memory is a measured feature of this server).
     */
    public static ObjectMapper mapper() {
        return SHARED;
    }

    public static ObjectMapper newMapper() {
        JsonMapper mapper = JsonMapper.builder()
                // JAXB names everything; Jackson's own annotations (only @JsonPropertyOrder) go first.
                .addModule(new JakartaXmlBindAnnotationModule().setPriority(JakartaXmlBindAnnotationModule.Priority.SECONDARY))
                .enable(MapperFeature.USE_WRAPPER_NAME_AS_PROPERTY_NAME)
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .enable(DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS)
                .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
                // Integers are integers: 1.5 is not truncated to 1, 1e3 not taken for 1000.
                .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
                // A null in a list ([null]) is refused where it is read, not met later as a null row.
                .defaultSetterInfo(JsonSetter.Value.forContentNulls(Nulls.FAIL))
                .serializationInclusion(JsonInclude.Include.NON_NULL)
                .build();
        // A number or boolean where text belongs is a client's mistake, not something to guess at.
        mapper.coercionConfigFor(LogicalType.Textual)
                .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
        return mapper;
    }
}
