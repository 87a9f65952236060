package io.vrouter.core.service;

import io.vrouter.core.driver.ConfigRefusedException;
import io.vrouter.core.driver.DriverException;
import io.vrouter.core.driver.DriverListener;
import io.vrouter.core.driver.HypervisorDriver;
import io.vrouter.core.driver.Interfaces;
import io.vrouter.core.driver.PowerStates;
import io.vrouter.core.driver.VmRuntime;
import io.vrouter.core.driver.sim.SimulatedDriver;
import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.Hypervisor;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

/**
 * The simulated host, with every call the service makes of it written down ("start 1",
 * "reconfigure 2 b") and a call that can be held: the n-th call of an operation waits until
 * released, as a slow host would, or forever, as a host behind a crashed server does.
 */
final class RecordingDriver implements HypervisorDriver, PowerStates, Interfaces {
    final SimulatedDriver host;
    final List<String> calls = new CopyOnWriteArrayList<>();
    private volatile String holdOperation;
    // Atomic: the steps of different VRs call the driver from parallel workers.
    private final java.util.concurrent.atomic.AtomicInteger holdCountdown = new java.util.concurrent.atomic.AtomicInteger();
    private volatile boolean holdLater;
    final CountDownLatch held = new CountDownLatch(1);
    /** Runs before every inspect, on the caller's thread (a test's way to make a reader late). */
    volatile Runnable beforeInspect;
    final CountDownLatch release = new CountDownLatch(1);
    private final java.util.Map<String, String> failures = new java.util.concurrent.ConcurrentHashMap<>();

    /** The rows the service asked the driver to check. */
    final List<VmConfigEntry> checked = new CopyOnWriteArrayList<>();
    private volatile String refusedParent;

    /** Whether the host's behaviours (links, rates, CPU weights) are offered; a test turns them off. */
    volatile boolean behaviours = true;
    /** Behaviours this driver does not offer, whatever the host does: a test's driver that lacks them. */
    final Set<Class<?>> withheld = java.util.concurrent.ConcurrentHashMap.newKeySet();

    RecordingDriver(SimulatedDriver host) {
        this.host = host;
    }

    @Override
    public <B> Optional<B> behaviour(Class<B> type) {
        if (withheld.contains(type)) return Optional.empty();
        // Recorded here, offered as the host offers them.
        if (type == PowerStates.class || type == Interfaces.class) return host.behaviour(type).map(h -> type.cast(this));
        if (!behaviours) return Optional.empty();
        if (type == io.vrouter.core.driver.RateLimits.class) {
            io.vrouter.core.driver.RateLimits rates = (vmIndex, iface) -> {
                calls.add("setRates " + vmIndex + "/" + iface.vmNetworkConfigIndex + " in=" + iface.vmNetworkConfigRateIn
                        + " out=" + iface.vmNetworkConfigRateOut);
                host.setRates(vmIndex, iface);
            };
            return Optional.of(type.cast(rates));
        }
        return host.behaviour(type);
    }

    /** Makes {@link #check} refuse every interface on this parent. */
    void refuseParent(String parent) {
        refusedParent = parent;
    }

    @Override
    public void check(VmConfigEntry proposed) throws ConfigRefusedException {
        checked.add(proposed.copy());
        for (VmNetworkConfigEntry n : proposed.interfaces()) {
            if (refusedParent != null && refusedParent.equals(n.vmNetworkConfigParent)) {
                throw new ConfigRefusedException("vmNetworkConfigParent", "'" + refusedParent + "' is refused by the test driver")
                        .about(n.vmNetworkConfigIndex);
            }
        }
    }

    /** Makes the next call of the operation on the VM fail (once), after any hold. */
    void failOnce(String operation, int vmIndex, String message) {
        failures.put(operation + " " + vmIndex, message);
    }

    /** Holds the {@code nth} (from 1) later call of the operation until {@link #release} counts down. */
    void hold(String operation, int nth) {
        holdCountdown.set(nth);
        holdLater = false;
        holdOperation = operation;
    }

    /**
     * Holds every later call of the operation, as a host behind a crashed server: the steps of
     * different VRs run in parallel, so holding only the first would let the others reach the host.
     */
    void holdAll(String operation) {
        holdCountdown.set(1);
        holdLater = true;
        holdOperation = operation;
    }

    private void call(String operation, Object... what) throws DriverException {
        StringBuilder b = new StringBuilder(operation);
        for (Object w : what) b.append(' ').append(w);
        calls.add(b.toString());
        if (operation.equals(holdOperation) && (holdCountdown.decrementAndGet() == 0 || holdLater)) {
            held.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        String failure = what.length == 0 ? null : failures.remove(operation + " " + what[0]);
        if (failure != null) throw new DriverException("TEST_FAILURE", failure);
    }

    /** The calls about one VR (their text starts with the operation and the vmIndex). */
    List<String> callsOf(int vmIndex) {
        return calls.stream().filter(c -> c.split(" ")[1].equals(String.valueOf(vmIndex))).toList();
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
        call("provision", config.vmIndex, config.vmName);
        host.provision(config);
    }

    @Override
    public void reconfigure(VmConfigEntry config) throws DriverException {
        call("reconfigure", config.vmIndex, config.vmName);
        host.reconfigure(config);
    }

    @Override
    public void start(int vmIndex) throws DriverException {
        call("start", vmIndex);
        host.start(vmIndex);
    }

    @Override
    public void stop(int vmIndex) throws DriverException {
        call("stop", vmIndex);
        host.stop(vmIndex);
    }

    @Override
    public void suspend(int vmIndex, AdminState how) throws DriverException {
        call(how.label(), vmIndex);
        host.suspend(vmIndex, how);
    }

    @Override
    public void destroy(int vmIndex) throws DriverException {
        call("destroy", vmIndex);
        host.destroy(vmIndex);
    }

    @Override
    public void addInterface(int vmIndex, VmNetworkConfigEntry iface) throws DriverException {
        call("addInterface", vmIndex, iface.vmNetworkConfigIndex);
        host.addInterface(vmIndex, iface);
    }

    @Override
    public void removeInterface(int vmIndex, int networkIndex) throws DriverException {
        call("removeInterface", vmIndex, networkIndex);
        host.removeInterface(vmIndex, networkIndex);
    }

    @Override
    public Optional<VmRuntime> inspect(int vmIndex) {
        Runnable before = beforeInspect;
        if (before != null) before.run();
        return host.inspect(vmIndex);
    }

    @Override
    public List<VmRuntime> list() throws DriverException {
        return host.list();
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
