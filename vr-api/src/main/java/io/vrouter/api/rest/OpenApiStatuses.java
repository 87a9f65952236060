package io.vrouter.api.rest;

import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem;
import io.swagger.v3.oas.models.headers.Header;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.media.StringSchema;
import io.swagger.v3.oas.models.parameters.HeaderParameter;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.oas.models.responses.ApiResponses;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What the generated OpenAPI document cannot know from the resources' signatures: every status each
 * operation can answer (each a problem details object, besides the successes the resources declare),
 * the conditional request headers and the validators and other headers of the answers, and one
 * casing for the schemas' names (UpperCamelCase, as generated clients name their classes).
 */
final class OpenApiStatuses {
    /** Reads with validators (ETag, Last-Modified): If-None-Match and If-Modified-Since answer 304. */
    private static final Set<String> VALIDATED = Set.of("listRouters", "getRouter", "listInterfaces", "getInterface");
    /** Writes of one VR: If-Match makes them conditional (412). */
    private static final Set<String> VR_WRITES = Set.of("removeRouter", "reconfigureRouter", "startRouter", "stopRouter",
            "suspendRouter", "pauseRouter", "addInterface", "changeInterface", "removeInterface");
    /** Creations: Idempotency-Key (422, and 409 while the first request runs). */
    private static final Set<String> CREATIONS = Set.of("createRouter", "createRouters");

    private static final Map<String, String> REASONS = Map.ofEntries(
            Map.entry("304", "not modified: the client's copy (If-None-Match, If-Modified-Since) is current"),
            Map.entry("400", "a parameter, header or the body is malformed or out of range (field names it)"),
            Map.entry("401", "no credentials, or wrong ones"),
            Map.entry("403", "the user's role may not do it, or a browser request not from the console's pages"),
            Map.entry("404", "no such VR or interface"),
            Map.entry("406", "no representation in a media type Accept allows"),
            Map.entry("409", "refused by the VR's state or another VR (a name taken, a VR not shut down), a VR whose"
                    + " VM is gone from the host (when waiting), or a request with the same Idempotency-Key running"),
            Map.entry("412", "If-Match names a version the VR is no longer at, or If-None-Match the one it is at:"
                    + " nothing was changed"),
            Map.entry("413", "the body is larger than rest.max-body-bytes"),
            Map.entry("415", "the body is neither JSON nor XML, or JSON in a charset other than UTF-8"),
            Map.entry("421", "the Host header names none of the names the server answers to (rest.host-names):"
                    + " refused before anything else, against DNS rebinding"),
            Map.entry("422", "the Idempotency-Key was used with another request"),
            Map.entry("429", "too many failed logins, or event streams, from this address (Retry-After)"),
            Map.entry("502", "the hypervisor failed while the client waited: the change was undone (or the VR ended"
                    + " crashed), detail says the driver's reason"),
            Map.entry("503", "the server is handling as many requests as it may (Retry-After), or its data directory"
                    + " refuses writes (read-only or full): no change is accepted until it takes them again"));

    private OpenApiStatuses() {
    }

