package io.vrouter.netconf.protocol;

import io.vrouter.core.driver.ConfigRefusedException;
import io.vrouter.core.driver.DriverException;
import io.vrouter.core.driver.DriverListener;
import io.vrouter.core.driver.HypervisorDriver;
import io.vrouter.core.driver.Interfaces;
import io.vrouter.core.driver.PowerStates;
import io.vrouter.core.driver.VmRuntime;
import io.vrouter.core.driver.sim.LatencyProfile;
import io.vrouter.core.driver.sim.SimulatedDriver;
import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.Hypervisor;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/** The simulated host, counting how often the service has it check a VR's row (once per check of a change set). */
final class CheckCountingDriver implements HypervisorDriver, PowerStates, Interfaces {
    private final SimulatedDriver host = new SimulatedDriver(LatencyProfile.NONE);
    final AtomicInteger checks = new AtomicInteger();

    @Override
    public void check(VmConfigEntry proposed) throws ConfigRefusedException {
        checks.incrementAndGet();
        host.check(proposed);
    }

    @Override
    public String name() {
        return host.name();
    }

    @Override
    public Hypervisor hypervisor() {
        return host.hypervisor();
    }

    @Override
    public List<String> templates() {
        return host.templates();
    }

    @Override
    public Set<AdminState> suspendStates() {
        return host.suspendStates();
    }

    @Override
    public void provision(VmConfigEntry config) throws DriverException {
        host.provision(config);
    }

    @Override
    public void reconfigure(VmConfigEntry config) throws DriverException {
        host.reconfigure(config);
    }

    @Override
    public void start(int vmIndex) throws DriverException {
        host.start(vmIndex);
    }

    @Override
    public void stop(int vmIndex) throws DriverException {
        host.stop(vmIndex);
    }

    @Override
    public void suspend(int vmIndex, AdminState how) throws DriverException {
        host.suspend(vmIndex, how);
    }

    @Override
    public void destroy(int vmIndex) throws DriverException {
        host.destroy(vmIndex);
    }

    @Override
    public void addInterface(int vmIndex, VmNetworkConfigEntry iface) throws DriverException {
        host.addInterface(vmIndex, iface);
    }

    @Override
    public void removeInterface(int vmIndex, int networkIndex) throws DriverException {
        host.removeInterface(vmIndex, networkIndex);
    }

    @Override
    public Optional<VmRuntime> inspect(int vmIndex) {
        return host.inspect(vmIndex);
    }

    @Override
    public Optional<String> uuid(int vmIndex) {
        return host.uuid(vmIndex);
    }

    @Override
    public List<VmRuntime> list() throws DriverException {
        return host.list();
    }

    @Override
    public Optional<String> problem() {
        return host.problem();
    }

    @Override
    public void setListener(DriverListener listener) {
        host.setListener(listener);
    }

    @Override
    public void close() {
        host.close();
    }
}
