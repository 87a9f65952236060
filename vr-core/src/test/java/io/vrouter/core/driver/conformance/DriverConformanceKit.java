package io.vrouter.core.driver.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vrouter.core.driver.CpuWeights;
import io.vrouter.core.driver.DriverException;
import io.vrouter.core.driver.DriverListener;
import io.vrouter.core.driver.HypervisorDriver;
import io.vrouter.core.driver.Interfaces;
import io.vrouter.core.driver.Links;
import io.vrouter.core.driver.LiveMigration;
import io.vrouter.core.driver.PowerState;
import io.vrouter.core.driver.PowerStates;
import io.vrouter.core.driver.RateLimits;
import io.vrouter.core.driver.VmRuntime;
import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.LinkStatus;
import io.vrouter.core.model.LinkType;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link HypervisorDriver} shows on its own host, whatever the hypervisor (the
 * ONOS idea of driver behaviour tests): a driver's test class extends this kit and says how to open
 * the driver on its host, what a VR's parents are there, how to break a provisioning half-way, how to
 * change a VR behind vrouter's back and what of the test is left on the host.
 *
 * <p>{@link io.vrouter.core.driver.Lifecycle} and {@link io.vrouter.core.driver.Observation} every
 * driver has, and every driver is tested on. Each other behaviour ({@link PowerStates},
 * {@link Interfaces}, {@link Links}, {@link RateLimits}, {@link CpuWeights}) is tested when the driver
 * offers it; one it offers in part (pausing but not suspending, say) is asserted to refuse the rest
 * with a {@link DriverException} of code {@code NOT_SUPPORTED}, the VR unchanged, as the SPI documents.
 * Seeing a change made outside vrouter is not optional: every driver is asked to report one.
 *
 * <p>Each test uses VRs of its own vmIndex (1 to 9) so that a test that fails leaves the next one its
 * own VRs; after each, every VR the kit made is destroyed and the host is checked for leftovers.
 */
public abstract class DriverConformanceKit {
    /** A boot, a clean shutdown or an event on a loaded machine (a guest under TCG, say). */
    protected static final long WAIT_SECONDS = 240;

    /** What the driver told its listener: "vmIndex STATE" or "vmIndex vanished". */
    protected final List<String> heard = new CopyOnWriteArrayList<>();
    protected HypervisorDriver driver;

    // ---------------------------------------------------------------- what a driver's test says

    /** Opens a driver on the test's host: called before each test, and again to adopt after a "restart". */
    protected abstract HypervisorDriver openDriver() throws Exception;

    /** The vmNetworkConfigParent of interface n (1 to 3) that the host accepts. */
    protected abstract String parent(int n);

    /**
     * Arranges for the host to fail the provisioning of this row after part of the VR is built (an
     * interface, a bridge, a clone), and returns the row to provision (changed if that is the way).
     */
    protected abstract VmConfigEntry failingHalfWay(VmConfigEntry row) throws Exception;

    /** Powers the running VR off (or removes it) with the host's own tools, as another operator would. */
    protected abstract void stopBehindTheBack(int vmIndex) throws Exception;

    /** What of this test is left on the host (VMs, interfaces, files, disks), described; empty when nothing. */
    protected abstract List<String> leftovers() throws Exception;

    /** Called last after each test, once the leftovers are checked: closes what the test's host needs (a fake). */
    protected void closeHost() throws Exception {
    }

    // ---------------------------------------------------------------- set-up

    @BeforeEach
    void openTheDriver() throws Exception {
        driver = listening(openDriver());
    }

    @AfterEach
    void nothingIsLeft() throws Exception {
        if (driver == null) { // the driver did not open: the test failed at that
            closeHost();
            return;
        }
        try {
            for (int i = 1; i <= 9; i++) {
                try {
                    driver.destroy(i);
                } catch (DriverException e) {
                    // the test's own assertion failed first; the leftovers below say what is left
                }
            }
        } finally {
            driver.close();
        }
        try {
            assertThat(leftovers()).as("left on the host").isEmpty();
        } finally {
            closeHost();
        }
    }

