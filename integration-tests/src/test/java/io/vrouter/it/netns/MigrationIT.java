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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
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
 * leave both routers as they were; then a VR with a host behind it moves from A to B with its row, is
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
    TestHost host;
    final String[] routerNs = new String[2];
    final String[] mgmt = {"198.51.100.249", "198.51.100.253"};
    final ServerProcess[] routers = new ServerProcess[2];
    final String[] vrPrefix = new String[2];
    final List<String> hosts = new ArrayList<>();
    Process forwarder;

    @BeforeAll
    void twoRouters() throws Exception {
        host = new TestHost();
        String p = host.prefix;
        for (int r = 0; r < 2; r++) {
            String side = r == 0 ? "a" : "b";
            routerNs[r] = p + "r" + side;
            vrPrefix[r] = p + side;
            TestHost.ok("ip", "netns", "add", routerNs[r]);
            TestHost.ok("ip", "-n", routerNs[r], "link", "set", "dev", "lo", "up");
            String here = p + "m" + side;
            TestHost.ok("ip", "link", "add", here, "type", "veth", "peer", "name", "mgmt0", "netns", routerNs[r]);
            TestHost.ok("ip", "addr", "add", (r == 0 ? "198.51.100.250" : "198.51.100.254") + "/30", "dev", here);
            TestHost.ok("ip", "link", "set", "dev", here, "up");
            TestHost.ok("ip", "-n", routerNs[r], "addr", "add", mgmt[r] + "/30", "dev", "mgmt0");
            TestHost.ok("ip", "-n", routerNs[r], "link", "set", "dev", "mgmt0", "up");
        }
        TestHost.ok("ip", "link", "add", p + "ua", "netns", routerNs[0], "type", "veth", "peer", "name", p + "ub", "netns", routerNs[1]);
        for (int r = 0; r < 2; r++) {
            String ul = p + (r == 0 ? "ua" : "ub");
            TestHost.ok("ip", "-n", routerNs[r], "link", "set", "dev", ul, "name", "underlay0");
            TestHost.ok("ip", "-n", routerNs[r], "addr", "add", "203.0.113." + (r + 1) + "/30", "dev", "underlay0");
            TestHost.ok("ip", "-n", routerNs[r], "link", "set", "dev", "underlay0", "up");
        }
        // B first (A's settings name its port); B declares no tenant acme.
        routers[1] = start(1, "user.admin = operator:admin");
        forwarder = new ProcessBuilder("ip", "netns", "exec", routerNs[1], "python3", "src/test/python/tcp_forward.py",
                "203.0.113.2", Integer.toString(PEER_PORT), mgmt[1], Integer.toString(routers[1].restPort)).start();
        String ready = new BufferedReader(new InputStreamReader(forwarder.getInputStream(), StandardCharsets.UTF_8)).readLine();
        assertThat(ready).as("the forwarder to B's REST").isEqualTo("listening");
        String peer = "http://203.0.113.2:" + PEER_PORT;
        routers[0] = start(0, "user.admin = operator:admin", "tenant.acme = vrs=5",
                "peer.b = " + peer, "peer.b.user = admin", "peer.b.password = admin",
                "peer.wrong = " + peer, "peer.wrong.user = admin", "peer.wrong.password = not-admin",
                "peer.dead = http://203.0.113.2:9", "peer.dead.user = admin", "peer.dead.password = admin");
    }

    private ServerProcess start(int r, String... settings) throws Exception {
        Path conf = dir.resolve("router-" + r + ".properties");
        List<String> lines = new ArrayList<>(List.of("netns.prefix = " + vrPrefix[r], "netns.run-dir = " + dir.resolve("run-" + r),
                "netns.refresh-delay = 50ms", "snmp.community.read = public", "snmp.community.write = private"));
        lines.addAll(List.of(settings));
        Files.writeString(conf, String.join("\n", lines) + "\n");
        return ServerProcess.startIn(routerNs[r], mgmt[r], dir.resolve("router-" + r), "--driver", "netns",
                "--config", conf.toString(), "--gnmi-port", "off");
    }

    @AfterAll
    void removeEverything() throws Exception {
        try {
            if (forwarder != null) forwarder.destroy();
            for (String ns : hosts) TestHost.sh("ip", "netns", "del", ns);
            for (ServerProcess r : routers) {
                if (r == null) continue;
                for (JsonNode vr : JSON.readTree(r.get("/api/v1/routers").body()).path("virtualRouter")) {
                    r.delete("/api/v1/routers/" + vr.path("vmIndex").asInt() + "?wait=30s");
                }
                r.close();
            }
        } finally {
            for (String side : List.of("a", "b")) TestHost.sh("ip", "link", "del", "dev", host.prefix + "m" + side);
            for (String ns : routerNs) if (ns != null) TestHost.sh("ip", "netns", "del", ns);
            host.close();
        }
        assertThat(host.leftovers(dir.resolve("run-0"))).as("left on the host").isEmpty();
        assertThat(host.leftovers(dir.resolve("run-1"))).as("left on the host").isEmpty();
    }

    /** A host namespace on the router's bridge, its address and default route given. */
    private String hostBehind(int r, String bridge, String address, String gateway) throws Exception {
        String ns = host.prefix + "h" + (hosts.size() + 1);
        TestHost.ok("ip", "netns", "add", ns);
        hosts.add(ns);
        TestHost.ok("ip", "link", "add", ns + "x", "netns", routerNs[r], "type", "veth", "peer", "name", "eth0", "netns", ns);
        TestHost.ok("ip", "-n", routerNs[r], "link", "set", "dev", ns + "x", "master", bridge, "up");
        TestHost.ok("ip", "-n", ns, "addr", "add", address, "dev", "eth0");
        TestHost.ok("ip", "-n", ns, "link", "set", "dev", "eth0", "up");
        TestHost.ok("ip", "-n", ns, "link", "set", "dev", "lo", "up");
        TestHost.ok("ip", "-n", ns, "route", "add", "default", "via", gateway);
        return ns;
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
        return routers[0].post("/api/v1/routers/" + vmIndex + "/migrate", "{\"peer\":\"" + peer + "\"}");
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
        String bridge = host.prefix + "l";
        int i = create(0, "{\"vmIndex\":3,\"vmName\":\"mover\",\"vmConfigTemplate\":\"kernel\",\"vmConfigDescription\":\"moves to B\","
                + "\"vmConfigCpuWeight\":300,\"vmNetworkConfigTable\":[{\"vmNetworkConfigIndex\":1,\"vmNetworkConfigParent\":\"" + bridge
                + "\",\"vmNetworkConfigPhysAddress\":\"02:00:5e:00:53:33\",\"vmNetworkConfigAddress\":\"192.0.2.1\","
                + "\"vmNetworkConfigPrefixLength\":24,\"vmNetworkConfigRateOut\":20000}]}");
        String hostA = hostBehind(0, bridge, "192.0.2.2/24", "192.0.2.1");
        assertThat(TestHost.sh("ip", "netns", "exec", hostA, "ping", "-c", "1", "-w", "5", "192.0.2.1").exit()).isZero();
        String row = rows(0).get("mover");
        assertThat(TestHost.ok("ip", "netns", "list")).contains(vrPrefix[0] + i);

        HttpResponse<String> moved = migrate(i, "b");
        assertThat(moved.statusCode()).as(moved.body()).isEqualTo(200);
        int there = JSON.readTree(moved.body()).get("peerIndex").asInt();
        assertThat(there).as("its vmIndex, free on B").isEqualTo(3);
        assertThat(rows(1).get("mover")).isEqualTo(row);
        JsonNode onB = routers[1].router(there);
        assertThat(ServerProcess.operState(onB)).isEqualTo("running");
        assertThat(onB.path("vmNetworkTable").get(0).path("vmNetworkPhysAddress").asText()).isEqualTo("02:00:5e:00:53:33");
        // Gone from A, its namespace with it; on B, a host behind B's bridge reaches it at its address.
        assertThat(routers[0].get("/api/v1/routers/" + i).statusCode()).isEqualTo(404);
        assertThat(TestHost.ok("ip", "netns", "list")).doesNotContain(vrPrefix[0] + i).contains(vrPrefix[1] + there);
        String hostB = hostBehind(1, bridge, "192.0.2.3/24", "192.0.2.1");
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