    static void describe(OpenAPI api) {
        renameSchemas(api);
        for (Map.Entry<String, PathItem> path : api.getPaths().entrySet()) {
            boolean oneVr = path.getKey().contains("{vmIndex}");
            for (Map.Entry<PathItem.HttpMethod, Operation> e : path.getValue().readOperationsMap().entrySet()) {
                Operation op = e.getValue();
                String id = op.getOperationId();
                boolean write = e.getKey() != PathItem.HttpMethod.GET;
                ApiResponses r = op.getResponses();
                Set<String> statuses = new TreeSet<>(Set.of("401", "406", "421", "429", "503"));
                if (op.getParameters() != null && !op.getParameters().isEmpty() || op.getRequestBody() != null) {
                    statuses.add("400");
                }
                if (oneVr) statuses.add("404");
                if (write) statuses.addAll(Set.of("403", "409", "502"));
                if (op.getRequestBody() != null) statuses.addAll(Set.of("413", "415"));
                if (VALIDATED.contains(id)) {
                    statuses.add("304");
                    op.addParametersItem(header("If-None-Match", "answers 304 when the representation's ETag is one of"
                            + " these (weak comparison)"));
                    op.addParametersItem(header("If-Modified-Since", "answers 304 when not modified since"));
                    validators(r.get("200"), id.equals("listRouters") ? "weak" : "strong");
                }
                if (id.equals("listRouters")) {
                    r.get("200").addHeaderObject("Link", responseHeader("RFC 8288 links to the first, prev, next and"
                            + " last pages of the same query (offset changed, the filters and limit kept)"));
                }
                if (VR_WRITES.contains(id)) {
                    statuses.add("412");
                    op.addParametersItem(header("If-Match", "the ETag (strong) the VR must still have, or *; else 412"));
                    op.addParametersItem(header("If-None-Match", "ETags the VR must not have (* : any); else 412"));
                    r.values().forEach(ok -> validators(ok, "strong"));
                }
                if (CREATIONS.contains(id)) {
                    statuses.add("422");
                    for (String s : new String[] {"201", "202"}) {
                        ApiResponse ok = r.get(s);
                        if (ok == null) continue;
                        ok.addHeaderObject("Location", responseHeader("the VR"));
                        ok.addHeaderObject("Idempotent-Replayed", responseHeader("true when this is the answer to an"
                                + " earlier request with the same Idempotency-Key"));
                    }
                }
                ApiResponse problem = r.get("default");
                for (String s : statuses) {
                    // Each failure once under components, named by its status; 304 has no body.
                    api.getComponents().addResponses("Status" + s, new ApiResponse().description(REASONS.get(s))
                            .content(s.equals("304") ? null : problem.getContent()));
                    if (!r.containsKey(s)) r.addApiResponse(s, new ApiResponse().$ref("#/components/responses/Status" + s));
                }
                // Successes first, then the failures in order; default last.
                Map<String, ApiResponse> sorted = new TreeMap<>(r);
                sorted.remove("default");
                r.clear();
                sorted.forEach(r::addApiResponse);
                r.addApiResponse("default", problem);
            }
        }
    }

    private static void validators(ApiResponse ok, String strength) {
        if (ok == null || ok.getContent() == null) return;
        ok.addHeaderObject("ETag", responseHeader("the version of the representation (" + strength + ")"));
        ok.addHeaderObject("Last-Modified", responseHeader("when it last changed"));
    }

    private static HeaderParameter header(String name, String description) {
        HeaderParameter p = new HeaderParameter();
        p.name(name).description(description).schema(new StringSchema());
        return p;
    }

    private static Header responseHeader(String description) {
        return new Header().description(description).schema(new StringSchema());
    }

    /** One casing: every schema's name in UpperCamelCase, and every reference to it. */
    private static void renameSchemas(OpenAPI api) {
        Map<String, Schema> schemas = api.getComponents().getSchemas();
        Map<String, Schema> renamed = new LinkedHashMap<>();
        for (Map.Entry<String, Schema> s : schemas.entrySet()) renamed.put(upper(s.getKey()), s.getValue());
        api.getComponents().setSchemas(renamed);
        String json = io.swagger.v3.core.util.Json.pretty(api);
        for (String name : schemas.keySet()) {
            if (!name.equals(upper(name))) {
                json = json.replace("\"#/components/schemas/" + name + "\"", "\"#/components/schemas/" + upper(name) + "\"");
            }
        }
        try {
            OpenAPI again = io.swagger.v3.core.util.Json.mapper().readValue(json, OpenAPI.class);
            api.setPaths(again.getPaths());
            api.setComponents(again.getComponents());
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String upper(String name) {
        return Character.toUpperCase(name.charAt(0)) + name.substring(1);
    }
}
