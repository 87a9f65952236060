package io.vrouter.netconf.protocol;

import io.vrouter.core.driver.sim.LatencyProfile;
import io.vrouter.core.driver.sim.SimulatedDriver;
import io.vrouter.core.metrics.VrMetrics;
import io.vrouter.core.model.OperState;
import io.vrouter.core.model.VirtualRouter;
import io.vrouter.core.persistence.ConfigStore;
import io.vrouter.core.persistence.EventLog;
import io.vrouter.core.service.VirtualRouterService;
import io.vrouter.netconf.transport.MessageMemory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * A NETCONF server as the product runs it, without SSH: a real service (simulated driver) on a data
 * directory that keeps its configuration, its replay log and a pending confirmed commit, so that a
 * test can stop it and start it again on the same directory.
 */
abstract class ServerFixture {
    @TempDir
    Path dir;
    VirtualRouterService service;
    NetconfServerContext ctx;
    final List<TestClient> clients = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        startServer(LatencyProfile.NONE);
    }

    void startServer(LatencyProfile latency) throws Exception {
        service = new VirtualRouterService(new SimulatedDriver(latency), new ConfigStore(dir), VrMetrics.inMemory());
        service.events().recordTo(EventLog.open(dir, 1000, Duration.ofDays(1)));
        service.start();
        ctx = new NetconfServerContext(service, VrMetrics.inMemory(), 1 << 20, MessageMemory.quarterOfHeap(), dir);
        ctx.recover();
    }

    @AfterEach
    void stop() throws Exception {
        stopServer();
    }

    void stopServer() throws Exception {
        for (TestClient c : clients) c.close();
        clients.clear();
        ctx.close();
        service.close();
    }

    TestClient client() throws Exception {
        TestClient c = new TestClient(ctx, "admin", false, true);
        clients.add(c);
        return c;
    }

    /** A session of the caller (a tenant's user, say), as the SSH authentication makes it. */
    TestClient as(io.vrouter.core.config.Caller caller) throws Exception {
        TestClient c = new TestClient(ctx, caller, true);
        clients.add(c);
        return c;
    }

    /** Declares the tenants acme and bravo, each with room for a few VRs. */
    void acmeAndBravo() {
        service.useTenants(io.vrouter.core.config.Tenants.from(io.vrouter.core.config.Settings.of(
                java.util.Map.of("tenant.acme", "vrs=5", "tenant.bravo", "vrs=5"))));
    }

    /** Waits up to 10 s until the VR is in the state (null: gone). */
    void awaitState(int vmIndex, OperState state) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() < deadline) {
            if (service.get(vmIndex).map(VirtualRouter::operState).orElse(null) == state) return;
            Thread.sleep(10);
        }
        throw new AssertionError("VR " + vmIndex + " is " + service.get(vmIndex).map(VirtualRouter::operState) + ", not " + state);
    }
}
