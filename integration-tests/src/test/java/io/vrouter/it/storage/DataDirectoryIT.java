package io.vrouter.it.storage;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vrouter.it.ServerProcess;
import java.io.FileOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged server whose data directory fills up (a 4 MiB tmpfs, as root; issue 23 items 12 and
 * 13): every interface refuses changes with a clear message in its own terms and no internal text,
 * readiness says why until the directory takes writes again, and then changes are accepted again.
 */
class DataDirectoryIT {
    private static final String REFUSED = "the server cannot record changes: its data directory is not writable";
    private final ObjectMapper json = new ObjectMapper();
    private final HttpClient http = HttpClient.newHttpClient();

    @TempDir
    Path dir;

    @Test
    void aFullDataDirectoryRefusesChangesClearlyAndReadinessSaysSoUntilItIsFreed() throws Exception {
        Path data = dir.resolve("data");
        Files.createDirectories(data);
        mount(List.of("mount", "-t", "tmpfs", "-o", "size=4m", "vrouter-it-data", data.toString()));
        try (ServerProcess server = ServerProcess.start(dir)) {
            HttpResponse<String> first = server.post("/api/v1/routers?wait=20s", "{\"vmName\":\"before\"}");
            assertThat(first.statusCode()).as(first.body()).isEqualTo(201);

            Path filler = data.resolve("filler");
            fill(filler);

            // The journal's last page may still hold a record or two: write until it is full too.
            HttpResponse<String> rest = null;
            // Accepted ones wait for their hypervisor work, whose own records find the directory full:
            // whatever fails says so in the client's terms.
            for (int k = 0; k < 50 && (rest == null || rest.statusCode() != 503); k++) {
                rest = server.post("/api/v1/routers?wait=20s", "{\"vmName\":\"fits" + k + "\"}");
                assertThat(rest.statusCode()).as(rest.body()).isIn(201, 502, 503);
                if (rest.statusCode() == 502) assertThat(json.readTree(rest.body()).path("detail").asText()).contains(REFUSED);
                assertClean(rest.body(), data);
            }
            assertThat(rest.statusCode()).as(rest.body()).isEqualTo(503);
            rest = server.post("/api/v1/routers", "{\"vmName\":\"refused\"}");
            assertThat(rest.statusCode()).as(rest.body()).isEqualTo(503);
            assertThat(json.readTree(rest.body()).path("detail").asText()).startsWith(REFUSED);
            assertClean(rest.body(), data);

            HttpResponse<String> restconf = send("POST", server, "/restconf/data/NEW-VMM-MIB:NEW-VMM-MIB/vmConfigTable",
                    "{\"NEW-VMM-MIB:vmConfigEntry\":[{\"vmIndex\":4000,\"vmName\":\"refused4000\"}]}");
            assertThat(restconf.statusCode()).as(restconf.body()).isEqualTo(503);
            JsonNode error = json.readTree(restconf.body()).at("/ietf-restconf:errors/error/0");
            assertThat(error.path("error-tag").asText()).isEqualTo("resource-denied");
            assertThat(error.path("error-message").asText()).startsWith(REFUSED);
            assertClean(restconf.body(), data);

            ServerProcess.Result netconf = ServerProcess.run(List.of("python3", "src/test/python/netconf_scenarios.py",
                    "admin_state", "--port", Integer.toString(server.netconfPort), "--index", "1", "--state", "shutdown"));
            assertThat(netconf.exit()).as(netconf.toString()).isZero();
            String[] lines = netconf.out().strip().split("\n");
            JsonNode rpcError = json.readTree(lines[lines.length - 1]).path("error");
            assertThat(rpcError.path("tag").asText()).as(netconf.out()).isEqualTo("resource-denied");
            assertThat(rpcError.path("message").asText()).startsWith(REFUSED);
            assertClean(netconf.out(), data);

            // Nothing of it was accepted; readiness says why, liveness stays (a restart would not help).
            assertThat(server.get("/api/v1/routers?name=refused*").body()).contains("\"total\":0");
            assertThat(json.readTree(server.get("/api/v1/routers/1").body()).path("vmAdminState").asText()).isEqualTo("running");
            HttpResponse<String> ready = server.get("/health/ready");
            assertThat(ready.statusCode()).as(ready.body()).isEqualTo(503);
            assertThat(json.readTree(ready.body()).path("storageProblem").asText()).contains("not writable");
            assertThat(server.get("/health/live").statusCode()).isEqualTo(200);
            assertThat(server.log()).contains("cannot write the configuration journal in " + data);

            // Space again: readiness probes the directory and comes back, and so do writes.
            Files.delete(filler);
            HttpResponse<String> readyAgain = server.get("/health/ready");
            assertThat(readyAgain.statusCode()).as(readyAgain.body()).isEqualTo(200);
            HttpResponse<String> after = server.post("/api/v1/routers?wait=20s", "{\"vmName\":\"after\"}");
            assertThat(after.statusCode()).as(after.body()).isEqualTo(201);
        } finally {
            mount(List.of("umount", "-l", data.toString()));
        }
    }

    private static void mount(List<String> command) throws Exception {
        ServerProcess.Result r = ServerProcess.run(command);
        assertThat(r.exit()).as("this test runs as root, to mount its data directory: " + r).isZero();
    }

    /** Writes the file until the file system is full. */
    private static void fill(Path file) throws IOException {
        byte[] block = new byte[64 * 1024];
        try (FileOutputStream out = new FileOutputStream(file.toFile())) {
            while (true) {
                out.write(block);
            }
        } catch (IOException full) {
            assertThat(full.getMessage()).contains("No space left");
        }
    }

    /** Neither Java nor the server's paths reach the client. */
    private static void assertClean(String body, Path data) {
        assertThat(body).doesNotContain("java.", "Exception", "io.vrouter", data.toString(), "internal error");
    }

    private HttpResponse<String> send(String method, ServerProcess server, String path, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(server.restBase() + path)).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString("admin:admin".getBytes()))
                .header("Content-Type", "application/yang-data+json").header("Accept", "application/yang-data+json")
                .method(method, HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
