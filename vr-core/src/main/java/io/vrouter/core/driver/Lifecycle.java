package io.vrouter.core.driver;

import io.vrouter.core.model.VmConfigEntry;
import java.util.List;

/**
 * A driver's behaviour that every driver has: it makes a configured VR's VM, changes it, powers it on
 * and off, and removes it. The service calls one method at a time per VR, from a worker thread, so a
 * driver may block for as long as the hypervisor takes; it never sees two concurrent calls for the same
 * vmIndex.
 *
 * <p>Every operation is safe to run again (the service re-drives a step a crash cut short): one that
 * finds its work done does nothing, so provisioning a VR whose VM exists keeps it, its UUID and its
 * MACs. {@code DriverConformanceKit} in vr-core's test-jar is the behaviour every driver shows.
 */
public interface Lifecycle {

    /**
     * The vmConfigTemplate values this driver makes VRs from, its default first: a creation that
     * names no template gets the first, one that names a template not listed is refused.
     */
    default List<String> templates() {
        return List.of(VmConfigEntry.Defaults.TEMPLATE);
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
     * Creates the VM of a configured VR, with its interfaces, powered off. A failure half-way leaves
     * nothing of the VR on the host.
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

    /** Removes the VM and the disks it owns. Removing a VM that does not exist is not an error. */
    void destroy(int vmIndex) throws DriverException;
}
