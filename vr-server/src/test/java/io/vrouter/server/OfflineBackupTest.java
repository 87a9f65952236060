package io.vrouter.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vrouter.api.rest.RestInterface;
import io.vrouter.core.config.Settings;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code vrouter backup FILE} and {@code vrouter restore FILE} on a stopped server's data directory. */
class OfflineBackupTest {
    private static final String ADMIN = "Basic " + Base64.getEncoder().encodeToString("admin:admin".getBytes(StandardCharsets.UTF_8));
    private final HttpClient http = HttpClient.newHttpClient();
    private final ObjectMapper json = new ObjectMapper();

    @TempDir
    Path dir;

    /** What a command printed and returned. */
    record Run(int code, String out, String err) {
    }

    @Test
    void backupOfAStoppedServerIsRestsBackupAndRestoreBringsTheSameVrsBack() throws Exception {
        Path data = dir.resolve("data");
        Path file = dir.resolve("backup.json");
        JsonNode before;
        try (VrouterServer server = VrouterServer.start(settings(data))) {
            String base = base(server);
            send(base, "POST", "/api/v1/routers?wait=10s", "{\"vmName\":\"far\",\"vmConfigDescription\":\"far end\"}");
            int gone = json.readTree(send(base, "POST", "/api/v1/routers?wait=10s", "{\"vmName\":\"gone\"}")).get("vmIndex").asInt();
            send(base, "POST", "/api/v1/routers?wait=10s", "{\"vmName\":\"edge\",\"vmConfigCpuNumber\":2,\"vmConfigMemory\":256,"
                    + "\"vmConfigCpuWeight\":300,\"vmNetworkConfigTable\":[{\"vmNetworkConfigIndex\":1,\"vmNetworkConfigParent\":\"br-a\","
                    + "\"vmNetworkConfigAddress\":\"192.0.2.1\",\"vmNetworkConfigRateIn\":20000,\"vmNetworkConfigRateOut\":50000},"
                    + "{\"vmNetworkConfigIndex\":2,\"vmNetworkConfigLinkType\":\"peer\",\"vmNetworkConfigPeerRouter\":1,"
                    + "\"vmNetworkConfigPeerInterface\":1,\"vmNetworkConfigAddress\":\"203.0.113.9\"}]}");
            // a gap in the indices: edge keeps vmIndex 3 through the restore
            send(base, "DELETE", "/api/v1/routers/" + gone + "?wait=10s", null);
            before = json.readTree(send(base, "GET", "/api/v1/backup", null));

            Run refused = vrouter("backup", file.toString(), "--data-dir", data.toString());
            assertThat(refused.code()).isEqualTo(2);
            assertThat(refused.err()).contains("a vrouter server is running on the data directory").hasLineCount(1);
            assertThat(file).doesNotExist();
        }
        assertThat(before.get("routers")).hasSize(2);

        Run backup = vrouter("backup", file.toString(), "--data-dir", data.toString());
        assertThat(backup.code()).as(backup.err()).isZero();
        JsonNode offline = json.readTree(Files.readAllBytes(file));
        assertThat(offline.get("format")).isEqualTo(before.get("format"));
        assertThat(offline.get("driver")).isEqualTo(before.get("driver"));
        // The same VRs field by field; the vmUUID is the host's, which a stopped server's directory does not hold.
        assertThat(withoutUuids(offline.get("routers"))).isEqualTo(withoutUuids(before.get("routers")));

        Path wiped = dir.resolve("wiped");
        Run restore = vrouter("restore", file.toString(), "--data-dir", wiped.toString());
        assertThat(restore.code()).as(restore.err()).isZero();
        assertThat(restore.out()).contains("far: created as vmIndex 1").contains("edge: created as vmIndex 3");
        Run again = vrouter("restore", file.toString(), "--data-dir", wiped.toString());
        assertThat(again.out()).contains("far: present as vmIndex 1, as in the backup").contains("edge: present as vmIndex 3")
                .doesNotContain("created");

        try (VrouterServer server = VrouterServer.start(settings(wiped))) {
            String base = base(server);
            JsonNode after = json.readTree(send(base, "GET", "/api/v1/backup", null));
            assertThat(withoutUuids(after.get("routers"))).isEqualTo(withoutUuids(before.get("routers")));
            // provisioned at start: each VR is on the host, with a vmUUID there
            for (JsonNode r : after.get("routers")) {
                awaitOnHost(server, r.get("vmIndex").asInt());
            }
        }
    }

    @Test
    void aLaterFormatADamagedDirectoryAndAMissingFileAreRefusedInOneLine() throws Exception {
        Path file = dir.resolve("later.json");
        Files.writeString(file, "{\"format\":99,\"routers\":[]}");
        Run later = vrouter("restore", file.toString(), "--data-dir", dir.resolve("d").toString());
        assertThat(later.code()).isEqualTo(2);
        assertThat(later.err()).contains("format 99").hasLineCount(1);

        Path damaged = dir.resolve("damaged");
        Files.createDirectories(damaged);
        Files.writeString(damaged.resolve("config.snapshot.json"), "{\"format\":2,\"seq\":");
        Run backup = vrouter("backup", dir.resolve("out.json").toString(), "--data-dir", damaged.toString());
        assertThat(backup.code()).isEqualTo(2);
        assertThat(backup.err()).startsWith("vrouter backup: ").hasLineCount(1);
        assertThat(dir.resolve("out.json")).doesNotExist();

        Run noFile = vrouter("backup", "--data-dir", damaged.toString());
        assertThat(noFile.code()).isEqualTo(2);
        assertThat(noFile.err()).contains("which FILE?");
    }

    private static void awaitOnHost(VrouterServer server, int vmIndex) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (server.service().get(vmIndex).map(vr -> vr.vmEntry == null ? null : vr.vmEntry.vmUUID).isEmpty()) {
            assertThat(System.nanoTime()).as("VR " + vmIndex + " on the host").isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    private JsonNode withoutUuids(JsonNode routers) {
        JsonNode copy = routers.deepCopy();
        copy.forEach(r -> ((ObjectNode) r).remove("vmUUID"));
        return copy;
    }

    private static Settings settings(Path data) {
        return Settings.of(Map.of("data-dir", data.toString(), "rest-port", "0", "snmp-port", "0", "netconf-port", "0",
                "gnmi-port", "off"));
    }

    private static String base(VrouterServer server) {
        return "http://127.0.0.1:" + server.interfaces().stream().filter(i -> i instanceof RestInterface)
                .mapToInt(i -> ((RestInterface) i).port()).findFirst().orElseThrow();
    }

    private String send(String base, String method, String path, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30))
                .header("Authorization", ADMIN).header("Accept", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) b.header("Content-Type", "application/json");
        HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(method + " " + path + ": " + r.body()).isBetween(200, 204);
        return r.body();
    }

    /** Runs the command line as bin/vrouter does, its standard output and error captured. */
    private static synchronized Run vrouter(String... args) {
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
            int code = Main.commandLine().execute(args);
            return new Run(code, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
    }
}
