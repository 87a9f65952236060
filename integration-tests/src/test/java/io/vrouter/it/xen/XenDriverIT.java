package io.vrouter.it.xen;

import static io.vrouter.it.ServerProcess.operState;
import static io.vrouter.it.snmp.NewVmmOids.*;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vrouter.it.ServerProcess;
import io.vrouter.xen.fake.FakeXenServer;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged server with {@code --driver xen} against the XenAPI fake, which runs in this JVM and
 * speaks XenAPI's JSON-RPC over real HTTP: VRs created, started, stopped, suspended and removed over
 * REST, SNMP (net-snmp's snmpset) and NETCONF (ncclient) become XenAPI calls on the fake host;
 * changes made on the host behind vrouter's back show; faults are survived; and after every test
 * nothing is left on the host.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class XenDriverIT {
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dir;
    FakeXenServer xen;
    ServerProcess server;

    @BeforeAll
    void start() throws Exception {
        xen = new FakeXenServer();
        Path conf = dir.resolve("xen.properties");
        Files.writeString(conf, String.join("\n",
                "xen.url = " + xen.url(),
                "xen.username = " + FakeXenServer.USER,
                "xen.password = " + FakeXenServer.PASSWORD,
                "xen.network.xenbr0 = " + FakeXenServer.NETWORKS.get(0),
                "xen.network.br-lan = " + FakeXenServer.NETWORKS.get(1),
                "xen.shutdown-timeout = 1s",
                "xen.event-timeout = 5s",
                "xen.retry-backoff = 50ms", ""));
        server = ServerProcess.start(dir.resolve("server"), "--driver", "xen", "--config", conf.toString());
    }

    @AfterEach
    void nothingLeftOnTheHost() throws Exception {
        xen.clearFaults();
        // A test that failed half-way leaves its VRs: remove them through vrouter, so the next starts clean.
        for (JsonNode vr : JSON.readTree(server.get("/api/v1/routers").body()).path("virtualRouter")) {
            server.delete("/api/v1/routers/" + vr.path("vmIndex").asInt() + "?wait=30s");
        }
        assertThat(xen.leaks()).as("objects left on the XenAPI host").isEmpty();
    }

    @AfterAll
    void stop() throws Exception {
        if (server != null) server.close();
        if (xen != null) xen.close();
    }

    // ---------------------------------------------------------------- helpers

    private String power(String vmName) {
        String ref = xen.vms().get(vmName);
        assertThat(ref).as("VM " + vmName + " on the host").isNotNull();
        return xen.record("VM", ref).path("power_state").asText();
    }

    private void awaitPower(String vmName, String state) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < end) {
            String ref = xen.vms().get(vmName);
            if (ref != null && xen.record("VM", ref).path("power_state").asText().equals(state)) return;
            Thread.sleep(50);
        }
        throw new AssertionError("VM " + vmName + " never became " + state + " on the host");
    }

    private void awaitNoVm(String vmName) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < end && xen.vms().containsKey(vmName)) Thread.sleep(50);
        assertThat(xen.vms()).doesNotContainKey(vmName);
    }

    private void delete(int vmIndex) throws Exception {
        HttpResponse<String> r = server.delete("/api/v1/routers/" + vmIndex + "?wait=30s");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(204);
        assertThat(server.get("/api/v1/routers/" + vmIndex).statusCode()).isEqualTo(404);
    }

    private List<String> callsSince(int from) {
        List<String> all = xen.calls();
        return new ArrayList<>(all.subList(from, all.size()));
    }

    private ServerProcess.Result snmp(String tool, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(tool, "-v2c", "-c", tool.equals("snmpset") ? "private" : "public",
                "-On", "-t", "8", "-r", "0", "udp:127.0.0.1:" + server.snmpPort));
        cmd.addAll(List.of(args));
        return ServerProcess.run(cmd);
    }

    private void awaitSnmpOperState(int vmIndex, int state) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        String last = "";
        while (System.nanoTime() < end) {
            last = snmp("snmpget", OPER_STATE + vmIndex).out().trim();
            if (last.endsWith("INTEGER: " + state)) return;
            Thread.sleep(100);
        }
        throw new AssertionError("vmOperState." + vmIndex + " never became " + state + ": " + last);
    }

    // ---------------------------------------------------------------- tests

    @Test
    void theServerRunsOnTheXenDriverAndReportsTheHost() throws Exception {
        JsonNode health = JSON.readTree(server.get("/health").body());
        assertThat(health.path("driver").asText()).isEqualTo("xen");
        JsonNode h = JSON.readTree(server.get("/api/v1/hypervisor").body());
        assertThat(h.path("vmHvSoftware").asText()).isEqualTo("XCP-ng");
        assertThat(h.path("vmHvVersion").asText()).isEqualTo("8.2.1");
        assertThat(h.path("vmHvUpTime").asLong()).isGreaterThan(360_000L - 100);
    }

    @Test
    void restCreateStartStopSuspendAndRemoveAreXenApiCalls() throws Exception {
        int from = xen.calls().size();
        HttpResponse<String> created = server.post("/api/v1/routers?wait=30s", "{\"vmIndex\":1,\"vmName\":\"edge1\","
                + "\"vmConfigMemory\":256,\"vmConfigCpuNumber\":2,\"vmNetworkConfigTable\":["
                + "{\"vmNetworkConfigParent\":\"xenbr0\",\"vmNetworkConfigPhysAddress\":\"02:00:00:00:00:01\",\"vmNetworkConfigAddress\":\"192.0.2.1\"},"
                + "{\"vmNetworkConfigParent\":\"br-lan\"}]}");
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        assertThat(power("edge1")).isEqualTo("Running");
        String ref = xen.vms().get("edge1");
        ObjectNode vm = xen.record("VM", ref);
        assertThat(vm.path("other_config").path("vrouter-vmIndex").asText()).isEqualTo("1");
        assertThat(vm.path("memory_static_max").asLong()).isEqualTo(256L << 20);
        assertThat(vm.path("VCPUs_max").asInt()).isEqualTo(2);
        assertThat(xen.where("VIF", "VM", ref)).extracting(v -> v.path("MAC").asText()).contains("02:00:00:00:00:01").hasSize(2);
        assertThat(callsSince(from)).containsSubsequence("Async.VM.clone",
                "VM.add_to_other_config", "Async.VM.provision", "VIF.create", "Async.VM.start");

        JsonNode vr = server.router(1);
        assertThat(operState(vr)).isEqualTo("running");
        assertThat(vr.path("vmEntry").path("vmUUID").asText()).isEqualTo(vm.path("uuid").asText());
        assertThat(vr.path("vmEntry").path("vmCurCpuNumber").asInt()).isEqualTo(2);
        assertThat(vr.path("vmNetworkTable").get(0).path("vmNetworkPhysAddress").asText()).isEqualTo("02:00:00:00:00:01");
        assertThat(vr.path("vmNetworkTable").get(1).path("vmNetworkParent").asText()).isEqualTo("br-lan");
        assertThat(vr.path("vmStorageTable")).hasSize(1);

        // An interface added to and removed from the running VR is a VIF created and plugged, unplugged and destroyed.
        HttpResponse<String> added = server.post("/api/v1/routers/1/interfaces?wait=30s",
                "{\"vmNetworkConfigIndex\":3,\"vmNetworkConfigParent\":\"br-lan\",\"vmNetworkConfigPhysAddress\":\"02:00:00:00:00:03\"}");
        assertThat(added.statusCode()).as(added.body()).isEqualTo(201);
        ObjectNode vif = xen.where("VIF", "VM", ref).stream().filter(v -> v.path("MAC").asText().equals("02:00:00:00:00:03"))
                .findFirst().orElseThrow();
        assertThat(vif.path("currently_attached").asBoolean()).isTrue();
        assertThat(server.router(1).path("vmNetworkTable")).hasSize(3);
        assertThat(server.delete("/api/v1/routers/1/interfaces/3?wait=30s").statusCode()).isEqualTo(204);
        assertThat(xen.where("VIF", "VM", ref)).hasSize(2);
        assertThat(server.router(1).path("vmNetworkTable")).hasSize(2);

        assertThat(server.post("/api/v1/routers/1/stop?wait=30s", "").statusCode()).isEqualTo(200);
        assertThat(power("edge1")).isEqualTo("Halted");
        assertThat(operState(server.router(1))).isEqualTo("shutdown");
        assertThat(server.post("/api/v1/routers/1/start?wait=30s", "").statusCode()).isEqualTo(200);
        assertThat(power("edge1")).isEqualTo("Running");
        assertThat(server.post("/api/v1/routers/1/suspend?wait=30s", "").statusCode()).isEqualTo(200);
        assertThat(power("edge1")).isEqualTo("Suspended");
        assertThat(operState(server.router(1))).isEqualTo("suspended");
        assertThat(server.post("/api/v1/routers/1/start?wait=30s", "").statusCode()).isEqualTo(200);
        assertThat(power("edge1")).isEqualTo("Running");

        delete(1);
        assertThat(xen.vms()).doesNotContainKey("edge1");
        assertThat(callsSince(from)).contains("Async.VM.clean_shutdown", "Async.VM.suspend", "Async.VM.resume",
                "VM.destroy", "VDI.destroy");
    }

    @Test
    void changesMadeOnTheHostBehindVroutersBackShow() throws Exception {
        assertThat(server.post("/api/v1/routers?wait=30s", "{\"vmIndex\":2,\"vmName\":\"edge2\"}").statusCode()).isEqualTo(201);
        xen.setPowerState(xen.vms().get("edge2"), "Halted");
        JsonNode vr = server.awaitRouter(2, v -> operState(v).equals("shutdown"), "showed the shutdown made outside it");
        assertThat(vr.path("vmEntry").path("vmOperStateReason").asText()).contains("outside vrouter");

        xen.destroyVm(xen.vms().get("edge2"));
        vr = server.awaitRouter(2, v -> operState(v).equals("crashed"), "showed the deletion made outside it");
        assertThat(vr.path("vmEntry").path("vmOperStateReason").asText()).contains("deleted");
        delete(2);
    }

    @Test
    void aFailedProvisioningIsUndoneWithXenApisErrorAndLeavesNothing() throws Exception {
        xen.failNext("VM.provision", "SR_FULL", "4294967296", "1073741824");
        HttpResponse<String> r = server.post("/api/v1/routers?wait=30s", "{\"vmIndex\":3,\"vmName\":\"edge3\"}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(502);
        assertThat(r.body()).contains("SR_FULL", "4294967296", "provision failed");
        assertThat(server.get("/api/v1/routers/3").statusCode()).isEqualTo(404);
        assertThat(xen.vms()).doesNotContainKey("edge3");
    }

    @Test
    void aHangingCleanShutdownIsForcedAfterTheTimeout() throws Exception {
        assertThat(server.post("/api/v1/routers?wait=30s", "{\"vmIndex\":4,\"vmName\":\"edge4\"}").statusCode()).isEqualTo(201);
        xen.hangCleanShutdown(true);
        int from = xen.calls().size();
        HttpResponse<String> r = server.post("/api/v1/routers/4/stop?wait=30s", "");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(operState(server.router(4))).isEqualTo("shutdown");
        assertThat(power("edge4")).isEqualTo("Halted");
        assertThat(callsSince(from)).containsSubsequence("Async.VM.clean_shutdown", "task.cancel", "Async.VM.hard_shutdown");
        delete(4);
    }

    @Test
    void aLostHostMakesTheServerNotReadyUntilItIsBack() throws Exception {
        xen.failAlways("event.from", "HOST_OFFLINE");
        try {
            HttpResponse<String> ready = awaitHealth(503);
            assertThat(ready.body()).contains("\"status\":\"DOWN\"").contains("HOST_OFFLINE");
            assertThat(server.get("/health/live").statusCode()).isEqualTo(200);
        } finally {
            xen.clearFaults();
        }
        assertThat(awaitHealth(200).body()).contains("\"status\":\"UP\"");
    }

    private HttpResponse<String> awaitHealth(int status) throws Exception {
        long deadline = System.nanoTime() + 30_000_000_000L;
        HttpResponse<String> r = server.get("/health/ready");
        while (r.statusCode() != status && System.nanoTime() < deadline) {
            Thread.sleep(100);
            r = server.get("/health/ready");
        }
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        return r;
    }

    @Test
    void anExpiredSessionIsRenewed() throws Exception {
        int logins = xen.logins();
        xen.expireSessions();
        assertThat(server.post("/api/v1/routers?wait=30s", "{\"vmIndex\":5,\"vmName\":\"edge5\"}").statusCode()).isEqualTo(201);
        assertThat(xen.logins()).isGreaterThan(logins);
        assertThat(power("edge5")).isEqualTo("Running");
        delete(5);
    }

    @Test
    void aRestartAdoptsTheVmsOnTheHostAndReportsStrayOnes() throws Exception {
        assertThat(server.post("/api/v1/routers?wait=30s", "{\"vmIndex\":6,\"vmName\":\"edge6\"}").statusCode()).isEqualTo(201);
        String stray = xen.addMarkedVm("stray", 99, "Halted");
        String ref = xen.vms().get("edge6");
        server.restart();
        JsonNode health = JSON.readTree(server.get("/health").body());
        assertThat(health.path("unresolvedVms").asInt()).isEqualTo(1);
        assertThat(operState(server.router(6))).isEqualTo("running");
        // Adopted, not provisioned again: the same VM, and only one.
        assertThat(xen.vms().get("edge6")).isEqualTo(ref);
        assertThat(xen.vms().keySet()).containsExactlyInAnyOrder("edge6", "stray");
        // The stray VM is left alone.
        assertThat(xen.record("VM", stray).path("power_state").asText()).isEqualTo("Halted");
        delete(6);
        xen.destroyVm(stray);
    }

    @Test
    void aKillDuringProvisioningLeavesNoHalfBuiltVmAfterTheRestart() throws Exception {
        xen.operationDelay(400);
        HttpResponse<String> r = server.post("/api/v1/routers", "{\"vmIndex\":9,\"vmName\":\"edge9\"}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        String halfBuilt = null;
        while (System.nanoTime() < end && halfBuilt == null) {
            String ref = xen.vms().get("edge9");
            if (ref != null && xen.record("VM", ref).path("other_config").has("vrouter-provisioning")) halfBuilt = ref;
            else Thread.sleep(20);
        }
        assertThat(halfBuilt).as("edge9 being provisioned").isNotNull();
        server.kill9();
        xen.operationDelay(0);
        // The killed server's session ends (XenAPI's session timeout), and its tasks with it.
        xen.expireSessions();
        server.restart();

        JsonNode vr = server.awaitRouter(9, v -> operState(v).equals("running"), "ran after the restart");
        String ref = xen.vms().get("edge9");
        assertThat(ref).isNotEqualTo(halfBuilt);
        assertThat(xen.vms().keySet()).containsExactly("edge9");
        assertThat(xen.record("VM", ref).path("other_config").has("vrouter-provisioning")).isFalse();
        assertThat(vr.path("vmEntry").path("vmUUID").asText()).isEqualTo(xen.record("VM", ref).path("uuid").asText());
        assertThat(server.log()).contains("left half built");
        delete(9);
    }

    @Test
    void snmpRowCreationAdminStateAndDestroyAreXenApiCalls() throws Exception {
        ServerProcess.Result r = snmp("snmpset", ROW_STATUS + 7, "i", "4", NAME + 7, "s", "snmp-xen", MEMORY + 7, "i", "384");
        assertThat(r.exit()).as(r.toString()).isZero();
        awaitSnmpOperState(7, 4);
        assertThat(power("snmp-xen")).isEqualTo("Running");
        // vmHvSoftware and vmHvVersion come from the host's software_version.
        ServerProcess.Result hv = snmp("snmpget", MIB + ".1.1.1.0", MIB + ".1.1.2.0");
        assertThat(hv.out()).as(hv.toString()).contains("STRING: \"XCP-ng\"", "STRING: \"8.2.1\"");
        assertThat(xen.record("VM", xen.vms().get("snmp-xen")).path("memory_static_max").asLong()).isEqualTo(384L << 20);

        assertThat(snmp("snmpset", ADMIN + 7, "i", "4").exit()).isZero();
        awaitSnmpOperState(7, 11);
        assertThat(power("snmp-xen")).isEqualTo("Halted");
        assertThat(snmp("snmpset", ADMIN + 7, "i", "1").exit()).isZero();
        awaitSnmpOperState(7, 4);
        assertThat(power("snmp-xen")).isEqualTo("Running");

        ServerProcess.Result d = snmp("snmpset", ROW_STATUS + 7, "i", "6");
        assertThat(d.exit()).as(d.toString()).isZero();
        awaitNoVm("snmp-xen");
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < end && server.get("/api/v1/routers/7").statusCode() != 404) Thread.sleep(50);
        assertThat(server.get("/api/v1/routers/7").statusCode()).isEqualTo(404);
    }

    @Test
    void aRunningVrIsRenamedOverRestAndSnmpByItsNameAloneOnTheHost() throws Exception {
        assertThat(server.post("/api/v1/routers?wait=30s", "{\"vmIndex\":10,\"vmName\":\"rename-me\",\"vmConfigCpuNumber\":2}")
                .statusCode()).isEqualTo(201);
        String ref = xen.vms().get("rename-me");
        int from = xen.calls().size();

        HttpResponse<String> r = server.patch("/api/v1/routers/10?wait=30s", "{\"vmName\":\"renamed-rest\"}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(xen.vms()).containsEntry("renamed-rest", ref).doesNotContainKey("rename-me");
        assertThat(power("renamed-rest")).isEqualTo("Running");
        assertThat(server.router(10).path("vmName").asText()).isEqualTo("renamed-rest");
        assertThat(callsSince(from)).contains("VM.set_name_label")
                .doesNotContain("VM.set_VCPUs_max", "VM.set_VCPUs_at_startup", "VM.set_memory_limits");

        // An SNMP SET is answered once accepted; a change set queued after it on the VR answers once it is applied.
        ServerProcess.Result set = snmp("snmpset", NAME + 10, "s", "renamed-snmp");
        assertThat(set.exit()).as(set.toString()).isZero();
        HttpResponse<String> after = server.patch("/api/v1/routers/10?wait=30s", "{\"vmConfigDescription\":\"after the SNMP rename\"}");
        assertThat(after.statusCode()).as(after.body()).isEqualTo(200);
        ServerProcess.Result name = snmp("snmpget", NAME + 10);
        assertThat(name.out()).as(name.toString()).contains("STRING: \"renamed-snmp\"");
        assertThat(xen.vms()).containsEntry("renamed-snmp", ref).doesNotContainKey("renamed-rest");
        assertThat(power("renamed-snmp")).isEqualTo("Running");
        delete(10);
    }

    @Test
    void netconfCreateCommitStopStartAndDeleteAreXenApiCalls() throws Exception {
        int from = xen.calls().size();
        List<String> cmd = List.of("python3", "src/test/python/netconf_scenarios.py", "lifecycle",
                "--port", Integer.toString(server.netconfPort), "--index", "8", "--name", "nc-xen");
        ServerProcess.Result r = ServerProcess.run(cmd);
        assertThat(r.exit()).as(r.toString()).isZero();
        String[] lines = r.out().strip().split("\n");
        JsonNode out = JSON.readTree(lines[lines.length - 1]);
        assertThat(out.path("states_after_commit").toString()).endsWith("\"running\"]");
        assertThat(out.path("states_after_stop").toString()).endsWith("\"shutdown\"]");
        assertThat(out.path("states_after_start").toString()).endsWith("\"running\"]");
        // The MAC the host generated is what NETCONF reads.
        assertThat(out.path("mac").asText()).matches("[0-9a-f]{2}(:[0-9a-f]{2}){5}");
        assertThat(out.path("gone_after_delete").asBoolean()).isTrue();
        awaitNoVm("nc-xen");
        List<String> calls = callsSince(from);
        assertThat(calls).containsSubsequence("Async.VM.clone", "VIF.create", "Async.VM.start", "Async.VM.clean_shutdown",
                "Async.VM.start", "VM.destroy");
        assertThat(server.get("/api/v1/routers/8").statusCode()).isEqualTo(404);
    }
}
