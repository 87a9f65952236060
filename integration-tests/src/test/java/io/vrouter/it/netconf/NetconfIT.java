package io.vrouter.it.netconf;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.vrouter.it.ServerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * NETCONF end to end: the packaged server in its own process, ncclient over real SSH.
 * Each test uses VR indices of its own, so they share one server.
 */
class NetconfIT extends WithServer {
    static final String VMM = "urn:ietf:params:xml:ns:yang:smiv2:NEW-VMM-MIB";

    static List<String> texts(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }

    @ParameterizedTest
    @ValueSource(strings = {"1.0", "1.1"})
    void capabilityExchangeOnBothFramings(String framing) throws Exception {
        JsonNode r = Ncclient.scenario(server, "hello", "--framing", framing);
        assertThat(r.get("framing").asText()).isEqualTo(framing);
        assertThat(texts(r.get("capabilities"))).contains("urn:ietf:params:netconf:base:1.0",
                "urn:ietf:params:netconf:base:1.1", "urn:ietf:params:netconf:capability:candidate:1.0",
                "urn:ietf:params:netconf:capability:xpath:1.0", "urn:ietf:params:netconf:capability:notification:1.0",
                "urn:ietf:params:netconf:capability:interleave:1.0",
                VMM + "?module=NEW-VMM-MIB&revision=2026-11-28");
        assertThat(r.get("session_id").asInt()).isPositive();
        assertThat(r.get("get_config_ok").asBoolean()).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"1.0", "1.1"})
    void createOnCandidateCommitReadBackStartStopAndDelete(String framing) throws Exception {
        int index = framing.equals("1.0") ? 101 : 111;
        String name = "life-" + index;
        JsonNode r = Ncclient.scenario(server, "lifecycle", "--framing", framing, "--index", Integer.toString(index), "--name", name);
        assertThat(r.get("framing").asText()).isEqualTo(framing);
        assertThat(r.get("in_candidate").asBoolean()).isTrue();
        assertThat(r.get("in_running_before_commit").asBoolean()).isFalse();
        assertThat(texts(r.get("states_after_commit"))).last().isEqualTo("running");
        // Subtree: a content match on vmName returns that one entry, whole.
        assertThat(r.get("subtree_entries").asInt()).isEqualTo(1);
        assertThat(r.get("subtree_index").asText()).isEqualTo(Integer.toString(index));
        assertThat(r.get("subtree_memory").asText()).isEqualTo("256");
        // Selection of one state leaf: that leaf and the entry's keys, nothing else.
        assertThat(r.get("mac").asText()).matches("[0-9a-f]{2}(:[0-9a-f]{2}){5}");
        assertThat(texts(r.get("mac_reply_leaves"))).containsExactlyInAnyOrder("vmIndex", "vmNetworkIndex", "vmNetworkPhysAddress");
        // XPath: the selected leaf with the keys of its entry.
        assertThat(r.get("xpath_memory").asText()).isEqualTo("256");
        assertThat(texts(r.get("xpath_leaves"))).containsExactlyInAnyOrder("vmIndex", "vmConfigMemory");
        assertThat(texts(r.get("states_after_stop"))).last().isEqualTo("shutdown");
        assertThat(texts(r.get("states_after_start"))).last().isEqualTo("running");
        assertThat(r.get("gone_after_delete").asBoolean()).isTrue();
        assertThat(r.get("in_running_after_delete").asBoolean()).isFalse();
        assertThat(Ncclient.rest(server, "/api/v1/routers/" + index)).isNull();
    }

    @Test
    void aVrCreatedOverNetconfIsTheSameVrOverRest() throws Exception {
        Ncclient.scenario(server, "lifecycle", "--index", "121", "--name", "shared-121", "--keep");
        JsonNode vr = Ncclient.rest(server, "/api/v1/routers/121");
        assertThat(vr).isNotNull();
        assertThat(vr.get("vmName").asText()).isEqualTo("shared-121");
        assertThat(vr.get("vmConfigMemory").asInt()).isEqualTo(256);
        assertThat(vr.get("vmAdminState").asText()).isEqualTo("running");
        assertThat(vr.toString()).contains("192.0.2.1", "br-lan");
    }

    @ParameterizedTest
    @ValueSource(strings = {"1.0", "1.1"})
    void pipelinedRpcsAreAnsweredInRequestOrder(String framing) throws Exception {
        JsonNode r = Ncclient.scenario(server, "pipeline", "--framing", framing, "--count", "60");
        assertThat(r.get("ok").asInt()).isEqualTo(60);
        assertThat(texts(r.get("arrived"))).hasSize(60).containsExactlyElementsOf(texts(r.get("sent")));
    }

    @Test
    void aSubscriptionReceivesTheNotificationThatCreationCompleted() throws Exception {
        JsonNode r = Ncclient.scenario(server, "notify", "--index", "131", "--name", "notified-131");
        JsonNode running = r.get("running");
        assertThat(running.isNull()).as("vmRunning for notified-131 among %s", r.get("events")).isFalse();
        assertThat(running.get("kind").asText()).isEqualTo("vmRunning");
        assertThat(running.get("state").asText()).isEqualTo("running");
        assertThat(running.get("eventTime").asText()).matches("\\d{4}-\\d{2}-\\d{2}T.*Z");
        assertThat(r.get("rpc_after_subscribe").asBoolean()).isTrue();
    }

    @Test
    void malformedXmlUnknownOperationsAndUnknownLeavesGetRpcErrorsAndEverythingLivesOn() throws Exception {
        JsonNode r = Ncclient.scenario(server, "errors", "--index", "141");
        assertThat(r.get("malformed_reply").asText()).contains("<error-tag>malformed-message</error-tag>",
                "<error-type>rpc</error-type>");
        assertThat(r.get("unknown_operation").get("tag").asText()).isEqualTo("operation-not-supported");
        assertThat(r.get("unknown_operation").get("type").asText()).isEqualTo("protocol");
        JsonNode leaf = r.get("unknown_leaf");
        assertThat(leaf.get("tag").asText()).isEqualTo("unknown-element");
        assertThat(leaf.get("type").asText()).isEqualTo("application");
        assertThat(leaf.get("path").asText())
                .isEqualTo("/new-vmm-mib:NEW-VMM-MIB/new-vmm-mib:vmConfigTable/new-vmm-mib:vmConfigEntry[new-vmm-mib:vmIndex='141']");
        assertThat(leaf.get("info").asText()).contains("<bad-element>vmColour</bad-element>");
        assertThat(r.get("delete_missing").get("tag").asText()).isEqualTo("data-missing");
        assertThat(r.get("leafy_created").asBoolean()).isFalse();
        assertThat(r.get("session_alive").asBoolean()).isTrue();
        assertThat(r.get("server_alive").asBoolean()).isTrue();
    }

    @Test
    void getSchemaDownloadsModulesThatCompile() throws Exception {
        Path out = Files.createDirectories(dir.resolve("schemas"));
        JsonNode r = Ncclient.scenario(server, "schema", "--out", out.toString());
        assertThat(texts(r.get("files"))).extracting(f -> Path.of(f).getFileName().toString())
                .contains("NEW-VMM-MIB@2026-11-28.yang", "ietf-yang-smiv2@2012-06-22.yang", "ietf-yang-types@2013-07-15.yang");
        Path module = out.resolve("NEW-VMM-MIB@2026-11-28.yang");
        assertThat(Files.readString(module)).startsWith("module NEW-VMM-MIB {");
        ServerProcess.Result pyang = ServerProcess.run(List.of("pyang", "--strict", "-p", out.toString(), module.toString()));
        assertThat(pyang.exit()).as(pyang.toString()).isZero();
        ServerProcess.Result yanglint = ServerProcess.run(List.of("yanglint", "-p", out.toString(), module.toString()));
        assertThat(yanglint.exit()).as(yanglint.toString()).isZero();
        // Every module listed (the YANG library's and their imports) comes whole and compiles from what was downloaded.
        assertThat(texts(r.get("files"))).hasSizeGreaterThanOrEqualTo(15);
        for (String f : texts(r.get("files"))) {
            ServerProcess.Result each = ServerProcess.run(List.of("yanglint", "-p", out.toString(), f));
            assertThat(each.exit()).as(f + "\n" + each).isZero();
        }
    }

    @Test
    void stopResizeAndRenameOnTheCandidateCommitAndRestShowsItWhileARunningVrIsNotResized() throws Exception {
        JsonNode r = Ncclient.scenario(server, "reconfigure", "--index", "161", "--name", "resize-161");
        String entry = "/new-vmm-mib:NEW-VMM-MIB/new-vmm-mib:vmConfigTable/new-vmm-mib:vmConfigEntry[new-vmm-mib:vmIndex='161']";
        JsonNode refused = r.get("resize_running");
        assertThat(refused.isNull()).as("a resize of a running VR is refused").isFalse();
        assertThat(refused.get("tag").asText()).isEqualTo("operation-failed");
        assertThat(refused.get("type").asText()).isEqualTo("application");
        assertThat(refused.get("app_tag").asText()).isEqualTo("vr-not-shut-down");
        assertThat(refused.get("path").asText()).isEqualTo(entry + "/new-vmm-mib:vmConfigMemory");
        assertThat(refused.get("message").asText()).contains("stop it");
        assertThat(r.get("memory_after_refusal").asText()).isEqualTo("256");
        assertThat(r.get("memory_before_commit").asText()).isEqualTo("256");
        assertThat(r.get("commit_ok").asBoolean()).isTrue();
        assertThat(texts(r.get("states_after_commit"))).last().isEqualTo("shutdown");
        assertThat(r.get("name").asText()).isEqualTo("resize-161-big");
        assertThat(r.get("memory").asText()).isEqualTo("1024");
        assertThat(r.get("template").get("tag").asText()).isEqualTo("operation-not-supported");
        assertThat(r.get("template").get("path").asText()).isEqualTo(entry + "/new-vmm-mib:vmConfigTemplate");

        JsonNode vr = Ncclient.rest(server, "/api/v1/routers/161");
        assertThat(vr).isNotNull();
        assertThat(vr.get("vmName").asText()).isEqualTo("resize-161-big");
        assertThat(vr.get("vmConfigMemory").asInt()).isEqualTo(1024);
        assertThat(vr.get("vmAdminState").asText()).isEqualTo("shutdown");
    }

    @Test
    void theReadOnlyUserCanReadButNotEdit() throws Exception {
        JsonNode r = Ncclient.scenario(server, "viewer", "--user", "viewer", "--password", "viewer", "--index", "151");
        assertThat(r.get("get_ok").asBoolean()).isTrue();
        assertThat(r.get("edit").get("tag").asText()).isEqualTo("access-denied");
        assertThat(Ncclient.rest(server, "/api/v1/routers/151")).isNull();
    }
}
