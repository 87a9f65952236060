package io.vrouter.core.driver;

import io.vrouter.core.model.Hypervisor;
import java.util.List;
import java.util.Optional;

/**
 * A driver's behaviour that every driver has: it reports what is on the host. The driver is the source
 * of truth for what exists on the host; the service's registry is the source of truth for what the
 * operator asked for. A VM the driver created is recognisable as ours by its vmIndex, which the driver
 * records on the host.
 */
public interface Observation {

    /** The vmHypervisor group: software, version, object id and uptime. */
    Hypervisor hypervisor();

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
}
