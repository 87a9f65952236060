package io.vrouter.snmp;

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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The simulated host, whose inspect() holds the first thread that {@link #hold} names until the test
 * lets it go: a test can act while the agent is in the middle of some work. While such a hold waits
 * for its thread, destroy() waits for it too, so the VR is surely there when that thread reads it.
 * Its provision() can be held the same way: the VR stays being made until the test lets it go.
 */
final class HoldingDriver implements HypervisorDriver, PowerStates, Interfaces {
    final SimulatedDriver host = new SimulatedDriver(LatencyProfile.NONE);
    final CountDownLatch held = new CountDownLatch(1);
    private volatile Predicate<String> threadName;
    private volatile CountDownLatch release;
    private volatile CountDownLatch provisionRelease;

    /** The next inspect() by a thread whose name passes waits for {@code release} (10 s at the most). */
    void hold(Predicate<String> threadName, CountDownLatch release) {
        this.release = release;
        this.threadName = threadName;
    }

    /** The next provision() waits for {@code release} (10 s at the most) before the host makes the VM. */
    void holdProvision(CountDownLatch release) {
        provisionRelease = release;
    }

    @Override
    public Optional<VmRuntime> inspect(int vmIndex) {
        Optional<VmRuntime> vm = host.inspect(vmIndex);
        Predicate<String> which = threadName;
        if (which != null && which.test(Thread.currentThread().getName())) {
            threadName = null;
            held.countDown();
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return vm;
    }

    @Override public String name() { return host.name(); }
    @Override public Hypervisor hypervisor() { return host.hypervisor(); }
    @Override public List<String> templates() { return host.templates(); }
    @Override public Set<AdminState> suspendStates() { return host.suspendStates(); }
    @Override
    public void provision(VmConfigEntry c) throws DriverException {
        CountDownLatch r = provisionRelease;
        if (r != null) {
            provisionRelease = null;
            try {
                r.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        host.provision(c);
    }
    @Override public void reconfigure(VmConfigEntry c) throws DriverException { host.reconfigure(c); }
    @Override public void start(int i) throws DriverException { host.start(i); }
    @Override public void stop(int i) throws DriverException { host.stop(i); }
    @Override public void suspend(int i, AdminState how) throws DriverException { host.suspend(i, how); }
    @Override
    public void destroy(int i) throws DriverException {
        if (threadName != null) {
            try {
                held.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        host.destroy(i);
    }
    @Override public void addInterface(int i, VmNetworkConfigEntry n) throws DriverException { host.addInterface(i, n); }
    @Override public void removeInterface(int i, int n) throws DriverException { host.removeInterface(i, n); }
    @Override public List<VmRuntime> list() throws DriverException { return host.list(); }
    @Override public void setListener(DriverListener l) { host.setListener(l); }
    @Override public void close() { host.close(); }
}
