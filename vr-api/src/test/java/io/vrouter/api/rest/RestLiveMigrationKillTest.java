package io.vrouter.api.rest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vrouter.core.config.Settings;
import io.vrouter.core.driver.HypervisorDriver;
import io.vrouter.xen.XenDriverProvider;
import io.vrouter.xen.fake.FakeXenServer;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A kill -9 of either router in the middle of a move by the hypervisor (ADR 0023, decision 17): two
 * routers on the Xen driver, each with a XenAPI fake of its own (two pools). A router is killed by
 * freezing its XenAPI sessions (its calls hang, as a dead process's connections) and closing its
 * listener, its service left as it was; it restarts on the same data directory (and port). After the
 * restart exactly one copy runs, with the VM's vmUUID.
 */
class RestLiveMigrationKillTest {
    private static final String JSON = "application/json";
    private static final String INP = RestTenantsTest.INP;
    private final ObjectMapper json = new ObjectMapper();
    private FakeXenServer poolA;
    private FakeXenServer poolB;
    private RestServer a;
    private RestServer b;
    /** Killed routers: closed only at the end, once their hypervisor's calls are let go. */
    private final List<RestServer> killed = new ArrayList<>();

    /** The Xen driver on the pool; a call waits long, so that a killed router's calls hang for the whole test. */
    private static HypervisorDriver xen(FakeXenServer pool) throws Exception {
        return new XenDriverProvider().create(Settings.of(Map.of("xen.url", pool.url().toString(), "xen.username", FakeXenServer.USER,
                "xen.password", FakeXenServer.PASSWORD, "xen.network.br0", FakeXenServer.NETWORKS.get(0),
                "xen.call-timeout", "10m", "xen.event-timeout", "1s", "xen.retry-backoff", "20ms")));
    }

    @BeforeEach
    void start() throws Exception {
        poolA = new FakeXenServer();
        poolB = new FakeXenServer();
        b = RestServer.start("vrouter-livekill-b", Map.of("user.inp", "operator:inp"), xen(poolB));
        a = RestServer.start("vrouter-livekill-a", new HashMap<>(Map.of("user.inp", "operator:inp", "peer.b",
                "http://127.0.0.1:" + b.port(), "peer.b.user", "inp", "peer.b.password", "inp")), xen(poolA));
    }

    @AfterEach
    void stop() {
        if (a != null) a.close();
        if (b != null) b.close();
        poolA.close();
        poolB.close();
        killed.forEach(k -> k.service().close());
    }

    /** Kills the router (see the class). */
    private void kill(RestServer router, FakeXenServer pool) {
        pool.freezeSessions();
        router.kill();
        killed.add(router);
    }

    /** Starts the killed router again on its data directory and port, with a driver of its own. */
    private RestServer restart(RestServer router, FakeXenServer pool) throws Exception {
        return RestServer.start(router.settings().with("rest-port", Integer.toString(router.port())), xen(pool));
    }

    private int createRunning() throws Exception {
        HttpResponse<String> r = new RestClient(a.port()).post("/api/v1/routers?wait=20s", INP, JSON, """
                {"vmName":"mover","vmNetworkConfigTable":[{"vmNetworkConfigIndex":1,"vmNetworkConfigParent":"br0",
                 "vmNetworkConfigPhysAddress":"02:00:5e:00:53:32"}]}""");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        return json.readTree(r.body()).get("vmIndex").asInt();
    }

    private JsonNode routers(RestServer router) throws Exception {
        return json.readTree(new RestClient(router.port()).get("/api/v1/routers", INP, JSON).body()).path("virtualRouter");
    }

    private static boolean eventually(Callable<Boolean> condition) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < end) {
            if (condition.call()) return true;
            Thread.sleep(100);
        }
        return condition.call();
    }

    /** One VR named mover on the two routers, on B and running, with the VM's vmUUID; one VM, on pool B. */
    private void exactlyOneCopyOnB(String uuid) throws Exception {
        assertThat(eventually(() -> routers(a).isEmpty())).as("the source's copy is removed: " + routers(a)).isTrue();
        assertThat(eventually(() -> routers(b).size() == 1
                && routers(b).get(0).path("vmEntry").path("vmOperState").asText().equals("running")))
                .as(routers(b).toString()).isTrue();
        JsonNode onB = routers(b).get(0);
        assertThat(onB.get("vmName").asText()).isEqualTo("mover");
        assertThat(onB.get("vmEntry").get("vmUUID").asText()).isEqualTo(uuid);
        assertThat(poolA.vms()).isEmpty();
        assertThat(poolB.vms()).containsOnlyKeys("mover");
        assertThat(poolB.record("VM", poolB.vms().get("mover")).path("uuid").asText()).isEqualTo(uuid);
        assertThat(poolB.record("VM", poolB.vms().get("mover")).path("power_state").asText()).isEqualTo("Running");
    }

    @Test
    void aSourceKilledAfterTheHypervisorMovedTheVmRemovesItsCopyAtItsRestart() throws Exception {
        int i = createRunning();
        String uuid = poolA.record("VM", poolA.vms().get("mover")).path("uuid").asText();
        // XenServer moves the VM; the source dies before it hears so, its record of the VR still there
        poolA.afterTask("VM.migrate_send", poolA::freezeSessions);

        HttpResponse<String> r = new RestClient(a.port()).post("/api/v1/routers/" + i + "/migrate", INP, JSON, "{\"peer\":\"b\"}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        assertThat(eventually(() -> poolB.vms().containsKey("mover") && routers(b).size() == 1
                && routers(b).get(0).path("vmEntry").path("vmOperState").asText().equals("running"))).isTrue();
        assertThat(routers(a)).as("killed before it removed its copy").hasSize(1);

        kill(a, poolA);
        a = restart(a, poolA);

        exactlyOneCopyOnB(uuid);
    }

    @Test
    void aDestinationKilledAfterItsAcceptedAnswerAdoptsTheVmAtItsRestart() throws Exception {
        createRunning();
        String uuid = poolA.record("VM", poolA.vms().get("mover")).path("uuid").asText();
        CountDownLatch sent = new CountDownLatch(1);
        CountDownLatch send = new CountDownLatch(1);
        // the source's hypervisor begins the move after the destination's 202, and is held until the destination is dead
        poolA.beforeTask("VM.migrate_send", () -> {
            sent.countDown();
            try {
                send.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });

        int i = routers(a).get(0).get("vmIndex").asInt();
        HttpResponse<String> r = new RestClient(a.port()).post("/api/v1/routers/" + i + "/migrate", INP, JSON, "{\"peer\":\"b\"}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        assertThat(sent.await(60, TimeUnit.SECONDS)).isTrue();
        kill(b, poolB);
        send.countDown();
        // the VM is on pool B, which no router manages now; the source, not told it arrived, holds its copy
        assertThat(eventually(() -> poolB.vms().containsKey("mover") && !poolA.vms().containsKey("mover"))).isTrue();

        b = restart(b, poolB);

        exactlyOneCopyOnB(uuid);
    }

    @Test
    void aSourceKilledBeforeTheHypervisorMovedTheVmKeepsItAndTheDestinationUndoesItsArrival() throws Exception {
        int i = createRunning();
        String uuid = poolA.record("VM", poolA.vms().get("mover")).path("uuid").asText();
        CountDownLatch dead = new CountDownLatch(1);
        // the source dies as its hypervisor's move was to begin: the move never runs, the VM stays on pool A
        poolA.beforeTask("VM.migrate_send", () -> {
            poolA.freezeSessions();
            dead.countDown();
            try {
                new CountDownLatch(1).await(); // until the fake closes
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            throw new FakeXenServer.Failure("TASK_CANCELLED", "killed");
        });

        HttpResponse<String> r = new RestClient(a.port()).post("/api/v1/routers/" + i + "/migrate", INP, JSON, "{\"peer\":\"b\"}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        assertThat(dead.await(60, TimeUnit.SECONDS)).isTrue();
        assertThat(routers(b)).as("b answered 202 and waits for the VM").hasSize(1);
        kill(a, poolA);
        a = restart(a, poolA);

        // b is told the VM will not come: its VR is undone; a keeps its VR, running, with the same VM
        assertThat(eventually(() -> routers(b).isEmpty())).as(routers(b).toString()).isTrue();
        assertThat(eventually(() -> routers(a).size() == 1
                && routers(a).get(0).path("vmEntry").path("vmOperState").asText().equals("running")))
                .as(routers(a).toString()).isTrue();
        assertThat(routers(a).get(0).get("vmEntry").get("vmUUID").asText()).isEqualTo(uuid);
        assertThat(poolB.vms()).isEmpty();
        assertThat(poolA.vms()).containsOnlyKeys("mover");
        assertThat(poolA.record("VM", poolA.vms().get("mover")).path("uuid").asText()).isEqualTo(uuid);
    }
}
