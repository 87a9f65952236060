package io.vrouter.xen;

import io.vrouter.core.config.Settings;
import io.vrouter.core.driver.DriverException;
import io.vrouter.core.driver.HypervisorDriver;
import io.vrouter.core.driver.HypervisorDriverProvider;

/** {@code --driver xen}: VRs as XenServer (XCP-ng) VMs through XenAPI. */
public final class XenDriverProvider implements HypervisorDriverProvider {
    @Override
    public String name() {
        return "xen";
    }

    @Override
    public HypervisorDriver create(Settings settings) throws DriverException {
        return XenDriver.connect(XenSettings.from(settings));
    }
}
