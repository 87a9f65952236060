package io.vrouter.api.rest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vrouter.core.model.VrEvent;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Draining a router over REST: every VR moves to the peer with the most free memory (then the fewest
 * VRs), each with its identity, one move each told on the events; the drained router refuses new VRs
 * (a creation, a restore, a peer's move) until opened; bad requests are refused with nothing changed.
 */
class RestDrainTest {
    private static final String JSON = "application/json";
    private static final String INP = RestTenantsTest.INP;
    private final ObjectMapper json = new ObjectMapper();
    private RestServer a;
    private RestServer b;
    private RestServer c;
    private RestClient restA;

    @BeforeEach
    void start() throws Exception {
        // b has room for 2048 MiB of VRs, c for 4096: c takes VRs until it has no more room than b
        b = RestServer.start("vrouter-drain-b", Map.of("user.inp", "operator:inp", "sim.host-memory", "2048"));
        c = RestServer.start("vrouter-drain-c", Map.of("user.inp", "operator:inp", "sim.host-memory", "4096"));
        Map<String, String> settings = new HashMap<>(RestTenantsTest.TENANTS);
        for (RestServer p : List.of(b, c)) {
            String name = p == b ? "b" : "c";
            settings.putAll(Map.of("peer." + name, "http://127.0.0.1:" + p.port(), "peer." + name + ".user", "inp",
                    "peer." + name + ".password", "inp"));
        }
        a = RestServer.start("vrouter-drain-a", settings);
        restA = new RestClient(a.port());
    }

    @AfterEach
    void stop() {
        for (RestServer s : new RestServer[] {a, b, c}) {
            if (s != null) s.close();
        }
    }

    private HttpResponse<String> create(String name) throws Exception {
        return restA.post("/api/v1/routers?wait=10s", INP, JSON, "{\"vmName\":\"" + name + "\",\"vmConfigMemory\":512}");
    }

    private static String uuid(RestClient rest, int vmIndex) throws Exception {
        return new ObjectMapper().readTree(rest.get("/api/v1/routers/" + vmIndex, INP, JSON).body()).at("/vmEntry/vmUUID").asText();
    }

    @Test
    void everyVrMovesToThePeersByFreeCapacityAndTheDrainedRouterTakesNoNewVrUntilOpened() throws Exception {
        Map<String, String> uuids = new HashMap<>();
        for (int n = 1; n <= 6; n++) {
            HttpResponse<String> made = create("vr" + n);
            assertThat(made.statusCode()).as(made.body()).isEqualTo(201);
            uuids.put("vr" + n, uuid(restA, json.readTree(made.body()).get("vmIndex").asInt()));
        }
        List<VrEvent> onA = new CopyOnWriteArrayList<>();
        HttpResponse<String> r;
        try (AutoCloseable sa = a.service().events().subscribe(onA::add)) {
            r = restA.post("/api/v1/drain?wait=60s", INP, JSON, "{}");
        }
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode report = json.readTree(r.body());
        assertThat(report.get("drained").asBoolean()).isTrue();
        assertThat(report.get("draining").asBoolean()).isFalse();
        assertThat(report.get("total").asInt()).isEqualTo(6);
        assertThat(report.get("moved").asInt()).isEqualTo(6);
        assertThat(report.get("notMoved").asInt()).isZero();
        Map<String, Integer> perPeer = new HashMap<>();
        for (JsonNode vr : report.get("routers")) {
            String peer = vr.get("peer").asText();
            perPeer.merge(peer, 1, Integer::sum);
            RestClient there = new RestClient((peer.equals("b") ? b : c).port());
            JsonNode onPeer = json.readTree(there.get("/api/v1/routers/" + vr.get("peerIndex").asInt(), INP, JSON).body());
            assertThat(onPeer.get("vmName").asText()).isEqualTo(vr.get("vmName").asText());
            assertThat(onPeer.at("/vmEntry/vmUUID").asText()).as("its identity").isEqualTo(uuids.get(vr.get("vmName").asText()));
        }
        // c (4096 MiB free) takes 4 until it has no more room than b (2048); then b (as much room, fewer VRs), then c (more room)
        assertThat(perPeer).isEqualTo(Map.of("c", 5, "b", 1));
        assertThat(a.service().indices()).isEmpty();
        // the progress on the events: each VR migrating, then its deletion saying where it went and how far the drain is
        assertThat(onA).filteredOn(e -> e.type == VrEvent.Type.DELETED).extracting(e -> e.reason)
                .hasSize(6).allMatch(reason -> reason.matches("moved to peer [bc] \\(vmIndex [0-9]+ there\\); drain [1-6] of 6"));

        // drained: no new VR, however asked, until opened; /health and GET /drain say so
        HttpResponse<String> refused = create("new");
        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(409);
        assertThat(json.readTree(refused.body()).get("detail").asText()).contains("this router is drained")
                .contains("takes no new VRs until it is opened again");
        HttpResponse<String> restore = restA.post("/api/v1/backup", INP, JSON,
                "{\"format\":1,\"routers\":[{\"vmIndex\":40,\"vmName\":\"restored\"}]}");
        assertThat(restore.statusCode()).as(restore.body()).isEqualTo(409);
        HttpResponse<String> incoming = restA.post("/api/v1/migrations?wait=10s", INP, JSON,
                "{\"format\":1,\"routers\":[{\"vmIndex\":41,\"vmName\":\"incoming\"}]}");
        assertThat(incoming.statusCode()).as(incoming.body()).isEqualTo(409);
        assertThat(restore.body()).contains("this router is drained");
        assertThat(incoming.body()).contains("this router is drained");
        assertThat(json.readTree(restA.get("/health", null, JSON).body()).get("drained").asBoolean()).isTrue();
        assertThat(json.readTree(restA.get("/api/v1/drain", INP, JSON).body()).get("drained").asBoolean()).isTrue();
        // drained with nothing left: a second drain is refused
        HttpResponse<String> again = restA.post("/api/v1/drain", INP, JSON, "{}");
        assertThat(again.statusCode()).as(again.body()).isEqualTo(409);
        assertThat(json.readTree(again.body()).get("detail").asText()).contains("drained already");

        HttpResponse<String> open = restA.post("/api/v1/open", INP, JSON, "");
        assertThat(open.statusCode()).as(open.body()).isEqualTo(200);
        assertThat(json.readTree(open.body()).get("drained").asBoolean()).isFalse();
        assertThat(create("new").statusCode()).isEqualTo(201);
        assertThat(json.readTree(restA.get("/health", null, JSON).body()).get("drained").asBoolean()).isFalse();
    }

    @Test
    void badDrainsAreRefusedWithNothingChanged() throws Exception {
        assertThat(create("stays").statusCode()).isEqualTo(201);
        List<String> refusals = new ArrayList<>();
        for (Object[] bad : new Object[][] {
            {INP, "{\"peers\":[\"b\",\"nope\"]}", 400},
            {RestTenantsTest.ALICE, "{}", 403},
            {INP, "{\"peers\":\"b\"}", 400}}) {
            HttpResponse<String> r = restA.post("/api/v1/drain", (String) bad[0], JSON, (String) bad[1]);
            assertThat(r.statusCode()).as(r.body()).isEqualTo(bad[2]);
            refusals.add(r.body());
            assertThat(a.service().drainedSince()).isEmpty();
            assertThat(a.service().indices()).hasSize(1);
        }
        assertThat(refusals.get(0)).contains("'nope' is no peer of this router (its peers: b, c)");
        assertThat(restA.post("/api/v1/open", RestTenantsTest.ALICE, JSON, "").statusCode()).isEqualTo(403);
        assertThat(restA.get("/api/v1/drain", RestTenantsTest.ALICE, JSON).statusCode()).isEqualTo(403);
        // a router without peers has nowhere to drain to
        try (RestServer alone = RestServer.start("vrouter-drain-alone", Map.of("user.inp", "operator:inp"))) {
            HttpResponse<String> r = new RestClient(alone.port()).post("/api/v1/drain", INP, JSON, "{}");
            assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
            assertThat(r.body()).contains("no peers");
            assertThat(alone.service().drainedSince()).isEmpty();
        }
    }

    @Test
    void aVrNoPeerTakesStaysAndIsReported() throws Exception {
        // the peers have 2048 and 4096 MiB: a VR of 8192 fits on neither, so both refuse it and it stays here
        HttpResponse<String> big = restA.post("/api/v1/routers?wait=10s", INP, JSON, "{\"vmName\":\"big\",\"vmConfigMemory\":8192}");
        assertThat(big.statusCode()).as(big.body()).isEqualTo(201);
        assertThat(create("small").statusCode()).isEqualTo(201);
        HttpResponse<String> r = restA.post("/api/v1/drain?wait=60s", INP, JSON, "{\"peers\":[\"b\"]}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode report = json.readTree(r.body());
        assertThat(report.get("moved").asInt()).isEqualTo(1);
        assertThat(report.get("notMoved").asInt()).isEqualTo(1);
        JsonNode bigOutcome = report.get("routers").get(0);
        assertThat(bigOutcome.get("vmName").asText()).isEqualTo("big");
        assertThat(bigOutcome.get("problem").asText()).contains("peer b refused the VR").contains("stays here");
        assertThat(report.get("routers").get(1).get("peer").asText()).as("only the peer named").isEqualTo("b");
        assertThat(a.service().get(json.readTree(big.body()).get("vmIndex").asInt()).orElseThrow().vmEntry.vmOperState)
                .isEqualTo(io.vrouter.core.model.OperState.RUNNING);
        // drained with a VR left: a drain again may move it (here to c, named now, which refuses it too)
        HttpResponse<String> again = restA.post("/api/v1/drain?wait=60s", INP, JSON, "{\"peers\":[\"c\"]}");
        assertThat(again.statusCode()).as(again.body()).isEqualTo(200);
        assertThat(json.readTree(again.body()).get("notMoved").asInt()).isEqualTo(1);
    }
}
