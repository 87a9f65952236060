package io.vrouter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * vrouter-migration's migrate (docs/adr/0023-backup-restore-and-migration.md) on two servers as
 * bin/vrouter starts them, A knowing B as peer b: one VR moved over NETCONF (ncclient), another over
 * RESTCONF, each then on B under its name and gone from A; a peer that is none, and a VR that is none,
 * refused in each protocol's terms with nothing changed; a VR migrating already (its move asked over
 * REST), refused as in-use.
 */
class MigrationRpcIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SCRIPT = "src/test/python/migration_scenarios.py";
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    Path dir;

    @Test
    void aVrMovesOverNetconfAndAnotherOverRestconf() throws Exception {
        Path configB = dir.resolve("b.properties");
        Files.write(configB, List.of("user.admin = operator:admin"));
        // B's simulated host takes XenServer's time to make a VR: a move lasts long enough to ask for a second one
        try (ServerProcess b = ServerProcess.start(dir.resolve("b"), "--config", configB.toString(), "--sim-latency", "paper")) {
            Path configA = dir.resolve("a.properties");
            Files.write(configA, List.of("user.admin = operator:admin", "peer.b = " + b.restBase(),
                    "peer.b.user = admin", "peer.b.password = admin"));
            try (ServerProcess a = ServerProcess.start(dir.resolve("a"), "--config", configA.toString())) {
                int viaNetconf = create(a, "nc-mover");
                JsonNode moved = netconf(a, viaNetconf, "b");
                assertThat(moved.get("vmName").asText()).isEqualTo("nc-mover");
                assertThat(moved.get("peer").asText()).isEqualTo("b");
                assertThat(moved.get("vmIndex").asInt()).isEqualTo(viaNetconf);
                assertOnlyOnB(a, b, viaNetconf, moved.get("peer-index").asInt(), "nc-mover");

                int viaRestconf = create(a, "rc-mover");
                assertThat(restconf(a, "GET", "/restconf/operations", null).body()).contains("vrouter-migration:migrate");
                HttpResponse<String> r = restconf(a, "POST", "/restconf/operations/vrouter-migration:migrate",
                        "{\"vrouter-migration:input\":{\"vmIndex\":" + viaRestconf + ",\"peer\":\"b\"}}");
                assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
                JsonNode output = JSON.readTree(r.body()).get("vrouter-migration:output");
                assertThat(output.get("vmName").asText()).isEqualTo("rc-mover");
                assertOnlyOnB(a, b, viaRestconf, output.get("peer-index").asInt(), "rc-mover");

                // Refusals: each protocol's error, nothing changed.
                int stays = create(a, "stays");
                JsonNode noPeer = netconf(a, stays, "nope").get("error");
                assertThat(noPeer.get("tag").asText()).isEqualTo("invalid-value");
                assertThat(noPeer.get("message").asText()).contains("'nope' is no peer of this router (its peers: b)");
                HttpResponse<String> rcNoPeer = restconf(a, "POST", "/restconf/operations/vrouter-migration:migrate",
                        "{\"vrouter-migration:input\":{\"vmIndex\":" + stays + ",\"peer\":\"nope\"}}");
                assertThat(rcNoPeer.statusCode()).as(rcNoPeer.body()).isEqualTo(400);
                assertThat(rcNoPeer.body()).contains("invalid-value", "no peer of this router");
                assertThat(netconf(a, 999, "b").at("/error/tag").asText()).isEqualTo("data-missing");
                HttpResponse<String> noInput = restconf(a, "POST", "/restconf/operations/vrouter-migration:migrate",
                        "{\"vrouter-migration:input\":{\"peer\":\"b\"}}");
                assertThat(noInput.statusCode()).as(noInput.body()).isEqualTo(400);
                assertThat(noInput.body()).contains("missing-element");
                assertThat(a.get("/api/v1/routers/" + stays).statusCode()).isEqualTo(200);

                // A VR migrating already (over REST, B still making it): in-use over NETCONF and RESTCONF.
                int busy = create(a, "busy");
                CompletableFuture<HttpResponse<String>> move = CompletableFuture.supplyAsync(() -> {
                    try {
                        return a.post("/api/v1/routers/" + busy + "/migrate?wait=60s", "{\"peer\":\"b\"}");
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
                long end = System.nanoTime() + 10_000_000_000L;
                while (!ServerProcess.operState(a.router(busy)).equals("migrating") && System.nanoTime() < end) Thread.onSpinWait();
                JsonNode inUse = netconf(a, busy, "b").get("error");
                assertThat(inUse.get("tag").asText()).as(inUse.toString()).isEqualTo("in-use");
                assertThat(inUse.get("message").asText()).contains("is migrating to peer b");
                HttpResponse<String> rcInUse = restconf(a, "POST", "/restconf/operations/vrouter-migration:migrate",
                        "{\"vrouter-migration:input\":{\"vmIndex\":" + busy + ",\"peer\":\"b\"}}");
                assertThat(rcInUse.statusCode()).as(rcInUse.body()).isEqualTo(409);
                assertThat(rcInUse.body()).contains("in-use");
                assertThat(move.get(60, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
                assertThat(JSON.readTree(b.get("/api/v1/routers").body()).path("virtualRouter"))
                        .extracting(vr -> vr.get("vmName").asText()).containsExactlyInAnyOrder("nc-mover", "rc-mover", "busy");
            }
        }
    }

    private static int create(ServerProcess server, String name) throws Exception {
        HttpResponse<String> made = server.post("/api/v1/routers?wait=30s", "{\"vmName\":\"" + name + "\"}");
        assertThat(made.statusCode()).as(made.body()).isEqualTo(201);
        return JSON.readTree(made.body()).get("vmIndex").asInt();
    }

    private static void assertOnlyOnB(ServerProcess a, ServerProcess b, int onA, int onB, String name) throws Exception {
        assertThat(a.get("/api/v1/routers/" + onA).statusCode()).isEqualTo(404);
        JsonNode there = JSON.readTree(b.get("/api/v1/routers/" + onB).body());
        assertThat(there.get("vmName").asText()).isEqualTo(name);
        assertThat(there.at("/vmEntry/vmOperState").asText()).isEqualTo("running");
    }

    private static JsonNode netconf(ServerProcess server, int vmIndex, String peer) throws Exception {
        return ncclient(server, "migrate", "--index", Integer.toString(vmIndex), "--peer", peer);
    }

    /** One of migration_scenarios.py's RPCs over NETCONF (ncclient), as admin: its output or its error, as JSON. */
    static JsonNode ncclient(ServerProcess server, String rpc, String... args) throws Exception {
        List<String> cmd = new java.util.ArrayList<>(List.of("python3", SCRIPT, rpc, "--port", Integer.toString(server.netconfPort)));
        cmd.addAll(List.of(args));
        ServerProcess.Result r = ServerProcess.run(cmd);
        assertThat(r.exit()).as(r.toString()).isZero();
        String[] lines = r.out().strip().split("\n");
        return JSON.readTree(lines[lines.length - 1]);
    }

    /** A RESTCONF request as admin, in JSON. */
    static HttpResponse<String> restconf(ServerProcess server, String method, String path, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(server.restBase() + path)).timeout(Duration.ofSeconds(60))
                .header("Accept", "application/yang-data+json").header("Authorization", "Basic "
                        + Base64.getEncoder().encodeToString("admin:admin".getBytes(StandardCharsets.UTF_8)))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) b.header("Content-Type", "application/yang-data+json");
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
