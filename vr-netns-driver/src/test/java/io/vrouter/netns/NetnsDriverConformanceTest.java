package io.vrouter.netns;

import static io.vrouter.netns.TestHost.ok;

import io.vrouter.core.config.Settings;
import io.vrouter.core.driver.HypervisorDriver;
import io.vrouter.core.driver.conformance.DriverConformanceKit;
import io.vrouter.core.model.VmConfigEntry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** The netns driver runs the driver conformance kit on this host's kernel (root), with the run's own names. */
class NetnsDriverConformanceTest extends DriverConformanceKit {
    private TestHost host;
    private Path runDir;

    @Override
    protected HypervisorDriver openDriver() throws Exception {
        if (host == null) {
            host = new TestHost();
            runDir = Files.createTempDirectory("netns-kit");
        }
        return NetnsDriver.open(NetnsSettings.from(Settings.of(Map.of("netns.prefix", host.prefix,
                "netns.run-dir", runDir.toString(), "netns.resync-interval", "1s", "netns.daemon-check-interval", "200ms",
                "netns.refresh-delay", "50ms"))));
    }

    @Override
    protected String parent(int n) {
        return host.bridge("k" + n);
    }

    @Override
    protected VmConfigEntry failingHalfWay(VmConfigEntry row) throws Exception {
        // Interface 2's host name is taken by a veth that does not lead into the VR: the bridges, the
        // namespace and interface 1 are built before the kernel refuses.
        ok("ip", "link", "add", "name", host.prefix + row.vmIndex + "-2", "type", "veth", "peer", "name", host.prefix + "peer");
        return row;
    }

    @Override
    protected void stopBehindTheBack(int vmIndex) throws Exception {
        ok("ip", "-n", host.prefix + vmIndex, "link", "set", "dev", "eth1", "down");
    }

    @Override
    protected List<String> leftovers() throws Exception {
        return host.leftovers(runDir);
    }

    @Override
    protected void closeHost() throws Exception {
        host.close();
        Files.deleteIfExists(runDir);
    }
}