    private HypervisorDriver listening(HypervisorDriver d) {
        d.setListener(new DriverListener() {
            @Override
            public void powerStateChanged(int vmIndex, PowerState state) {
                heard.add(vmIndex + " " + state);
            }

            @Override
            public void vmVanished(int vmIndex) {
                heard.add(vmIndex + " vanished");
            }
        });
        return d;
    }

    /** A VR with n interfaces on parents 1..n, documentation addresses, 1 vCPU, 256 MiB. */
    protected VmConfigEntry vr(int vmIndex, int interfaces) {
        VmConfigEntry c = new VmConfigEntry();
        c.vmIndex = vmIndex;
        c.vmName = "kit-" + vmIndex;
        c.vmAdminState = AdminState.SHUTDOWN;
        c.vmConfigTemplate = driver.templates().get(0);
        c.vmConfigCpuNumber = 1;
        c.vmConfigMemory = 256;
        c.vmConfigAutoStart = false;
        List<VmNetworkConfigEntry> ifs = new ArrayList<>();
        for (int n = 1; n <= interfaces; n++) ifs.add(iface(vmIndex, n));
        c.vmNetworkConfigTable = ifs;
        return c;
    }

    /** Interface n of a VR: parent n, address 192.0.2.(vmIndex*8+n)/24. */
    protected VmNetworkConfigEntry iface(int vmIndex, int n) {
        VmNetworkConfigEntry e = new VmNetworkConfigEntry();
        e.vmNetworkConfigIndex = n;
        e.vmNetworkConfigParent = parent(n);
        e.vmNetworkConfigAddress = "192.0.2." + (vmIndex * 8 + n);
        e.vmNetworkConfigPrefixLength = 24;
        return e;
    }

    protected PowerState power(int vmIndex) {
        return driver.inspect(vmIndex).map(VmRuntime::power).orElse(null);
    }

    private VmRuntime vm(int vmIndex) {
        Optional<VmRuntime> vm = driver.inspect(vmIndex);
        assertThat(vm).as("VR %d on the host", vmIndex).isPresent();
        return vm.get();
    }

    private List<Integer> networkIndexes(int vmIndex) {
        return vm(vmIndex).networks().stream().map(n -> n.vmNetworkIndex).toList();
    }

