package io.vrouter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Drain (docs/adr/0023-backup-restore-and-migration.md) on three servers as bin/vrouter starts them: A
 * with 20 VRs drains to its peers B and C; afterwards every VR runs on one of them with its row and
 * vmUUID, none is left on A; A refuses a new VR while drained, also after a restart, and takes one once
 * opened. Bad requests (a peer that is none, a drain of a router drained with nothing left) change nothing.
 * Then the same over NETCONF (ncclient) and RESTCONF: vrouter-migration's drain and open.
 */
class DrainIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int VRS = 20;

    @TempDir
    Path dir;

    @Test
    void aRouterOfTwentyVrsDrainsToTwoPeersAndTakesNoNewVrUntilOpened() throws Exception {
        Path peerConfig = dir.resolve("peer.properties");
        Files.write(peerConfig, List.of("user.admin = operator:admin"));
        try (ServerProcess b = ServerProcess.start(dir.resolve("b"), "--config", peerConfig.toString());
             ServerProcess c = ServerProcess.start(dir.resolve("c"), "--config", peerConfig.toString())) {
            Path configA = dir.resolve("a.properties");
            Files.write(configA, List.of("user.admin = operator:admin",
                    "peer.b = " + b.restBase(), "peer.b.user = admin", "peer.b.password = admin",
                    "peer.c = " + c.restBase(), "peer.c.user = admin", "peer.c.password = admin"));
            try (ServerProcess a = ServerProcess.start(dir.resolve("a"), "--config", configA.toString())) {
                Map<String, String> rows = new HashMap<>();
                Map<String, String> uuids = new HashMap<>();
                for (int n = 1; n <= VRS; n++) {
                    String name = "vr" + n;
                    HttpResponse<String> made = a.post("/api/v1/routers?wait=30s", "{\"vmName\":\"" + name + "\","
                            + "\"vmConfigDescription\":\"drained " + n + "\",\"vmConfigMemory\":" + (128 * (1 + n % 3)) + ","
                            + "\"vmNetworkConfigTable\":[{\"vmNetworkConfigIndex\":1,\"vmNetworkConfigParent\":\"br0\","
                            + "\"vmNetworkConfigPhysAddress\":\"02:00:5e:00:54:" + String.format("%02x", n) + "\","
                            + "\"vmNetworkConfigAddressType\":\"ipv4\",\"vmNetworkConfigAddress\":\"192.0.2." + n + "\","
                            + "\"vmNetworkConfigPrefixLength\":24,\"vmNetworkConfigRateIn\":" + (1000 * n) + "}]}");
                    assertThat(made.statusCode()).as(made.body()).isEqualTo(201);
                    JsonNode vr = JSON.readTree(made.body());
                    rows.put(name, row(vr));
                    uuids.put(name, vr.at("/vmEntry/vmUUID").asText());
                }

                // bad input first: nothing changes
                HttpResponse<String> noPeer = a.post("/api/v1/drain", "{\"peers\":[\"b\",\"nope\"]}");
                assertThat(noPeer.statusCode()).as(noPeer.body()).isEqualTo(400);
                assertThat(noPeer.body()).contains("'nope' is no peer of this router (its peers: b, c)");
                assertThat(JSON.readTree(a.get("/api/v1/drain").body()).get("drained").asBoolean()).isFalse();

                HttpResponse<String> drained = a.post("/api/v1/drain?wait=5m", "{}");
                assertThat(drained.statusCode()).as(drained.body()).isEqualTo(200);
                JsonNode report = JSON.readTree(drained.body());
                assertThat(report.get("moved").asInt()).as(report.toString()).isEqualTo(VRS);
                assertThat(report.get("notMoved").asInt()).isZero();
                assertThat(JSON.readTree(a.get("/api/v1/routers").body()).path("virtualRouter")).as("none left on A").isEmpty();
                Map<String, Integer> perPeer = new HashMap<>();
                for (JsonNode moved : report.get("routers")) {
                    String name = moved.get("vmName").asText();
                    ServerProcess there = moved.get("peer").asText().equals("b") ? b : c;
                    perPeer.merge(moved.get("peer").asText(), 1, Integer::sum);
                    JsonNode vr = there.router(moved.get("peerIndex").asInt());
                    assertThat(vr.get("vmName").asText()).isEqualTo(name);
                    assertThat(row(vr)).as(name + "'s row").isEqualTo(rows.get(name));
                    assertThat(vr.at("/vmEntry/vmUUID").asText()).as(name + "'s identity").isEqualTo(uuids.get(name));
                    assertThat(ServerProcess.operState(vr)).isEqualTo("running");
                }
                // hosts without limits: the one with fewer VRs takes the next, so they share the 20
                assertThat(perPeer).isEqualTo(Map.of("b", VRS / 2, "c", VRS / 2));

                // drained: a creation is refused, also after a restart; a drain with nothing left too
                assertRefused(a);
                a.restart();
                assertThat(JSON.readTree(a.get("/health").body()).get("drained").asBoolean()).as("drained across a restart").isTrue();
                assertRefused(a);
                HttpResponse<String> again = a.post("/api/v1/drain", "{}");
                assertThat(again.statusCode()).as(again.body()).isEqualTo(409);
                assertThat(again.body()).contains("drained already");

                HttpResponse<String> open = a.post("/api/v1/open", "");
                assertThat(open.statusCode()).as(open.body()).isEqualTo(200);
                HttpResponse<String> made = a.post("/api/v1/routers?wait=30s", "{\"vmName\":\"after-open\"}");
                assertThat(made.statusCode()).as(made.body()).isEqualTo(201);
                assertThat(JSON.readTree(a.get("/health").body()).get("drained").asBoolean()).isFalse();

                // The same over RESTCONF and NETCONF: vrouter-migration's drain and open, answered at the end.
                assertThat(MigrationRpcIT.restconf(a, "GET", "/restconf/operations", null).body())
                        .contains("vrouter-migration:drain", "vrouter-migration:open");
                HttpResponse<String> rcNoPeer = MigrationRpcIT.restconf(a, "POST", "/restconf/operations/vrouter-migration:drain",
                        "{\"vrouter-migration:input\":{\"peer\":[\"nope\"]}}");
                assertThat(rcNoPeer.statusCode()).as(rcNoPeer.body()).isEqualTo(400);
                assertThat(rcNoPeer.body()).contains("invalid-value", "'nope' is no peer of this router");
                JsonNode viaNetconf = MigrationRpcIT.ncclient(a, "drain", "--peer", "c");
                assertThat(viaNetconf.get("drained").asText()).as(viaNetconf.toString()).isEqualTo("true");
                assertThat(viaNetconf.get("moved").asText()).isEqualTo("1");
                JsonNode onlyVr = viaNetconf.get("routers").get(0);
                assertThat(onlyVr.get("vmName").asText()).isEqualTo("after-open");
                assertThat(onlyVr.get("peer").asText()).isEqualTo("c");
                assertThat(c.router(Integer.parseInt(onlyVr.get("peer-index").asText())).get("vmName").asText()).isEqualTo("after-open");
                assertRefused(a);
                JsonNode drainedAlready = MigrationRpcIT.ncclient(a, "drain").get("error");
                assertThat(drainedAlready.get("tag").asText()).as(drainedAlready.toString()).isEqualTo("operation-failed");
                assertThat(drainedAlready.get("message").asText()).contains("drained already");
                HttpResponse<String> rcOpen = MigrationRpcIT.restconf(a, "POST", "/restconf/operations/vrouter-migration:open", null);
                assertThat(rcOpen.statusCode()).as(rcOpen.body()).isEqualTo(200);
                assertThat(JSON.readTree(rcOpen.body()).at("/vrouter-migration:output/drained").asBoolean()).isFalse();
                assertThat(a.post("/api/v1/routers?wait=30s", "{\"vmName\":\"opened-by-restconf\"}").statusCode()).isEqualTo(201);
            }
        }
    }

    private static void assertRefused(ServerProcess a) throws Exception {
        HttpResponse<String> refused = a.post("/api/v1/routers", "{\"vmName\":\"while-drained\"}");
        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(409);
        assertThat(refused.body()).contains("this router is drained");
    }

    /** The VR's configured row, without its vmIndex and what the host reports. */
    private static String row(JsonNode vr) {
        ObjectNode row = (ObjectNode) vr.deepCopy();
        row.remove(List.of("vmIndex", "vmEntry", "vmNetworkTable", "vmCpuTable", "vmStorageTable"));
        return row.toString();
    }
}
