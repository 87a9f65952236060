package io.vrouter.api.rest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.ServerSocket;
import io.vrouter.core.model.OperState;
import io.vrouter.core.model.VrEvent;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A VR moved between two servers over REST: it arrives on the peer with its row whole and is gone from
 * the source; refusals (its name taken there, its tenant not declared there, a peer that does not
 * answer, the peer refusing the login, a name that is no peer) leave both routers as they were.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RestMigrationTest {
    private static final String JSON = "application/json";
    private static final String INP = RestTenantsTest.INP;
    private final ObjectMapper json = new ObjectMapper();
    private RestServer a;
    private RestServer b;
    /** A peer whose simulated host takes XenServer's time to make a VR: a move to it lasts long enough to watch. */
    private RestServer slow;
    private RestClient restA;
    private RestClient restB;

    @BeforeAll
    void start() throws Exception {
        // B declares acme but not bravo; A knows B as peer b, B under a wrong password as peer bad, and a dead port as gone.
        b = RestServer.start("vrouter-migrate-b", Map.of("tenant.acme", "", "user.inp", "operator:inp",
                "user.alice", "operator@acme:alice"));
        slow = RestServer.start("vrouter-migrate-slow", Map.of("user.inp", "operator:inp", "sim-latency", "paper"));
        int dead;
        try (ServerSocket s = new ServerSocket(0)) {
            dead = s.getLocalPort();
        }
        Map<String, String> settings = new HashMap<>(RestTenantsTest.TENANTS);
        settings.putAll(Map.of("peer.b", "http://127.0.0.1:" + b.port(), "peer.b.user", "inp", "peer.b.password", "inp",
                "peer.bad", "http://127.0.0.1:" + b.port(), "peer.bad.user", "inp", "peer.bad.password", "wrong",
                "peer.gone", "http://127.0.0.1:" + dead, "peer.gone.user", "inp", "peer.gone.password", "inp",
                "peers.health-interval", "200ms"));
        settings.putAll(Map.of("peer.slow", "http://127.0.0.1:" + slow.port(), "peer.slow.user", "inp",
                "peer.slow.password", "inp"));
        a = RestServer.start("vrouter-migrate-a", settings);
        restA = new RestClient(a.port());
        restB = new RestClient(b.port());
    }

    @AfterAll
    void stop() {
        if (a != null) a.close();
        if (b != null) b.close();
        if (slow != null) slow.close();
    }

    private int create(RestClient rest, String auth, String body) throws Exception {
        HttpResponse<String> r = rest.post("/api/v1/routers?wait=10s", auth, JSON, body);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        return json.readTree(r.body()).get("vmIndex").asInt();
    }

    private HttpResponse<String> migrate(int vmIndex, String peer) throws Exception {
        return restA.post("/api/v1/routers/" + vmIndex + "/migrate?wait=60s", INP, JSON, "{\"peer\":\"" + peer + "\"}");
    }

    /** Every VR's configured row on a router, without its vmIndex and state, by name. */
    private Map<String, String> rows(RestClient rest) throws Exception {
        Map<String, String> rows = new HashMap<>();
        for (JsonNode vr : json.readTree(rest.get("/api/v1/routers", INP, JSON).body()).get("virtualRouter")) {
            ObjectNode row = (ObjectNode) vr.deepCopy();
            row.remove(List.of("vmIndex", "vmEntry", "vmNetworkTable", "vmCpuTable", "vmStorageTable"));
            rows.put(vr.get("vmName").asText(), row.toString());
        }
        return rows;
    }

    @Test
    void aVrMovesWithItsRowAndIsGoneFromTheSource() throws Exception {
        int i = create(restA, INP, """
                {"vmName":"mover","vmConfigCpuNumber":2,"vmConfigMemory":768,"vmConfigDescription":"moves to b",
                 "vmConfigCpuWeight":250,"vmConfigTenant":"acme","vmNetworkConfigTable":[
                  {"vmNetworkConfigIndex":1,"vmNetworkConfigParent":"br0","vmNetworkConfigPhysAddress":"02:00:5e:00:53:21",
                   "vmNetworkConfigAddressType":"ipv4","vmNetworkConfigAddress":"192.0.2.21","vmNetworkConfigPrefixLength":24,
                   "vmNetworkConfigRateIn":10000,"vmNetworkConfigRateOut":30000}]}""");
        String row = rows(restA).get("mover");
        String uuid = json.readTree(restA.get("/api/v1/routers/" + i, INP, JSON).body()).get("vmEntry").get("vmUUID").asText();
        HttpResponse<String> r = migrate(i, "b");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode moved = json.readTree(r.body());
        assertThat(moved.get("peer").asText()).isEqualTo("b");
        int there = moved.get("peerIndex").asInt();
        JsonNode onB = json.readTree(restB.get("/api/v1/routers/" + there, INP, JSON).body());
        assertThat(onB.get("vmName").asText()).isEqualTo("mover");
        assertThat(onB.get("vmEntry").get("vmOperState").asText()).isEqualTo("running");
        assertThat(rows(restB).get("mover")).isEqualTo(row);
        assertThat(onB.get("vmEntry").get("vmUUID").asText()).as("its identity").isEqualTo(uuid);
        assertThat(restA.get("/api/v1/routers/" + i, INP, JSON).statusCode()).isEqualTo(404);
        assertThat(rows(restA)).doesNotContainKey("mover");
    }

    @Test
    void aRefusedMoveLeavesBothRoutersAsTheyWere() throws Exception {
        int taken = create(restA, INP, "{\"vmName\":\"taken\"}");
        create(restB, INP, "{\"vmName\":\"taken\",\"vmConfigDescription\":\"b's own\"}");
        int bravo = create(restA, INP, "{\"vmName\":\"bravo-vr\",\"vmConfigTenant\":\"bravo\"}");
        Map<String, String> beforeA = rows(restA);
        Map<String, String> beforeB = rows(restB);
        List<String> refusals = new ArrayList<>();
        for (Object[] c : new Object[][] {{taken, "b", 409}, {bravo, "b", 400}, {taken, "gone", 502}, {taken, "bad", 502},
            {taken, "nope", 400}}) {
            HttpResponse<String> r = migrate((Integer) c[0], (String) c[1]);
            assertThat(r.statusCode()).as(c[1] + ": " + r.body()).isEqualTo(c[2]);
            refusals.add(json.readTree(r.body()).get("detail").asText());
            assertThat(rows(restA)).isEqualTo(beforeA);
            assertThat(rows(restB)).isEqualTo(beforeB);
        }
        assertThat(refusals.get(0)).contains("taken on this router").contains("stays here");
        assertThat(refusals.get(1)).contains("bravo");
        assertThat(refusals.get(2)).contains("does not answer");
        assertThat(refusals.get(3)).contains("refused this router's login as user 'inp'");
        assertThat(refusals.get(4)).contains("'nope' is no peer of this router (its peers: b, bad, gone, slow)");
    }

    private String operState(RestClient rest, int vmIndex) throws Exception {
        return json.readTree(rest.get("/api/v1/routers/" + vmIndex, INP, JSON).body()).get("vmEntry").get("vmOperState").asText();
    }

    @Test
    void whileItMovesTheVrIsMigratingAndRefusesChangesAndASecondMove() throws Exception {
        int i = create(restA, INP, "{\"vmName\":\"watched\"}");
        List<VrEvent> onA = new CopyOnWriteArrayList<>();
        List<VrEvent> onSlow = new CopyOnWriteArrayList<>();
        try (AutoCloseable sa = a.service().events().subscribe(onA::add);
             AutoCloseable ss = slow.service().events().subscribe(onSlow::add)) {
            CompletableFuture<HttpResponse<String>> move = CompletableFuture.supplyAsync(() -> {
                try {
                    return migrate(i, "slow");
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            long end = System.nanoTime() + 10_000_000_000L;
            while (!operState(restA, i).equals("migrating") && System.nanoTime() < end) Thread.onSpinWait();
            assertThat(operState(restA, i)).isEqualTo("migrating");
            // the destination is still making it (1 s on the slow peer): every change here is refused, and so is a second move
            HttpResponse<String> patch = restA.send(restA.request("/api/v1/routers/" + i, INP).header("Content-Type", JSON)
                    .method("PATCH", HttpRequest.BodyPublishers.ofString("{\"vmConfigDescription\":\"lost\"}")));
            assertThat(patch.statusCode()).as(patch.body()).isEqualTo(409);
            assertThat(json.readTree(patch.body()).get("detail").asText()).contains("is migrating to peer slow");
            HttpResponse<String> delete = restA.delete("/api/v1/routers/" + i, INP);
            assertThat(delete.statusCode()).as(delete.body()).isEqualTo(409);
            HttpResponse<String> again = migrate(i, "b");
            assertThat(again.statusCode()).as(again.body()).isEqualTo(409);
            assertThat(move.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        }
        // the source said migrating (vmMigrating on every interface), then the VR's deletion; the destination its creation
        assertThat(onA).filteredOn(e -> e.vmIndex == i).extracting(e -> e.type + " " + e.vmOperState)
                .startsWith("STATE_CHANGED MIGRATING").endsWith("DELETED null");
        assertThat(onA).filteredOn(e -> e.vmIndex == i && e.vmOperState == OperState.MIGRATING).first()
                .extracting(e -> e.reason).isEqualTo("migrating to peer slow");
        assertThat(onSlow).filteredOn(e -> "watched".equals(e.vmName)).extracting(e -> e.type).first().isEqualTo(VrEvent.Type.CREATED);
    }

    /** A POST of migrate without a wait: answered when accepted. */
    private HttpResponse<String> migrateAccepted(int vmIndex, String peer) {
        try {
            return restA.post("/api/v1/routers/" + vmIndex + "/migrate", INP, JSON, "{\"peer\":\"" + peer + "\"}");
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The move at {@code location} once it has ended (it is read until it is not migrating, 30 s at most). */
    private JsonNode ended(String location) throws Exception {
        long end = System.nanoTime() + 30_000_000_000L;
        JsonNode m;
        do {
            m = json.readTree(restA.get(location, INP, JSON).body());
        } while (m.get("state").asText().equals("migrating") && System.nanoTime() < end && sleepABit());
        return m;
    }

    @Test
    void aMoveIsAnsweredWhenAcceptedItsEndToldOnTheEventStreamAndAtItsLocation() throws Exception {
        int i = create(restA, INP, "{\"vmName\":\"async\"}");
        List<HttpResponse<String>> accepted = new CopyOnWriteArrayList<>();
        // the slow peer takes about a second to make it: the answer comes while it moves
        List<RestClient.Sse> events = restA.events(INP, null, seen -> seen.stream().anyMatch(e -> e.event().equals("deleted")
                && e.data().contains("\"async\"")), () -> accepted.add(migrateAccepted(i, "slow")));
        HttpResponse<String> r = accepted.get(0);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        JsonNode move = json.readTree(r.body());
        assertThat(move.get("state").asText()).isEqualTo("migrating");
        assertThat(move.get("vmName").asText()).isEqualTo("async");
        assertThat(move.get("peer").asText()).isEqualTo("slow");
        String location = r.headers().firstValue("Location").orElseThrow();
        assertThat(location).endsWith("/api/v1/migrations/" + move.get("id").asLong());
        // the stream said migrating, then the deletion here and where it went
        List<JsonNode> ofIt = new ArrayList<>();
        for (RestClient.Sse e : events) {
            JsonNode d = json.readTree(e.data());
            if (d.get("vmIndex").asInt() == i) ofIt.add(d);
        }
        assertThat(ofIt.get(0).get("vmOperState").asText()).isEqualTo("migrating");
        JsonNode deleted = ofIt.get(ofIt.size() - 1);
        assertThat(deleted.get("type").asText()).isEqualTo("deleted");
        JsonNode done = ended(java.net.URI.create(location).getPath());
        assertThat(done.get("state").asText()).isEqualTo("moved");
        int there = done.get("peerIndex").asInt();
        assertThat(deleted.get("reason").asText()).isEqualTo("moved to peer slow (vmIndex " + there + " there)");
        assertThat(json.readTree(restA.get("/api/v1/migrations", INP, JSON).body())).extracting(m -> m.get("id").asLong())
                .contains(move.get("id").asLong());

        // Prefer: wait, as for every other write: answered at the end, and the preference said applied
        int waited = create(restA, INP, "{\"vmName\":\"prefers-to-wait\"}");
        HttpResponse<String> atTheEnd = restA.send(restA.request("/api/v1/routers/" + waited + "/migrate", INP)
                .header("Content-Type", JSON).header("Prefer", "wait=30")
                .POST(HttpRequest.BodyPublishers.ofString("{\"peer\":\"b\"}")));
        assertThat(atTheEnd.statusCode()).as(atTheEnd.body()).isEqualTo(200);
        assertThat(atTheEnd.headers().firstValue("Preference-Applied")).hasValue("wait");
        assertThat(json.readTree(atTheEnd.body()).get("peer").asText()).isEqualTo("b");

        // a refusal by the destination's side is told the same way: the VR back to running, with why; the move refused
        int stays = create(restA, INP, "{\"vmName\":\"async-stays\"}");
        List<VrEvent> onA = new CopyOnWriteArrayList<>();
        HttpResponse<String> toGone;
        try (AutoCloseable sa = a.service().events().subscribe(onA::add)) {
            toGone = migrateAccepted(stays, "gone");
            assertThat(toGone.statusCode()).as(toGone.body()).isEqualTo(202);
            JsonNode refused = ended(java.net.URI.create(toGone.headers().firstValue("Location").orElseThrow()).getPath());
            assertThat(refused.get("state").asText()).isEqualTo("refused");
            assertThat(refused.get("problem").asText()).contains("does not answer").contains("stays here");
        }
        assertThat(operState(restA, stays)).isEqualTo("running");
        assertThat(onA).filteredOn(e -> e.vmIndex == stays && e.previousOperState == OperState.MIGRATING).first()
                .extracting(e -> e.reason).asString().contains("does not answer");
        // what is checked here is still answered at once: a peer that is none, a VR that is none, a second move
        assertThat(migrateAccepted(stays, "nope").statusCode()).isEqualTo(400);
        assertThat(migrateAccepted(99999, "b").statusCode()).isEqualTo(404);
        assertThat(restA.get("/api/v1/migrations/99999", INP, JSON).statusCode()).isEqualTo(404);
        assertThat(restA.get("/api/v1/migrations", RestTenantsTest.ALICE, JSON).statusCode()).isEqualTo(403);
    }

    @Test
    void aMoveThatFailsLeavesTheVrRunningAgain() throws Exception {
        int i = create(restA, INP, "{\"vmName\":\"stays\"}");
        List<VrEvent> onA = new CopyOnWriteArrayList<>();
        try (AutoCloseable sa = a.service().events().subscribe(onA::add)) {
            assertThat(migrate(i, "gone").statusCode()).isEqualTo(502);
        }
        assertThat(operState(restA, i)).isEqualTo("running");
        assertThat(onA).filteredOn(e -> e.vmIndex == i).extracting(e -> e.previousOperState + ">" + e.vmOperState)
                .containsExactly("RUNNING>MIGRATING", "MIGRATING>RUNNING");
        // not migrating any more: it changes again
        HttpResponse<String> patch = restA.send(restA.request("/api/v1/routers/" + i, INP).header("Content-Type", JSON)
                .method("PATCH", HttpRequest.BodyPublishers.ofString("{\"vmConfigDescription\":\"still here\"}")));
        assertThat(patch.statusCode()).as(patch.body()).isIn(200, 202);
    }

    /** Polling /health until the first probe of every peer is done (it runs on a thread of its own). */
    private static boolean sleepABit() throws InterruptedException {
        Thread.sleep(50);
        return true;
    }

    @Test
    void peersAreListedWithTheirReachabilityToTheProviderAloneAndOnHealth() throws Exception {
        assertThat(restA.get("/api/v1/peers", RestTenantsTest.ALICE, JSON).statusCode()).isEqualTo(403);
        JsonNode peers = json.readTree(restA.get("/api/v1/peers", INP, JSON).body());
        assertThat(peers).extracting(p -> p.get("name").asText() + " " + p.get("reachable").asBoolean())
                .containsExactly("b true", "bad true", "gone false", "slow true");
        // /health (no login) says which peers answer, as last probed.
        long end = System.nanoTime() + 10_000_000_000L;
        JsonNode health;
        do {
            health = json.readTree(restA.get("/health", null, JSON).body());
        } while (health.path("peers").size() < 4 && System.nanoTime() < end && sleepABit());
        assertThat(health.get("status").asText()).isEqualTo("UP");
        assertThat(health.get("peers")).extracting(p -> p.get("name").asText() + " " + p.get("reachable").asBoolean())
                .containsExactly("b true", "bad true", "gone false", "slow true");
        assertThat(json.readTree(restB.get("/health", null, JSON).body()).has("peers")).as("a router without peers").isFalse();
        // The destination's side is the provider's: a tenant's user cannot push a VR in.
        assertThat(restB.post("/api/v1/migrations", "Basic " + java.util.Base64.getEncoder().encodeToString("alice:alice".getBytes()),
                JSON, "{\"format\":1,\"routers\":[]}").statusCode()).isEqualTo(403);
    }
}