    protected static boolean await(BooleanSupplier done, long seconds) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < end) {
            if (done.getAsBoolean()) return true;
            Thread.sleep(50);
        }
        return done.getAsBoolean();
    }

    // ---------------------------------------------------------------- the kit

    @Test
    void provisionMakesAHaltedVrWithItsInterfacesAndARerunChangesNothing() throws Exception {
        VmConfigEntry c = vr(1, 2);
        driver.provision(c);
        VmRuntime made = vm(1);
        assertThat(made.power()).isEqualTo(PowerState.HALTED);
        assertThat(made.networks()).extracting(n -> n.vmNetworkIndex).containsExactly(1, 2);
        assertThat(made.networks()).extracting(n -> n.vmNetworkParent).containsExactly(parent(1), parent(2));
        assertThat(made.networks()).allSatisfy(n -> assertThat(n.vmNetworkPhysAddress).isNotBlank());
        assertThat(made.entry().vmMaxCpuNumber).isEqualTo(1);
        assertThat(made.entry().vmMaxMem * made.entry().vmMemUnit).isEqualTo(256L << 20);
        assertThat(made.entry().vmUUID).isNotBlank();
        assertThat(driver.uuid(1)).contains(made.entry().vmUUID);
        assertThat(driver.list()).extracting(VmRuntime::vmIndex).contains(1);

        // Re-run after a crash: the same VR, its UUID and MACs kept.
        driver.provision(c);
        VmRuntime again = vm(1);
        assertThat(again.entry().vmUUID).isEqualTo(made.entry().vmUUID);
        assertThat(again.networks()).extracting(n -> n.vmNetworkPhysAddress)
                .isEqualTo(made.networks().stream().map(n -> n.vmNetworkPhysAddress).toList());
        assertThat(driver.list()).extracting(VmRuntime::vmIndex).containsOnlyOnce(1);
    }

    @Test
    void startStopPauseAndSuspendEachRunTwiceReachTheirStateOrAreRefused() throws Exception {
        driver.provision(vr(2, 1));
        driver.start(2);
        driver.start(2);
        assertThat(power(2)).isEqualTo(PowerState.RUNNING);
        assertThat(vm(2).entry().vmCurCpuNumber).isEqualTo(1);

        Optional<PowerStates> states = driver.behaviour(PowerStates.class);
        for (AdminState how : states.isPresent() ? List.of(AdminState.PAUSED, AdminState.SUSPENDED) : List.<AdminState>of()) {
            PowerState reached = how == AdminState.PAUSED ? PowerState.PAUSED : PowerState.SUSPENDED;
            if (states.get().suspendStates().contains(how)) {
                states.get().suspend(2, how);
                states.get().suspend(2, how);
                assertThat(power(2)).as(how.label()).isEqualTo(reached);
                driver.start(2);
                assertThat(power(2)).as("started from " + how.label()).isEqualTo(PowerState.RUNNING);
            } else {
                assertThatThrownBy(() -> states.get().suspend(2, how)).as("a driver without %s refuses it", how.label())
                        .isInstanceOfSatisfying(DriverException.class, e -> assertThat(e.code()).isEqualTo("NOT_SUPPORTED"));
                assertThat(power(2)).as("a refused %s changes nothing", how.label()).isEqualTo(PowerState.RUNNING);
            }
        }

        driver.stop(2);
        driver.stop(2);
        assertThat(power(2)).isEqualTo(PowerState.HALTED);
        assertThat(vm(2).entry().vmCurCpuNumber).isZero();
        driver.start(2);
        assertThat(power(2)).as("started again").isEqualTo(PowerState.RUNNING);
        if (PowerStates.of(driver).contains(AdminState.PAUSED)) {
            states.get().suspend(2, AdminState.PAUSED);
            driver.stop(2);
            assertThat(power(2)).as("a paused VR stopped").isEqualTo(PowerState.HALTED);
        }
        assertThat(heard).as("the kit's own operations are not outside changes").isEmpty();
    }

    /** The driver's {@link Interfaces}: the kit's tests of them pass only on a driver that offers them. */
    private Interfaces interfaces() {
        return driver.behaviour(Interfaces.class).orElseThrow();
    }

    @Test
    void interfacesAreAddedAndRemovedOnAStoppedAndOnARunningVrEachTwiceOrAreNotOffered() throws Exception {
        if (driver.behaviour(Interfaces.class).isEmpty()) return; // the service refuses such changes (BehavioursTest)
        Interfaces plug = interfaces();
        driver.provision(vr(3, 1));
        plug.addInterface(3, iface(3, 2));
        plug.addInterface(3, iface(3, 2));
        assertThat(networkIndexes(3)).containsExactly(1, 2);
        assertThat(vm(3).networks().get(1).vmNetworkParent).isEqualTo(parent(2));
        plug.removeInterface(3, 2);
        plug.removeInterface(3, 2);
        assertThat(networkIndexes(3)).containsExactly(1);

        driver.start(3);
        plug.addInterface(3, iface(3, 3));
        plug.addInterface(3, iface(3, 3));
        assertThat(networkIndexes(3)).containsExactly(1, 3);
        assertThat(power(3)).isEqualTo(PowerState.RUNNING);
        plug.removeInterface(3, 3);
        // A guest may let a hot-plugged NIC go only once it has booted far enough.
        assertThat(await(() -> {
            try {
                plug.removeInterface(3, 3);
                return networkIndexes(3).equals(List.of(1));
            } catch (DriverException e) {
                return false;
            }
        }, WAIT_SECONDS)).as("interface 3 removed from the running VR: %s", driver.inspect(3)).isTrue();
        plug.removeInterface(3, 7); // one it never had
        assertThat(power(3)).isEqualTo(PowerState.RUNNING);
    }

    @Test
    void reconfigureChangesCpusMemoryAndNameOfAStoppedVrAndARerunChangesNothing() throws Exception {
        VmConfigEntry c = vr(4, 1);
        driver.provision(c);
        String uuid = vm(4).entry().vmUUID;
        c.vmConfigCpuNumber = 2;
        c.vmConfigMemory = 320;
        c.vmName = "kit-4-renamed";
        driver.reconfigure(c);
        driver.reconfigure(c);
        VmRuntime changed = vm(4);
        assertThat(changed.entry().vmMaxCpuNumber).isEqualTo(2);
        assertThat(changed.entry().vmMaxMem * changed.entry().vmMemUnit).isEqualTo(320L << 20);
        assertThat(changed.vmName()).isEqualTo("kit-4-renamed");
        assertThat(changed.entry().vmUUID).isEqualTo(uuid);
        assertThat(changed.networks()).extracting(n -> n.vmNetworkIndex).containsExactly(1);
        assertThat(changed.power()).isEqualTo(PowerState.HALTED);
        driver.start(4);
        assertThat(vm(4).entry().vmCurCpuNumber).isEqualTo(2);
    }

    @Test
    void destroyOfARunningVrLeavesNothingAndARerunOrAnUnknownVrIsNoError() throws Exception {
        driver.provision(vr(5, 2));
        driver.start(5);
        driver.destroy(5);
        driver.destroy(5);
        assertThat(driver.inspect(5)).isEmpty();
        assertThat(driver.uuid(5)).isEmpty();
        assertThat(driver.list()).extracting(VmRuntime::vmIndex).doesNotContain(5);
        assertThat(leftovers()).as("left on the host after destroy").isEmpty();
        driver.destroy(6); // never made
    }

    @Test
    void operationsOnAVrThatDoesNotExistAreRefused() {
        assertThat(driver.inspect(6)).isEmpty();
        assertThatThrownBy(() -> driver.start(6)).isInstanceOf(DriverException.class);
        assertThatThrownBy(() -> driver.stop(6)).isInstanceOf(DriverException.class);
        if (driver.behaviour(Interfaces.class).isPresent()) {
            assertThatThrownBy(() -> interfaces().addInterface(6, iface(6, 1))).isInstanceOf(DriverException.class);
        }
        assertThatThrownBy(() -> driver.reconfigure(vr(6, 1))).isInstanceOf(DriverException.class);
        assertThat(driver.inspect(6)).as("a refused operation makes nothing").isEmpty();
    }

    @Test
    void aFailureHalfWayThroughProvisioningLeavesNothing() throws Exception {
        VmConfigEntry row = failingHalfWay(vr(7, 2));
        assertThatThrownBy(() -> driver.provision(row)).isInstanceOf(DriverException.class);
        assertThat(driver.inspect(7)).isEmpty();
        assertThat(driver.list()).extracting(VmRuntime::vmIndex).doesNotContain(7);
        assertThat(leftovers()).as("left on the host by the failed provisioning").isEmpty();
    }

    @Test
    void aVrStoppedBehindVroutersBackIsToldToTheListener() throws Exception {
        driver.provision(vr(8, 1));
        driver.start(8);
        stopBehindTheBack(8);
        assertThat(await(() -> heard.stream().anyMatch(h -> h.startsWith("8 ")), WAIT_SECONDS))
                .as("the listener told of the outside change").isTrue();
        assertThat(heard).as("only the outside change, not the kit's start").allSatisfy(h -> {
            assertThat(h).startsWith("8 ");
            assertThat(h).isNotEqualTo("8 RUNNING");
        });
        assertThat(power(8)).as("what the host reports now").isNotEqualTo(PowerState.RUNNING);
    }

    @Test
    void aNewDriverAdoptsWhatTheOldOneMade() throws Exception {
        driver.provision(vr(9, 2));
        driver.start(9);
        VmRuntime before = vm(9);
        driver.close();

        driver = listening(openDriver());
        List<VmRuntime> found = driver.list();
        assertThat(found).extracting(VmRuntime::vmIndex).containsOnlyOnce(9);
        VmRuntime adopted = found.stream().filter(v -> v.vmIndex() == 9).findFirst().orElseThrow();
        assertThat(adopted.power()).isEqualTo(PowerState.RUNNING);
        assertThat(adopted.entry().vmUUID).isEqualTo(before.entry().vmUUID);
        assertThat(adopted.vmName()).isEqualTo("kit-9");
        assertThat(adopted.networks()).extracting(n -> n.vmNetworkPhysAddress)
                .isEqualTo(before.networks().stream().map(n -> n.vmNetworkPhysAddress).toList());
        // The new driver carries it on.
        driver.stop(9);
        assertThat(power(9)).isEqualTo(PowerState.HALTED);
        driver.destroy(9);
        assertThat(driver.inspect(9)).isEmpty();
    }

    // ---------------------------------------------------------------- behaviours a driver may offer

    private LinkStatus linkStatus(int vmIndex, int n) {
        return driver.inspect(vmIndex).flatMap(v -> v.networks().stream().filter(i -> i.vmNetworkIndex == n).findFirst())
                .map(i -> i.vmNetworkLinkStatus).orElse(null);
    }

    /** Interface n of the VR as its end of a peer link to the far VR's interface n. */
    private static VmNetworkConfigEntry peerEnd(int vmIndex, int n, int farVm) {
        VmNetworkConfigEntry e = new VmNetworkConfigEntry();
        e.vmNetworkConfigIndex = n;
        e.vmNetworkConfigLinkType = LinkType.PEER;
        e.vmNetworkConfigPeerRouter = farVm;
        e.vmNetworkConfigPeerInterface = n;
        e.vmNetworkConfigAddress = "198.51.100." + vmIndex;
        e.vmNetworkConfigPrefixLength = 24;
        return e;
    }

    /**
     * A driver that offers peer links builds each end on its own, whichever comes first: the link is up
     * once both ends run, down at the end left when the other goes, and its ends go with their VRs or
     * interfaces, leaving nothing. A driver that does not offer them says so ({@link Links}), and the
     * service refuses them before asking it (LinksTest).
     */
    @Test
    void peerLinksComeUpWhenBothEndsRunAndGoWithEitherOrAreNotOffered() throws Exception {
        Optional<Links> links = driver.behaviour(Links.class);
        if (links.isEmpty() || !links.get().linkTypes().contains(LinkType.PEER)) {
            assertThat(driver.behaviour(Links.class).map(Links::linkTypes).orElse(java.util.Set.of())).doesNotContain(LinkType.PEER);
            return;
        }
        VmConfigEntry one = vr(1, 1);
        one.vmNetworkConfigTable = List.of(iface(1, 1), peerEnd(1, 2, 2));
        driver.provision(one);
        driver.start(1);
        assertThat(linkStatus(1, 2)).as("an end alone").isNotEqualTo(LinkStatus.UP);
        VmConfigEntry two = vr(2, 0);
        two.vmNetworkConfigTable = List.of(peerEnd(2, 2, 1));
        driver.provision(two);
        driver.start(2);
        assertThat(await(() -> linkStatus(1, 2) == LinkStatus.UP && linkStatus(2, 2) == LinkStatus.UP, WAIT_SECONDS))
                .as("the link up at both ends: %s, %s", driver.inspect(1), driver.inspect(2)).isTrue();
        driver.destroy(2);
        assertThat(await(() -> linkStatus(1, 2) == LinkStatus.DOWN, WAIT_SECONDS)).as("down at the end left").isTrue();
        assertThat(power(1)).as("a link going down is not the VR's state").isEqualTo(PowerState.RUNNING);
        interfaces().removeInterface(1, 2);
        interfaces().removeInterface(1, 2);
        assertThat(networkIndexes(1)).containsExactly(1);
        assertThat(heard).as("the kit's own operations are not outside changes").isEmpty();
    }

    /**
     * A driver that offers rate limits sets and clears them on a running VR's interface without
     * stopping it, and again to the same effect; a CPU weight is changed on a running VR alike. A driver
     * that offers neither says so, and the service refuses them before asking it (LinksTest).
     */
    @Test
    void ratesAndCpuWeightsChangeOnARunningVrWithoutARestartOrAreNotOffered() throws Exception {
        VmConfigEntry c = vr(3, 1);
        driver.provision(c);
        driver.start(3);
        Optional<RateLimits> rates = driver.behaviour(RateLimits.class);
        if (rates.isPresent()) {
            VmNetworkConfigEntry limited = iface(3, 1);
            limited.vmNetworkConfigRateOut = 20_000;
            if (rates.get().limitsIngress(LinkType.BRIDGE)) limited.vmNetworkConfigRateIn = 50_000;
            rates.get().setRates(3, limited);
            rates.get().setRates(3, limited);
            assertThat(power(3)).isEqualTo(PowerState.RUNNING);
            rates.get().setRates(3, iface(3, 1));
            assertThatThrownBy(() -> rates.get().setRates(3, iface(3, 2))).as("an interface the VR lacks")
                    .isInstanceOf(DriverException.class);
        }
        if (driver.behaviour(CpuWeights.class).isPresent()) {
            c.vmConfigCpuWeight = 400;
            driver.reconfigure(c);
            driver.reconfigure(c);
            assertThat(power(3)).isEqualTo(PowerState.RUNNING);
        }
        assertThat(power(3)).isEqualTo(PowerState.RUNNING);
        assertThat(heard).as("no restart, no outside change").isEmpty();
    }

    /**
     * A driver that offers live migration: an expected arrival that the source cancels fails its
     * provisioning at once, leaving nothing here; a migration its destination does not take (here one
     * that names no destination at all) fails and leaves the VR running here. The move itself needs two
     * hosts: each driver's own test shows it (XenMigrationTest, LibvirtMigrationIT).
     */
    @Test
    void aLiveMigrationThatDoesNotHappenLeavesTheVrWhereItWasOrIsNotOffered() throws Exception {
        Optional<LiveMigration> live = driver.behaviour(LiveMigration.class);
        if (live.isEmpty()) return;
        live.get().expectArrival(vr(4, 1));
        java.util.concurrent.CompletableFuture<Void> arrival = java.util.concurrent.CompletableFuture.runAsync(() -> {
            try {
                driver.provision(vr(4, 1));
            } catch (DriverException e) {
                throw new java.util.concurrent.CompletionException(e);
            }
        });
        live.get().cancelArrival(4);
        assertThatThrownBy(() -> arrival.get(WAIT_SECONDS, TimeUnit.SECONDS)).hasRootCauseInstanceOf(DriverException.class);
        assertThat(driver.inspect(4)).isEmpty();

        driver.provision(vr(3, 1));
        driver.start(3);
        assertThatThrownBy(() -> live.get().migrate(3, java.util.Map.of())).isInstanceOf(DriverException.class);
        assertThat(power(3)).isEqualTo(PowerState.RUNNING);
        assertThat(heard).as("nothing vanished").isEmpty();
    }
}
