package io.vrouter.xen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vrouter.core.config.Settings;
import io.vrouter.core.driver.DriverException;
import io.vrouter.core.driver.DriverListener;
import io.vrouter.core.driver.PowerState;
import io.vrouter.core.driver.VmRuntime;
import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.Hypervisor;
import io.vrouter.core.model.InetAddressType;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import io.vrouter.core.model.VmNetworkEntry;
import io.vrouter.xen.fake.FakeXenServer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The driver against the XenAPI fake over real HTTP, including the faults the issue lists. */
class XenDriverTest {
    private FakeXenServer xen;
    private XenDriver driver;
    private final BlockingQueue<String> heard = new LinkedBlockingQueue<>();

    @BeforeEach
    void setUp() throws Exception {
        xen = new FakeXenServer();
    }

    @AfterEach
    void tearDown() {
        if (driver != null) driver.close();
        xen.close();
    }

    private Settings settings(String... extra) {
        return settings(xen, extra);
    }

    /** The driver's settings for a test against the fake: its networks, short timeouts, and {@code extra} (key, value, ...). */
    static Settings settings(FakeXenServer xen, String... extra) {
        Map<String, String> m = new HashMap<>();
        m.put("xen.url", xen.url().toString());
        m.put("xen.username", FakeXenServer.USER);
        m.put("xen.password", FakeXenServer.PASSWORD);
        m.put("xen.network.xenbr0", FakeXenServer.NETWORKS.get(0));
        m.put("xen.network.transit", FakeXenServer.NETWORKS.get(1));
        m.put("xen.call-timeout", "5s");
        m.put("xen.event-timeout", "1s");
        m.put("xen.retry-backoff", "20ms");
        for (int i = 0; i + 1 < extra.length; i += 2) m.put(extra[i], extra[i + 1]);
        return Settings.of(m);
    }

    private XenDriver connect(String... extra) throws DriverException {
        driver = (XenDriver) new XenDriverProvider().create(settings(extra));
        driver.setListener(new DriverListener() {
            @Override
            public void powerStateChanged(int vmIndex, PowerState state) {
                heard.add("power " + vmIndex + " " + state);
            }

            @Override
            public void vmVanished(int vmIndex) {
                heard.add("vanished " + vmIndex);
            }
        });
        return driver;
    }

    /** A VR of 2 vCPUs and 256 MiB with two interfaces, on xenbr0 (MAC 02:00:00:00:00:01, 192.0.2.1) and transit. */
    static VmConfigEntry config(int vmIndex, String name) {
        VmConfigEntry c = new VmConfigEntry();
        c.vmIndex = vmIndex;
        c.vmName = name;
        c.vmAdminState = AdminState.RUNNING;
        c.vmConfigTemplate = "vyos";
        c.vmConfigCpuNumber = 2;
        c.vmConfigMemory = 256;
        c.vmConfigAutoStart = false;
        c.vmNetworkConfigTable = new ArrayList<>(List.of(nic(1, "xenbr0", "02:00:00:00:00:01", "192.0.2.1"), nic(2, "transit", null, null)));
        return c;
    }

    private static VmNetworkConfigEntry nic(int index, String parent, String mac, String address) {
        VmNetworkConfigEntry n = new VmNetworkConfigEntry();
        n.vmNetworkConfigIndex = index;
        n.vmNetworkConfigParent = parent;
        n.vmNetworkConfigPhysAddress = mac;
        if (address != null) {
            n.vmNetworkConfigAddressType = InetAddressType.IPV4;
            n.vmNetworkConfigAddress = address;
            n.vmNetworkConfigPrefixLength = 24;
        }
        return n;
    }

    private String power(String name) {
        return xen.record("VM", xen.vms().get(name)).path("power_state").asText();
    }

