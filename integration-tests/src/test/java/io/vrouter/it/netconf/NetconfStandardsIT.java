package io.vrouter.it.netconf;

import static io.vrouter.it.netconf.NetconfIT.texts;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The standard capabilities operators' tools expect beyond the base protocol (issue 13), driven by
 * ncclient over SSH against the packaged server: with-defaults (RFC 6243), NMDA get-data and the YANG
 * library (RFC 8526, 8525), replay across a restart (RFC 5277), session notifications and statistics
 * (RFC 6470, 6022).
 */
class NetconfStandardsIT extends WithServer {
    @Test
    void withDefaultsTrimsAndTagsTheDefaultsAndRefusesAnUnknownMode() throws Exception {
        Ncclient.scenario(server, "create", "--index", "301", "--name", "wd-301");
        JsonNode r = Ncclient.scenario(server, "withdefaults", "--index", "301");
        assertThat(texts(r.get("capability"))).containsExactly(
                "urn:ietf:params:netconf:capability:with-defaults:1.0?basic-mode=report-all&also-supported=trim,report-all-tagged");
        // The VR was created with 2 CPUs and the default memory (512) given explicitly; the rest filled in.
        assertThat(names(r.get("report-all"))).containsExactly("vmIndex", "vmName", "vmAdminState", "vmConfigTemplate",
                "vmConfigCpuNumber", "vmConfigMemory", "vmConfigAutoStart");
        assertThat(r.get("basic")).isEqualTo(r.get("report-all"));
        assertThat(names(r.get("trim"))).containsExactly("vmIndex", "vmName", "vmConfigCpuNumber");
        JsonNode tagged = r.get("report-all-tagged");
        assertThat(tagged.get("vmConfigMemory").get(1).asText()).isEqualTo("true");
        assertThat(tagged.get("vmConfigAutoStart").get(1).asText()).isEqualTo("true");
        assertThat(tagged.get("vmConfigCpuNumber").get(1).isNull()).isTrue();
        assertThat(tagged.get("vmName").get(1).isNull()).isTrue();
        assertThat(r.get("bad").get("tag").asText()).isEqualTo("invalid-value");
        assertThat(r.get("bad").get("info").asText()).contains("<bad-element>with-defaults</bad-element>");
    }

    private static List<String> names(JsonNode leaves) {
        List<String> out = new ArrayList<>();
        leaves.fieldNames().forEachRemaining(out::add);
        return out;
    }

    @Test
    void getDataReadsRunningCandidateAndOperationalAndTheYangLibraryNamesTheHellosContentId() throws Exception {
        Ncclient.scenario(server, "create", "--index", "311", "--name", "nmda-311");
        JsonNode r = Ncclient.scenario(server, "nmda", "--index", "311", "--name", "nmda-311");
        assertThat(texts(r.get("running_names"))).contains("nmda-311").doesNotContain("nmda-311-cand");
        assertThat(texts(r.get("candidate_names"))).contains("nmda-311", "nmda-311-cand");
        assertThat(texts(r.get("operational_names"))).contains("nmda-311").doesNotContain("nmda-311-cand");
        assertThat(r.get("running_has_state").asBoolean()).isFalse();
        assertThat(r.get("operational_state").asText()).isEqualTo("running");
        assertThat(texts(r.get("operational_tops"))).containsExactly("NEW-VMM-MIB", "modules-state", "nacm", "netconf", "netconf-state",
                "yang-library");
        assertThat(r.get("state_only_has_config").asBoolean()).isFalse();
        assertThat(texts(r.get("depth2_children"))).contains("vmTable", "vmConfigTable", "vmObjects");
        assertThat(r.get("depth2_grandchildren").asInt()).isZero();
        assertThat(texts(r.get("xpath_leaves"))).containsExactly("vmIndex", "vmOperState");
        assertThat(texts(r.get("library_capability"))).containsExactly(
                "urn:ietf:params:netconf:capability:yang-library:1.1?revision=2019-01-04&content-id=" + r.get("content_id").asText());
        assertThat(texts(r.get("datastores"))).containsExactly("ds:candidate", "ds:operational", "ds:running");
        assertThat(texts(r.get("modules"))).contains("NEW-VMM-MIB", "ietf-netconf", "ietf-netconf-nmda", "ietf-yang-library",
                "ietf-netconf-with-defaults", "ietf-netconf-notifications", "ietf-netconf-monitoring");
        assertThat(r.get("intended").get("tag").asText()).isEqualTo("invalid-value");
    }

