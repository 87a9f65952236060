package io.vrouter.api.rest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vrouter.core.migration.FarEnds;
import io.vrouter.core.migration.PeerClient;
import io.vrouter.core.migration.Peers;
import io.vrouter.core.config.Settings;
import io.vrouter.core.model.ModelJson;
import io.vrouter.core.model.VmConfigEntry;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The far ends of a moved VR's VXLAN links (docs/adr/0023-backup-restore-and-migration.md): a peer
 * rewrites the remote of its VXLAN ends with the VNI and old remote it is told, and nothing else; the
 * source tells every peer and names the far ends none had, or that a peer refused or could not be asked
 * about; a move whose far ends cannot be told still stands. (Every server here shares this machine's
 * underlay addresses: the full way, routers with underlays of their own, is integration-tests' netns FarEndMigrationIT.)
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RestFarEndsTest {
    private static final String JSON = "application/json";
    private static final String INP = RestTenantsTest.INP;
    private final ObjectMapper json = new ObjectMapper();
    private RestServer a;
    private RestServer b;
    private RestClient restA;
    private RestClient restB;
    private int dead;

    @BeforeAll
    void start() throws Exception {
        b = RestServer.start("vrouter-farends-b", RestTenantsTest.TENANTS);
        try (ServerSocket s = new ServerSocket(0)) {
            dead = s.getLocalPort();
        }
        a = RestServer.start("vrouter-farends-a", Map.of("user.inp", "operator:inp",
                "peer.b", "http://127.0.0.1:" + b.port(), "peer.b.user", "inp", "peer.b.password", "inp"));
        restA = new RestClient(a.port());
        restB = new RestClient(b.port());
    }

    @AfterAll
    void stop() {
        if (a != null) a.close();
        if (b != null) b.close();
    }

    private int create(RestClient rest, String body) throws Exception {
        HttpResponse<String> r = rest.post("/api/v1/routers?wait=10s", INP, JSON, body);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        return json.readTree(r.body()).get("vmIndex").asInt();
    }

    private static String vxlan(int index, String parent, int vni, String remote) {
        return "{\"vmNetworkConfigIndex\":" + index + ",\"vmNetworkConfigLinkType\":\"vxlan\",\"vmNetworkConfigParent\":\""
                + parent + "\",\"vmNetworkConfigVni\":" + vni + ",\"vmNetworkConfigRemote\":\"" + remote + "\"}";
    }

    private String remote(RestClient rest, int vmIndex, int interfaceIndex) throws Exception {
        for (JsonNode n : json.readTree(rest.get("/api/v1/routers/" + vmIndex, INP, JSON).body()).path("vmNetworkConfigTable")) {
            if (n.path("vmNetworkConfigIndex").asInt() == interfaceIndex) return n.path("vmNetworkConfigRemote").asText();
        }
        throw new AssertionError("no interface " + interfaceIndex + " on VR " + vmIndex);
    }

    @Test
    void aPeerRewritesTheRemoteOfItsEndsWithThatVniAndRemoteAndNothingElse() throws Exception {
        int far = create(restB, "{\"vmName\":\"far\",\"vmNetworkConfigTable\":[" + vxlan(1, "lo", 77, "192.0.2.10") + ","
                + vxlan(2, "lo", 78, "192.0.2.10") + "]}");
        int elsewhere = create(restB, "{\"vmName\":\"elsewhere\",\"vmNetworkConfigTable\":[" + vxlan(1, "lo", 77, "192.0.2.11") + "]}");
        String move = "{\"underlays\":[{\"vni\":77,\"from\":\"192.0.2.10\",\"to\":\"198.51.100.10\"}]}";

        // a tenant's user may not, nor may an address be a name: nothing changes
        HttpResponse<String> tenant = restB.post(FarEnds.PATH, RestTenantsTest.ALICE, JSON, move);
        assertThat(tenant.statusCode()).as(tenant.body()).isEqualTo(403);
        HttpResponse<String> name = restB.post(FarEnds.PATH, INP, JSON, move.replace("198.51.100.10", "far.example"));
        assertThat(name.statusCode()).as(name.body()).isEqualTo(400);
        assertThat(json.readTree(name.body()).path("detail").asText()).contains("'far.example' is no IPv4 or IPv6 address");
        assertThat(remote(restB, far, 1)).isEqualTo("192.0.2.10");

        HttpResponse<String> r = restB.post(FarEnds.PATH, INP, JSON, move);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode rewritten = json.readTree(r.body()).path("rewritten");
        assertThat(rewritten).hasSize(1);
        assertThat(rewritten.get(0).path("vmName").asText()).isEqualTo("far");
        assertThat(rewritten.get(0).path("vmNetworkConfigIndex").asInt()).isEqualTo(1);
        assertThat(remote(restB, far, 1)).isEqualTo("198.51.100.10");
        assertThat(remote(restB, far, 2)).as("another VNI").isEqualTo("192.0.2.10");
        assertThat(remote(restB, elsewhere, 1)).as("another remote").isEqualTo("192.0.2.11");
        // told again, it has no such end any more
        assertThat(json.readTree(restB.post(FarEnds.PATH, INP, JSON, move).body()).path("rewritten")).isEmpty();
    }

    @Test
    void theSourceTellsEveryPeerAndNamesTheFarEndsNoneHad() throws Exception {
        // B has the far end of VNI 90 to this machine's address on one of its devices, the source's "from" there
        String[] underlay = ownUnderlay();
        String device = underlay[0];
        String address = underlay[1];
        int far = create(restB, "{\"vmName\":\"far90\",\"vmNetworkConfigTable\":[" + vxlan(1, "lo", 90, address) + "]}");
        VmConfigEntry moved = ModelJson.mapper().readValue("{\"vmIndex\":9,\"vmName\":\"moved\",\"vmNetworkConfigTable\":["
                + vxlan(1, device, 90, "192.0.2.30") + "," + vxlan(2, device, 91, "192.0.2.31") + ","
                + vxlan(3, "nosuch0", 92, "192.0.2.32") + "]}", VmConfigEntry.class);
        String destination = "{\"underlays\":[{\"vmNetworkConfigIndex\":1,\"vni\":90,\"address\":\"198.51.100.7\"},"
                + "{\"vmNetworkConfigIndex\":2,\"vni\":91,\"address\":\"198.51.100.7\"}]}";
        Map<String, PeerClient> peers = Peers.from(Settings.of(Map.of(
                "peer.b", "http://127.0.0.1:" + b.port(), "peer.b.user", "inp", "peer.b.password", "inp",
                "peer.bad", "http://127.0.0.1:" + b.port(), "peer.bad.user", "inp", "peer.bad.password", "wrong",
                "peer.gone", "http://127.0.0.1:" + dead, "peer.gone.user", "inp", "peer.gone.password", "inp"))).clients();

        List<FarEnds.FarEnd> told = FarEnds.tell(moved, destination, peers, "d");

        assertThat(told).hasSize(3);
        assertThat(told.get(0).toldOn()).containsExactly("b");
        assertThat(told.get(0).notTold()).isNull();
        assertThat(told.get(0).from()).isEqualTo(address);
        assertThat(remote(restB, far, 1)).isEqualTo("198.51.100.7");
        assertThat(told.get(1).toldOn()).isEmpty();
        assertThat(told.get(1).notTold()).contains("no peer of this router has a VR with VNI 91 to " + address,
                "peer bad refused: 401", "peer gone", "does not answer", "set vmNetworkConfigRemote 198.51.100.7 on the far end,"
                + " the router at 192.0.2.31");
        assertThat(told.get(2).notTold()).contains("this router has no address on underlay device nosuch0");
    }

    /**
     * A device of this machine and its IPv4 address, what stands for a router's underlay here: one other
     * than lo when the machine has it, else lo itself (every machine has 127.0.0.1), so the test never skips.
     */
    private static String[] ownUnderlay() throws Exception {
        String[] loopback = null;
        for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            for (InetAddress in : Collections.list(nic.getInetAddresses())) {
                if (!(in instanceof Inet4Address) || in.isLinkLocalAddress()) continue;
                if (!nic.isLoopback()) return new String[] {nic.getName(), in.getHostAddress()};
                loopback = new String[] {nic.getName(), in.getHostAddress()};
            }
        }
        assertThat(loopback).as("an IPv4 address on some device of this machine").isNotNull();
        return loopback;
    }

    @Test
    void aVxlanEndWhoseFarEndIsOnTheDestinationBecomesAPeerLinkThereAtBothEnds() throws Exception {
        String[] underlay = ownUnderlay();
        int near = create(restB, "{\"vmName\":\"near96\",\"vmNetworkConfigTable\":[" + vxlan(1, underlay[0], 96, "198.51.100.96")
                .replace("{", "{\"vmNetworkConfigPhysAddress\":\"02:00:5e:00:53:96\",") + "]}");
        // its far end, on A, points at B's (this machine's) underlay address
        int i = create(restA, "{\"vmName\":\"comes96\",\"vmNetworkConfigTable\":[" + vxlan(1, underlay[0], 96, underlay[1])
                .replace("{", "{\"vmNetworkConfigPhysAddress\":\"02:00:5e:00:53:97\",") + "]}");
        HttpResponse<String> r = restA.post("/api/v1/routers/" + i + "/migrate?wait=60s", INP, JSON, "{\"peer\":\"b\"}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode moved = json.readTree(r.body());
        JsonNode farEnd = moved.path("farEnds").get(0);
        assertThat(farEnd.path("joined").asText()).isEqualTo("a peer link with interface 1 of VR near96 (vmIndex " + near + ")");
        assertThat(farEnd.path("toldOn").toString()).isEqualTo("[\"b\"]");
        assertThat(farEnd.has("notTold")).isFalse();
        int there = moved.path("peerIndex").asInt();
        JsonNode came = json.readTree(restB.get("/api/v1/routers/" + there, INP, JSON).body()).path("vmNetworkConfigTable").get(0);
        JsonNode stayed = json.readTree(restB.get("/api/v1/routers/" + near, INP, JSON).body()).path("vmNetworkConfigTable").get(0);
        assertThat(came.path("vmNetworkConfigLinkType").asText()).isEqualTo("peer");
        assertThat(came.path("vmNetworkConfigPeerRouter").asInt()).isEqualTo(near);
        assertThat(came.has("vmNetworkConfigVni")).isFalse();
        assertThat(came.path("vmNetworkConfigPhysAddress").asText()).as("its MAC stays").isEqualTo("02:00:5e:00:53:97");
        assertThat(stayed.path("vmNetworkConfigLinkType").asText()).isEqualTo("peer");
        assertThat(stayed.path("vmNetworkConfigPeerRouter").asInt()).isEqualTo(there);
        assertThat(stayed.path("vmNetworkConfigPeerInterface").asInt()).isEqualTo(1);
    }

    @Test
    void aMoveWhoseFarEndsCannotBeToldStillStandsAndSaysSo() throws Exception {
        int i = create(restA, "{\"vmName\":\"linked\",\"vmNetworkConfigTable\":[" + vxlan(1, "lo", 95, "192.0.2.40")
                .replace("{", "{\"vmNetworkConfigPhysAddress\":\"02:00:5e:00:53:95\",") + "]}");
        HttpResponse<String> r = restA.post("/api/v1/routers/" + i + "/migrate?wait=60s", INP, JSON, "{\"peer\":\"b\"}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode farEnd = json.readTree(r.body()).path("farEnds").get(0);
        assertThat(farEnd.path("vni").asInt()).isEqualTo(95);
        // both servers are this machine: lo's address is the same on the destination
        assertThat(farEnd.path("notTold").asText()).contains("same on the destination (127.0.0.1)", "the router at 192.0.2.40");
        assertThat(restA.get("/api/v1/routers/" + i, INP, JSON).statusCode()).isEqualTo(404);
        assertThat(json.readTree(restB.get("/api/v1/routers", INP, JSON).body()).toString()).contains("\"linked\"");
    }
}
