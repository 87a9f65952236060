package io.vrouter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vrouter.it.snmp.NewVmmOids;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The history of commits and the rollback (docs/adr/0021-history-and-rollback.md) on the server as
 * bin/vrouter starts it: a rename and an interface removal rolled back over REST are read back
 * restored over REST, RESTCONF, SNMP (net-snmp's snmpget) and NETCONF (ncclient), which also read
 * the history and roll back themselves; the history survives a restart; a tenant's rollback the host
 * cannot honour (past its CPUs) changes nothing.
 */
class HistoryIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SCRIPT = "src/test/python/history_scenarios.py";
    private static final String VMNETWORK_ADDRESS = NewVmmOids.MIB + ".1.13.1.5.";
    private final HttpClient http = HttpClient.newHttpClient();

    @TempDir
    Path dir;

    @Test
    void aRenameAndAnInterfaceRemovalRolledBackReadRestoredOnEveryInterface() throws Exception {
        Path config = dir.resolve("vrouter.properties");
        Files.write(config, List.of(
                "user.admin = operator:admin",
                "user.alice = operator@acme:alice-secret",
                "tenant.acme = vrs=10",
                "snmp.community.read = public",
                // 4 CPUs times the default overcommit of 4: the VRs may commit 16 vCPUs
                "sim.host-cpus = 4",
                "history.depth = 20"));
        try (ServerProcess server = ServerProcess.start(dir.resolve("server"), "--config", config.toString())) {
            HttpResponse<String> made = server.post("/api/v1/routers?wait=30s", "{\"vmName\":\"edge\","
                    + "\"vmNetworkConfigTable\":[{\"vmNetworkConfigParent\":\"br-a\",\"vmNetworkConfigAddress\":\"192.0.2.1\"},"
                    + "{\"vmNetworkConfigParent\":\"br-b\",\"vmNetworkConfigAddress\":\"198.51.100.7\"}]}");
            assertThat(made.statusCode()).as(made.body()).isEqualTo(201);
            int vr = JSON.readTree(made.body()).get("vmIndex").asInt();
            assertThat(server.patch("/api/v1/routers/" + vr + "?wait=30s", "{\"vmName\":\"edge-renamed\"}").statusCode())
                    .isEqualTo(200);
            HttpResponse<String> removed = server.delete("/api/v1/routers/" + vr + "/interfaces/2?wait=30s");
            assertThat(removed.statusCode()).as(removed.body()).isBetween(200, 204);
            assertThat(snmpget(server, VMNETWORK_ADDRESS + vr + ".2")).contains("No Such Instance");

            // The history over REST: three commits, by admin over REST, the last the removal
            JsonNode commits = JSON.readTree(server.get("/api/v1/commits").body());
            assertThat(commits).hasSize(3);
            JsonNode removal = JSON.readTree(server.get("/api/v1/commits/3").body());
            assertThat(removal.at("/changedBy/user").asText()).isEqualTo("admin");
            assertThat(removal.at("/changedBy/interface").asText()).isEqualTo("rest");
            assertThat(removal.get("changes").toString()).contains("\"leaf\":\"vmNetworkConfigAddress\"",
                    "\"before\":\"198.51.100.7\"");
            assertThat(server.get("/api/v1/commits/99").statusCode()).isEqualTo(404);
            // ... and over NETCONF and RESTCONF, the same
            JsonNode nc = netconf(server, "commits");
            assertThat(nc.get("commits")).hasSize(3);
            assertThat(nc.at("/commits/1/changes/0/after").asText()).isEqualTo("edge-renamed");
            JsonNode rc = JSON.readTree(restconf(server, "POST", "/restconf/operations/vrouter-history:get-commits",
                    "{\"vrouter-history:input\":{\"number\":\"2\"}}").body());
            assertThat(rc.at("/vrouter-history:output/commit/0/change/0/before").asText()).isEqualTo("edge");
            assertThat(restconf(server, "GET", "/restconf/operations", null).body()).contains("vrouter-history:rollback");

            HttpResponse<String> back = server.post("/api/v1/commits/1/rollback?wait=30s", "");
            assertThat(back.statusCode()).as(back.body()).isEqualTo(200);
            assertThat(JSON.readTree(back.body()).get("commit").asInt()).isEqualTo(4);

            // Every interface reads the name and the interface back
            JsonNode rest = server.router(vr);
            assertThat(rest.get("vmName").asText()).isEqualTo("edge");
            assertThat(rest.get("vmNetworkConfigTable").findValuesAsText("vmNetworkConfigAddress"))
                    .containsExactly("192.0.2.1", "198.51.100.7");
            JsonNode viaRestconf = JSON.readTree(restconf(server, "GET",
                    "/restconf/data/NEW-VMM-MIB:NEW-VMM-MIB/vmConfigTable/vmConfigEntry=" + vr + "/vmName", null).body());
            assertThat(viaRestconf.get("NEW-VMM-MIB:vmName").asText()).isEqualTo("edge");
            assertThat(restconf(server, "GET", "/restconf/data/NEW-VMM-MIB:NEW-VMM-MIB/vmNetworkConfigTable/vmNetworkConfigEntry="
                    + vr + ",2/vmNetworkConfigAddress", null).body()).contains("198.51.100.7");
            assertThat(snmpget(server, NewVmmOids.NAME + vr)).contains("\"edge\"");
            assertThat(snmpget(server, VMNETWORK_ADDRESS + vr + ".2")).doesNotContain("No Such");
            JsonNode viaNetconf = netconf(server, "read", "--index", Integer.toString(vr));
            assertThat(viaNetconf.get("vmName").asText()).isEqualTo("edge");
            assertThat(viaNetconf.get("interfaces").findValuesAsText("address")).containsExactly("192.0.2.1", "198.51.100.7");

            // NETCONF and RESTCONF roll back too: to the removal's, then to the rollback's
            assertThat(netconf(server, "rollback", "--number", "3").get("commit").asInt()).isEqualTo(5);
            server.awaitRouter(vr, r -> r.get("vmName").asText().equals("edge-renamed"), "renamed again");
            HttpResponse<String> viaOperation = restconf(server, "POST", "/restconf/operations/vrouter-history:rollback",
                    "{\"vrouter-history:input\":{\"number\":\"4\"}}");
            assertThat(viaOperation.statusCode()).as(viaOperation.body()).isEqualTo(200);
            assertThat(viaOperation.body()).contains("\"commit\":\"6\"");
            server.awaitRouter(vr, r -> r.get("vmName").asText().equals("edge"), "back to edge");
            assertThat(netconf(server, "rollback", "--number", "99").at("/error/tag").asText()).isEqualTo("data-missing");

            // The history survives a restart
            server.restart();
            JsonNode after = JSON.readTree(server.get("/api/v1/commits").body());
            assertThat(after).hasSize(6);
            assertThat(after.get(5).get("rollbackTo").asInt()).isEqualTo(4);
            assertThat(after.get(4).at("/changedBy/interface").asText()).isEqualTo("netconf");

            // A tenant's rollback the host cannot honour changes nothing
            HttpResponse<String> big = restAs(server, "alice:alice-secret", "POST", "/api/v1/routers?wait=30s",
                    "{\"vmName\":\"big\",\"vmConfigCpuNumber\":8}");
            assertThat(big.statusCode()).as(big.body()).isEqualTo(201);
            int bigIndex = JSON.readTree(big.body()).get("vmIndex").asInt();
            int bigCommit = JSON.readTree(restAs(server, "alice:alice-secret", "GET", "/api/v1/commits", null).body())
                    .get(0).get("number").asInt();
            assertThat(restAs(server, "alice:alice-secret", "DELETE", "/api/v1/routers/" + bigIndex + "?wait=30s", null)
                    .statusCode()).isBetween(200, 204);
            HttpResponse<String> wide = server.post("/api/v1/routers?wait=30s", "{\"vmName\":\"wide\",\"vmConfigCpuNumber\":12}");
            assertThat(wide.statusCode()).as(wide.body()).isEqualTo(201);
            JsonNode aliceSees = JSON.readTree(restAs(server, "alice:alice-secret", "GET", "/api/v1/commits", null).body());
            assertThat(aliceSees).as("her commits only").hasSize(2);
            String historyBefore = server.get("/api/v1/commits").body();

            HttpResponse<String> refused = restAs(server, "alice:alice-secret", "POST",
                    "/api/v1/commits/" + bigCommit + "/rollback?wait=30s", "");
            assertThat(refused.statusCode()).as(refused.body()).isEqualTo(409);
            assertThat(refused.body()).contains("16 vCPUs");
            assertThat(server.get("/api/v1/routers?name=big").body()).doesNotContain("\"big\"");
            assertThat(server.get("/api/v1/commits").body()).isEqualTo(historyBefore);
            assertThat(restAs(server, "alice:alice-secret", "POST", "/api/v1/commits/1/rollback", "").statusCode())
                    .as("not her commit").isEqualTo(404);
        }
    }

    private static String snmpget(ServerProcess server, String oid) throws Exception {
        ServerProcess.Result r = ServerProcess.run(List.of("snmpget", "-v2c", "-c", "public", "-On", "-t", "8", "-r", "0",
                "udp:127.0.0.1:" + server.snmpPort, oid));
        return r.out() + r.err();
    }

    private static JsonNode netconf(ServerProcess server, String scenario, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("python3", SCRIPT, scenario, "--port", Integer.toString(server.netconfPort)));
        cmd.addAll(List.of(args));
        ServerProcess.Result r = ServerProcess.run(cmd);
        assertThat(r.exit()).as(r.toString()).isZero();
        String[] lines = r.out().strip().split("\n");
        return JSON.readTree(lines[lines.length - 1]);
    }

    private HttpResponse<String> restconf(ServerProcess server, String method, String path, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(server.restBase() + path)).timeout(Duration.ofSeconds(30))
                .header("Accept", "application/yang-data+json").header("Authorization", basic("admin:admin"))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) b.header("Content-Type", "application/yang-data+json");
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> restAs(ServerProcess server, String user, String method, String path, String body)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(server.restBase() + path)).timeout(Duration.ofSeconds(30))
                .header("Accept", "application/json").header("Authorization", basic(user))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) b.header("Content-Type", "application/json");
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String basic(String userAndPassword) {
        return "Basic " + Base64.getEncoder().encodeToString(userAndPassword.getBytes(StandardCharsets.UTF_8));
    }
}
