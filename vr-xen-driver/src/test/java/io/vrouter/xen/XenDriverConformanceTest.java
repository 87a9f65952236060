package io.vrouter.xen;

import io.vrouter.core.config.Settings;
import io.vrouter.core.driver.HypervisorDriver;
import io.vrouter.core.driver.conformance.DriverConformanceKit;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.xen.fake.FakeXenServer;
import java.util.List;
import java.util.Map;

/** The Xen driver runs the driver conformance kit against the XenAPI fake, spoken to over HTTP. */
class XenDriverConformanceTest extends DriverConformanceKit {
    private FakeXenServer xen;

    @Override
    protected HypervisorDriver openDriver() throws Exception {
        if (xen == null) xen = new FakeXenServer();
        return new XenDriverProvider().create(Settings.of(Map.of("xen.url", xen.url().toString(),
                "xen.username", FakeXenServer.USER, "xen.password", FakeXenServer.PASSWORD,
                "xen.network.xenbr0", FakeXenServer.NETWORKS.get(0), "xen.network.transit", FakeXenServer.NETWORKS.get(1),
                "xen.network.xenbr1", FakeXenServer.NETWORKS.get(0),
                "xen.call-timeout", "5s", "xen.event-timeout", "1s", "xen.retry-backoff", "20ms")));
    }

    @Override
    protected String parent(int n) {
        return List.of("xenbr0", "transit", "xenbr1").get(n - 1);
    }

    @Override
    protected VmConfigEntry failingHalfWay(VmConfigEntry row) {
        // After the clone, its disk and its settings: the first VIF refused.
        xen.failNext("VIF.create", "NETWORK_INCOMPATIBLE_PURPOSES", "x");
        return row;
    }

    @Override
    protected void stopBehindTheBack(int vmIndex) {
        xen.setPowerState(xen.vms().get("kit-" + vmIndex), "Halted");
    }

    @Override
    protected List<String> leftovers() {
        return xen.leaks();
    }

    @Override
    protected void closeHost() {
        xen.close();
    }
}
