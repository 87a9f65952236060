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
        LatencyProfile latency = LatencyProfile.named(settings.get("sim-latency", "none"));
        // a host slow to make a VM, as long as said: a test can catch a creation in the middle
        if (settings.get("sim.provision-delay", null) != null) {
            latency = latency.withProvision(settings.getDuration("sim.provision-delay", "0s"));
        }
        SimulatedDriver driver = new SimulatedDriver(latency, settings.dataDir().resolve("sim-host.journal"));
        // The simulated host has no CPUs or memory of its own: none unless the settings give them.
        int cpus = settings.getInt("sim.host-cpus", 0);
        int memory = settings.getInt("sim.host-memory", 0);
        driver.setHostResources(cpus > 0 ? cpus : null, memory > 0 ? memory : null);
        return driver;
    }
}
