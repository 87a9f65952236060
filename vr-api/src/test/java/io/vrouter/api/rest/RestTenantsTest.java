package io.vrouter.api.rest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Tenants over REST: every request reads and writes through the core's view of its caller, so a
 * tenant's users see only their tenant's VRs (lists, reads, the hypervisor's counts, events and their
 * replay, /tenants), another tenant's VR answers exactly as a VR that does not exist, a viewer changes
 * nothing, the provider sees everything, and a quota refusal is problem details naming the quota.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RestTenantsTest {
    static final String INP = RestClient.basic("inp", "inp");
    static final String ALICE = RestClient.basic("alice", "alice");
    static final String ANN = RestClient.basic("ann", "ann");
    static final String BOB = RestClient.basic("bob", "bob");
    private static final String JSON = "application/json";
    /** The tenants and users of the cross-interface table: acme may have 2 VRs. */
    static final Map<String, String> TENANTS = Map.of(
            "tenant.acme", "vrs=2",
            "tenant.bravo", "",
            "user.inp", "operator:inp",
            "user.alice", "operator@acme:alice",
            "user.ann", "viewer@acme:ann",
            "user.bob", "operator@bravo:bob");

    private final ObjectMapper json = new ObjectMapper();
    private RestServer server;
    private RestClient rest;
    private int acme;
    private int bravo;
    private int provider;

    @BeforeAll
    void start() throws Exception {
        server = RestServer.start("vrouter-rest-tenants", TENANTS);
        rest = new RestClient(server.port());
        acme = create(ALICE, "acme-1");
        bravo = create(BOB, "bravo-1");
        provider = create(INP, "inp-1");
    }

    @AfterAll
    void stop() {
        server.close();
    }

    private int create(String auth, String name) throws Exception {
        HttpResponse<String> r = rest.post("/api/v1/routers", auth, JSON, "{\"vmName\":\"" + name + "\"}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        return json.readTree(r.body()).get("vmIndex").asInt();
    }

    private HttpResponse<String> send(String method, String path, String auth, String body, String... headers)
            throws Exception {
        var b = rest.request(path, auth).header("Accept", JSON).header("Content-Type", JSON)
                .method(method, body == null ? java.net.http.HttpRequest.BodyPublishers.noBody()
                        : java.net.http.HttpRequest.BodyPublishers.ofString(body));
        for (int i = 0; i < headers.length; i += 2) b.header(headers[i], headers[i + 1]);
        return rest.send(b);
    }

    private JsonNode read(String path, String auth) throws Exception {
        HttpResponse<String> r = rest.get(path, auth, JSON);
        assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(200);
        return json.readTree(r.body());
    }

    private List<Integer> listed(String auth) throws Exception {
        List<Integer> indices = new ArrayList<>();
        read("/api/v1/routers", auth).get("virtualRouter").forEach(v -> indices.add(v.get("vmIndex").asInt()));
        return indices;
    }

    /** The problem details of a refusal, without the member that names the request (instance). */
    private JsonNode problem(HttpResponse<String> r, int status) throws Exception {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        JsonNode p = json.readTree(r.body());
        ((com.fasterxml.jackson.databind.node.ObjectNode) p).remove("instance");
        return p;
    }

    @Test
    void eachTenantListsOnlyItsVrsAndTheProviderListsAll() throws Exception {
        assertThat(listed(ALICE)).containsExactly(acme);
        // the same query right after another tenant's: a list kept for one tenant is never another's
        assertThat(listed(BOB)).containsExactly(bravo);
        assertThat(listed(ANN)).containsExactly(acme);
        assertThat(listed(INP)).contains(acme, bravo, provider);
        assertThat(read("/api/v1/routers", ALICE).get("total").asInt()).isEqualTo(1);
        assertThat(read("/api/v1/routers/" + acme, ALICE).get("vmConfigTenant").asText()).isEqualTo("acme");
        assertThat(read("/api/v1/routers/" + acme, INP).get("vmConfigTenant").asText()).isEqualTo("acme");
        assertThat(read("/api/v1/session", ALICE).get("tenant").asText()).isEqualTo("acme");
        assertThat(read("/api/v1/session", INP).has("tenant")).isFalse();
    }

    @Test
    void anotherTenantsVrIsAnsweredExactlyAsOneThatDoesNotExist() throws Exception {
        int none = 4_000_000;
        for (String sub : new String[] {"", "/interfaces", "/interfaces/1"}) {
            JsonNode hidden = problem(rest.get("/api/v1/routers/" + bravo + sub, ALICE, JSON), 404);
            JsonNode absent = problem(rest.get("/api/v1/routers/" + none + sub, ALICE, JSON), 404);
            assertThat(hidden.toString()).isEqualTo(absent.toString().replace(Integer.toString(none), Integer.toString(bravo)));
        }
        // writes: the same 404 as for no VR, and the VR is as it was
        String before = read("/api/v1/routers/" + bravo, INP).path("vmConfigDescription").toString();
        for (String[] write : new String[][] {{"PATCH", "", "{\"vmConfigDescription\":\"mine\"}"},
            {"POST", "/stop", null}, {"DELETE", "", null}, {"POST", "/interfaces", "{\"vmNetworkConfigIndex\":9}"},
            {"DELETE", "/interfaces/1", null}}) {
            JsonNode hidden = problem(send(write[0], "/api/v1/routers/" + bravo + write[1], ALICE, write[2]), 404);
            JsonNode absent = problem(send(write[0], "/api/v1/routers/" + none + write[1], ALICE, write[2]), 404);
            assertThat(hidden.toString()).as(write[0] + write[1])
                    .isEqualTo(absent.toString().replace(Integer.toString(none), Integer.toString(bravo)));
        }
        assertThat(read("/api/v1/routers/" + bravo, INP).path("vmConfigDescription").toString()).isEqualTo(before);
        assertThat(listed(BOB)).containsExactly(bravo);
        // a batch that names it changes nothing either
        HttpResponse<String> batch = send("PATCH", "/api/v1/routers", ALICE,
                "{\"change\":[{\"vmIndex\":" + acme + ",\"vmConfigDescription\":\"x\"}],\"remove\":[" + bravo + "]}");
        assertThat(batch.statusCode()).as(batch.body()).isEqualTo(404);
        assertThat(read("/api/v1/routers/" + acme, ALICE).has("vmConfigDescription")).isFalse();
    }

    /**
     * Preconditions are no window on another tenant's VR: every method, under every conditional header
     * and an Idempotency-Key, is answered for bravo's VR exactly as for a VR that does not exist (the
     * status, the header names and the problem details), never with the 412 or 304 that would say it
     * is there.
     */
    @Test
    void preconditionsDoNotTellAnotherTenantsVrFromAMissingOne() throws Exception {
        int none = 4_000_001;
        String[][] conditions = {{"If-Match", "*"}, {"If-Match", "\"1-1\""}, {"If-None-Match", "*"},
            {"If-None-Match", "\"1-1\""}, {"If-Unmodified-Since", "Thu, 01 Jan 1970 00:00:00 GMT"},
            {"If-Modified-Since", "Thu, 01 Jan 2099 00:00:00 GMT"}, {"Idempotency-Key", "probe-1"}};
        String[][] requests = {{"GET", "", null}, {"GET", "/interfaces", null}, {"GET", "/interfaces/1", null},
            {"PATCH", "", "{\"vmConfigDescription\":\"probe\"}"}, {"DELETE", "", null}, {"POST", "/start", null},
            {"POST", "/stop", null}, {"POST", "/pause", null}, {"POST", "/suspend", null},
            {"POST", "/interfaces", "{\"vmNetworkConfigIndex\":9}"},
            {"PATCH", "/interfaces/1", "{\"vmNetworkConfigParent\":\"probe\"}"}, {"DELETE", "/interfaces/1", null}};
        for (String[] c : conditions) {
            for (String[] q : requests) {
                HttpResponse<String> hidden = send(q[0], "/api/v1/routers/" + bravo + q[1], ALICE, q[2], c);
                HttpResponse<String> absent = send(q[0], "/api/v1/routers/" + none + q[1], ALICE, q[2], c);
                String what = q[0] + " " + q[1] + " " + c[0] + ": " + c[1];
                assertThat(hidden.statusCode()).as(what + " " + hidden.body()).isEqualTo(absent.statusCode());
                assertThat(headerNames(hidden)).as(what).isEqualTo(headerNames(absent));
                assertThat(problem(hidden, 404).toString()).as(what).isEqualTo(problem(absent, 404).toString()
                        .replace(Integer.toString(none), Integer.toString(bravo)));
            }
        }
        assertThat(read("/api/v1/routers/" + bravo, INP).has("vmConfigDescription")).isFalse();
    }

    private static List<String> headerNames(HttpResponse<String> r) {
        return r.headers().map().keySet().stream().filter(h -> !h.equalsIgnoreCase("date")).sorted().toList();
    }

    @Test
    void aViewerReadsItsTenantsVrsAndChangesNothing() throws Exception {
        assertThat(read("/api/v1/routers/" + acme, ANN).get("vmName").asText()).isEqualTo("acme-1");
        problem(rest.get("/api/v1/routers/" + bravo, ANN, JSON), 404);
        problem(send("PATCH", "/api/v1/routers/" + acme, ANN, "{\"vmConfigDescription\":\"ann\"}"), 403);
        problem(send("POST", "/api/v1/routers", ANN, "{\"vmName\":\"by-ann\"}"), 403);
        assertThat(read("/api/v1/routers/" + acme, ANN).has("vmConfigDescription")).isFalse();
    }

    @Test
    void theHypervisorCountsOnlyTheCallersVrs() throws Exception {
        assertThat(read("/api/v1/hypervisor", ALICE).get("vmConfiguredVMs").asInt()).isEqualTo(listed(ALICE).size());
        assertThat(read("/api/v1/hypervisor", BOB).get("vmConfiguredVMs").asInt()).isEqualTo(1);
        assertThat(read("/api/v1/hypervisor", INP).get("vmConfiguredVMs").asInt()).isEqualTo(listed(INP).size());
        assertThat(listed(INP).size()).isGreaterThanOrEqualTo(3);
    }

    @Test
    void aQuotaRefusalIsProblemDetailsNamingTheQuotaAndChangesNothing() throws Exception {
        int second = create(ALICE, "acme-2");
        try {
            JsonNode p = problem(rest.post("/api/v1/routers", ALICE, JSON, "{\"vmName\":\"acme-3\"}"), 409);
            assertThat(p.get("detail").asText()).contains("tenant.acme vrs").contains("2");
            assertThat(listed(ALICE)).containsExactlyInAnyOrder(acme, second);
            assertThat(listed(INP)).noneMatch(i -> read0(i).equals("acme-3"));
        } finally {
            assertThat(send("DELETE", "/api/v1/routers/" + second + "?wait=10s", ALICE, null).statusCode()).isEqualTo(204);
        }
    }

    private String read0(int vmIndex) {
        try {
            return read("/api/v1/routers/" + vmIndex, INP).get("vmName").asText();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void onlyTheProviderGivesAVrToATenant() throws Exception {
        JsonNode p = problem(send("PATCH", "/api/v1/routers/" + acme, ALICE, "{\"vmConfigTenant\":\"bravo\"}"), 403);
        assertThat(p.get("field").asText()).isEqualTo("vmConfigTenant");
        assertThat(listed(BOB)).containsExactly(bravo);
        int given = create(INP, "given");
        HttpResponse<String> r = send("PATCH", "/api/v1/routers/" + given + "?wait=10s", INP, "{\"vmConfigTenant\":\"bravo\"}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(listed(BOB)).containsExactlyInAnyOrder(bravo, given);
        assertThat(send("DELETE", "/api/v1/routers/" + given + "?wait=10s", BOB, null).statusCode()).isEqualTo(204);
    }

    @Test
    void conditionalRequestsStillWork() throws Exception {
        HttpResponse<String> got = rest.get("/api/v1/routers/" + acme, ALICE, JSON);
        String etag = got.headers().firstValue("ETag").orElseThrow();
        String interfaces = rest.get("/api/v1/routers/" + acme + "/interfaces", ALICE, JSON).headers().firstValue("ETag").orElseThrow();
        assertThat(send("GET", "/api/v1/routers/" + acme + "/interfaces", ALICE, null, "If-None-Match", interfaces).statusCode())
                .isEqualTo(304);
        assertThat(send("PATCH", "/api/v1/routers/" + acme, ALICE, "{\"vmConfigDescription\":\"old\"}",
                "If-Match", "\"0-0\"").statusCode()).isEqualTo(412);
        HttpResponse<String> changed = send("PATCH", "/api/v1/routers/" + acme + "?wait=10s", ALICE,
                "{\"vmConfigAutoStart\":true}", "If-Match", etag);
        assertThat(changed.statusCode()).as(changed.body()).isEqualTo(200);
    }

    @Test
    void eventsAndTheirReplayCarryOnlyTheTenantsVrs() throws Exception {
        List<RestClient.Sse> replayed = rest.events(ALICE, "0",
                l -> l.stream().anyMatch(e -> "replayComplete".equals(e.event())), () -> { });
        List<Integer> vrs = new ArrayList<>();
        for (RestClient.Sse e : replayed) {
            if (e.id() != null) vrs.add(json.readTree(e.data()).get("vmIndex").asInt());
        }
        assertThat(vrs).contains(acme).doesNotContain(bravo, provider);
        assertThat(replayed.get(replayed.size() - 1).event()).isEqualTo("replayComplete");
        List<RestClient.Sse> all = rest.events(INP, "0",
                l -> l.stream().anyMatch(e -> "replayComplete".equals(e.event())), () -> { });
        assertThat(all).anyMatch(e -> e.data().contains("\"vmIndex\":" + bravo));
        // live: bob's change is not alice's to see, her own is
        List<RestClient.Sse> live = rest.events(ALICE, null,
                l -> l.stream().anyMatch(e -> e.data().contains("\"vmConfigDescription\":\"live\"")
                        || e.data().contains("live-acme")), () -> {
                    try {
                        send("PATCH", "/api/v1/routers/" + bravo, BOB, "{\"vmName\":\"live-bravo\"}");
                        send("PATCH", "/api/v1/routers/" + acme, ALICE, "{\"vmName\":\"live-acme\"}");
                    } catch (Exception e) {
                        throw new AssertionError(e);
                    }
                });
        assertThat(live).anyMatch(e -> e.data().contains("live-acme")).noneMatch(e -> e.data().contains("live-bravo"));
        send("PATCH", "/api/v1/routers/" + acme, ALICE, "{\"vmName\":\"acme-1\"}");
        send("PATCH", "/api/v1/routers/" + bravo, BOB, "{\"vmName\":\"bravo-1\"}");
    }

    @Test
    void anIdempotencyKeyIsTheUsersOwn() throws Exception {
        HttpResponse<String> first = send("POST", "/api/v1/routers", BOB, "{\"vmName\":\"keyed\"}",
                "Idempotency-Key", "tenants-key-1");
        assertThat(first.statusCode()).as(first.body()).isEqualTo(202);
        int keyed = json.readTree(first.body()).get("vmIndex").asInt();
        HttpResponse<String> again = send("POST", "/api/v1/routers", BOB, "{\"vmName\":\"keyed\"}",
                "Idempotency-Key", "tenants-key-1");
        assertThat(again.headers().firstValue("Idempotent-Replayed")).contains("true");
        // alice's request with bob's key is hers: a new creation (refused, the name is taken), never bob's answer
        HttpResponse<String> other = send("POST", "/api/v1/routers", ALICE, "{\"vmName\":\"keyed\"}",
                "Idempotency-Key", "tenants-key-1");
        assertThat(other.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(other.body()).doesNotContain("\"vmIndex\":" + keyed);
        assertThat(other.statusCode()).isEqualTo(409);
        assertThat(send("DELETE", "/api/v1/routers/" + keyed + "?wait=10s", BOB, null).statusCode()).isEqualTo(204);
    }

    @Test
    void tenantsShowTheirQuotasAndUsage() throws Exception {
        JsonNode all = read("/api/v1/tenants", INP).get("tenant");
        List<String> names = new ArrayList<>();
        all.forEach(t -> names.add(t.get("name").asText()));
        assertThat(names).containsExactlyInAnyOrder("acme", "bravo");
        JsonNode acmeTenant = all.get(names.indexOf("acme"));
        assertThat(acmeTenant.get("quota").get("vrs").asInt()).isEqualTo(2);
        assertThat(acmeTenant.get("quota").has("vcpus")).isFalse();
        assertThat(acmeTenant.get("usage").get("vrs").asInt()).isEqualTo(listed(ALICE).size());
        assertThat(acmeTenant.get("usage").get("vcpus").asInt()).isPositive();
        assertThat(acmeTenant.get("usage").get("memory").asLong()).isPositive();
        assertThat(all.get(names.indexOf("bravo")).get("usage").get("vrs").asInt()).isEqualTo(listed(BOB).size());
        JsonNode own = read("/api/v1/tenants", ALICE).get("tenant");
        assertThat(own).hasSize(1);
        assertThat(own.get(0).get("name").asText()).isEqualTo("acme");
        assertThat(read("/api/v1/tenants", BOB).get("tenant").get(0).get("name").asText()).isEqualTo("bravo");
        HttpResponse<String> xml = rest.get("/api/v1/tenants", ANN, "application/xml");
        assertThat(xml.body()).contains("<tenants><tenant><name>acme</name><quota><vrs>2</vrs></quota><usage><vrs>");
    }
}