    @Test
    void provisionsTheVmAsTheConfigurationAsks() throws Exception {
        connect().provision(config(1, "edge1"));

        String vm = xen.vms().get("edge1");
        ObjectNode rec = xen.record("VM", vm);
        assertThat(rec.path("is_a_template").asBoolean()).isFalse();
        assertThat(rec.path("other_config").path("vrouter-vmIndex").asText()).isEqualTo("1");
        assertThat(rec.path("VCPUs_max").asInt()).isEqualTo(2);
        assertThat(rec.path("VCPUs_at_startup").asInt()).isEqualTo(2);
        assertThat(rec.path("memory_dynamic_max").asLong()).isEqualTo(256L << 20);
        assertThat(rec.path("memory_static_max").asLong()).isEqualTo(256L << 20);
        assertThat(rec.path("power_state").asText()).isEqualTo("Halted");
        // The template's VIF is gone; ours are on the mapped networks, with the MAC asked for.
        List<ObjectNode> vifs = xen.where("VIF", "VM", vm);
        assertThat(vifs).hasSize(2);
        ObjectNode first = vifs.stream().filter(v -> v.path("device").asText().equals("0")).findFirst().orElseThrow();
        assertThat(first.path("MAC").asText()).isEqualTo("02:00:00:00:00:01");
        assertThat(xen.record("network", first.path("network").asText()).path("name_label").asText())
                .isEqualTo(FakeXenServer.NETWORKS.get(0));
        assertThat(xen.where("VBD", "VM", vm)).hasSize(1);
        assertThat(xen.calls()).contains("Async.VM.clone", "Async.VM.provision", "VM.add_to_other_config", "VIF.create");

        VmRuntime rt = driver.inspect(1).orElseThrow();
        assertThat(rt.vmName()).isEqualTo("edge1");
        assertThat(rt.power()).isEqualTo(PowerState.HALTED);
        assertThat(rt.entry().vmUUID).isEqualTo(rec.path("uuid").asText());
        assertThat(rt.entry().vmMaxCpuNumber).isEqualTo(2);
        assertThat(rt.entry().vmMaxMem).isEqualTo(256L);
        assertThat(rt.entry().vmRouterAddr).isEqualTo("192.0.2.1");
        assertThat(rt.networks()).extracting(n -> n.vmNetworkParent).containsExactly("xenbr0", "transit");
        assertThat(rt.networks().get(0).vmNetworkPhysAddress).isEqualTo("02:00:00:00:00:01");
        assertThat(rt.networks().get(1).vmNetworkPhysAddress).matches("([0-9a-f]{2}:){5}[0-9a-f]{2}");
        assertThat(rt.storage()).hasSize(1);
        assertThat(rt.storage().get(0).vmStorageDefinedSize).isEqualTo(2048L);
        assertThat(rt.storage().get(0).vmStorageMediaTypeString).isEqualTo("hardDisk");
    }

    @Test
    void carriesTheLifecycleThroughXenApiAndLeavesNothingBehind() throws Exception {
        connect().provision(config(1, "edge1"));
        driver.start(1);
        assertThat(power("edge1")).isEqualTo("Running");
        VmRuntime rt = driver.inspect(1).orElseThrow();
        assertThat(rt.power()).isEqualTo(PowerState.RUNNING);
        assertThat(rt.entry().vmCurCpuNumber).isEqualTo(2);
        assertThat(rt.entry().vmCurMem).isEqualTo(256L);
        assertThat(rt.entry().vmUpTime).isGreaterThan(0L);
        assertThat(rt.entry().vmCpuTime).isGreaterThan(0L);
        assertThat(rt.cpus()).hasSize(2);

        driver.suspend(1, AdminState.SUSPENDED);
        assertThat(power("edge1")).isEqualTo("Suspended");
        assertThat(driver.inspect(1).orElseThrow().power()).isEqualTo(PowerState.SUSPENDED);
        driver.start(1);
        assertThat(power("edge1")).isEqualTo("Running");
        driver.suspend(1, AdminState.PAUSED);
        assertThat(power("edge1")).isEqualTo("Paused");
        driver.start(1);
        assertThat(power("edge1")).isEqualTo("Running");

        driver.stop(1);
        assertThat(power("edge1")).isEqualTo("Halted");
        assertThat(driver.inspect(1).orElseThrow().power()).isEqualTo(PowerState.HALTED);
        assertThat(xen.calls()).contains("Async.VM.start", "Async.VM.suspend", "Async.VM.resume", "VM.pause",
                "VM.unpause", "Async.VM.clean_shutdown").doesNotContain("Async.VM.hard_shutdown");

        driver.destroy(1);
        assertThat(driver.inspect(1)).isEmpty();
        assertThat(xen.vms()).isEmpty();
        assertThat(xen.calls()).contains("VM.destroy", "VDI.destroy");
        assertThat(xen.leaks()).isEmpty();
        // Destroying what does not exist is not an error.
        driver.destroy(1);
        assertThat(heard).isEmpty();
    }

