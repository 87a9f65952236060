package io.vrouter.core.driver.sim;

import io.vrouter.core.config.Settings;
import io.vrouter.core.driver.HypervisorDriver;
import io.vrouter.core.driver.HypervisorDriverProvider;

/** {@code --driver sim}: the simulated hypervisor, the embedded default. */
public final class SimulatedDriverProvider implements HypervisorDriverProvider {
    @Override
    public String name() {
        return "sim";
    }

    @Override
    public HypervisorDriver create(Settings settings) {
        return new SimulatedDriver(LatencyProfile.named(settings.get("sim-latency", "none")),
                settings.dataDir().resolve("sim-host.journal"));
    }
}
