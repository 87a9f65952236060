package io.vrouter.it.tenants;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vrouter.it.ServerProcess;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Iterator;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/** REST (JSON over HTTP, Basic authentication), as an orchestration tool uses it. */
final class RestClient implements TenantClient {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final ServerProcess server;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    RestClient(ServerProcess server) {
        this.server = server;
    }

    @Override
    public String name() {
        return "rest";
    }

    @Override
    public Outcome create(TenantsIT.User user, String vmName, int cpus) {
        ObjectNode body = JSON.createObjectNode().put("vmName", vmName).put("vmConfigCpuNumber", cpus);
        return created(send(user, "POST", "/api/v1/routers", body));
    }

    /** Creates a VR as the provider, for the tenant (null: the provider's own). */
    Outcome createFor(String vmName, String tenant) {
        ObjectNode body = JSON.createObjectNode().put("vmName", vmName);
        if (tenant != null) body.put("vmConfigTenant", tenant);
        return created(send(TenantsIT.User.ADMIN, "POST", "/api/v1/routers", body));
    }

    private static Outcome created(HttpResponse<String> r) {
        Outcome o = outcome(r);
        if (o.kind() != Outcome.Kind.OK) return o;
        try {
            return Outcome.ok(JSON.readTree(r.body()).path("vmIndex").asInt(), o.said());
        } catch (IOException e) {
            return Outcome.of(Outcome.Kind.OTHER, "unreadable body: " + r.body());
        }
    }

    @Override
    public Set<String> names(TenantsIT.User user) {
        HttpResponse<String> r = send(user, "GET", "/api/v1/routers?limit=100000", null);
        Set<String> names = new TreeSet<>();
        try {
            for (JsonNode vr : JSON.readTree(r.body()).path("virtualRouter")) names.add(vr.path("vmName").asText());
        } catch (IOException e) {
            throw new AssertionError("list: " + r.statusCode() + " " + r.body(), e);
        }
        return names;
    }

    @Override
    public Outcome read(TenantsIT.User user, int vmIndex) {
        return outcome(send(user, "GET", "/api/v1/routers/" + vmIndex, null));
    }

    @Override
    public Outcome describe(TenantsIT.User user, int vmIndex, String description) {
        return outcome(send(user, "PATCH", "/api/v1/routers/" + vmIndex,
                JSON.createObjectNode().put("vmConfigDescription", description)));
    }

    @Override
    public Outcome giveTo(TenantsIT.User user, int vmIndex, String tenant) {
        return outcome(send(user, "PATCH", "/api/v1/routers/" + vmIndex, JSON.createObjectNode().put("vmConfigTenant", tenant)));
    }

    @Override
    public Outcome remove(TenantsIT.User user, int vmIndex) {
        return outcome(send(user, "DELETE", "/api/v1/routers/" + vmIndex, null));
    }

    /** The events replayed from the start (Last-Event-ID 0), up to the replayComplete event. */
    @Override
    public Optional<Set<String>> eventNames(TenantsIT.User user) throws Exception {
        HttpRequest request = request(user, "/api/v1/events").header("Accept", "text/event-stream")
                .header("Last-Event-ID", "0").GET().build();
        HttpResponse<Stream<String>> r = http.send(request, HttpResponse.BodyHandlers.ofLines());
        Set<String> names = new TreeSet<>();
        try (Stream<String> lines = r.body()) {
            if (r.statusCode() != 200) throw new AssertionError("events: " + r.statusCode());
            String event = null;
            for (Iterator<String> it = lines.iterator(); it.hasNext(); ) {
                String line = it.next();
                if (line.startsWith("event:")) event = line.substring(6).trim();
                if ("replayComplete".equals(event)) return Optional.of(names);
                if (line.startsWith("data:") && event != null && !event.startsWith("replay")) {
                    names.add(JSON.readTree(line.substring(5)).path("vmName").asText());
                }
            }
        }
        throw new AssertionError("the event stream ended before replayComplete");
    }

    /** A VR's row as the provider reads it, or null when there is none. */
    JsonNode row(int vmIndex) throws IOException {
        HttpResponse<String> r = send(TenantsIT.User.ADMIN, "GET", "/api/v1/routers/" + vmIndex, null);
        if (r.statusCode() == 404) return null;
        if (r.statusCode() != 200) throw new AssertionError("GET " + vmIndex + ": " + r.statusCode() + " " + r.body());
        return JSON.readTree(r.body());
    }

    /** Waits (a minute at most) for the provider to find no VR at the index. */
    boolean awaitGone(int vmIndex) throws IOException, InterruptedException {
        long end = TenantsIT.deadline(60);
        while (System.nanoTime() < end) {
            if (row(vmIndex) == null) return true;
            Thread.sleep(50);
        }
        return false;
    }

    /** A status in the table's terms: 2xx done, 404 none, 403 refused, 409 naming a quota or the host's capacity. */
    private static Outcome outcome(HttpResponse<String> r) {
        String said = r.statusCode() + " " + r.body();
        int s = r.statusCode();
        if (s >= 200 && s < 300) return Outcome.ok(null, said);
        if (s == 404) return Outcome.of(Outcome.Kind.NOT_FOUND, said);
        if (s == 403) return Outcome.of(Outcome.Kind.DENIED, said);
        if (s == 409 && (r.body().contains("may have") || r.body().contains("may commit"))) {
            return Outcome.of(Outcome.Kind.QUOTA, said);
        }
        return Outcome.of(Outcome.Kind.OTHER, said);
    }

    /** A request as the user (Basic authentication), for RESTCONF too, which shares REST's port and users. */
    HttpRequest.Builder request(TenantsIT.User user, String path) {
        String basic = Base64.getEncoder().encodeToString((user.name + ":" + user.password).getBytes(StandardCharsets.UTF_8));
        return HttpRequest.newBuilder(URI.create(server.restBase() + path)).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Basic " + basic);
    }

    /** Sends a request as the user, with a JSON body (RESTCONF takes plain JSON as yang-data+json). */
    HttpResponse<String> send(TenantsIT.User user, String method, String path, JsonNode body) {
        HttpRequest.Builder b = request(user, path).header("Accept", "application/json");
        if (body == null) {
            b.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            b.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(body.toString()));
        }
        try {
            return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new AssertionError(method + " " + path + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
