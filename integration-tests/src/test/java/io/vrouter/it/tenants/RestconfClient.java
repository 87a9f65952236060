package io.vrouter.it.tenants;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vrouter.it.ServerProcess;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * RESTCONF (RFC 8040, JSON) on REST's port and users: vmConfigTable's entries, and the NETCONF
 * stream's notifications replayed from the start.
 */
final class RestconfClient implements TenantClient {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TABLE = "/restconf/data/NEW-VMM-MIB:NEW-VMM-MIB/vmConfigTable";
    /** REST's HTTP and Basic login. */
    private final RestClient http;
    private final HttpClient streams = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    RestconfClient(ServerProcess server) {
        this.http = new RestClient(server);
    }

    @Override
    public String name() {
        return "restconf";
    }


    /** The body of one vmConfigEntry with the given leaves. */
    private static ObjectNode entry(Map<String, Object> leaves) {
        ObjectNode body = JSON.createObjectNode();
        ObjectNode e = body.putArray("NEW-VMM-MIB:vmConfigEntry").addObject();
        leaves.forEach((k, v) -> e.putPOJO(k, v));
        return body;
    }

    @Override
    public Outcome create(TenantsIT.User user, String vmName, int cpus) {
        HttpResponse<String> r = http.send(user, "POST", TABLE, entry(Map.of("vmName", vmName, "vmConfigCpuNumber", cpus)));
        Outcome o = outcome(r);
        if (o.kind() != Outcome.Kind.OK) return o;
        // Location: .../vmConfigTable/vmConfigEntry=N
        String location = r.headers().firstValue("Location").orElse("");
        return Outcome.ok(Integer.valueOf(location.substring(location.lastIndexOf('=') + 1)), o.said());
    }

    @Override
    public Set<String> names(TenantsIT.User user) {
        HttpResponse<String> r = http.send(user, "GET", TABLE, null);
        Set<String> names = new TreeSet<>();
        if (r.statusCode() == 404) return names; // an empty table is no data
        try {
            for (JsonNode e : JSON.readTree(r.body()).path("NEW-VMM-MIB:vmConfigTable").path("vmConfigEntry")) {
                names.add(e.path("vmName").asText());
            }
        } catch (IOException e) {
            throw new AssertionError("GET " + TABLE + ": " + r.statusCode() + " " + r.body(), e);
        }
        return names;
    }

    @Override
    public Outcome read(TenantsIT.User user, int vmIndex) {
        return outcome(http.send(user, "GET", TABLE + "/vmConfigEntry=" + vmIndex, null));
    }

    @Override
    public Outcome describe(TenantsIT.User user, int vmIndex, String description) {
        return outcome(http.send(user, "PATCH", TABLE + "/vmConfigEntry=" + vmIndex,
                entry(Map.of("vmIndex", vmIndex, "vmConfigDescription", description))));
    }

    @Override
    public Outcome giveTo(TenantsIT.User user, int vmIndex, String tenant) {
        return outcome(http.send(user, "PATCH", TABLE + "/vmConfigEntry=" + vmIndex,
                entry(Map.of("vmIndex", vmIndex, "vmConfigTenant", tenant))));
    }

    @Override
    public Outcome remove(TenantsIT.User user, int vmIndex) {
        return outcome(http.send(user, "DELETE", TABLE + "/vmConfigEntry=" + vmIndex, null));
    }

    /** The NETCONF stream replayed from the start of the log, up to its replayComplete notification. */
    @Override
    public Optional<Set<String>> eventNames(TenantsIT.User user) throws Exception {
        HttpRequest request = http.request(user, "/restconf/streams/NETCONF/json?start-time=1970-01-01T00:00:00Z")
                .header("Accept", "text/event-stream").GET().build();
        HttpResponse<Stream<String>> r = streams.send(request, HttpResponse.BodyHandlers.ofLines());
        Set<String> names = new TreeSet<>();
        try (Stream<String> lines = r.body()) {
            if (r.statusCode() != 200) throw new AssertionError("stream: " + r.statusCode());
            for (Iterator<String> it = lines.iterator(); it.hasNext(); ) {
                String line = it.next();
                if (!line.startsWith("data:")) continue;
                JsonNode n = JSON.readTree(line.substring(5)).path("ietf-restconf:notification");
                if (n.has("nc-notifications:replayComplete")) return Optional.of(names);
                // {"eventTime": ..., "NEW-VMM-MIB:vmRunning": {"vmName": {"vmIndex": 5, "vmName": "a-restconf"}, ...}}
                for (Iterator<Map.Entry<String, JsonNode>> f = n.fields(); f.hasNext(); ) {
                    JsonNode vmName = f.next().getValue().path("vmName").path("vmName");
                    if (vmName.isTextual()) names.add(vmName.asText());
                }
            }
        }
        throw new AssertionError("the stream ended before replayComplete");
    }

    /**
     * A status in the table's terms: 2xx done; 404, or 409 data-missing (a DELETE of what is not
     * there), none; 403 access-denied refused; 409 resource-denied a quota or the host's capacity.
     */
    private static Outcome outcome(HttpResponse<String> r) {
        String said = r.statusCode() + " " + r.body();
        int s = r.statusCode();
        if (s >= 200 && s < 300) return Outcome.ok(null, said);
        String tag;
        try {
            tag = JSON.readTree(r.body()).path("ietf-restconf:errors").path("error").path(0).path("error-tag").asText();
        } catch (IOException e) {
            return Outcome.of(Outcome.Kind.OTHER, said);
        }
        if (s == 404 || (s == 409 && tag.equals("data-missing"))) return Outcome.of(Outcome.Kind.NOT_FOUND, said);
        if (s == 403 && tag.equals("access-denied")) return Outcome.of(Outcome.Kind.DENIED, said);
        if (s == 409 && tag.equals("resource-denied")) return Outcome.of(Outcome.Kind.QUOTA, said);
        return Outcome.of(Outcome.Kind.OTHER, said);
    }
}
