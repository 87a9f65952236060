package io.vrouter.netns;

import io.vrouter.core.config.Settings;
import io.vrouter.core.driver.DriverException;
import io.vrouter.core.driver.HypervisorDriver;
import io.vrouter.core.driver.HypervisorDriverProvider;

/** {@code --driver netns}: VRs as Linux network namespaces on this host. */
public final class NetnsDriverProvider implements HypervisorDriverProvider {
    @Override
    public String name() {
        return "netns";
    }

    @Override
    public HypervisorDriver create(Settings settings) throws DriverException {
        return NetnsDriver.open(NetnsSettings.from(settings));
    }
}
