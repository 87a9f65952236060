package io.vrouter.api.rest;

import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.media.Schema;
import java.util.Map;

/**
 * What the server refuses in any request body, declared in the OpenAPI document, so that a generated
 * client checks it and schema-driven testing does not send, as valid, what the server then refuses
 * (issue 12): every request body is required; no object the server reads has members it does not
 * name (it refuses unknown fields); an interface names its parent. What only some operations refuse
 * (a creation without vmName, an empty batch or set of changes) needs request schemas of their own,
 * not declared yet.
 */
final class RequestSchemas {
    private RequestSchemas() {
    }

    @SuppressWarnings("rawtypes")
    static void declare(OpenAPI api) {
        Map<String, Schema> schemas = api.getComponents().getSchemas();
        // Problem details may carry members of their own (RFC 9457 extensions); the server reads none.
        schemas.forEach((name, schema) -> {
            if (!name.equals("problem")) schema.setAdditionalProperties(false);
        });
        schemas.get("vmNetworkConfigEntry").addRequiredItem("vmNetworkConfigParent");
        api.getPaths().values().forEach(path -> path.readOperations().forEach(op -> {
            if (op.getRequestBody() != null) op.getRequestBody().setRequired(true);
        }));
    }
}
