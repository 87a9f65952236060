package io.vrouter.it.netns;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vrouter.it.ServerProcess;
import io.vrouter.netns.TestHost;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * A VR moved between two routers, each a vrouter server with the netns driver in a network namespace of
 * its own (as TwoRoutersIT sets them up), A knowing B as its peer over their underlay: refusals (a name
 * taken on B, a tenant B does not declare, a peer that does not answer, a wrong password, no such peer)
 * leave both routers as they were; then a VR with a host behind it moves from A to B with its row and vmUUID, is
 * gone from A (its namespace too), and answers a host behind B at its address; last, A's whole router is
 * backed up, wiped and restored field by field.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MigrationIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** B's REST as A reaches it: B's underlay address, forwarded in B's namespace to where B listens. */
    private static final int PEER_PORT = 8443;

    @TempDir
    static Path dir;
    TwoRouterHosts two;
    ServerProcess[] routers;
    Process forwarder;

    @BeforeAll
    void twoRouters() throws Exception {
        two = new TwoRouterHosts(dir);
        routers = two.routers;
        // B first (A's settings name its port); B declares no tenant acme.
        two.start(1);
        forwarder = new ProcessBuilder("ip", "netns", "exec", two.routerNs[1], "python3", "src/test/python/tcp_forward.py",
                "203.0.113.2", Integer.toString(PEER_PORT), two.mgmt[1], Integer.toString(routers[1].restPort)).start();
        String ready = new BufferedReader(new InputStreamReader(forwarder.getInputStream(), StandardCharsets.UTF_8)).readLine();
        assertThat(ready).as("the forwarder to B's REST").isEqualTo("listening");
        String peer = "http://203.0.113.2:" + PEER_PORT;
        two.start(0, "tenant.acme = vrs=5",
                "peer.b = " + peer, "peer.b.user = admin", "peer.b.password = admin",
                "peer.wrong = " + peer, "peer.wrong.user = admin", "peer.wrong.password = not-admin",
                "peer.dead = http://203.0.113.2:9", "peer.dead.user = admin", "peer.dead.password = admin");
    }

    @AfterAll
    void removeEverything() throws Exception {
        if (forwarder != null) forwarder.destroy();
        if (two != null) two.close();
    }

    private int create(int r, String body) throws Exception {
        HttpResponse<String> created = routers[r].post("/api/v1/routers?wait=30s", body);
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        return JSON.readTree(created.body()).get("vmIndex").asInt();
    }

    /** Every VR's configured row on a router, by name, without its vmIndex and state. */
    private Map<String, String> rows(int r) throws Exception {
        Map<String, String> rows = new HashMap<>();
        for (JsonNode vr : JSON.readTree(routers[r].get("/api/v1/routers").body()).path("virtualRouter")) {
            ObjectNode row = (ObjectNode) vr.deepCopy();
            row.remove(List.of("vmIndex", "vmEntry", "vmNetworkTable", "vmCpuTable", "vmStorageTable"));
            rows.put(vr.get("vmName").asText(), row.toString());
        }
        return rows;
    }

    private HttpResponse<String> migrate(int vmIndex, String peer) throws Exception {
        return routers[0].post("/api/v1/routers/" + vmIndex + "/migrate?wait=2m", "{\"peer\":\"" + peer + "\"}");
    }

    @Test
    @Order(1)
    void aRefusedMoveLeavesBothRoutersAsTheyWere() throws Exception {
        int taken = create(0, "{\"vmName\":\"taken\",\"vmConfigTemplate\":\"kernel\"}");
        create(1, "{\"vmName\":\"taken\",\"vmConfigTemplate\":\"kernel\",\"vmConfigDescription\":\"B's own\"}");
        int acme = create(0, "{\"vmName\":\"acme-vr\",\"vmConfigTemplate\":\"kernel\",\"vmConfigTenant\":\"acme\"}");
        Map<String, String> beforeA = rows(0);
        Map<String, String> beforeB = rows(1);
        Object[][] cases = {{taken, "b", 409, "taken on this router"}, {acme, "b", 400, "acme"},
            {taken, "dead", 502, "does not answer"}, {taken, "wrong", 502, "refused this router's login as user 'admin'"},
            {taken, "nope", 400, "'nope' is no peer of this router"}};
        for (Object[] c : cases) {
            HttpResponse<String> r = migrate((Integer) c[0], (String) c[1]);
            assertThat(r.statusCode()).as(c[1] + ": " + r.body()).isEqualTo(c[2]);
            assertThat(JSON.readTree(r.body()).path("detail").asText()).contains((String) c[3]);
            assertThat(rows(0)).isEqualTo(beforeA);
            assertThat(rows(1)).isEqualTo(beforeB);
            assertThat(ServerProcess.operState(routers[0].router((Integer) c[0]))).isEqualTo("running");
        }
        for (int r = 0; r < 2; r++) {
            for (JsonNode vr : JSON.readTree(routers[r].get("/api/v1/routers").body()).path("virtualRouter")) {
                assertThat(routers[r].delete("/api/v1/routers/" + vr.path("vmIndex").asInt() + "?wait=30s").statusCode()).isEqualTo(204);
            }
        }
    }

    @Test
    @Order(2)
    void aVrMovesToThePeerWithItsRowAndIsGoneFromTheSource() throws Exception {
        String bridge = two.host.prefix + "l";
        int i = create(0, "{\"vmIndex\":3,\"vmName\":\"mover\",\"vmConfigTemplate\":\"kernel\",\"vmConfigDescription\":\"moves to B\","
                + "\"vmConfigCpuWeight\":300,\"vmNetworkConfigTable\":[{\"vmNetworkConfigIndex\":1,\"vmNetworkConfigParent\":\"" + bridge
                + "\",\"vmNetworkConfigPhysAddress\":\"02:00:5e:00:53:33\",\"vmNetworkConfigAddress\":\"192.0.2.1\","
                + "\"vmNetworkConfigPrefixLength\":24,\"vmNetworkConfigRateOut\":20000}]}");
        String hostA = two.hostBehind(0, bridge, "192.0.2.2/24", "192.0.2.1");
        assertThat(TestHost.sh("ip", "netns", "exec", hostA, "ping", "-c", "1", "-w", "5", "192.0.2.1").exit()).isZero();
        String row = rows(0).get("mover");
        String uuid = routers[0].router(i).path("vmEntry").path("vmUUID").asText();
        assertThat(TestHost.ok("ip", "netns", "list")).contains(two.vrPrefix[0] + i);

        long began = System.nanoTime();
        HttpResponse<String> moved = migrate(i, "b");
        assertThat(moved.statusCode()).as(moved.body()).isEqualTo(200);
        // For the report: the move's time, from the request to B's copy up and A's gone.
        System.out.printf("MigrationIT: one netns VR moved from A to B in %d ms%n", (System.nanoTime() - began) / 1_000_000);
        int there = JSON.readTree(moved.body()).get("peerIndex").asInt();
        assertThat(there).as("its vmIndex, free on B").isEqualTo(3);
        assertThat(rows(1).get("mover")).isEqualTo(row);
        JsonNode onB = routers[1].router(there);
        assertThat(ServerProcess.operState(onB)).isEqualTo("running");
        assertThat(onB.path("vmEntry").path("vmUUID").asText()).as("its identity").isEqualTo(uuid);
        assertThat(onB.path("vmNetworkTable").get(0).path("vmNetworkPhysAddress").asText()).isEqualTo("02:00:5e:00:53:33");
        // Gone from A, its namespace with it; on B, a host behind B's bridge reaches it at its address.
        assertThat(routers[0].get("/api/v1/routers/" + i).statusCode()).isEqualTo(404);
        assertThat(TestHost.ok("ip", "netns", "list")).doesNotContain(two.vrPrefix[0] + i).contains(two.vrPrefix[1] + there);
        String hostB = two.hostBehind(1, bridge, "192.0.2.3/24", "192.0.2.1");
        assertThat(TestHost.sh("ip", "netns", "exec", hostB, "ping", "-c", "1", "-w", "5", "192.0.2.1").exit()).isZero();
        assertThat(TestHost.sh("ip", "netns", "exec", hostA, "ping", "-c", "1", "-w", "2", "192.0.2.1").exit()).isNotZero();
    }

    @Test
    @Order(3)
    void aRouterBackedUpWipedAndRestoredHoldsTheSameRows() throws Exception {
        // Two VRs of acme's on a peer link, made together (each names the other).
        HttpResponse<String> made = routers[0].post("/api/v1/routers/batch?wait=30s", "{\"virtualRouter\":["
                + "{\"vmIndex\":10,\"vmName\":\"left\",\"vmConfigTemplate\":\"kernel\",\"vmConfigTenant\":\"acme\",\"vmConfigCpuWeight\":50,"
                + "\"vmNetworkConfigTable\":[{\"vmNetworkConfigIndex\":1,\"vmNetworkConfigLinkType\":\"peer\","
                + "\"vmNetworkConfigPeerRouter\":11,\"vmNetworkConfigPeerInterface\":1}]},"
                + "{\"vmIndex\":11,\"vmName\":\"right\",\"vmConfigTemplate\":\"kernel\",\"vmConfigTenant\":\"acme\",\"vmAdminState\":\"shutdown\","
                + "\"vmNetworkConfigTable\":[{\"vmNetworkConfigIndex\":1,\"vmNetworkConfigLinkType\":\"peer\","
                + "\"vmNetworkConfigPeerRouter\":10,\"vmNetworkConfigPeerInterface\":1,\"vmNetworkConfigRateOut\":8000}]}]}");
        assertThat(made.statusCode()).as(made.body()).isEqualTo(201);
        Map<String, String> before = rows(0);
        HttpResponse<String> saved = routers[0].get("/api/v1/backup");
        assertThat(saved.statusCode()).as(saved.body()).isEqualTo(200);
        for (JsonNode vr : JSON.readTree(routers[0].get("/api/v1/routers").body()).path("virtualRouter")) {
            assertThat(routers[0].delete("/api/v1/routers/" + vr.path("vmIndex").asInt() + "?wait=30s").statusCode()).isEqualTo(204);
        }
        assertThat(rows(0)).isEmpty();
        HttpResponse<String> restored = routers[0].post("/api/v1/backup?wait=30s", saved.body());
        assertThat(restored.statusCode()).as(restored.body()).isEqualTo(200);
        assertThat(JSON.readTree(restored.body()).get("created").asInt()).isEqualTo(2);
        assertThat(rows(0)).isEqualTo(before);
        assertThat(ServerProcess.operState(routers[0].router(10))).isEqualTo("running");
        assertThat(ServerProcess.operState(routers[0].router(11))).isEqualTo("shutdown");
    }
}
