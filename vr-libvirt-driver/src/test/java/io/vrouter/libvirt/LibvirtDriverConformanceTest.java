package io.vrouter.libvirt;

import io.vrouter.core.config.Settings;
import io.vrouter.core.driver.HypervisorDriver;
import io.vrouter.core.driver.conformance.DriverConformanceKit;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.netns.TestHost;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The libvirt driver runs the driver conformance kit against this host's libvirtd and QEMU (TCG asked
 * for: no KVM probe at each test's driver), booting the appliance, with the run's own prefix.
 */
class LibvirtDriverConformanceTest extends DriverConformanceKit {
    private TestHost host;
    private Path runDir;
    private LibvirtSettings settings;

    @Override
    protected HypervisorDriver openDriver() throws Exception {
        if (host == null) {
            host = new TestHost();
            // QEMU, as libvirt's user, opens each VR's disk in the run directory.
            runDir = Files.createTempDirectory("libvirt-kit", PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx--x--x")));
            settings = LibvirtSettings.from(Settings.of(Map.of("libvirt.accel", "tcg", "libvirt.stop-timeout", "30s",
                    "libvirt.migration-uri", "qemu:///system")))
                    .with(host.prefix + "-", Appliance.images(), runDir);
        }
        return LibvirtDriver.open(settings);
    }

    @Override
    protected String parent(int n) {
        return host.bridge("k" + n);
    }

    @Override
    protected VmConfigEntry failingHalfWay(VmConfigEntry row) {
        // libvirt refuses a multicast MAC when the domain is defined: after the run directory and both bridges are made.
        row.vmNetworkConfigTable.get(1).vmNetworkConfigPhysAddress = "03:00:00:00:00:02";
        return row;
    }

    @Override
    protected void stopBehindTheBack(int vmIndex) throws Exception {
        TestHost.ok("virsh", "-c", settings.uri(), "destroy", settings.domainName(vmIndex));
    }

    @Override
    protected List<String> leftovers() throws Exception {
        List<String> left = new ArrayList<>(host.leftovers(runDir));
        for (String d : TestHost.ok("virsh", "-c", settings.uri(), "list", "--all", "--name").split("\n")) {
            if (d.strip().startsWith(settings.prefix())) left.add("domain " + d.strip());
        }
        return left;
    }

    @Override
    protected void closeHost() throws Exception {
        host.close();
        Files.deleteIfExists(runDir);
    }
}
