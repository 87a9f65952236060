package io.vrouter.it.netconf;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.vrouter.it.ServerProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The NETCONF interface driven by yuma123's yangcli (Debian package {@code yangcli}), which loads
 * NEW-VMM-MIB from the server with get-schema and builds its edits from the module.
 */
class YangcliIT extends WithServer {
    /** Runs a yangcli script against the server in batch mode, printing replies as XML; it must exit 0. */
    static ServerProcess.Result yangcli(String name, String script) throws Exception {
        Path file = Files.writeString(dir.resolve(name), script);
        ServerProcess.Result r = ServerProcess.run(List.of("yangcli", "--server=127.0.0.1",
                "--ncport=" + server.netconfPort, "--user=admin", "--password=admin", "--batch-mode",
                "--run-script=" + file, "--display-mode=xml"));
        assertThat(r.exit()).as(r.toString()).isZero();
        return r;
    }

    @Test
    void yangcliCreatesAVrOnTheCandidateCommitsAndReadsItBack() throws Exception {
        ServerProcess.Result r = yangcli("yangcli.script",
                "create /NEW-VMM-MIB/vmConfigTable/vmConfigEntry -- vmIndex=161 vmName=yuma-161\n"
                        + "commit\n"
                        + "xget /NEW-VMM-MIB/vmConfigTable/vmConfigEntry[vmIndex=161]\n");
        // Two <ok/> replies (the edit-config that "create" sends and the commit), then the data.
        assertThat(r.out().split("RPC OK Reply", -1)).hasSize(3);
        assertThat(r.out()).contains("<vmName>yuma-161</vmName>").doesNotContain("RPC Error");
        JsonNode vr = Ncclient.rest(server, "/api/v1/routers/161");
        assertThat(vr).isNotNull();
        assertThat(vr.get("vmName").asText()).isEqualTo("yuma-161");
    }

    @Test
    void yangcliCommitsWithConfirmationAndTheServerPutsItBackWhenNoneComes() throws Exception {
        ServerProcess.Result r = yangcli("yangcli-confirmed.script",
                "create /NEW-VMM-MIB/vmConfigTable/vmConfigEntry -- vmIndex=181 vmName=yuma-181\n"
                        + "commit --confirmed --confirm-timeout=2 --persist=yuma-181\n"
                        + "xget /NEW-VMM-MIB/vmConfigTable/vmConfigEntry[vmIndex=181]/vmName\n");
        assertThat(r.out()).contains("<vmName>yuma-181</vmName>").doesNotContain("RPC Error");
        // The persistent confirmed commit outlives yangcli's session; unconfirmed, it goes at the timeout.
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline && Ncclient.rest(server, "/api/v1/routers/181") != null) Thread.sleep(100);
        assertThat(Ncclient.rest(server, "/api/v1/routers/181")).isNull();
        assertThat(server.log()).contains("confirmed commit not confirmed (confirm timeout): restoring VRs [181]");
    }

    @Test
    void yangcliReadsWithDefaultsAndTheStatisticsAndReplaysTheNotificationsOfAStretchOfTime() throws Exception {
        Instant since = Instant.now();
        // stopTime is taken once the VR's vmRunning event is delivered, which is after the replay log
        // holds it, so the stretch replayed surely holds it. (The scenario sees the VR running in the
        // state tables, which can come a moment before the service has stamped the event.)
        Pattern runningEvent = Pattern.compile("\"vmIndex\":171,.*\"vmOperState\":\"running\"", Pattern.CASE_INSENSITIVE);
        HttpResponse<Stream<String>> events = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create(server.restBase() + "/api/v1/events")).header("Accept", "text/event-stream")
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString("admin:admin".getBytes(StandardCharsets.UTF_8)))
                .build(), HttpResponse.BodyHandlers.ofLines());
        assertThat(events.statusCode()).isEqualTo(200);
        try (Stream<String> lines = events.body()) {
            Ncclient.scenario(server, "create", "--index", "171", "--name", "yuma-171");
            assertThat(CompletableFuture.supplyAsync(() -> lines.anyMatch(runningEvent.asPredicate())).get(30, TimeUnit.SECONDS))
                    .as("the vmRunning event of VR 171").isTrue();
        }
        Instant until = Instant.now();
        ServerProcess.Result r = yangcli("yangcli-standards.script",
                "xget /NEW-VMM-MIB/vmConfigTable/vmConfigEntry[vmIndex=171] --with-defaults=trim\n"
                        + "create-subscription startTime=" + since + " stopTime=" + until + "\n"
                        + "xget /netconf-state/statistics\n"
                        + "xget /netconf/streams\n");
        String out = r.out();
        assertThat(out).doesNotContain("RPC Error");
        // trim: the 2 CPUs stay, the default memory (given explicitly) and the filled-in defaults go.
        String trimmed = out.substring(out.indexOf("<vmConfigEntry>"), out.indexOf("</vmConfigEntry>"));
        assertThat(trimmed).contains("<vmName>yuma-171</vmName>", "<vmConfigCpuNumber>2</vmConfigCpuNumber>")
                .doesNotContain("vmConfigMemory", "vmConfigTemplate", "vmAdminState");
        assertThat(out).contains("<in-sessions>", "<replaySupport>true</replaySupport>", "<replayLogCreationTime>");
        // The replay: the VR's vmRunning, then replayComplete and notificationComplete.
        int running = out.indexOf("<vmRunning");
        assertThat(running).isPositive();
        assertThat(out.substring(running)).contains("<vmName>yuma-171</vmName>");
        assertThat(out.indexOf("<replayComplete")).isGreaterThan(running);
        assertThat(out.indexOf("<notificationComplete")).isGreaterThan(out.indexOf("<replayComplete"));
    }
}
