package io.vrouter.core.driver;

import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.Hypervisor;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What the lifecycle service asks of a hypervisor. The service calls one method at a time per VR,
 * from a worker thread, so a driver may block for as long as the hypervisor takes; it never sees two
 * concurrent calls for the same vmIndex.
 *
 * <p>The driver is the source of truth for what exists on the host; the service's registry is the
 * source of truth for what the operator asked for. A VM the driver created is recognisable as ours by
 * its vmIndex, which the driver records on the host.
 *
 * <p>What every driver does is here; what only some can do is a behaviour of its own ({@link Links},
 * {@link RateLimits}, {@link CpuWeights}) that a driver offers by implementing it, and the service asks
 * for with {@link #behaviour}, refusing a change that needs one the driver lacks before anything changes.
 */
public interface HypervisorDriver extends AutoCloseable {

    /** Short name, as chosen with {@code --driver}. */
    String name();

    /** The behaviour of the given type if this driver offers it (ONOS's behaviours: a driver offers what it has). */
    default <B> Optional<B> behaviour(Class<B> type) {
        return type.isInstance(this) ? Optional.of(type.cast(this)) : Optional.empty();
    }

    /** The vmHypervisor group: software, version, object id and uptime. */
    Hypervisor hypervisor();

    /**
     * The vmConfigTemplate values this driver makes VRs from, its default first: a creation that
     * names no template gets the first, one that names a template not listed is refused.
     */
    default List<String> templates() {
        return List.of(VmConfigEntry.Defaults.TEMPLATE);
    }

    /**
     * The admin states this driver can bring a VR to. A request for another (suspending on a driver
     * that cannot save a VR's memory, say) is refused before anything changes; the driver itself, asked for
     * one anyway, refuses it with a {@link DriverException} of code {@code NOT_SUPPORTED}, the VR unchanged.
     */
    default Set<AdminState> adminStates() {
        return EnumSet.allOf(AdminState.class);
    }

    /**
     * Checks a VR's row as a change proposes it (defaults filled in, every interface, the vmIndex
     * known), before the change is accepted: whatever this driver would refuse at provisioning and
     * can tell from the row alone, without touching the host (an interface name the host cannot
     * have, say). The service calls it under its write lock for every VR a change creates or
     * changes, so it must be quick and must not block; a refusal refuses the whole change, nothing
     * changed. The default accepts every row the service's own rules accept.
     */
    default void check(VmConfigEntry proposed) throws ConfigRefusedException {
    }

    /**
     * Creates the VM of a configured VR, with its interfaces, powered off. Every operation below is
     * safe to run again (the service re-drives a step a crash cut short): one that finds its work done
     * does nothing, so provisioning a VR whose VM exists keeps it, its UUID and its MACs. A failure
     * half-way leaves nothing of the VR on the host. {@code DriverConformanceKit} in vr-core's test-jar
     * is the behaviour every driver shows.
     */
    void provision(VmConfigEntry config) throws DriverException;

    /**
     * Applies a configured row's columns to the existing VM: its name, virtual CPUs, memory and
     * auto-start. The service calls it only while the VR is shut down when CPUs or memory change.
     */
    void reconfigure(VmConfigEntry config) throws DriverException;

    /** Powers on a halted VM, unpauses a paused one, resumes a suspended one. */
    void start(int vmIndex) throws DriverException;

    /** Shuts a VM down: cleanly, then by force when the clean shutdown does not finish in time. */
    void stop(int vmIndex) throws DriverException;

    /** Suspends (to disk) or pauses (in memory) a running VM. */
    void suspend(int vmIndex, AdminState how) throws DriverException;

    /** Removes the VM and the disks it owns. Removing a VM that does not exist is not an error. */
    void destroy(int vmIndex) throws DriverException;

    /** Attaches an interface to an existing VM. */
    void addInterface(int vmIndex, VmNetworkConfigEntry iface) throws DriverException;

    /** Detaches an interface. Detaching one that does not exist is not an error. */
    void removeInterface(int vmIndex, int networkIndex) throws DriverException;

    /** The VM's current state as the host reports it, or empty when there is no such VM. */
    Optional<VmRuntime> inspect(int vmIndex);

    /**
     * The VM's vmUUID as {@link #inspect} reports it, or empty when there is no such VM (or the host
     * reports none): for readers that need only that (every notification carries it), which a driver
     * can answer without building the VM's whole state.
     */
    default Optional<String> uuid(int vmIndex) {
        return inspect(vmIndex).map(vm -> vm.entry().vmUUID);
    }

    /** Every VM on the host that carries our vmIndex marker, for reconciliation at start-up. */
    List<VmRuntime> list() throws DriverException;

    /**
     * What keeps the driver from knowing the host's state right now (the host unreachable, its event
     * feed lost), or empty when nothing does. Readiness reports it.
     */
    default Optional<String> problem() {
        return Optional.empty();
    }

    /**
     * Registers the one listener told of changes made outside vrouter (a VM shut down or deleted
     * from another tool). Drivers that cannot see such changes ignore it.
     */
    default void setListener(DriverListener listener) {
    }

    @Override
    default void close() {
    }
}
