package io.vrouter.libvirt;

import static io.vrouter.netns.TestHost.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vrouter.core.config.Settings;
import io.vrouter.core.driver.DriverException;
import io.vrouter.core.driver.LiveMigration;
import io.vrouter.core.driver.PowerState;
import io.vrouter.core.driver.VmRuntime;
import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.InetAddressType;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import io.vrouter.netns.TestHost;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Live migration of a VR's VM between two libvirt daemons on this machine: this host's libvirtd (the
 * source) and a {@link SecondLibvirtd} (the destination), QEMU under TCG. The guest keeps running: the
 * kernel's clock that its SysRq message is stamped with goes on from where it was, it does not boot
 * again, and it answers a host behind its bridge throughout. A migration to a libvirtd that does not
 * answer fails and leaves the same QEMU process running on the source.
 */
class LibvirtMigrationTest {
    private static final long BOOT_SECONDS = 240;

    @TempDir
    Path tmp;
    private TestHost host;
    private SecondLibvirtd second;
    private LibvirtSettings settingsA;
    private LibvirtSettings settingsB;
    private LibvirtDriver source;
    private LibvirtDriver destination;

    @BeforeEach
    void open() throws Exception {
        host = new TestHost();
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwx--x--x"));
        Path runA = Files.createDirectories(tmp.resolve("a"));
        Path runB = Files.createDirectories(tmp.resolve("b"));
        Files.setPosixFilePermissions(runA, PosixFilePermissions.fromString("rwx--x--x"));
        Files.setPosixFilePermissions(runB, PosixFilePermissions.fromString("rwx--x--x"));
        second = new SecondLibvirtd(Files.createTempDirectory("second-libvirtd"));
        settingsA = LibvirtSettings.from(Settings.of(Map.of("libvirt.accel", "tcg"))).with(host.prefix + "a-", Appliance.images(), runA);
        Map<String, String> b = new HashMap<>(Map.of("libvirt.accel", "tcg", "libvirt.uri", second.uri, "libvirt.migration-uri", second.uri));
        settingsB = LibvirtSettings.from(Settings.of(b)).with(host.prefix + "b-", Appliance.images(), runB);
        source = LibvirtDriver.open(settingsA);
        destination = LibvirtDriver.open(settingsB);
    }

    @AfterEach
    void close() throws Exception {
        try {
            for (LibvirtDriver d : new LibvirtDriver[] {destination, source}) {
                if (d == null) continue;
                for (int i : List.of(3, 7)) {
                    try {
                        d.destroy(i);
                    } catch (DriverException e) {
                        // what is left is what the assertions said
                    }
                }
                d.close();
            }
        } finally {
            if (second != null) second.close();
            // the bridge the source made, which the moved guest uses on this one machine (two hosts would each have their own)
            TestHost.uncheckedOk("ip", "link", "del", host.bridge("m"));
            host.close();
        }
    }

    private VmConfigEntry vr(int vmIndex, String bridge) {
        VmConfigEntry c = new VmConfigEntry();
        c.vmIndex = vmIndex;
        c.vmName = "mover";
        c.vmAdminState = AdminState.RUNNING;
        c.vmConfigTemplate = "bird";
        c.vmConfigCpuNumber = 1;
        c.vmConfigMemory = 256;
        c.vmConfigAutoStart = false;
        VmNetworkConfigEntry n = new VmNetworkConfigEntry();
        n.vmNetworkConfigIndex = 1;
        n.vmNetworkConfigParent = bridge;
        n.vmNetworkConfigAddressType = InetAddressType.IPV4;
        n.vmNetworkConfigAddress = "192.0.2.1";
        n.vmNetworkConfigPrefixLength = 24;
        c.vmNetworkConfigTable = new java.util.ArrayList<>(List.of(n));
        return c;
    }

    private static Path consoleLog(LibvirtSettings s, int vmIndex) {
        return s.runDir().resolve(s.domainName(vmIndex)).resolve("console.log");
    }

    private static String console(LibvirtSettings s, int vmIndex) {
        return GuestUptime.console(consoleLog(s, vmIndex));
    }

