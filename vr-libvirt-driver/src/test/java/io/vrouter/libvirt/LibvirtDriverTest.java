package io.vrouter.libvirt;

import static io.vrouter.netns.TestHost.await;
import static io.vrouter.netns.TestHost.sh;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vrouter.core.config.Settings;
import io.vrouter.core.driver.DriverException;
import io.vrouter.core.driver.DriverListener;
import io.vrouter.core.driver.PowerState;
import io.vrouter.core.driver.VmRuntime;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import io.vrouter.core.model.VmNetworkEntry;
import io.vrouter.core.model.VmStorageEntry;
import io.vrouter.netns.TestHost;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The driver against the real libvirtd and QEMU of this host (started by .ci/install-test-deps), booting
 * the appliance that appliance/build.sh makes: under TCG where KVM does not work, so every wait is long.
 * The run's names start with a prefix of its own: it never touches another run's domains or bridges.
 * What every driver does (each step run twice, adoption, a failure half-way) is LibvirtDriverConformanceTest's.
 */
class LibvirtDriverTest {
    /** A boot under TCG on a loaded machine: seconds usually, a minute or two at worst. */
    private static final long BOOT_SECONDS = 240;

    // One driver for the class: opening one tries KVM (up to 20 s where it does not work).
    @TempDir
    static Path runDir;
    private static TestHost host;
    private static LibvirtDriver driver;
    private static LibvirtSettings settings;
    /** What the driver told the service's listener: changes made behind vrouter's back. */
    private static final List<String> outside = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void open() throws Exception {
        host = new TestHost();
        // QEMU, as libvirt's user, opens each VR's disk in the run directory: every directory on the way lets it through.
        Files.setPosixFilePermissions(runDir, PosixFilePermissions.fromString("rwx--x--x"));
        settings = LibvirtSettings.from(Settings.of(Map.of("libvirt.stop-timeout", "120s")))
                .with(host.prefix + "-", Appliance.images(), runDir);
        driver = LibvirtDriver.open(settings);
        driver.setListener(new DriverListener() {
            @Override
            public void powerStateChanged(int vmIndex, PowerState state) {
                powerStateChanged(vmIndex, state, "");
            }

            @Override
            public void powerStateChanged(int vmIndex, PowerState state, String what) {
                outside.add(vmIndex + " " + state + " " + what);
            }

            @Override
            public void vmVanished(int vmIndex) {
                outside.add(vmIndex + " vanished");
            }
        });
    }

    @AfterAll
    static void close() throws Exception {
        host.removeHosts(); // first: a test host's port keeps the driver from removing a bridge it made
        for (int i : List.of(1, 2, 3, 4, 5)) { // 6 is a foreign domain, undefined by its test
            try {
                driver.destroy(i);
            } catch (DriverException e) {
                // a test failed half-way (a foreign domain is undefined by its test)
            }
        }
        driver.close();
        host.close();
    }

    private VmConfigEntry router(int vmIndex, String bridgeA, String bridgeB) {
        VmConfigEntry c = new VmConfigEntry();
        c.vmIndex = vmIndex;
        c.vmName = "edge" + vmIndex;
        c.vmConfigTemplate = "bird";
        c.vmConfigCpuNumber = 1;
        c.vmConfigMemory = 256;
        c.vmNetworkConfigTable = List.of(iface(1, bridgeA, "192.0.2.1", 25), iface(2, bridgeB, "198.51.100.1", 25));
        return c;
    }

    private static VmNetworkConfigEntry iface(int index, String bridge, String address, int prefixLength) {
        VmNetworkConfigEntry n = new VmNetworkConfigEntry();
        n.vmNetworkConfigIndex = index;
        n.vmNetworkConfigParent = bridge;
        n.vmNetworkConfigAddress = address;
        n.vmNetworkConfigPrefixLength = prefixLength;
        return n;
    }

