package io.vrouter.core.service;

import io.vrouter.core.driver.DriverException;
import io.vrouter.core.driver.HypervisorDriver;
import io.vrouter.core.driver.PowerState;
import io.vrouter.core.driver.PowerStates;
import io.vrouter.core.driver.VmRuntime;
import io.vrouter.core.metrics.VrMetrics;
import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.OperState;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import io.vrouter.core.model.VmNetworkEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out change sets on the host: the workers, and the host steps every {@link ChangeRun} is
 * made of (driver calls timed, admin states reached through their transitional states, MACs the
 * host generated recorded). A run of an accepted set undoes itself when a step fails; the run that
 * reconciles the host with the journal at start-up ({@link ChangeRun.Mode#RECONCILE}) takes the
 * same phases and steps, and crashes the VR a step failed on instead.
 */
final class Executor implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Executor.class);
    private static final long MIB = 1024L * 1024L;

    private final HypervisorDriver driver;
    private final VrMetrics metrics;
    private final Registry registry;
    private final ExecutorService workers;
    private volatile boolean undo = true;

    Executor(HypervisorDriver driver, VrMetrics metrics, Registry registry) {
        this.driver = driver;
        this.metrics = metrics;
        this.registry = registry;
        this.workers = workerPool(32);
    }

    /**
     * Up to {@code max} workers for hypervisor calls (a real hypervisor answers in milliseconds to seconds,
     * so the steps of different VRs overlap), started only when a task finds none idle, each ending after 30 s
     * idle. A plain pool of {@code max} core threads starts a new one for every task handed to it until it
     * has {@code max}, idle ones beside notwithstanding, and then wakes them in turn, so that none stays idle
     * 30 s while changes keep coming: 60 VRs created and removed one after the other left 32 workers and 8 MB
     * more resident memory where this pool leaves one worker and 4 MB (docs/adr/0004-footprint.md). A task is
     * handed to an idle worker when there is one (the queue's offer is a transfer), else a worker is started,
     * else (all {@code max} busy) it waits in the queue, as Elasticsearch's scaling executor does.
     */
    static ThreadPoolExecutor workerPool(int max) {
        LinkedTransferQueue<Runnable> queue = new LinkedTransferQueue<>() {
            @Override
            public boolean offer(Runnable task) {
                return tryTransfer(task);
            }
        };
        AtomicInteger threads = new AtomicInteger();
        return new ThreadPoolExecutor(0, max, 30, TimeUnit.SECONDS, queue, r -> {
            Thread t = new Thread(r, "vr-worker-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        }, (task, pool) -> {
            if (pool.isShutdown()) throw new RejectedExecutionException("the workers are shut down");
            queue.put(task); // all busy: the next one free takes it
        });
    }

    HypervisorDriver driver() {
        return driver;
    }

    /**
     * The driver's behaviour of this type. The service's checks refuse a change needing one the driver
     * lacks before anything changes, so a step missing it is a bug: refused as the driver would.
     */
    <B> B behaviour(Class<B> type) throws DriverException {
        return driver.behaviour(type).orElseThrow(() -> new DriverException("NOT_SUPPORTED",
                "driver '" + driver.name() + "' does not offer " + type.getSimpleName()));
    }

    Registry registry() {
        return registry;
    }

    ExecutorService workers() {
        return workers;
    }

    /** For the tests that show what undoing is for: a failed set is then left half done. */
    void setUndo(boolean enabled) {
        this.undo = enabled;
    }

    boolean undoEnabled() {
        return undo;
    }

    interface DriverStep {
        void run() throws DriverException;
    }

    /** Runs one driver call, timed. */
    void call(String operation, DriverStep step) throws DriverException {
        long t0 = System.nanoTime();
        try {
            step.run();
            metrics.recordHypervisor(operation, true, System.nanoTime() - t0);
        } catch (DriverException e) {
            metrics.recordHypervisor(operation, false, System.nanoTime() - t0);
            throw e;
        }
    }

    /**
     * Brings a VR to an admin state through the transitional states (preparing or resuming to
     * running, shuttingdown to shutdown, suspending to suspended); nothing when it is there already.
     * A driver failure is thrown; the state then is what the caller makes of it.
     */
    void bringTo(VrRecord r, AdminState target) throws DriverException {
        OperState now = r.operState;
        switch (target) {
            case RUNNING -> {
                if (now == OperState.RUNNING) return;
                // Unpausing is immediate; resuming and booting pass a transitional state.
                if (now != OperState.PAUSED) {
                    registry.transition(r, now == OperState.SUSPENDED ? OperState.RESUMING : OperState.PREPARING, null);
                }
                call("start", () -> driver.start(r.vmIndex));
                registry.transition(r, OperState.RUNNING, null);
            }
            case SHUTDOWN -> {
                if (now == OperState.SHUTDOWN) return;
                registry.transition(r, OperState.SHUTTINGDOWN, null);
                call("stop", () -> driver.stop(r.vmIndex));
                registry.transition(r, OperState.SHUTDOWN, null);
            }
            default -> {
                OperState end = target == AdminState.SUSPENDED ? OperState.SUSPENDED : OperState.PAUSED;
                if (now == end) return;
                if (now != OperState.RUNNING && now != OperState.PAUSED && now != OperState.SUSPENDED) {
                    throw new DriverException("BAD_POWER_STATE", "cannot be " + target.label() + " from " + now.label());
                }
                if (target == AdminState.SUSPENDED) registry.transition(r, OperState.SUSPENDING, null);
                PowerStates power = behaviour(PowerStates.class);
                call(target.label(), () -> power.suspend(r.vmIndex, target));
                registry.transition(r, end, null);
            }
        }
    }

    boolean halted(int vmIndex) {
        return driver.inspect(vmIndex).map(vm -> vm.power() == PowerState.HALTED).orElse(true);
    }

    /** Records in the VR's row the MACs the host generated, once the VM has them (after a provision, an interface added). */
    void recordGeneratedMacs(VrRecord r) {
        if (Registry.lacksMac(r.config)) driver.inspect(r.vmIndex).ifPresent(vm -> registry.recordGeneratedMacs(Map.of(r, vm)));
    }

    // ---------------------------------------------------------------- reconciliation: the host's row

    /** Whether the VM is as the row says: its name, CPUs, memory and interfaces (parent, MAC if given). */
    static boolean matches(VmConfigEntry c, VmRuntime vm) {
        if (!c.vmName.equals(vm.vmName()) || !sizeMatches(c, vm)) return false;
        List<VmNetworkEntry> nets = networks(vm);
        if (nets.size() != c.interfaces().size()) return false;
        for (VmNetworkConfigEntry n : c.interfaces()) {
            if (nets.stream().noneMatch(h -> Registry.sameOnHost(n, h))) return false;
        }
        return true;
    }

    /** Whether the VM has the CPUs and memory of its row (a resize needs it shut down). */
    private static boolean sizeMatches(VmConfigEntry c, VmRuntime vm) {
        VmEntry e = vm.entry();
        long unit = e.vmMemUnit == null ? 1 : e.vmMemUnit;
        return Objects.equals(e.vmMaxCpuNumber, c.vmConfigCpuNumber) && e.vmMaxMem != null
                && e.vmMaxMem * unit == c.vmConfigMemory * MIB;
    }

    private static List<VmNetworkEntry> networks(VmRuntime vm) {
        return vm.networks() == null ? List.of() : vm.networks();
    }

    /**
     * The VM as a row (its name, CPUs, memory and interfaces as the host has them, the rest as the
     * configured row), so that reconciling it is the change from this row to the configured one, run
     * by the phases and steps of any change.
     */
    static VmConfigEntry hostRow(VmConfigEntry configured, VmRuntime vm) {
        VmConfigEntry row = configured.copy();
        row.vmName = vm.vmName();
        if (!sizeMatches(configured, vm)) {
            VmEntry e = vm.entry();
            row.vmConfigCpuNumber = e.vmMaxCpuNumber;
            long bytes = e.vmMaxMem == null ? 0 : e.vmMaxMem * (e.vmMemUnit == null ? 1 : e.vmMemUnit);
            // A size that is not a whole MiB still differs from the row's.
            row.vmConfigMemory = bytes % MIB == 0 && bytes / MIB != configured.vmConfigMemory ? (int) (bytes / MIB) : -1;
        }
        List<VmNetworkConfigEntry> interfaces = new ArrayList<>();
        for (VmNetworkEntry h : networks(vm)) {
            VmNetworkConfigEntry same = configured.interfaces().stream().filter(n -> Registry.sameOnHost(n, h))
                    .findFirst().orElse(null);
            if (same == null) {
                same = new VmNetworkConfigEntry();
                same.vmNetworkConfigIndex = h.vmNetworkIndex;
                same.vmNetworkConfigParent = h.vmNetworkParent;
                same.vmNetworkConfigPhysAddress = h.vmNetworkPhysAddress;
            }
            interfaces.add(same);
        }
        row.vmNetworkConfigTable = List.copyOf(interfaces);
        return row;
    }

    /** Stops taking work and lets running hypervisor calls finish for a few seconds. */
    @Override
    public void close() {
        workers.shutdown();
        try {
            if (!workers.awaitTermination(5, TimeUnit.SECONDS)) {
                log.warn("hypervisor work still running at shutdown; it is re-driven at the next start");
                workers.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
