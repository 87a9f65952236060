package io.vrouter.api.rest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vrouter.core.config.Settings;
import io.vrouter.core.driver.HypervisorDriver;
import io.vrouter.xen.XenDriverProvider;
import io.vrouter.xen.fake.FakeXenServer;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A VR moved over REST between two routers whose driver's hypervisor moves the machine (ADR 0023,
 * decision 13): each router on the Xen driver with a XenAPI fake of its own (two pools). The running
 * VM goes by {@code VM.migrate_send}, not made anew there; a migration XenServer refuses leaves the VR
 * running on the source and nothing on the destination.
 */
class RestLiveMigrationTest {
    private static final String JSON = "application/json";
    private static final String INP = RestTenantsTest.INP;
    private final ObjectMapper json = new ObjectMapper();
    private FakeXenServer poolA;
    private FakeXenServer poolB;
    private RestServer a;
    private RestServer b;
    private RestServer sim;
    private RestClient restA;
    private RestClient restB;

    private static HypervisorDriver xen(FakeXenServer pool) throws Exception {
        return new XenDriverProvider().create(Settings.of(Map.of("xen.url", pool.url().toString(), "xen.username", FakeXenServer.USER,
                "xen.password", FakeXenServer.PASSWORD, "xen.network.br0", FakeXenServer.NETWORKS.get(0),
                "xen.call-timeout", "5s", "xen.event-timeout", "1s", "xen.retry-backoff", "20ms")));
    }

    @BeforeEach
    void start() throws Exception {
        poolA = new FakeXenServer();
        poolB = new FakeXenServer();
        b = RestServer.start("vrouter-live-b", Map.of("user.inp", "operator:inp"), xen(poolB));
        // a peer on the simulated driver, which has no LiveMigration: it would make the VR anew, booting it again
        sim = RestServer.start("vrouter-live-sim", Map.of("user.inp", "operator:inp"));
        Map<String, String> settings = new HashMap<>(Map.of("user.inp", "operator:inp", "peer.b", "http://127.0.0.1:" + b.port(),
                "peer.b.user", "inp", "peer.b.password", "inp", "peer.sim", "http://127.0.0.1:" + sim.port(), "peer.sim.user", "inp",
                "peer.sim.password", "inp"));
        a = RestServer.start("vrouter-live-a", settings, xen(poolA));
        restA = new RestClient(a.port());
        restB = new RestClient(b.port());
    }

    @AfterEach
    void stop() {
        if (a != null) a.close();
        if (b != null) b.close();
        if (sim != null) sim.close();
        poolA.close();
        poolB.close();
    }

    private int createRunning() throws Exception {
        HttpResponse<String> r = restA.post("/api/v1/routers?wait=20s", INP, JSON, """
                {"vmName":"mover","vmNetworkConfigTable":[{"vmNetworkConfigIndex":1,"vmNetworkConfigParent":"br0",
                 "vmNetworkConfigPhysAddress":"02:00:5e:00:53:31"}]}""");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        return json.readTree(r.body()).get("vmIndex").asInt();
    }

    private String startTime(FakeXenServer pool) {
        return pool.record("VM_metrics", pool.record("VM", pool.vms().get("mover")).path("metrics").asText()).path("start_time").asText();
    }

    /** Polls until the condition holds, for 30 s at most (the destination undoes its change set on its own thread). */
    private static boolean eventually(java.util.concurrent.Callable<Boolean> condition) throws Exception {
        long end = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < end) {
            if (condition.call()) return true;
            Thread.sleep(50);
        }
        return condition.call();
    }

    @Test
    void theRunningVmMovesByXenApiAndIsNotMadeAnewThere() throws Exception {
        int i = createRunning();
        String uuid = poolA.record("VM", poolA.vms().get("mover")).path("uuid").asText();
        String started = startTime(poolA);

        HttpResponse<String> r = restA.post("/api/v1/routers/" + i + "/migrate?wait=60s", INP, JSON, "{\"peer\":\"b\"}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        int there = json.readTree(r.body()).get("peerIndex").asInt();

        assertThat(poolA.calls()).contains("Async.VM.migrate_send");
        assertThat(poolB.calls()).contains("host.migrate_receive").doesNotContain("Async.VM.clone", "Async.VM.start");
        assertThat(poolA.vms()).doesNotContainKey("mover");
        assertThat(poolB.record("VM", poolB.vms().get("mover")).path("uuid").asText()).isEqualTo(uuid);
        assertThat(startTime(poolB)).as("the same domain, running since it started on A").isEqualTo(started);
        JsonNode onB = json.readTree(restB.get("/api/v1/routers/" + there, INP, JSON).body());
        assertThat(onB.get("vmEntry").get("vmOperState").asText()).isEqualTo("running");
        assertThat(onB.get("vmEntry").get("vmUUID").asText()).isEqualTo(uuid);
        assertThat(restA.get("/api/v1/routers/" + i, INP, JSON).statusCode()).isEqualTo(404);
    }

    @Test
    void aPeerWhoseDriverCannotReceiveTheMachineRefusesAndTheVrStays() throws Exception {
        int i = createRunning();
        HttpResponse<String> r = restA.post("/api/v1/routers/" + i + "/migrate?wait=60s", INP, JSON, "{\"peer\":\"sim\"}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(409);
        assertThat(r.body()).contains("cannot take a VR from the hypervisor").contains("stays here");
        assertThat(json.readTree(new RestClient(sim.port()).get("/api/v1/routers", INP, JSON).body()).path("virtualRouter")).isEmpty();
        assertThat(json.readTree(restA.get("/api/v1/routers/" + i, INP, JSON).body()).get("vmEntry").get("vmOperState").asText())
                .isEqualTo("running");
        assertThat(poolA.record("VM", poolA.vms().get("mover")).path("power_state").asText()).isEqualTo("Running");
    }

    @Test
    void aMigrationXenServerRefusesLeavesTheVrRunningOnTheSourceAndNothingOnTheDestination() throws Exception {
        int i = createRunning();
        poolA.failNext("VM.migrate_send", "VM_MIGRATE_FAILED", "OpaqueRef:x", "OpaqueRef:y", "OpaqueRef:z", "memory transfer failed");

        HttpResponse<String> r = restA.post("/api/v1/routers/" + i + "/migrate?wait=60s", INP, JSON, "{\"peer\":\"b\"}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(502);
        assertThat(r.body()).contains("VM_MIGRATE_FAILED").contains("stays here");

        JsonNode onA = json.readTree(restA.get("/api/v1/routers/" + i, INP, JSON).body());
        assertThat(onA.get("vmEntry").get("vmOperState").asText()).isEqualTo("running");
        assertThat(poolA.record("VM", poolA.vms().get("mover")).path("power_state").asText()).isEqualTo("Running");
        // the destination's change set failed and was undone: no VR, no VM
        assertThat(eventually(() -> json.readTree(restB.get("/api/v1/routers", INP, JSON).body()).path("virtualRouter").isEmpty()))
                .as(restB.get("/api/v1/routers", INP, JSON).body()).isTrue();
        assertThat(poolB.vms()).isEmpty();
    }
}