    private PowerState power(int vmIndex) {
        return driver.inspect(vmIndex).map(VmRuntime::power).orElse(null);
    }

    private String console(int vmIndex) {
        try {
            return Files.readString(runDir.resolve(settings.domainName(vmIndex)).resolve("console.log"), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    private boolean domainActive(int vmIndex) throws Exception {
        return TestHost.ok("virsh", "-c", settings.uri(), "domstate", settings.domainName(vmIndex)).strip().equals("running");
    }

    private boolean domainExists(int vmIndex) throws Exception {
        return sh("virsh", "-c", settings.uri(), "dominfo", settings.domainName(vmIndex)).exit() == 0;
    }

    @Test
    void aVmRouterBootsTheApplianceForwardsBetweenItsBridgesStopsAndLeavesNothing() throws Exception {
        String a = host.bridge("a");
        String b = host.bridge("b");
        assertThat(driver.templates()).containsExactly("bird", "kernel");
        assertThat(driver.hypervisor().vmHvSoftware).matches("libvirt QEMU \\((KVM|TCG)\\)");

        driver.provision(router(1, a, b));
        VmRuntime made = driver.inspect(1).orElseThrow();
        assertThat(made.power()).isEqualTo(PowerState.HALTED);
        assertThat(made.networks()).extracting(n -> n.vmNetworkParent).containsExactly(a, b);
        assertThat(made.networks()).allMatch(n -> n.vmNetworkPhysAddress.matches("52:54:00(:[0-9a-f]{2}){3}"));
        // The bridges it made carry its mark.
        assertThat(Bridges.alias(a)).isEqualTo(settings.bridgeAlias());
        assertThat(Bridges.alias(b)).isEqualTo(settings.bridgeAlias());
        assertThat(driver.list()).extracting(VmRuntime::vmIndex).containsExactly(1);

        driver.start(1);
        assertThat(power(1)).isEqualTo(PowerState.RUNNING);
        assertThat(await(() -> console(1).contains("vrouter appliance: VR 1 up, template bird, interfaces eth1 eth2"), BOOT_SECONDS))
                .as("the appliance's boot on its console:\n%s", console(1)).isTrue();

        // A host on each bridge: a ping crosses the VM from one to the other.
        host.allowBridged(a);
        host.allowBridged(b);
        String left = host.hostOn(a, "192.0.2.10/25", "192.0.2.1");
        host.hostOn(b, "198.51.100.10/25", "198.51.100.1");
        assertThat(await(() -> reaches(left, "198.51.100.10"), BOOT_SECONDS)).as("ping through the VR").isTrue();
        // Reads come from the driver's cache, read again from libvirt every refresh interval.
        assertThat(await(() -> driver.inspect(1).orElseThrow().networks().stream()
                .allMatch(n -> n.vmNetworkIfIndex > 0 && n.vmNetworkInPkts > 0 && n.vmNetworkOutPkts > 0), 30))
                .as("%s", driver.inspect(1)).isTrue();

        // Paused and resumed behind vrouter's back: told to the listener.
        TestHost.ok("virsh", "-c", settings.uri(), "suspend", settings.domainName(1));
        assertThat(await(() -> outside.contains("1 PAUSED domain suspended (paused)"), 30)).as("%s", outside).isTrue();
        TestHost.ok("virsh", "-c", settings.uri(), "resume", settings.domainName(1));
        assertThat(await(() -> outside.contains("1 RUNNING domain resumed (unpaused)"), 30)).as("%s", outside).isTrue();
        outside.clear();

        driver.suspend(1, io.vrouter.core.model.AdminState.PAUSED);
        assertThat(power(1)).isEqualTo(PowerState.PAUSED);
        driver.start(1);
        assertThat(power(1)).isEqualTo(PowerState.RUNNING);

        // Suspended (managed save: QEMU gone, memory saved), started: restored where it was, not booted again.
        driver.suspend(1, io.vrouter.core.model.AdminState.SUSPENDED);
        assertThat(power(1)).isEqualTo(PowerState.SUSPENDED);
        assertThat(domainActive(1)).isFalse();
        driver.start(1);
        assertThat(power(1)).isEqualTo(PowerState.RUNNING);
        assertThat(await(() -> reaches(left, "198.51.100.10"), BOOT_SECONDS)).as("ping after the restore").isTrue();
        assertThat(console(1).split("vrouter appliance: VR 1 up", -1)).as("boots").hasSize(2);

        // Stop: the appliance powers off on the ACPI power button, well before the stop timeout's destroy.
        driver.stop(1);
        assertThat(power(1)).isEqualTo(PowerState.HALTED);
        assertThat(console(1)).contains("vrouter appliance: powering off");
        assertThat(host.cannotReach(left, "198.51.100.10")).as("a stopped VR forwards nothing").isTrue();

        // Destroyed behind vrouter's back: crashed. Events come in order, so once that one is here the
        // events of vrouter's own pause, resume, stop and start before it have been handled: none was told.
        driver.start(1);
        TestHost.ok("virsh", "-c", settings.uri(), "destroy", settings.domainName(1));
        assertThat(await(() -> !outside.isEmpty(), 30)).isTrue();
        assertThat(outside).containsExactly("1 CRASHED domain stopped (destroyed)");
        assertThat(power(1)).isEqualTo(PowerState.HALTED);

        host.removeHosts();
        driver.destroy(1);
        assertThat(driver.inspect(1)).isEmpty();
        assertThat(domainExists(1)).isFalse();
        assertThat(host.leftovers(runDir)).isEmpty();
    }

    private boolean reaches(String fromNs, String to) {
        try {
            return host.reaches(fromNs, to);
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Test
    void twoBirdVrsLearnEachOthersNetworksOverOspf() throws Exception {
        String f = host.bridge("f");
        String m = host.bridge("m");
        String g = host.bridge("g");
        VmConfigEntry left = router(4, f, m);
        left.vmNetworkConfigTable = List.of(iface(1, f, "192.0.2.1", 25), iface(2, m, "203.0.113.1", 29));
        VmConfigEntry right = router(5, m, g);
        right.vmNetworkConfigTable = List.of(iface(1, m, "203.0.113.2", 29), iface(2, g, "198.51.100.1", 25));
        for (VmConfigEntry c : List.of(left, right)) {
            driver.provision(c);
            driver.start(c.vmIndex);
        }
        for (String br : List.of(f, m, g)) host.allowBridged(br);
        String h1 = host.hostOn(f, "192.0.2.10/25", "192.0.2.1");
        host.hostOn(g, "198.51.100.10/25", "198.51.100.1");
        // No route was given: each VR learns the other's outer network over OSPF.
        assertThat(await(() -> reaches(h1, "198.51.100.10"), BOOT_SECONDS))
                .as("a ping across both VRs; consoles:\n%s\n%s", console(4), console(5)).isTrue();
        TestHost.Result ping = TestHost.sh("ip", "netns", "exec", h1, "ping", "-c", "1", "-w", "10", "198.51.100.10");
        assertThat(ping.out()).as("two routers on the way").contains("ttl=62");

        host.removeHosts();
        driver.destroy(4);
        driver.destroy(5);
        for (String br : List.of(f, m, g)) assertThat(Bridges.isBridge(br)).as(br).isFalse();
    }

    @Test
    void cpusMemoryAndInterfacesChangeOnAStoppedVrAndInterfacesAreHotPluggedOnARunningOne() throws Exception {
        String p = host.bridge("p");
        String q = host.bridge("q");
        VmConfigEntry c = router(2, p, q);
        c.vmNetworkConfigTable = List.of(iface(1, p, "192.0.2.1", 25));
        driver.provision(c);

        assertThat(driver.inspect(2).orElseThrow().entry().vmAutoStart).isEqualTo(VmEntry.AutoStart.DISABLED);

        c.vmConfigCpuNumber = 2;
        c.vmConfigMemory = 320;
        c.vmConfigAutoStart = true;
        driver.reconfigure(c);
        VmRuntime changed = driver.inspect(2).orElseThrow();
        assertThat(changed.entry().vmMaxCpuNumber).isEqualTo(2);
        assertThat(changed.entry().vmMaxMem).isEqualTo(320L * 1024);
        // vmAutoStart is libvirt's autostart: libvirtd starts the domain when it starts.
        assertThat(changed.entry().vmAutoStart).isEqualTo(VmEntry.AutoStart.ENABLED);
        assertThat(TestHost.ok("virsh", "-c", settings.uri(), "dominfo", settings.domainName(2))).containsPattern("Autostart: +enable");
        c.vmConfigAutoStart = false;
        driver.reconfigure(c);
        assertThat(driver.inspect(2).orElseThrow().entry().vmAutoStart).isEqualTo(VmEntry.AutoStart.DISABLED);
        assertThat(TestHost.ok("virsh", "-c", settings.uri(), "dominfo", settings.domainName(2))).containsPattern("Autostart: +disable");
        assertThat(changed.networks()).hasSize(1);

        // Shut down: the definition changes, with the day-0 data the appliance reads at its next boot.
        driver.addInterface(2, iface(2, q, "198.51.100.1", 25));
        driver.addInterface(2, iface(2, q, "198.51.100.1", 25)); // again: nothing more
        assertThat(driver.inspect(2).orElseThrow().networks()).extracting(n -> n.vmNetworkParent).containsExactly(p, q);
        assertThat(TestHost.ok("virsh", "-c", settings.uri(), "dumpxml", "--inactive", settings.domainName(2)))
                .contains("vrouter.if2=").contains(",198.51.100.1/25");
        driver.removeInterface(2, 2);
        driver.removeInterface(2, 2); // again: nothing more
        assertThat(driver.inspect(2).orElseThrow().networks()).extracting(n -> n.vmNetworkParent).containsExactly(p);
        assertThat(Bridges.isBridge(q)).as("the bridge made for it, now unused").isFalse();

        // Running: the NIC plugged into the guest too (a tap on its bridge), and unplugged once the guest lets go.
        driver.start(2);
        driver.addInterface(2, iface(2, q, "198.51.100.1", 25));
        List<VmNetworkEntry> live = driver.inspect(2).orElseThrow().networks();
        assertThat(live).extracting(n -> n.vmNetworkParent).containsExactly(p, q);
        assertThat(live).allSatisfy(n -> assertThat(n.vmNetworkIfIndex).isPositive());
        assertThat(Bridges.ports(q)).hasSize(1);
        assertThat(await(() -> console(2).contains("vrouter appliance: VR 2 up"), BOOT_SECONDS)).as(console(2)).isTrue();
        driver.removeInterface(2, 2);
        assertThat(await(() -> Bridges.ports(q).isEmpty() && driver.inspect(2).orElseThrow().networks().size() == 1, BOOT_SECONDS))
                .as("unplugged from the running guest").isTrue();

        driver.destroy(2);
        assertThat(Bridges.isBridge(p)).isFalse();
        assertThat(Bridges.isBridge(q)).isFalse();
    }

    private static VmNetworkConfigEntry peer(int index, int farVm, int farIf, String address, int prefixLength) {
        VmNetworkConfigEntry n = iface(index, null, address, prefixLength);
        n.vmNetworkConfigLinkType = io.vrouter.core.model.LinkType.PEER;
        n.vmNetworkConfigPeerRouter = farVm;
        n.vmNetworkConfigPeerInterface = farIf;
        return n;
    }

    private io.vrouter.core.model.LinkStatus linkStatus(int vmIndex, int n) {
        return driver.inspect(vmIndex).flatMap(v -> v.networks().stream().filter(i -> i.vmNetworkIndex == n).findFirst())
                .map(i -> i.vmNetworkLinkStatus).orElse(null);
    }

    @Test
    void twoVrsOnAPeerLinkOfQemuUdpSocketsLearnAndForwardAcrossItWithNoBridge() throws Exception {
        String x = host.bridge("x");
        String y = host.bridge("y");
        VmConfigEntry left = router(13, x, x);
        left.vmNetworkConfigTable = List.of(iface(1, x, "192.0.2.1", 25), peer(2, 14, 1, "203.0.113.1", 29));
        VmConfigEntry right = router(14, y, y);
        right.vmNetworkConfigTable = List.of(peer(1, 13, 2, "203.0.113.2", 29), iface(2, y, "198.51.100.1", 25));
        try {
            for (VmConfigEntry c : List.of(left, right)) {
                driver.provision(c);
                driver.start(c.vmIndex);
            }
            // Each end a virtio NIC on a UDP socket netdev to the other's port: no bridge, no tap for the link.
            String live = TestHost.ok("virsh", "-c", settings.uri(), "dumpxml", settings.domainName(13));
            assertThat(live).contains("<interface type='udp'>").contains("port='" + LibvirtLinks.port(14, 1) + "'")
                    .contains("port='" + LibvirtLinks.port(13, 2) + "'");
            assertThat(DomainXml.bridges(live)).containsExactly(x);
            assertThat(TestHost.ok("ss", "-uln")).contains("127.0.0.1:" + LibvirtLinks.port(13, 2));
            for (String br : List.of(x, y)) host.allowBridged(br);
            String h1 = host.hostOn(x, "192.0.2.10/25", "192.0.2.1");
            host.hostOn(y, "198.51.100.10/25", "198.51.100.1");
            assertThat(await(() -> reaches(h1, "198.51.100.10"), BOOT_SECONDS))
                    .as("OSPF and a ping across the link; consoles:\n%s\n%s", console(13), console(14)).isTrue();
            assertThat(TestHost.sh("ip", "netns", "exec", h1, "ping", "-c", "1", "-w", "10", "198.51.100.10").out()).contains("ttl=62");
            assertThat(await(() -> linkStatus(13, 2) == io.vrouter.core.model.LinkStatus.UP
                    && linkStatus(14, 1) == io.vrouter.core.model.LinkStatus.UP, 30)).isTrue();
            assertThat(driver.inspect(13).orElseThrow().networks().get(1).vmNetworkParent).isEqualTo("peer:14.1");

            // The hosts first: a test host's port keeps the driver from removing a bridge it made.
            host.removeHosts();
            driver.destroy(14);
            assertThat(await(() -> linkStatus(13, 2) == io.vrouter.core.model.LinkStatus.DOWN, 30)).as("down at the end left").isTrue();
            driver.destroy(13);
            for (String br : List.of(x, y)) assertThat(Bridges.isBridge(br)).as(br).isFalse();
        } finally {
            host.removeHosts();
            driver.destroy(13);
            driver.destroy(14);
        }
    }

    /** The running domain's cpu_shares as libvirt reports them now. */
    private String liveShares(int vmIndex) throws Exception {
        return TestHost.ok("virsh", "-c", settings.uri(), "schedinfo", settings.domainName(vmIndex)).lines()
                .filter(l -> l.startsWith("cpu_shares")).map(l -> l.replaceAll("\\D", "")).findFirst().orElse("");
    }

    private String definition(int vmIndex) throws Exception {
        return TestHost.ok("virsh", "-c", settings.uri(), "dumpxml", "--inactive", settings.domainName(vmIndex));
    }

    @Test
    void aCpuWeightIsTheDomainsCpuSharesInItsDefinitionAndSetLiveOnARunningVr() throws Exception {
        String z = host.bridge("z");
        VmConfigEntry c = router(12, z, z);
        c.vmNetworkConfigTable = List.of(iface(1, z, "192.0.2.1", 25));
        c.vmConfigCpuWeight = 400;
        try {
            driver.provision(c);
            assertThat(definition(12)).contains("<shares>4096</shares>");
            driver.start(12);
            assertThat(liveShares(12)).isEqualTo("4096");

            c.vmConfigCpuWeight = 50;
            driver.reconfigure(c);
            assertThat(liveShares(12)).as("set on the running QEMU").isEqualTo("512");
            assertThat(definition(12)).as("and kept for its next boot").contains("<shares>512</shares>");
            assertThat(domainActive(12)).isTrue();
            // An interface change defines the domain again: the weight stays.
            driver.addInterface(12, iface(2, z, "198.51.100.1", 25));
            assertThat(definition(12)).contains("<shares>512</shares>");
        } finally {
            driver.destroy(12);
        }
    }

    @Test
    void aDomainOfTheSameNameThatIsNotVroutersIsNeverTouched() throws Exception {
        String name = settings.domainName(6);
        Path xml = Files.createTempFile("foreign", ".xml");
        Files.writeString(xml, "<domain type='qemu'><name>" + name + "</name><memory unit='MiB'>64</memory>"
                + "<os><type arch='x86_64'>hvm</type></os></domain>");
        TestHost.ok("virsh", "-c", settings.uri(), "define", xml.toString());
        try {
            assertThat(driver.inspect(6)).isEmpty();
            assertThat(driver.list()).extracting(VmRuntime::vmIndex).doesNotContain(6);
            assertThatThrownBy(() -> driver.provision(router(6, host.bridge("c"), host.bridge("d"))))
                    .isInstanceOf(DriverException.class).hasMessageContaining("is not vrouter's");
            assertThatThrownBy(() -> driver.destroy(6)).isInstanceOf(DriverException.class).hasMessageContaining("is not vrouter's");
            assertThat(domainExists(6)).isTrue();
            assertThat(Bridges.isBridge(host.bridge("c"))).isFalse();
        } finally {
            TestHost.ok("virsh", "-c", settings.uri(), "undefine", name);
            Files.delete(xml);
        }
    }

    @Test
    void aGuestThatPowersOffBetweenTheLookAndThePressIsStoppedNotAFailure() throws Exception {
        // Under TCG a guest can take longer than the button's repeat to power off: the next press
        // then meets a domain that is off, which libvirt refuses ("domain is not running").
        driver.provision(router(7, host.bridge("h"), host.bridge("i")));
        try {
            driver.start(7);
            driver.beforeButton = i -> {
                try {
                    TestHost.ok("virsh", "-c", settings.uri(), "destroy", settings.domainName(i));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            };
            driver.stop(7);
            assertThat(domainActive(7)).isFalse();
            assertThat(power(7)).isEqualTo(PowerState.HALTED);
        } finally {
            driver.beforeButton = i -> { };
            driver.destroy(7);
        }
    }

    @Test
    void aGuestThatLibvirtNoLongerCallsRunningWhenTheButtonIsPressedIsStoppedNotAFailure() throws Exception {
        // libvirt takes the button only from a running domain: one "in shutdown" (its guest powered off,
        // QEMU not yet gone: seconds when 20 VRs stop at once) or paused meanwhile is refused with
        // "domain is not running" while still active. Paused here, before the press: destroyed at once.
        driver.provision(router(10, host.bridge("j"), host.bridge("k")));
        try {
            driver.start(10);
            driver.beforeButton = i -> {
                try {
                    TestHost.ok("virsh", "-c", settings.uri(), "suspend", settings.domainName(i));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            };
            driver.stop(10);
            assertThat(domainActive(10)).isFalse();
            assertThat(power(10)).isEqualTo(PowerState.HALTED);
        } finally {
            driver.beforeButton = i -> { };
            driver.destroy(10);
        }
    }

    @Test
    void aVrsDiskIsAnOverlayOnItsTemplatesImageMadeAtProvisioningAndRemovedWithIt() throws Exception {
        Path overlay = runDir.resolve(settings.domainName(9)).resolve("disk.qcow2");
        Path image = settings.imageDir().resolve("bird/disk.qcow2").toAbsolutePath();
        try {
            driver.provision(router(9, host.bridge("t"), host.bridge("u")));
            assertThat(TestHost.ok("qemu-img", "info", "--output=json", overlay.toString()))
                    .contains("\"format\": \"qcow2\"").contains("\"backing-filename\": \"" + image + "\"");
            List<VmStorageEntry> storage = driver.inspect(9).orElseThrow().storage();
            assertThat(storage).hasSize(1);
            assertThat(storage.get(0).vmStorageResourceID).isEqualTo(overlay.toString());
            assertThat(storage.get(0).vmStorageDefinedSize).as("MiB, the template's 1 GiB").isEqualTo(1024L);
            assertThat(storage.get(0).vmStorageMediaType).isEqualTo(VmStorageEntry.MediaType.HARD_DISK);

            driver.start(9);
            // The booting guest's kernel reads its disk (looking for partitions): QEMU counts it; the balloon is whole.
            assertThat(await(() -> {
                VmRuntime vm = driver.inspect(9).orElseThrow();
                Long reads = vm.storage().get(0).vmStorageReadIOs;
                return reads != null && reads > 0 && vm.storage().get(0).vmStorageReadOctets > 0
                        && Long.valueOf(256L * 1024).equals(vm.entry().vmCurMem);
            }, BOOT_SECONDS)).as("%s; console:%n%s", driver.inspect(9), console(9)).isTrue();

            driver.destroy(9);
            assertThat(overlay).doesNotExist();
            assertThat(image).as("the template's image").exists();
        } finally {
            driver.destroy(9);
        }
    }

    @Test
    void aTemplateWithOnlyADiskBootsItWithANoCloudSeedWrittenAgainAtEachInterfaceChangeAndGoneWithTheVr(
            @TempDir Path images, @TempDir Path runs) throws Exception {
        // QEMU, as libvirt's user, opens the overlay, its backing image and the seed: every directory lets it through.
        for (Path d : List.of(images, runs)) Files.setPosixFilePermissions(d, PosixFilePermissions.fromString("rwx--x--x"));
        Path template = Files.createDirectory(images.resolve("cloud"));
        TestHost.ok("qemu-img", "create", "-q", "-f", "qcow2", template.resolve("disk.qcow2").toString(), "64M");
        LibvirtSettings disky = settings.with(host.prefix + "d-", images, runs);
        String name = disky.domainName(11);
        Path seed = runs.resolve(name).resolve("seed.iso");
        String v = host.bridge("v");
        String w = host.bridge("w");
        String x = host.bridge("x");
        // No template has a kernel here: no KVM probe, TCG.
        try (LibvirtDriver disk = LibvirtDriver.open(disky)) {
            assertThat(disk.templates()).containsExactly("cloud");
            VmConfigEntry c = router(11, v, w);
            c.vmConfigTemplate = "cloud";
            try {
                disk.provision(c);
                List<String> macs = disk.inspect(11).orElseThrow().networks().stream().map(n -> n.vmNetworkPhysAddress).toList();
                assertThat(NoCloudSeedTest.read(seed, "network-config"))
                        .contains(seedEntry(1, macs.get(0), "192.0.2.1/25")).contains(seedEntry(2, macs.get(1), "198.51.100.1/25"));
                String meta = NoCloudSeedTest.read(seed, "meta-data");
                assertThat(meta).contains("local-hostname: \"edge11\"");
                assertThat(TestHost.ok("virsh", "-c", disky.uri(), "dumpxml", "--inactive", name))
                        .contains("<boot dev='hd'/>").doesNotContain("<kernel>")
                        .containsPattern("<disk type='file' device='cdrom'>\\s*<driver name='qemu' type='raw'/>\\s*<source file='"
                                + Pattern.quote(seed.toString()) + "'/>\\s*<target dev='sda' bus='sata'/>\\s*<readonly/>");
                assertThat(disk.inspect(11).orElseThrow().storage()).extracting(s -> s.vmStorageResourceID)
                        .containsExactly(runs.resolve(name).resolve("disk.qcow2").toString());

                // A new interface: the seed written again, a new instance to cloud-init, so it applies the network again.
                disk.addInterface(11, iface(3, x, "203.0.113.1", 29));
                assertThat(NoCloudSeedTest.read(seed, "network-config")).contains("eth3:").contains("- \"203.0.113.1/29\"");
                assertThat(NoCloudSeedTest.read(seed, "meta-data")).isNotEqualTo(meta);

                // SeaBIOS finds nothing to boot on the empty disk, but the machine runs, seed and all.
                disk.start(11);
                assertThat(disk.inspect(11).map(VmRuntime::power)).contains(PowerState.RUNNING);
                assertThat(TestHost.ok("virsh", "-c", disky.uri(), "domstate", name).strip()).isEqualTo("running");
                assertThat(TestHost.ok("virsh", "-c", disky.uri(), "domblklist", name)).contains(seed.toString());
            } finally {
                disk.destroy(11);
            }
            assertThat(sh("virsh", "-c", disky.uri(), "dominfo", name).exit()).as("domain gone").isNotZero();
            assertThat(runs.resolve(name)).as("the run directory, seed and overlay").doesNotExist();
            for (String br : List.of(v, w, x)) assertThat(Bridges.isBridge(br)).as(br).isFalse();
        }
    }

    /** One interface of a seed's network-config. */
    private static String seedEntry(int index, String mac, String address) {
        return "eth" + index + ":\n    match:\n      macaddress: \"" + mac + "\"\n    set-name: eth" + index
                + "\n    addresses:\n      - \"" + address + "\"\n";
    }

    @Test
    void readsAreServedWhileLibvirtIsHeldUp() throws Exception {
        driver.provision(router(8, host.bridge("r"), host.bridge("s")));
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ExecutorService reader = Executors.newSingleThreadExecutor();
        try {
            driver.start(8);
            String uuid = driver.uuid(8).orElseThrow();
            // Every use of libvirt now waits, as on a libvirtd that hangs; the background refresh is the first to.
            driver.beforeLibvirt = () -> {
                held.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            };
            assertThat(held.await(60, TimeUnit.SECONDS)).as("the background refresh met the held-up libvirt").isTrue();
            Future<VmRuntime> read = reader.submit(() -> driver.inspect(8).orElseThrow());
            // Generous: a read that asked libvirt would wait until the release below, never answer here.
            VmRuntime vm = read.get(60, TimeUnit.SECONDS);
            assertThat(vm.power()).isEqualTo(PowerState.RUNNING);
            assertThat(vm.networks()).hasSize(2);
            assertThat(reader.submit(() -> driver.uuid(8)).get(60, TimeUnit.SECONDS)).contains(uuid);
            assertThat(reader.submit(() -> driver.hypervisor().vmHvVersion).get(60, TimeUnit.SECONDS)).startsWith("libvirt ");
        } finally {
            driver.beforeLibvirt = () -> { };
            release.countDown();
            reader.shutdownNow();
            driver.destroy(8);
        }
    }

    @Test
    void aParentThatIsNotABridgeIsRefusedBeforeAnythingIsMade() throws Exception {
        VmConfigEntry c = router(3, "lo", host.bridge("e"));
        assertThatThrownBy(() -> driver.provision(c)).isInstanceOf(DriverException.class)
                .hasMessageContaining("'lo' is an interface of the host that is not a bridge");
        assertThat(domainExists(3)).isFalse();
        assertThat(Bridges.isBridge(host.bridge("e"))).isFalse();
        assertThat(runDir.resolve(settings.domainName(3))).doesNotExist();
    }
}
