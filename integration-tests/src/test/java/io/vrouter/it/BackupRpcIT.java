package io.vrouter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
 * vrouter-migration's backup and restore (docs/adr/0023-backup-restore-and-migration.md) on a server as
 * bin/vrouter starts it: the document over NETCONF (ncclient) and RESTCONF is REST's GET /api/v1/backup;
 * a VR removed, then restored over NETCONF from that document (made again, the other present), and the
 * same restore over RESTCONF makes nothing; a document that is no backup, or of a later format, is
 * invalid-value, and a tenant's operator is access-denied, each with nothing changed.
 */
class BackupRpcIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SCRIPT = "src/test/python/migration_scenarios.py";
    private final HttpClient http = HttpClient.newHttpClient();

    @TempDir
    Path dir;

    @Test
    void aBackupOverNetconfAndRestconfIsRestsAndRestoresWhatIsMissing() throws Exception {
        Path config = dir.resolve("server.properties");
        Files.write(config, List.of("user.admin = operator:admin", "tenant.acme = vrs=2",
                "user.alice = operator@acme:alice-secret"));
        try (ServerProcess s = ServerProcess.start(dir.resolve("s"), "--config", config.toString())) {
            HttpResponse<String> made = s.post("/api/v1/routers/batch?wait=30s", """
                    {"virtualRouter":[
                     {"vmIndex":4,"vmName":"edge","vmConfigCpuNumber":2,"vmConfigDescription":"edge router","vmNetworkConfigTable":[
                       {"vmNetworkConfigIndex":1,"vmNetworkConfigParent":"br0","vmNetworkConfigAddressType":"ipv4",
                        "vmNetworkConfigAddress":"192.0.2.4","vmNetworkConfigPrefixLength":24,"vmNetworkConfigRateIn":20000}]},
                     {"vmIndex":7,"vmName":"core","vmConfigTenant":"acme"}]}
                    """);
            assertThat(made.statusCode()).as(made.body()).isEqualTo(201);

            // The same document on REST, NETCONF and RESTCONF (but when it was taken).
            JsonNode rest = JSON.readTree(s.get("/api/v1/backup").body());
            JsonNode viaNetconf = JSON.readTree(netconf(s, "backup").get("document").asText());
            HttpResponse<String> rc = restconf(s, "admin:admin", "vrouter-migration:backup", null);
            assertThat(rc.statusCode()).as(rc.body()).isEqualTo(200);
            JsonNode viaRestconf = JSON.readTree(JSON.readTree(rc.body()).at("/vrouter-migration:output/document").asText());
            assertThat(untimed(viaNetconf)).isEqualTo(untimed(rest));
            assertThat(untimed(viaRestconf)).isEqualTo(untimed(rest));
            assertThat(rest.get("routers")).hasSize(2);
            assertThat(restconf(s, "admin:admin", null, null).body()).contains("vrouter-migration:backup",
                    "vrouter-migration:restore");

            // Refusals, nothing changed: no backup, a later format, a tenant's operator.
            Path file = dir.resolve("backup.json");
            Files.writeString(file, viaNetconf.toString());
            HttpResponse<String> notABackup = restconf(s, "admin:admin", "vrouter-migration:restore",
                    "{\"vrouter-migration:input\":{\"document\":\"not json\"}}");
            assertThat(notABackup.statusCode()).as(notABackup.body()).isEqualTo(400);
            assertThat(notABackup.body()).contains("invalid-value", "a backup is a JSON object");
            Path later = dir.resolve("later.json");
            Files.writeString(later, ((ObjectNode) viaNetconf.deepCopy()).put("format", 99).toString());
            JsonNode laterFormat = netconf(s, "restore", "--file", later.toString()).get("error");
            assertThat(laterFormat.get("tag").asText()).isEqualTo("invalid-value");
            assertThat(laterFormat.get("message").asText()).contains("format 99");
            JsonNode tenant = netconf(s, "restore", "--file", file.toString(), "--user", "alice", "--password",
                    "alice-secret").get("error");
            assertThat(tenant.get("tag").asText()).isEqualTo("access-denied");
            HttpResponse<String> tenantBackup = restconf(s, "alice:alice-secret", "vrouter-migration:backup", null);
            assertThat(tenantBackup.statusCode()).as(tenantBackup.body()).isEqualTo(403);
            assertThat(tenantBackup.body()).contains("access-denied", "only the provider's users");

            // One VR gone; the NETCONF restore makes it again, waiting until it is up.
            assertThat(s.delete("/api/v1/routers/4?wait=30s").statusCode()).isIn(200, 204);
            JsonNode restored = netconf(s, "restore", "--file", file.toString(), "--wait", "60");
            assertThat(restored.get("created").asInt()).as(restored.toString()).isEqualTo(1);
            assertThat(restored.get("done").asText()).isEqualTo("true");
            assertThat(outcomes(restored.get("routers"))).containsExactly("edge 4->4 created", "core 7->7 present");
            JsonNode edge = JSON.readTree(s.get("/api/v1/routers/4").body());
            assertThat(edge.get("vmConfigDescription").asText()).isEqualTo("edge router");
            assertThat(edge.at("/vmEntry/vmOperState").asText()).isEqualTo("running");
            assertThat(untimed(JSON.readTree(s.get("/api/v1/backup").body()))).as("as backed up").isEqualTo(untimed(rest));

            // Again over RESTCONF: nothing is missing, nothing is made.
            ObjectNode input = JSON.createObjectNode();
            input.putObject("vrouter-migration:input").put("document", viaNetconf.toString()).put("wait", 30);
            HttpResponse<String> again = restconf(s, "admin:admin", "vrouter-migration:restore", input.toString());
            assertThat(again.statusCode()).as(again.body()).isEqualTo(200);
            JsonNode output = JSON.readTree(again.body()).get("vrouter-migration:output");
            assertThat(output.get("created").asInt()).isZero();
            assertThat(output.get("done").asBoolean()).isTrue();
            assertThat(outcomes(output.get("router"))).containsExactly("edge 4->4 present", "core 7->7 present");
        }
    }

    /** The document without when it was taken. */
    private static JsonNode untimed(JsonNode backup) {
        ObjectNode b = backup.deepCopy();
        b.remove("taken");
        return b;
    }

    private static List<String> outcomes(JsonNode routers) {
        List<String> out = new ArrayList<>();
        routers.forEach(r -> out.add(r.get("vmName").asText() + " " + r.get("backed-up-index").asText() + "->"
                + r.get("vmIndex").asText() + " " + r.get("action").asText()));
        return out;
    }

    private static JsonNode netconf(ServerProcess server, String scenario, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("python3", SCRIPT, scenario, "--port", Integer.toString(server.netconfPort)));
        cmd.addAll(List.of(args));
        ServerProcess.Result r = ServerProcess.run(cmd);
        assertThat(r.exit()).as(r.toString()).isZero();
        String[] lines = r.out().strip().split("\n");
        return JSON.readTree(lines[lines.length - 1]);
    }

    /** POST of an operation (GET of /restconf/operations when none is named). */
    private HttpResponse<String> restconf(ServerProcess server, String credentials, String operation, String body)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(server.restBase() + "/restconf/operations"
                        + (operation == null ? "" : "/" + operation))).timeout(Duration.ofSeconds(90))
                .header("Accept", "application/yang-data+json").header("Authorization", "Basic "
                        + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8)));
        if (operation == null) {
            b.GET();
        } else {
            b.POST(body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
            if (body != null) b.header("Content-Type", "application/yang-data+json");
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