    @Test
    void aLostEventFeedIsAProblemUntilItIsBack() throws Exception {
        connect();
        assertThat(driver.problem()).isEmpty();
        xen.failAlways("event.from", "HOST_OFFLINE");
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (driver.problem().isEmpty() && System.nanoTime() < deadline) Thread.sleep(20);
        assertThat(driver.problem()).hasValueSatisfying(p -> assertThat(p).contains("event feed").contains("HOST_OFFLINE"));
        xen.clearFaults();
        deadline = System.nanoTime() + 10_000_000_000L;
        while (driver.problem().isPresent() && System.nanoTime() < deadline) Thread.sleep(20);
        assertThat(driver.problem()).isEmpty();
    }

    @Test
    void reconfiguresNameCpusMemoryAndAutoStart() throws Exception {
        connect().provision(config(1, "edge1"));
        VmConfigEntry changed = config(1, "edge1-renamed");
        changed.vmConfigCpuNumber = 4;
        changed.vmConfigMemory = 1024;
        changed.vmConfigAutoStart = true;
        driver.reconfigure(changed);

        ObjectNode rec = xen.record("VM", xen.vms().get("edge1-renamed"));
        assertThat(rec.path("VCPUs_max").asInt()).isEqualTo(4);
        assertThat(rec.path("VCPUs_at_startup").asInt()).isEqualTo(4);
        assertThat(rec.path("memory_static_max").asLong()).isEqualTo(1024L << 20);
        assertThat(rec.path("other_config").path("auto_poweron").asText()).isEqualTo("true");
        assertThat(xen.vms()).doesNotContainKey("edge1");

        changed.vmConfigAutoStart = false;
        changed.vmConfigCpuNumber = 1;
        driver.reconfigure(changed);
        rec = xen.record("VM", xen.vms().get("edge1-renamed"));
        assertThat(rec.path("VCPUs_max").asInt()).isEqualTo(1);
        assertThat(rec.path("other_config").has("auto_poweron")).isFalse();
    }

    @Test
    void renamesARunningVmWithItsNameAlone() throws Exception {
        connect().provision(config(1, "edge1"));
        driver.start(1);
        String vm = xen.vms().get("edge1");
        ObjectNode before = xen.record("VM", vm);
        int from = xen.calls().size();

        driver.reconfigure(config(1, "edge1-renamed"));

        List<String> calls = xen.calls().subList(from, xen.calls().size());
        assertThat(calls).contains("VM.set_name_label")
                .noneMatch(c -> c.startsWith("VM.set_") && !c.equals("VM.set_name_label"))
                .noneMatch(c -> c.contains("other_config"));
        ObjectNode after = xen.record("VM", vm);
        assertThat(after.path("name_label").asText()).isEqualTo("edge1-renamed");
        assertThat(after.path("power_state").asText()).isEqualTo("Running");
        for (String f : List.of("VCPUs_max", "VCPUs_at_startup", "memory_static_min", "memory_static_max",
                "memory_dynamic_min", "memory_dynamic_max", "other_config")) {
            assertThat(after.get(f)).as(f).isEqualTo(before.get(f));
        }
        assertThat(driver.inspect(1).orElseThrow().vmName()).isEqualTo("edge1-renamed");

        // CPUs and memory, XenServer changes only while the VM is halted: the refusal is XenAPI's, and the name stays.
        VmConfigEntry bigger = config(1, "edge1-again");
        bigger.vmConfigCpuNumber = 4;
        assertThatThrownBy(() -> driver.reconfigure(bigger))
                .isInstanceOfSatisfying(DriverException.class, e -> assertThat(e.code()).isEqualTo("VM_BAD_POWER_STATE"));
        assertThat(xen.record("VM", vm).path("name_label").asText()).isEqualTo("edge1-renamed");
    }

