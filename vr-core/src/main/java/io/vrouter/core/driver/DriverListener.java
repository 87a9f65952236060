package io.vrouter.core.driver;

import io.vrouter.core.model.LinkStatus;

/** Told by a driver of changes on the host that vrouter did not make. */
public interface DriverListener {
    /** The VM's power state changed. */
    void powerStateChanged(int vmIndex, PowerState state);

    /**
     * The VM's power state changed, and the driver can say what it saw (an interface set down, a
     * routing daemon gone); the service shows it in vmOperStateReason.
     */
    default void powerStateChanged(int vmIndex, PowerState state, String what) {
        powerStateChanged(vmIndex, state);
    }

    /** The VM disappeared from the host. */
    void vmVanished(int vmIndex);

    /** A probed link of the VM (a peer or VXLAN link) went up or down (vmNetworkLinkStatus). */
    default void linkChanged(int vmIndex, int networkIndex, LinkStatus now) {
    }
}
