package io.vrouter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.InputStreamReader;
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
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Upgrades keep data: today's server started on a data directory that an earlier release left
 * (src/test/resources/upgrade/format-N, made by that release with make-fixture.sh there) finds every
 * VR, the SNMP engine where it was, the NETCONF host key, the idempotency keys and the replay log; and
 * the history of commits format 2 kept in commits.log.
 */
class UpgradeIT {
    private static final String MIB = "1.3.6.1.3.7666";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @TempDir
    Path dir;

    @Test
    void todaysServerFindsEverythingTheFormat1ReleaseLeft() throws Exception {
        Path fixture = Path.of("src/test/resources/upgrade/format-1");
        copy(fixture, dir.resolve("data"));
        // The fixture's keys and events are as old as the fixture: keep them for this test.
        Path config = dir.resolve("upgrade.properties");
        Files.writeString(config, "events.replay-age = 36500d\nrest.idempotency-window = 36500d\n");
        try (ServerProcess server = ServerProcess.start(dir, "--config", config.toString())) {
            // Every VR, as it was made over REST, SNMP and NETCONF.
            Map<String, String> adminStates = new TreeMap<>();
            JsonNode all = JSON.readTree(server.get("/api/v1/routers").body());
            for (JsonNode vr : all.get("virtualRouter")) {
                adminStates.put(vr.get("vmIndex").asInt() + " " + vr.get("vmName").asText(), vr.get("vmAdminState").asText());
            }
            assertThat(adminStates).isEqualTo(Map.of("1 rest-edge", "running", "2 rest-stopped", "shutdown",
                    "3 snmp-vr", "running", "4 netconf-vr", "running"));
            assertThat(server.router(1).at("/vmNetworkConfigTable/0/vmNetworkConfigAddress").asText()).isEqualTo("192.0.2.1");
            for (int running : new int[] {1, 3, 4}) {
                server.awaitRouter(running, vr -> ServerProcess.operState(vr).equals("running"), "running");
            }

            // The SNMP engine goes on: the same engineID, the boot after the fixture's two.
            String engineId = Files.readAllLines(fixture.resolve("snmp/engine.properties")).stream()
                    .filter(l -> l.startsWith("engineID=")).findFirst().orElseThrow().substring("engineID=".length());
            ServerProcess.Result snmp = ServerProcess.run(List.of("snmpget", "-v2c", "-c", "public", "-t", "5", "-On",
                    "udp:127.0.0.1:" + server.snmpPort, "1.3.6.1.6.3.10.2.1.1.0", "1.3.6.1.6.3.10.2.1.2.0",
                    MIB + ".1.12.1.1.3"));
            assertThat(snmp.exit()).as(snmp.toString()).isZero();
            assertThat(snmp.out().replaceAll("[\\s\\n]", "")).as(snmp.toString())
                    .containsIgnoringCase("Hex-STRING:" + engineId)
                    .contains("INTEGER:3");
            assertThat(snmp.out()).contains("snmp-vr");

            // The NETCONF host key is the one the fixture holds: clients that trusted it still do.
            assertThat(python("import paramiko, sys; t = paramiko.Transport(('127.0.0.1', int(sys.argv[1])));"
                    + " t.start_client(timeout=30); print(t.get_remote_server_key().get_base64()); t.close()",
                    Integer.toString(server.netconfPort)))
                    .isEqualTo(python("import paramiko, sys; print(paramiko.ECDSAKey.from_private_key_file(sys.argv[1])"
                            + ".get_base64())", fixture.resolve("netconf-host-key").toString()));

            // The Idempotency-Key sent before the upgrade answers its first answer again, creating nothing.
            HttpResponse<String> again = HTTP.send(authorized(server, "/api/v1/routers?wait=30s").header("Accept", "application/json")
                    .header("Idempotency-Key", "fixture-key-1").header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"vmName\":\"rest-edge\",\"vmNetworkConfigTable\":"
                            + "[{\"vmNetworkConfigParent\":\"xenbr0\",\"vmNetworkConfigAddress\":\"192.0.2.1\"}]}"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(again.statusCode()).as(again.body()).isEqualTo(201);
            assertThat(JSON.readTree(again.body()).get("vmIndex").asInt()).isEqualTo(1);
            assertThat(JSON.readTree(server.get("/api/v1/routers").body()).get("total").asInt()).isEqualTo(4);

            // The replay log: a client resuming after the fixture's first event is told the rest of them.
            assertThat(replayedIds(server, 1, 10)).containsExactly(2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L);
        }
    }

    @Test
    void todaysServerKeepsTheHistoryTheFormat2ReleaseLeftInCommitsLog() throws Exception {
        // Made by main at fd072f0 (format 2: the history in commits.log, beside the journal), with make-fixture.sh.
        Path fixture = Path.of("src/test/resources/upgrade/format-2");
        copy(fixture, dir.resolve("data"));
        try (ServerProcess server = ServerProcess.start(dir)) {
            assertThat(JSON.readTree(server.get("/api/v1/routers").body()).get("total").asInt()).isEqualTo(4);
            assertThat(commitNumbers(server)).containsExactly(1L, 2L, 3L, 4L, 5L);
            JsonNode stop = JSON.readTree(server.get("/api/v1/commits/3").body());
            assertThat(stop.at("/changes/0/after").asText()).isEqualTo("shutdown");
            assertThat(JSON.readTree(server.get("/api/v1/commits/5").body()).at("/changedBy/interface").asText())
                    .isEqualTo("netconf");
            // The next commit goes on from the file's numbers, in the journal's record.
            assertThat(server.post("/api/v1/routers/2/start?wait=30s", "").statusCode()).isEqualTo(200);
            assertThat(commitNumbers(server)).containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
        }
        try (ServerProcess again = ServerProcess.start(dir)) {
            assertThat(commitNumbers(again)).as("across a restart").containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
        }
    }

    private static List<Long> commitNumbers(ServerProcess server) throws Exception {
        List<Long> numbers = new ArrayList<>();
        for (JsonNode c : JSON.readTree(server.get("/api/v1/commits").body())) numbers.add(c.get("number").asLong());
        return numbers;
    }

    private static void copy(Path from, Path to) throws Exception {
        try (Stream<Path> walk = Files.walk(from)) {
            for (Path f : walk.toList()) {
                Path target = to.resolve(from.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(f, target);
                }
            }
        }
    }

    private static String python(String program, String arg) throws Exception {
        ServerProcess.Result r = ServerProcess.run(List.of("python3", "-c", program, arg));
        assertThat(r.exit()).as(r.toString()).isZero();
        return r.out().strip();
    }

    /** The ids of the events /api/v1/events replays after Last-Event-ID {@code after}, up to {@code last}. */
    private static List<Long> replayedIds(ServerProcess server, long after, long last) throws Exception {
        HttpRequest request = authorized(server, "/api/v1/events").header("Accept", "text/event-stream")
                .header("Last-Event-ID", Long.toString(after)).build();
        HttpResponse<java.io.InputStream> r = HTTP.send(request, HttpResponse.BodyHandlers.ofInputStream());
        assertThat(r.statusCode()).isEqualTo(200);
        List<Long> ids = new ArrayList<>();
        // The stream stays open: closed after a minute, so that a missing event fails the test instead of hanging it.
        Thread closer = new Thread(() -> {
            try {
                Thread.sleep(60_000);
                r.body().close();
            } catch (Exception done) {
                // the events came in time
            }
        });
        closer.setDaemon(true);
        closer.start();
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null) {
                if (!line.startsWith("id: ")) continue;
                long id = Long.parseLong(line.substring(4).trim());
                if (id > last) break;
                ids.add(id);
                if (id == last) break;
            }
        } catch (java.io.IOException closedByTheDeadline) {
            // what came before the deadline is asserted on
        } finally {
            closer.interrupt();
        }
        return ids;
    }

    private static HttpRequest.Builder authorized(ServerProcess server, String path) {
        return HttpRequest.newBuilder(URI.create(server.restBase() + path)).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString("admin:admin"
                        .getBytes(StandardCharsets.UTF_8)));
    }
}
