package io.vrouter.core.driver;

import io.vrouter.core.model.AdminState;
import java.util.EnumSet;
import java.util.Set;

/**
 * A driver's behaviour: it brings a running VR to states besides running and shut down, pausing it
 * (in memory) or suspending it (to disk). Without it, or for a state it does not list, the service
 * refuses the vmAdminState before anything changes.
 */
public interface PowerStates {

    /** The states this driver suspends a VR to: paused, suspended or both. */
    default Set<AdminState> suspendStates() {
        return EnumSet.of(AdminState.PAUSED, AdminState.SUSPENDED);
    }

    /**
     * Suspends (to disk) or pauses (in memory) a running VM. Asked for a state it does not list, the
     * driver refuses it with a {@link DriverException} of code {@code NOT_SUPPORTED}, the VR unchanged.
     */
    void suspend(int vmIndex, AdminState how) throws DriverException;

    /** The admin states the driver can bring a VR to: running and shutdown, and those its PowerStates list. */
    static Set<AdminState> of(HypervisorDriver driver) {
        Set<AdminState> states = EnumSet.of(AdminState.RUNNING, AdminState.SHUTDOWN);
        driver.behaviour(PowerStates.class).ifPresent(p -> states.addAll(p.suspendStates()));
        return states;
    }
}