    @Test
    void aReconfigurationThatFailsHalfWayPutsBackWhatItChanged() throws Exception {
        connect().provision(config(1, "edge1"));
        String vm = xen.vms().get("edge1");
        ObjectNode before = xen.record("VM", vm);
        VmConfigEntry changed = config(1, "edge1-renamed");
        changed.vmConfigCpuNumber = 4;
        changed.vmConfigMemory = 512;
        changed.vmConfigAutoStart = true;
        // Auto-start is the last change: name, CPUs and memory are made by then.
        xen.failNext("VM.add_to_other_config", "INTERNAL_ERROR", "database busy");

        assertThatThrownBy(() -> driver.reconfigure(changed))
                .isInstanceOfSatisfying(DriverException.class, e -> assertThat(e.code()).isEqualTo("INTERNAL_ERROR"));

        ObjectNode after = xen.record("VM", vm);
        for (String f : List.of("name_label", "VCPUs_max", "VCPUs_at_startup", "memory_static_min", "memory_static_max",
                "memory_dynamic_min", "memory_dynamic_max", "other_config")) {
            assertThat(after.get(f)).as(f).isEqualTo(before.get(f));
        }
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!driver.inspect(1).orElseThrow().vmName().equals("edge1") && System.nanoTime() < deadline) Thread.sleep(20);
        assertThat(driver.inspect(1).orElseThrow().vmName()).isEqualTo("edge1");