    @Test
    void sessionsStartingAndEndingAreNotifiedAndCounted() throws Exception {
        JsonNode r = Ncclient.scenario(server, "sessions");
        List<String> seen = new ArrayList<>();
        for (JsonNode n : r.get("notifications")) {
            seen.add(n.get("kind").asText() + " " + n.get("session-id").asText() + " "
                    + n.path("termination-reason").asText("-") + " " + n.path("killed-by").asText("-"));
            assertThat(n.get("username").asText()).isEqualTo("admin");
            assertThat(n.get("source-host").asText()).isEqualTo("127.0.0.1");
        }
        int closed = r.get("closed_id").asInt();
        int killed = r.get("killed_id").asInt();
        // Each session starts before it ends; one session's end may be told after the next one started.
        assertThat(seen).containsExactlyInAnyOrder("netconf-session-start " + closed + " - -",
                "netconf-session-end " + closed + " closed -", "netconf-session-start " + killed + " - -",
                "netconf-session-end " + killed + " killed " + r.get("watcher_id").asInt());
        assertThat(seen.indexOf("netconf-session-start " + closed + " - -")).isLessThan(seen.indexOf("netconf-session-end " + closed + " closed -"));
        assertThat(seen.indexOf("netconf-session-start " + killed + " - -"))
                .isLessThan(seen.indexOf("netconf-session-end " + killed + " killed " + r.get("watcher_id").asInt()));
        JsonNode stats = r.get("statistics");
        assertThat(stats.get("in-sessions").asInt()).isGreaterThanOrEqualTo(3);
        assertThat(stats.get("out-notifications").asInt()).isGreaterThanOrEqualTo(4);
        assertThat(stats.get("in-rpcs").asInt()).isGreaterThanOrEqualTo(4);
        assertThat(Instant.parse(stats.get("netconf-start-time").asText())).isBefore(Instant.now());
    }

    @Test
    void aConfirmedCommitLeftUnconfirmedIsPutBackWhenItsTimeoutRunsOut() throws Exception {
        JsonNode r = Ncclient.scenario(server, "confirmed", "--index", "331", "--name", "cc");
        JsonNode before = r.get("before");
        assertThat(before.get("331").get("name").asText()).isEmpty();
        assertThat(before.get("332").get("memory").asText()).isEqualTo("256");
        // The commit created 331, resized 332 and removed 333 ...
        assertThat(r.get("commit_ok").asBoolean()).isTrue();
        assertThat(r.get("during").get("331").get("name").asText()).isEqualTo("cc-new");
        assertThat(r.get("during").get("332").get("memory").asText()).isEqualTo("1024");
        assertThat(r.get("removed_during").asBoolean()).isTrue();
        // ... and nobody confirmed it: at the timeout the server put all three back.
        List<String> events = new ArrayList<>();
        r.get("events").forEach(e -> events.add(e.get("confirm-event").asText()));
        assertThat(events).containsExactly("start", "timeout");
        assertThat(r.get("events").get(0).get("timeout").asText()).isEqualTo("3");
        assertThat(r.get("after_timeout")).isEqualTo(before);
        assertThat(r.get("removed_back").asText()).isEqualTo("running");
        assertThat(Ncclient.rest(server, "/api/v1/routers/333").get("vmName").asText()).isEqualTo("cc-removed");
        // A persistent one: a wrong persist-id is invalid-value; the right one confirms it.
        assertThat(r.get("wrong_persist_id").get("tag").asText()).isEqualTo("invalid-value");
        assertThat(r.get("confirm_ok").asBoolean()).isTrue();
        assertThat(r.get("confirmed").get("331").get("name").asText()).isEqualTo("cc-new");
        assertThat(Ncclient.rest(server, "/api/v1/routers/331").get("vmName").asText()).isEqualTo("cc-new");
        assertThat(r.get("cancel_nothing").get("tag").asText()).isEqualTo("operation-failed");
    }

    @Test
    void aReplayAfterARestartSendsWhatHappenedBeforeItUpToTheStopTime() throws Exception {
        Instant since = Instant.now();
        JsonNode created = Ncclient.scenario(server, "create", "--index", "321", "--name", "replay-321");
        Instant until = Instant.now();
        Ncclient.scenario(server, "create", "--index", "322", "--name", "replay-322-late");
        server.restart();

        JsonNode r = Ncclient.scenario(server, "replay", "--since", since.toString(), "--until", until.toString());
        List<String> kinds = new ArrayList<>();
        List<String> vrs = new ArrayList<>();
        for (JsonNode n : r.get("notifications")) {
            kinds.add(n.get("kind").asText());
            if (!n.get("vmName").asText().isEmpty()) vrs.add(n.get("kind").asText() + " " + n.get("vmName").asText());
        }
        assertThat(vrs).containsExactly("vmRunning replay-321");
        assertThat(kinds).endsWith("replayComplete", "notificationComplete");
        assertThat(r.get("subscribe_again").asBoolean()).isTrue();
        // The log is the same one: created before the restart, and said so after it.
        JsonNode again = Ncclient.scenario(server, "create", "--index", "323", "--name", "replay-323");
        assertThat(again.get("replayLogCreationTime").asText()).isEqualTo(created.get("replayLogCreationTime").asText());
    }
}
