package io.vrouter.xen;

import static io.vrouter.xen.XenDriverTest.config;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vrouter.core.driver.DriverException;
import io.vrouter.core.driver.HypervisorDriver;
import io.vrouter.core.driver.LiveMigration;
import io.vrouter.core.driver.PowerState;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.xen.fake.FakeXenServer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Xen driver's {@link LiveMigration} against two XenAPI fakes (two pools, a router on each) and
 * against one pool of two hosts: the VM moves running (its domain's start time kept), the destination
 * adopts it under its own vmIndex, and a failed migration leaves it running on the source and nothing
 * on the destination.
 */
class XenMigrationTest {
    private FakeXenServer poolA;
    private FakeXenServer poolB;
    private final List<XenDriver> drivers = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        poolA = new FakeXenServer();
        poolB = new FakeXenServer();
    }

    @AfterEach
    void tearDown() {
        drivers.forEach(XenDriver::close);
        poolA.close();
        poolB.close();
    }

    private XenDriver connect(FakeXenServer xen, String... extra) throws DriverException {
        List<String> settings = new ArrayList<>(List.of("xen.task-timeout", "20s"));
        settings.addAll(List.of(extra));
        XenDriver d = (XenDriver) new XenDriverProvider().create(XenDriverTest.settings(xen, settings.toArray(String[]::new)));
        drivers.add(d);
        return d;
    }

    private static String startTime(FakeXenServer xen, String name) {
        ObjectNode vm = xen.record("VM", xen.vms().get(name));
        return xen.record("VM_metrics", vm.path("metrics").asText()).path("start_time").asText();
    }

    /** The destination's provisioning, which waits for the machine, run beside the source's migration. */
    private static CompletableFuture<Void> provisionAsync(HypervisorDriver d, VmConfigEntry c) {
        return CompletableFuture.runAsync(() -> {
            try {
                d.provision(c);
            } catch (DriverException e) {
                throw new java.util.concurrent.CompletionException(e);
            }
        });
    }

    @Test
    void migrateSendMovesTheRunningVmToAnotherPoolWhereTheDestinationAdoptsIt() throws Exception {
        XenDriver source = connect(poolA);
        XenDriver destination = connect(poolB);
        assertThat(source.behaviour(LiveMigration.class)).isPresent();
        source.provision(config(3, "edge3"));
        source.start(3);
        String uuid = poolA.record("VM", poolA.vms().get("edge3")).path("uuid").asText();
        String started = startTime(poolA, "edge3");

        // the destination gives it vmIndex 7 and says where to send it; its provisioning waits for it
        Map<String, String> where = destination.expectArrival(config(7, "edge3"));
        CompletableFuture<Void> arrival = provisionAsync(destination, config(7, "edge3"));
        source.migrate(3, where);
        arrival.get(20, TimeUnit.SECONDS);
        destination.start(7);

        assertThat(poolA.calls()).contains("Async.VM.migrate_send");
        assertThat(poolB.calls()).contains("host.migrate_receive").doesNotContain("Async.VM.clone", "Async.VM.start");
        assertThat(poolA.vms()).doesNotContainKey("edge3");
        assertThat(poolA.leaks()).filteredOn(l -> l.startsWith("VM/") || l.startsWith("VDI/") || l.startsWith("VIF/")).isEmpty();
        ObjectNode there = poolB.record("VM", poolB.vms().get("edge3"));
        // the same machine, still running from when it started on A: its UUID, MAC, disk and start time
        assertThat(there.path("uuid").asText()).isEqualTo(uuid);
        assertThat(there.path("power_state").asText()).isEqualTo("Running");
        assertThat(poolB.residentOn("edge3")).isEqualTo("fake-host");
        assertThat(startTime(poolB, "edge3")).isEqualTo(started);
        assertThat(there.path("other_config").path(XenDriver.MARKER).asText()).isEqualTo("7");
        assertThat(poolB.where("VIF", "VM", poolB.vms().get("edge3"))).hasSize(2)
                .anySatisfy(v -> assertThat(v.path("MAC").asText()).isEqualTo("02:00:00:00:00:01"));
        assertThat(poolB.where("VDI", "SR", poolB.sr)).anySatisfy(d ->
                assertThat(d.path("other_config").path(XenDriver.MARKER).asText()).isEqualTo("7"));
        assertThat(destination.inspect(7).orElseThrow().power()).isEqualTo(PowerState.RUNNING);
        assertThat(destination.inspect(7).orElseThrow().entry().vmUUID).isEqualTo(uuid);

        // the source's removal of its VR finds nothing left to remove
        source.destroy(3);
        assertThat(poolB.vms()).containsKey("edge3");
    }

    @Test
    void aRefusedMigrateSendLeavesTheVmRunningOnTheSourceAndNothingOnTheDestination() throws Exception {
        XenDriver source = connect(poolA);
        XenDriver destination = connect(poolB);
        source.provision(config(3, "edge3"));
        source.start(3);
        String started = startTime(poolA, "edge3");
        Map<String, String> where = destination.expectArrival(config(3, "edge3"));
        CompletableFuture<Void> arrival = provisionAsync(destination, config(3, "edge3"));
        poolA.failNext("VM.migrate_send", "VM_MIGRATE_FAILED", "OpaqueRef:x", "OpaqueRef:y", "OpaqueRef:z", "memory transfer failed");

        assertThatThrownBy(() -> source.migrate(3, where)).isInstanceOf(DriverException.class)
                .hasMessageContaining("VM_MIGRATE_FAILED").hasMessageContaining("runs here still");
        destination.cancelArrival(3);
        assertThatThrownBy(() -> arrival.get(20, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .hasRootCauseInstanceOf(DriverException.class).hasMessageContaining("did not send VR edge3");

        assertThat(poolA.record("VM", poolA.vms().get("edge3")).path("power_state").asText()).isEqualTo("Running");
        assertThat(startTime(poolA, "edge3")).isEqualTo(started);
        assertThat(source.inspect(3).orElseThrow().power()).isEqualTo(PowerState.RUNNING);
        assertThat(poolB.vms()).isEmpty();
        assertThat(poolB.leaks()).filteredOn(l -> !l.startsWith("task/")).isEmpty();
    }

    @Test
    void aVmThatDoesNotRunCannotMoveLiveAndAVifWithoutANetworkThereIsRefusedBeforeAnythingMoves() throws Exception {
        XenDriver source = connect(poolA);
        XenDriver destination = connect(poolB);
        source.provision(config(3, "edge3"));
        Map<String, String> where = destination.expectArrival(config(3, "edge3"));
        assertThatThrownBy(() -> source.migrate(3, where)).isInstanceOf(DriverException.class)
                .hasMessageContaining("VM_BAD_POWER_STATE");

        source.start(3);
        Map<String, String> noSuchNetwork = new HashMap<>(where);
        noSuchNetwork.keySet().removeIf(k -> k.startsWith(XenMigration.NETWORK));
        assertThatThrownBy(() -> source.migrate(3, noSuchNetwork)).isInstanceOf(DriverException.class)
                .hasMessageContaining("has no network '" + FakeXenServer.NETWORKS.get(0) + "'")
                .satisfies(e -> assertThat(((DriverException) e).code()).isEqualTo("VIF_NOT_IN_MAP"));
        // only the halted VM's attempt, which xapi refused, reached XenAPI
        assertThat(poolA.calls()).filteredOn("Async.VM.migrate_send"::equals).hasSize(1);
        assertThat(poolA.record("VM", poolA.vms().get("edge3")).path("power_state").asText()).isEqualTo("Running");
        destination.cancelArrival(3);
    }

    @Test
    void aTokenIsGoodForOneMigrationOnly() throws Exception {
        XenDriver source = connect(poolA);
        XenDriver destination = connect(poolB);
        source.provision(config(3, "edge3"));
        source.start(3);
        source.provision(config(4, "edge4"));
        source.start(4);
        Map<String, String> where = destination.expectArrival(config(3, "edge3"));
        CompletableFuture<Void> arrival = provisionAsync(destination, config(3, "edge3"));
        source.migrate(3, where);
        arrival.get(20, TimeUnit.SECONDS);

        assertThatThrownBy(() -> source.migrate(4, where)).isInstanceOf(DriverException.class)
                .hasMessageContaining("SESSION_INVALID");
        assertThat(poolA.record("VM", poolA.vms().get("edge4")).path("power_state").asText()).isEqualTo("Running");
    }

    @Test
    void poolMigrateMovesTheVmToTheDestinationsHostOfTheSamePool() throws Exception {
        poolA.addHost("host-b");
        XenDriver source = connect(poolA);
        XenDriver destination = connect(poolA, "xen.host", "host-b");
        source.provision(config(3, "edge3"));
        source.start(3);
        String started = startTime(poolA, "edge3");
        assertThat(poolA.residentOn("edge3")).isEqualTo("fake-host");

        Map<String, String> where = destination.expectArrival(config(5, "edge3"));
        CompletableFuture<Void> arrival = provisionAsync(destination, config(5, "edge3"));
        source.migrate(3, where);
        arrival.get(20, TimeUnit.SECONDS);

        assertThat(poolA.calls()).contains("Async.VM.pool_migrate").doesNotContain("Async.VM.migrate_send");
        assertThat(poolA.residentOn("edge3")).isEqualTo("host-b");
        assertThat(startTime(poolA, "edge3")).isEqualTo(started);
        assertThat(poolA.record("VM", poolA.vms().get("edge3")).path("other_config").path(XenDriver.MARKER).asText()).isEqualTo("5");
        // the source's removal of its VR leaves the moved VM alone
        source.destroy(3);
        assertThat(poolA.record("VM", poolA.vms().get("edge3")).path("power_state").asText()).isEqualTo("Running");
    }

    @Test
    void poolMigrateOfAHaltedVmIsRefusedAsXenServerDoes() throws Exception {
        String hostB = poolA.addHost("host-b");
        XenDriver d = connect(poolA);
        d.provision(config(3, "edge3"));
        var api = d.client();
        String vm = poolA.vms().get("edge3");
        assertThatThrownBy(() -> api.call("VM.pool_migrate", vm, hostB, Map.of("live", "true")))
                .isInstanceOf(XenApiException.class).hasMessageContaining("VM_BAD_POWER_STATE");
        assertThat(poolA.residentOn("edge3")).isNull();
    }
}