        // The same reconfiguration again, with nothing failing, is made whole.
        driver.reconfigure(changed);
        after = xen.record("VM", vm);
        assertThat(after.path("name_label").asText()).isEqualTo("edge1-renamed");
        assertThat(after.path("VCPUs_max").asInt()).isEqualTo(4);
        assertThat(after.path("memory_static_max").asLong()).isEqualTo(512L << 20);
        assertThat(after.path("other_config").path("auto_poweron").asText()).isEqualTo("true");
    }

    @Test
    void removesARunningVmWithItsDisks() throws Exception {
        connect().provision(config(3, "edge3"));
        driver.start(3);
        driver.destroy(3);
        assertThat(xen.leaks()).isEmpty();
        assertThat(xen.calls()).contains("Async.VM.hard_shutdown");
    }

    @Test
    void addsAndRemovesInterfacesOnARunningVm() throws Exception {
        connect().provision(config(1, "edge1"));
        driver.start(1);
        driver.addInterface(1, nic(3, "transit", "02:00:00:00:00:03", null));
        String vm = xen.vms().get("edge1");
        ObjectNode added = xen.where("VIF", "VM", vm).stream().filter(v -> v.path("device").asText().equals("2")).findFirst().orElseThrow();
        assertThat(added.path("currently_attached").asBoolean()).isTrue();
        assertThat(driver.inspect(1).orElseThrow().networks()).extracting(n -> n.vmNetworkIndex).containsExactly(1, 2, 3);

        driver.removeInterface(1, 2);
        assertThat(xen.where("VIF", "VM", vm)).extracting(v -> v.path("device").asText()).containsExactlyInAnyOrder("0", "2");
        assertThat(driver.inspect(1).orElseThrow().networks()).extracting(n -> n.vmNetworkIndex).containsExactly(1, 3);
        assertThat(xen.calls()).contains("VIF.plug", "VIF.unplug", "VIF.destroy");
        driver.removeInterface(1, 9);
    }

    @Test
    void reportsTheHostInTheHypervisorGroup() throws Exception {
        Hypervisor h = connect().hypervisor();
        assertThat(h.vmHvSoftware).isEqualTo("XCP-ng");
        assertThat(h.vmHvVersion).isEqualTo("8.2.1");
        // The fake host booted an hour ago.
        assertThat(h.vmHvUpTime).isBetween(360_000L - 100, 360_000L + 6_000);
        assertThat(driver.hypervisor()).isNotSameAs(h);
    }

    @Test
    void aFailedProvisioningLeavesNothingOnTheHostAndCarriesTheXenApiCode() throws Exception {
        connect();
        xen.failNext("VM.provision", "SR_FULL", "2147483648", "1073741824");
        assertThatThrownBy(() -> driver.provision(config(1, "edge1")))
                .isInstanceOfSatisfying(DriverException.class, e -> {
                    assertThat(e.code()).isEqualTo("SR_FULL");
                    assertThat(e.getMessage()).contains("SR_FULL").contains("2147483648");
                });
        assertThat(xen.leaks()).isEmpty();
        assertThat(driver.inspect(1)).isEmpty();

        // A failure later, at the second interface, cleans up just the same.
        xen.failAlways("VIF.create", "NETWORK_INCOMPATIBLE_PURPOSES", "x");
        assertThatThrownBy(() -> driver.provision(config(2, "edge2")))
                .isInstanceOfSatisfying(DriverException.class, e -> assertThat(e.code()).isEqualTo("NETWORK_INCOMPATIBLE_PURPOSES"));
        assertThat(xen.leaks()).isEmpty();
        xen.clearFaults();

        // An unknown template or network fails before or after the clone, and leaves nothing either.
        VmConfigEntry c = config(4, "edge4");
        c.vmConfigTemplate = "no-such-template";
        assertThatThrownBy(() -> driver.provision(c))
                .isInstanceOfSatisfying(DriverException.class, e -> assertThat(e.code()).isEqualTo("TEMPLATE_NOT_FOUND"));
        VmConfigEntry d = config(5, "edge5");
        d.vmNetworkConfigTable.get(1).vmNetworkConfigParent = "nowhere";
        assertThatThrownBy(() -> driver.provision(d))
                .isInstanceOfSatisfying(DriverException.class, e -> assertThat(e.code()).isEqualTo("NETWORK_NOT_FOUND"));
        assertThat(xen.leaks()).isEmpty();

        // And the host still works.
        driver.provision(config(1, "edge1"));
        assertThat(driver.inspect(1)).isPresent();
    }

    @Test
    void aFailingPowerOperationCarriesTheXenApiError() throws Exception {
        connect().provision(config(1, "edge1"));
        xen.failNext("VM.start", "NO_HOSTS_AVAILABLE");
        assertThatThrownBy(() -> driver.start(1))
                .isInstanceOfSatisfying(DriverException.class, e -> assertThat(e.code()).isEqualTo("NO_HOSTS_AVAILABLE"));
        assertThat(power("edge1")).isEqualTo("Halted");
        driver.start(1);
        assertThat(power("edge1")).isEqualTo("Running");
        assertThat(xen.leaks()).allMatch(l -> !l.startsWith("task/"));
    }

    @Test
    void logsInAgainWhenTheSessionExpires() throws Exception {
        connect().provision(config(1, "edge1"));
        int before = xen.logins();
        xen.expireSessions();
        driver.start(1);
        assertThat(power("edge1")).isEqualTo("Running");
        assertThat(xen.logins()).isGreaterThan(before);
        assertThat(xen.calls()).contains("session.login_with_password");
    }

    @Test
    void retriesTransientErrors() throws Exception {
        connect().provision(config(1, "edge1"));
        xen.failNext("VM.get_all_records", "HOST_STILL_BOOTING");
        xen.failNext("VM.get_all_records", "HOST_STILL_BOOTING");
        assertThat(driver.list()).extracting(VmRuntime::vmIndex).containsExactly(1);
        // A non-transient error is not retried.
        xen.failNext("VM.get_all_records", "PERMISSION_DENIED");
        assertThatThrownBy(() -> driver.list())
                .isInstanceOfSatisfying(DriverException.class, e -> assertThat(e.code()).isEqualTo("PERMISSION_DENIED"));
    }

    @Test
    void forcesTheShutdownWhenTheCleanOneHangs() throws Exception {
        connect("xen.shutdown-timeout", "300ms").provision(config(1, "edge1"));
        driver.start(1);
        xen.hangCleanShutdown(true);
        long t0 = System.nanoTime();
        driver.stop(1);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertThat(power("edge1")).isEqualTo("Halted");
        assertThat(ms).isGreaterThanOrEqualTo(300);
        assertThat(xen.calls()).contains("Async.VM.clean_shutdown", "task.cancel", "Async.VM.hard_shutdown");
        assertThat(xen.leaks()).noneMatch(l -> l.startsWith("task/"));
    }

    @Test
    void offersTheTemplatesAnOperatorMadeOnTheHostAndMakesVrsFromThem() throws Exception {
        xen.addTemplate("router-b");
        xen.addSnapshot("vyos before the upgrade");
        connect();
        // The default first, then the host's templates: not XenServer's own OS-install ones, not snapshots.
        assertThat(driver.templates()).containsExactly("vyos", "router-b");
        // One made on the host later is offered once the event feed tells of it, one deleted no longer.
        String later = xen.addTemplate("router-c");
        assertThat(eventually(() -> driver.templates().contains("router-c"))).isTrue();
        xen.destroyVm(later);
        assertThat(eventually(() -> !driver.templates().contains("router-c"))).isTrue();

        VmConfigEntry c = config(1, "edge-b");
        c.vmConfigTemplate = "router-b";
        driver.provision(c);
        assertThat(xen.record("VM", xen.vms().get("edge-b")).path("other_config").path("fake-template").asText())
                .as("cloned from router-b").isEqualTo("router-b");
        assertThat(driver.inspect(1).orElseThrow().entry().vmOSType).isEqualTo("router-b");
    }

    /** Whether the condition holds within 10 s. */
    private static boolean eventually(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) return false;
            Thread.sleep(10);
        }
        return true;
    }

    @Test
    void reportsAVmDeletedBehindItsBack() throws Exception {
        connect().provision(config(1, "edge1"));
        xen.destroyVm(xen.vms().get("edge1"));
        assertThat(heard.poll(10, TimeUnit.SECONDS)).isEqualTo("vanished 1");
        assertThat(driver.inspect(1)).isEmpty();
    }

    @Test
    void followsPowerChangesMadeOutsideIt() throws Exception {
        connect().provision(config(1, "edge1"));
        driver.start(1);
        assertThat(heard).isEmpty();
        xen.setPowerState(xen.vms().get("edge1"), "Halted");
        assertThat(heard.poll(10, TimeUnit.SECONDS)).isEqualTo("power 1 HALTED");
        assertThat(driver.inspect(1).orElseThrow().power()).isEqualTo(PowerState.HALTED);
        xen.setPowerState(xen.vms().get("edge1"), "Crashed");
        assertThat(heard.poll(10, TimeUnit.SECONDS)).isEqualTo("power 1 CRASHED");
        // A crashed VM is started again from scratch.
        driver.start(1);
        assertThat(power("edge1")).isEqualTo("Running");
        assertThat(heard).isEmpty();
    }

    @Test
    void aLostEventFeedIsReloadedAndWhatChangedMeanwhileIsReported() throws Exception {
        connect().provision(config(1, "edge1"));
        driver.provision(config(2, "edge2"));
        xen.withEventsLost(() -> {
            xen.destroyVm(xen.vms().get("edge1"));
            xen.setPowerState(xen.vms().get("edge2"), "Paused");
        });
        assertThat(List.of(heard.poll(10, TimeUnit.SECONDS), heard.poll(10, TimeUnit.SECONDS)))
                .containsExactlyInAnyOrder("vanished 1", "power 2 PAUSED");
        assertThat(driver.inspect(1)).isEmpty();
        assertThat(driver.inspect(2).orElseThrow().power()).isEqualTo(PowerState.PAUSED);
        // The feed goes on after the reload.
        xen.setPowerState(xen.vms().get("edge2"), "Running");
        assertThat(heard.poll(10, TimeUnit.SECONDS)).isEqualTo("power 2 RUNNING");
    }

    @Test
    void carriesManyVrsInParallel() throws Exception {
        connect();
        xen.operationDelay(10);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int i = 1; i <= 16; i++) {
                int index = i;
                done.add(pool.submit(() -> {
                    driver.provision(config(index, "vr" + index));
                    driver.start(index);
                    return null;
                }));
            }
            for (Future<?> f : done) f.get(60, TimeUnit.SECONDS);
            assertThat(xen.vms()).hasSize(16);
            for (int i = 1; i <= 16; i++) {
                assertThat(power("vr" + i)).isEqualTo("Running");
                assertThat(driver.inspect(i).orElseThrow().power()).isEqualTo(PowerState.RUNNING);
                assertThat(driver.inspect(i).orElseThrow().vmName()).isEqualTo("vr" + i);
            }
            done.clear();
            for (int i = 1; i <= 16; i++) {
                int index = i;
                done.add(pool.submit(() -> {
                    driver.stop(index);
                    driver.destroy(index);
                    return null;
                }));
            }
            for (Future<?> f : done) f.get(60, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
        assertThat(xen.leaks()).isEmpty();
        assertThat(heard).isEmpty();
    }

    @Test
    void startUpAdoptsTheVmsThatCarryTheMarkerOnly() throws Exception {
        xen.addMarkedVm("old7", 7, "Running");
        xen.addMarkedVm("old9", 9, "Halted");
        xen.addForeignVm("someone-elses");
        List<VmRuntime> found = connect().list();
        assertThat(found).extracting(VmRuntime::vmIndex).containsExactly(7, 9);
        assertThat(found).extracting(VmRuntime::vmName).containsExactly("old7", "old9");
        assertThat(found.get(0).power()).isEqualTo(PowerState.RUNNING);
        assertThat(driver.inspect(7).orElseThrow().entry().vmCurCpuNumber).isEqualTo(1);
        assertThat(driver.inspect(9).orElseThrow().power()).isEqualTo(PowerState.HALTED);
        assertThat(driver.inspect(1)).isEmpty();
        // Another VM with the same marker cannot be provisioned over an adopted one.
        assertThatThrownBy(() -> driver.provision(config(7, "dup")))
                .isInstanceOfSatisfying(DriverException.class, e -> assertThat(e.code()).isEqualTo("VM_EXISTS"));
    }

    @Test
    void startUpRemovesAHalfBuiltVmSoThatItIsProvisionedAgain() throws Exception {
        xen.addMarkedVm("whole", 4, "Running");
        xen.addHalfBuiltVm("half", 5);
        assertThat(connect().list()).extracting(VmRuntime::vmIndex).containsExactly(4);
        assertThat(xen.vms()).containsOnlyKeys("whole");
        assertThat(driver.inspect(5)).isEmpty();
        driver.destroy(4);
        assertThat(xen.leaks()).isEmpty();
    }

    @Test
    void aDiskLeftByAFailedRemovalIsDestroyedOnTheNextTry() throws Exception {
        connect().provision(config(1, "edge1"));
        String vdi = xen.where("VBD", "VM", xen.vms().get("edge1")).get(0).path("VDI").asText();
        assertThat(xen.record("VDI", vdi).path("other_config").path("vrouter-vmIndex").asText()).isEqualTo("1");
        xen.failNext("VDI.destroy", "SR_BACKEND_FAILURE_46", "", "The VDI is not available", "");
        assertThatThrownBy(() -> driver.destroy(1))
                .isInstanceOfSatisfying(DriverException.class, e -> assertThat(e.code()).isEqualTo("SR_BACKEND_FAILURE_46"));
        assertThat(xen.vms()).isEmpty();
        assertThat(xen.leaks()).containsExactly("VDI/" + vdi);
        driver.destroy(1);
        assertThat(xen.leaks()).isEmpty();
    }

    @Test
    void refusesWrongCredentialsWithXenApisCode() {
        assertThatThrownBy(() -> connect("xen.password", "wrong"))
                .isInstanceOfSatisfying(DriverException.class, e -> assertThat(e.code()).isEqualTo("SESSION_AUTHENTICATION_FAILED"));
        driver = null;
    }

    @Test
    void theClientCarriesXenApiErrorsWithTheirParameters() throws Exception {
        XenApiClient api = connect().client();
        assertThatThrownBy(() -> api.call("VM.get_record", "OpaqueRef:nope"))
                .isInstanceOfSatisfying(XenApiException.class, e -> {
                    assertThat(e.code()).isEqualTo("HANDLE_INVALID");
                    assertThat(e.params()).containsExactly("VM", "OpaqueRef:nope");
                });
        JsonNode v = api.call("host.get_software_version", xen.host);
        assertThat(v.path("product_brand").asText()).isEqualTo("XCP-ng");
    }

    @Test
    void aWrongUrlFailsAtConnectWithATransportError() {
        int port = xen.url().getPort();
        xen.close();
        assertThatThrownBy(() -> connect("xen.url", "http://127.0.0.1:" + port + "/", "xen.retries", "1"))
                .isInstanceOfSatisfying(DriverException.class, e -> assertThat(e.code()).isEqualTo("TRANSPORT"));
        driver = null;
    }

    @Test
    void inspectIsServedFromTheEventCacheWithoutACall() throws Exception {
        connect().provision(config(1, "edge1"));
        int before = xen.calls().size();
        for (int i = 0; i < 100; i++) assertThat(driver.inspect(1)).isPresent();
        assertThat(driver.hypervisor().vmHvVersion).isEqualTo("8.2.1");
        // Only the event feed may have called in the meantime.
        // One copy of the calls: an event.from between two copies made the second longer than the first.
        List<String> calls = xen.calls();
        assertThat(calls.subList(before, calls.size())).allMatch(c -> c.equals("event.from"));
        List<VmNetworkEntry> nets = driver.inspect(1).orElseThrow().networks();
        assertThat(nets).hasSize(2);
    }
}