    private static double guestUptime(LibvirtSettings s, int vmIndex) throws Exception {
        return GuestUptime.read(s.uri(), s.domainName(vmIndex), consoleLog(s, vmIndex));
    }

    private boolean reaches(String ns, String address) {
        try {
            return host.reaches(ns, address);
        } catch (Exception e) {
            return false;
        }
    }

    @Test
    void aRunningVrMovesLiveToAnotherLibvirtdItsGuestRunningOnAndAFailedMoveLeavesItRunningHere() throws Exception {
        String bridge = host.bridge("m");
        assertThat(source.behaviour(LiveMigration.class)).as("no libvirt.migration-uri: not offered").isEmpty();
        assertThat(destination.behaviour(LiveMigration.class)).isPresent();
        source.provision(vr(3, bridge));
        source.start(3);
        assertThat(await(() -> console(settingsA, 3).contains("vrouter appliance: VR 3 up"), BOOT_SECONDS))
                .as("boot:%n%s", console(settingsA, 3)).isTrue();
        host.allowBridged(bridge);
        String outside = host.hostOn(bridge, "192.0.2.10/24", "192.0.2.1");
        assertThat(await(() -> reaches(outside, "192.0.2.1"), BOOT_SECONDS)).as("the VR answers on its bridge").isTrue();
        String qemuPid = TestHost.ok("pgrep", "-f", "guest=" + settingsA.domainName(3) + ",").strip();

        // A libvirtd that does not answer: the move fails, the same QEMU runs on here
        Map<String, String> nowhere = new HashMap<>(Map.of(LibvirtMigration.URI, "qemu+tcp://127.0.0.1:1/system",
                LibvirtMigration.NAME, "nowhere-3", LibvirtMigration.INDEX, "3", LibvirtMigration.DIR, tmp.resolve("nowhere").toString()));
        assertThatThrownBy(() -> ((LiveMigration) source).migrate(3, nowhere)).isInstanceOf(DriverException.class)
                .hasMessageContaining("live migration to qemu+tcp://127.0.0.1:1/system");
        assertThat(source.inspect(3).map(VmRuntime::power)).contains(PowerState.RUNNING);
        assertThat(TestHost.ok("pgrep", "-f", "guest=" + settingsA.domainName(3) + ",").strip()).isEqualTo(qemuPid);

        double before = guestUptime(settingsA, 3);
        long sent = System.nanoTime();
        Map<String, String> where = destination.expectArrival(vr(7, bridge));
        CompletableFuture<Void> arrival = CompletableFuture.runAsync(() -> {
            try {
                destination.provision(vr(7, bridge));
            } catch (DriverException e) {
                throw new CompletionException(e);
            }
        });
        ((LiveMigration) source).migrate(3, where);
        arrival.get(BOOT_SECONDS, TimeUnit.SECONDS);
        destination.start(7);
        double took = (System.nanoTime() - sent) / 1e9;

        assertThat(TestHost.ok("virsh", "-c", settingsA.uri(), "list", "--all", "--name")).doesNotContain(settingsA.domainName(3));
        assertThat(source.lookup(3)).isEmpty();
        assertThat(destination.inspect(7).map(VmRuntime::power)).contains(PowerState.RUNNING);
        assertThat(destination.inspect(7).orElseThrow().vmName()).isEqualTo("mover");
        // persistent there: its definition, with this router's vmIndex in its metadata
        assertThat(TestHost.ok("virsh", "-c", second.uri, "list", "--persistent", "--name")).contains(settingsB.domainName(7));
        double after = guestUptime(settingsB, 7);
        System.out.printf("guest uptime %.1f s before the move, %.1f s after it; move %.1f s%n", before, after, took);
        assertThat(after).as("the guest's clock went on: it did not boot again").isGreaterThan(before);
        assertThat(console(settingsB, 7)).doesNotContain("vrouter appliance: VR").doesNotContain("Linux version");
        assertThat(await(() -> reaches(outside, "192.0.2.1"), 60)).as("the VR answers on its bridge after the move").isTrue();
    }
}
