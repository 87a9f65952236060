package io.vrouter.it.snmp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vrouter.it.ServerProcess;
import io.vrouter.it.netconf.Ncclient;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every VR notification carries the VR's vmUUID, the same on every interface (issue 23 item 4): a
 * VR taken through every state the simulated host has and removed, over NETCONF, while a NETCONF
 * session (ncclient) and a RESTCONF stream listen and snmptrapd receives the SNMP traps; then,
 * with the VR gone, the same notifications replayed by NETCONF (create-subscription's startTime)
 * and RESTCONF (start-time). Each carries the vmUUID of the SNMP trap for the same event.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NotificationUuidIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String MIB = "1.3.6.1.3.7666";
    private static final int VM = 41;
    private static final String NAME = "uuid-life";

    @TempDir
    static Path dir;
    ServerProcess server;
    Snmptrapd trapd;
    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeAll
    void start() throws Exception {
        trapd = Snmptrapd.start(dir);
        server = ServerProcess.start(dir.resolve("server"), "--snmp-trap-target", trapd.target());
        SnmpCliIT.awaitAgent(server);
    }

    @AfterAll
    void stop() throws Exception {
        if (server != null) server.close();
        if (trapd != null) trapd.close();
    }

    @Test
    void everyNotificationOfAVrCarriesTheVmUuidOfItsSnmpTrapLiveAndReplayedAfterItIsGone() throws Exception {
        Instant since = Instant.now().minusSeconds(1).truncatedTo(ChronoUnit.SECONDS);
        HttpResponse<InputStream> liveStream = http.send(stream(null), HttpResponse.BodyHandlers.ofInputStream());
        assertThat(liveStream.statusCode()).isEqualTo(200);
        CompletableFuture<List<Map<String, String>>> restconfLive = CompletableFuture.supplyAsync(() -> untilDeleted(liveStream.body()));

        JsonNode live = Ncclient.scenario(server, "states_notified", "--index", Integer.toString(VM), "--name", NAME);
        List<Map<String, String>> netconfLive = notifications(live.path("notifications"));
        assertThat(netconfLive).extracting(n -> n.get("kind")).contains("vmRunning", "vmPaused", "vmSuspended",
                "vmShuttingdown", "vmShutdown", "vmDeleted");
        assertThat(server.get("/api/v1/routers/" + VM).statusCode()).as("the VR is gone").isEqualTo(404);

        // The SNMP traps of the same events: one each, in the same order, and their vmUUID.
        List<String> trapUuids = awaitTraps(netconfLive.size());
        String uuid = trapUuids.get(0);
        assertThat(uuid).matches("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
        assertThat(trapUuids).as("SNMP").containsOnly(uuid);

        List<Map<String, String>> netconfReplay = notifications(Ncclient.scenario(server, "replay", "--since", since.toString(),
                "--until", Instant.now().plusSeconds(1).toString()).path("notifications")).stream()
                .filter(n -> NAME.equals(n.get("vmName"))).toList();
        List<Map<String, String>> restconfReplay;
        HttpResponse<InputStream> replayStream = http.send(stream(since), HttpResponse.BodyHandlers.ofInputStream());
        assertThat(replayStream.statusCode()).isEqualTo(200);
        restconfReplay = untilDeleted(replayStream.body());

        Map<String, List<Map<String, String>>> seen = Map.of("NETCONF live", netconfLive, "NETCONF replayed", netconfReplay,
                "RESTCONF live", restconfLive.get(30, TimeUnit.SECONDS), "RESTCONF replayed", restconfReplay);
        List<String> kinds = netconfLive.stream().map(n -> n.get("kind")).toList();
        seen.forEach((how, list) -> {
            assertThat(list).as(how).extracting(n -> n.get("kind")).containsExactlyElementsOf(kinds);
            assertThat(list).as(how).allSatisfy(n -> assertThat(n.get("vmUUID")).as(how + " " + n).isEqualTo(uuid));
        });
    }

    /** The NETCONF stream over RESTCONF in JSON, replayed from {@code since} when given. */
    private HttpRequest stream(Instant since) {
        String auth = Base64.getEncoder().encodeToString("admin:admin".getBytes(StandardCharsets.UTF_8));
        return HttpRequest.newBuilder(URI.create(server.restBase() + "/restconf/streams/NETCONF/json"
                        + (since == null ? "" : "?start-time=" + since)))
                .header("Authorization", "Basic " + auth).header("Accept", "text/event-stream").build();
    }

    /** The notifications about the VR on a RESTCONF stream, up to its vmDeleted (30 s at the most). */
    private static List<Map<String, String>> untilDeleted(InputStream body) {
        List<Map<String, String>> out = new ArrayList<>();
        CompletableFuture<Void> closer = CompletableFuture.runAsync(() -> { }, CompletableFuture.delayedExecutor(30, TimeUnit.SECONDS))
                .thenRun(() -> close(body));
        try (BufferedReader in = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (!line.startsWith("data: ")) continue;
                JsonNode n = JSON.readTree(line.substring(6)).path("ietf-restconf:notification");
                for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> f = it.next();
                    if (f.getKey().equals("eventTime")) continue;
                    String kind = f.getKey().substring(f.getKey().indexOf(':') + 1);
                    if (!NAME.equals(f.getValue().path("vmName").path("vmName").asText())) continue;
                    out.add(Map.of("kind", kind, "vmUUID", f.getValue().path("vmUUID").path("vmUUID").asText()));
                    if (kind.equals("vmDeleted")) return out;
                }
            }
        } catch (java.io.IOException closedAfterTheDeadline) {
            // what came so far is the answer
        } finally {
            closer.cancel(false);
        }
        return out;
    }

    private static void close(InputStream in) {
        try {
            in.close();
        } catch (java.io.IOException ignored) {
            // closing to stop a read
        }
    }

    private static List<Map<String, String>> notifications(JsonNode list) {
        List<Map<String, String>> out = new ArrayList<>();
        for (JsonNode n : list) {
            if (n.path("kind").asText().equals("notificationComplete")) continue;
            out.add(Map.of("kind", n.path("kind").asText(), "vmName", n.path("vmName").asText(),
                    "vmUUID", n.path("vmUUID").asText()));
        }
        return out;
    }

    private static final Pattern TRAP_UUID = Pattern.compile("\\." + Pattern.quote(MIB + ".1.4.1.3." + VM)
            + " = (?:Hex-STRING: ([0-9A-F ]+?)\\s*(?:\\t|$)|\"\")");

    /** The vmUUID of each SNMP trap about the VR, once {@code count} of them have come (20 s at the most). */
    private List<String> awaitTraps(int count) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        List<String> uuids;
        do {
            uuids = new ArrayList<>();
            for (String line : trapd.log().split("\n")) {
                if (!line.contains("\"" + NAME + "\"")) continue;
                Matcher m = TRAP_UUID.matcher(line);
                uuids.add(m.find() && m.group(1) != null ? uuid(m.group(1)) : "none in: " + line);
            }
            if (uuids.size() >= count) return uuids;
            Thread.sleep(100);
        } while (System.nanoTime() < end);
        throw new AssertionError("only " + uuids.size() + " of " + count + " traps: " + uuids);
    }

    /** 16 octets as net-snmp prints them ("9F 3B ...") in a UUID's text form. */
    private static String uuid(String hex) {
        String h = hex.replace(" ", "").toLowerCase();
        return h.substring(0, 8) + "-" + h.substring(8, 12) + "-" + h.substring(12, 16) + "-" + h.substring(16, 20) + "-" + h.substring(20);
    }
}
