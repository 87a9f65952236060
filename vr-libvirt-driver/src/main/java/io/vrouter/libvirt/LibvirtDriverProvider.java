package io.vrouter.libvirt;

import io.vrouter.core.config.Settings;
import io.vrouter.core.driver.DriverException;
import io.vrouter.core.driver.HypervisorDriver;
import io.vrouter.core.driver.HypervisorDriverProvider;

/** {@code --driver libvirt}: VRs as libvirt/QEMU virtual machines on this host. */
public final class LibvirtDriverProvider implements HypervisorDriverProvider {
    @Override
    public String name() {
        return "libvirt";
    }

    @Override
    public HypervisorDriver create(Settings settings) throws DriverException {
        return LibvirtDriver.open(LibvirtSettings.from(settings));
    }
}
