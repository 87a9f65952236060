package io.vrouter.api.restconf;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vrouter.api.rest.RestServer;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Tenants over RESTCONF: the datastore, its entries, the vmObjects counts and the event stream (with
 * its replay) show a tenant's users only their tenant's VRs; another tenant's VR answers exactly as
 * one that does not exist, on reads and writes; a viewer changes nothing; a quota refusal is
 * {@code ietf-restconf:errors} (resource-denied) naming the quota; only the provider changes
 * vmConfigTenant.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RestconfTenantsTest {
    private static final String INP = basic("inp", "inp");
    private static final String ALICE = basic("alice", "alice");
    private static final String ANN = basic("ann", "ann");
    private static final String BOB = basic("bob", "bob");
    private static final String JSON = "application/yang-data+json";
    private static final String ROOT = "/restconf/data/NEW-VMM-MIB:NEW-VMM-MIB";
    private static final String TABLE = ROOT + "/vmConfigTable";

    private final ObjectMapper json = new ObjectMapper();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final Instant started = Instant.now();
    private RestServer server;
    private String base;

    @BeforeAll
    void start() throws Exception {
        server = RestServer.start("vrouter-restconf-tenants", Map.of(
                "tenant.acme", "vrs=2",
                "tenant.bravo", "",
                "user.inp", "operator:inp",
                "user.alice", "operator@acme:alice",
                "user.ann", "viewer@acme:ann",
                "user.bob", "operator@bravo:bob"));
        base = "http://127.0.0.1:" + server.port();
        create(ALICE, 11, "acme-11");
        create(BOB, 21, "bravo-21");
        create(INP, 31, "inp-31");
    }

    @AfterAll
    void stop() {
        server.close();
    }

    private static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    private HttpResponse<String> send(String method, String path, String auth, String body, String... headers)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30))
                .header("Authorization", auth).header("Accept", JSON)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) b.header("Content-Type", JSON);
        for (int i = 0; i < headers.length; i += 2) b.header(headers[i], headers[i + 1]);
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> create(String auth, int vmIndex, String name) throws Exception {
        HttpResponse<String> r = send("POST", TABLE, auth,
                "{\"NEW-VMM-MIB:vmConfigEntry\":[{\"vmIndex\":" + vmIndex + ",\"vmName\":\"" + name + "\"}]}");
        if (vmIndex < 100) assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        return r;
    }

    private List<Integer> entries(String auth) throws Exception {
        HttpResponse<String> r = send("GET", TABLE, auth, null);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        List<Integer> indices = new ArrayList<>();
        json.readTree(r.body()).path("NEW-VMM-MIB:vmConfigTable").path("vmConfigEntry")
                .forEach(e -> indices.add(e.get("vmIndex").asInt()));
        return indices;
    }

    private JsonNode error(HttpResponse<String> r, int status, String tag) throws Exception {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        JsonNode e = json.readTree(r.body()).path("ietf-restconf:errors").path("error").get(0);
        assertThat(e.path("error-tag").asText()).as(r.body()).isEqualTo(tag);
        return e;
    }

    @Test
    void eachTenantReadsOnlyItsVrsAndTheProviderReadsAll() throws Exception {
        assertThat(entries(ALICE)).containsExactly(11);
        assertThat(entries(BOB)).containsExactly(21);
        assertThat(entries(ANN)).containsExactly(11);
        assertThat(entries(INP)).contains(11, 21, 31);
        JsonNode tree = json.readTree(send("GET", ROOT, ALICE, null).body()).path("NEW-VMM-MIB:NEW-VMM-MIB");
        assertThat(tree.path("vmTable").path("vmEntry")).extracting(e -> e.get("vmIndex").asInt()).containsExactly(11);
        assertThat(tree.path("vmObjects").path("vmConfiguredVMs").asInt()).isEqualTo(1);
        assertThat(tree.path("vmConfigTable").path("vmConfigEntry").get(0).path("vmConfigTenant").asText()).isEqualTo("acme");
        JsonNode all = json.readTree(send("GET", ROOT + "/vmObjects", INP, null).body());
        assertThat(all.path("NEW-VMM-MIB:vmObjects").path("vmConfiguredVMs").asInt()).isGreaterThanOrEqualTo(3);
    }

    @Test
    void anotherTenantsVrIsAnsweredExactlyAsOneThatDoesNotExist() throws Exception {
        String[][] requests = {
            {"GET", "/vmConfigEntry=%d", null},
            {"GET", "/vmConfigEntry=%d/vmName", null},
            {"PATCH", "/vmConfigEntry=%d", "{\"NEW-VMM-MIB:vmConfigEntry\":[{\"vmIndex\":%d,\"vmConfigDescription\":\"mine\"}]}"},
            {"DELETE", "/vmConfigEntry=%d", null},
            {"DELETE", "/vmConfigEntry=%d/vmConfigDescription", null},
        };
        // and under every precondition: the same answer as for a missing entry, never one that says the VR is there
        String[][] conditions = {{}, {"If-Match", "*"}, {"If-Match", "\"1-1\""}, {"If-None-Match", "*"},
            {"If-None-Match", "\"1-1\""}, {"If-Unmodified-Since", "Thu, 01 Jan 1970 00:00:00 GMT"},
            {"If-Modified-Since", "Thu, 01 Jan 2099 00:00:00 GMT"}};
        for (String[] c : conditions) {
            for (String[] q : requests) {
                String what = q[0] + q[1] + " " + String.join(": ", c);
                HttpResponse<String> hidden = send(q[0], TABLE + q[1].formatted(21), ALICE, q[2] == null ? null : q[2].formatted(21, 21), c);
                HttpResponse<String> absent = send(q[0], TABLE + q[1].formatted(99), ALICE, q[2] == null ? null : q[2].formatted(99, 99), c);
                // a missing entry fails If-Match on the datastore's version (412, RFC 9110 §13.1.1): alike is the point
                if (c.length == 0) assertThat(hidden.statusCode()).as(what + ": " + hidden.body()).isIn(404, 409);
                assertThat(hidden.statusCode()).as(what + ": " + hidden.body()).isEqualTo(absent.statusCode());
                assertThat(hidden.body()).as(what).isEqualTo(absent.body().replace("99", "21"));
            }
        }
        HttpResponse<String> state = send("GET", ROOT + "/vmTable/vmEntry=21", ALICE, null);
        assertThat(state.body()).isEqualTo(send("GET", ROOT + "/vmTable/vmEntry=99", ALICE, null).body().replace("99", "21"));
        // a YANG Patch that names it: refused whole, nothing changed
        HttpResponse<String> patch = send("PATCH", ROOT, ALICE, """
                {"ietf-yang-patch:yang-patch":{"patch-id":"p","edit":[
                  {"edit-id":"1","operation":"merge","target":"/vmConfigTable/vmConfigEntry=11",
                   "value":{"NEW-VMM-MIB:vmConfigEntry":[{"vmIndex":11,"vmConfigDescription":"both"}]}},
                  {"edit-id":"2","operation":"remove","target":"/vmConfigTable/vmConfigEntry=21"}]}}""",
                "Content-Type", "application/yang-patch+json");
        assertThat(patch.statusCode()).as(patch.body()).isGreaterThanOrEqualTo(400);
        assertThat(entries(BOB)).containsExactly(21);
        assertThat(send("GET", TABLE + "/vmConfigEntry=11/vmConfigDescription", ALICE, null).statusCode()).isEqualTo(404);
    }

    @Test
    void aViewerReadsItsTenantsVrsAndChangesNothing() throws Exception {
        assertThat(send("GET", TABLE + "/vmConfigEntry=11/vmName", ANN, null).body()).contains("acme-11");
        error(send("PATCH", TABLE + "/vmConfigEntry=11", ANN,
                "{\"NEW-VMM-MIB:vmConfigEntry\":[{\"vmIndex\":11,\"vmConfigDescription\":\"ann\"}]}"), 403, "access-denied");
        assertThat(send("GET", TABLE + "/vmConfigEntry=11/vmConfigDescription", ALICE, null).statusCode()).isEqualTo(404);
    }

    @Test
    void aQuotaRefusalNamesTheQuotaAndChangesNothing() throws Exception {
        create(ALICE, 12, "acme-12");
        try {
            JsonNode e = error(create(ALICE, 113, "acme-13"), 409, "resource-denied");
            assertThat(e.path("error-message").asText()).contains("tenant.acme vrs");
            assertThat(entries(INP)).doesNotContain(113);
        } finally {
            assertThat(send("DELETE", TABLE + "/vmConfigEntry=12", ALICE, null).statusCode()).isEqualTo(204);
        }
    }

    @Test
    void onlyTheProviderChangesTheOwner() throws Exception {
        String give = "{\"NEW-VMM-MIB:vmConfigEntry\":[{\"vmIndex\":%d,\"vmConfigTenant\":\"bravo\"}]}";
        JsonNode e = error(send("PATCH", TABLE + "/vmConfigEntry=11", ALICE, give.formatted(11)), 403, "access-denied");
        assertThat(e.path("error-message").asText()).contains("infrastructure provider");
        create(INP, 32, "given-32");
        assertThat(send("PATCH", TABLE + "/vmConfigEntry=32", INP, give.formatted(32)).statusCode()).isEqualTo(204);
        assertThat(entries(BOB)).containsExactly(21, 32);
        assertThat(send("DELETE", TABLE + "/vmConfigEntry=32", BOB, null).statusCode()).isEqualTo(204);
    }

    @Test
    void etagsStillGuardWrites() throws Exception {
        HttpResponse<String> r = send("GET", TABLE + "/vmConfigEntry=11", ALICE, null);
        String etag = r.headers().firstValue("ETag").orElseThrow();
        assertThat(send("GET", TABLE + "/vmConfigEntry=11", ALICE, null, "If-None-Match", etag).statusCode()).isEqualTo(304);
        error(send("PATCH", TABLE + "/vmConfigEntry=11", ALICE,
                "{\"NEW-VMM-MIB:vmConfigEntry\":[{\"vmIndex\":11,\"vmConfigAutoStart\":true}]}", "If-Match", "\"1-1\""),
                412, "operation-failed");
    }

    @Test
    void theStreamAndItsReplayCarryOnlyTheTenantsVrs() throws Exception {
        // events of both tenants, then the replay: alice's alone, up to replayComplete
        send("PATCH", TABLE + "/vmConfigEntry=21", BOB,
                "{\"NEW-VMM-MIB:vmConfigEntry\":[{\"vmIndex\":21,\"vmConfigDescription\":\"before\"}]}");
        assertThat(send("PATCH", TABLE + "/vmConfigEntry=11", ALICE, "{\"NEW-VMM-MIB:vmConfigEntry\":[{\"vmIndex\":11,"
                + "\"vmAdminState\":\"shutdown\"}]}").statusCode()).isEqualTo(204);
        HttpRequest replay = HttpRequest.newBuilder(URI.create(base + "/restconf/streams/NETCONF/json?start-time=" + started))
                .header("Authorization", ALICE).build();
        List<String> data = new ArrayList<>();
        HttpResponse<InputStream> r = http.send(replay, HttpResponse.BodyHandlers.ofInputStream());
        assertThat(r.statusCode()).isEqualTo(200);
        boolean complete = false;
        long end = System.nanoTime() + Duration.ofSeconds(30).toNanos(); // checked between lines: a keep-alive comes every 15 s
        try (BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null && !complete && System.nanoTime() < end; line = in.readLine()) {
                complete = line.contains("nc-notifications:replayComplete");
                if (line.startsWith("data: ") && !complete) data.add(line);
            }
        }
        assertThat(complete).as("replayComplete ends the replay").isTrue();
        assertThat(data).anyMatch(d -> d.contains("acme-11"))
                .noneMatch(d -> d.contains("bravo-21") || d.contains("inp-31"));
        assertThat(send("PATCH", TABLE + "/vmConfigEntry=11", ALICE, "{\"NEW-VMM-MIB:vmConfigEntry\":[{\"vmIndex\":11,"
                + "\"vmAdminState\":\"running\"}]}").statusCode()).isEqualTo(204);
    }
}
