package io.vrouter.core.driver;

/** Told by a driver of changes on the host that vrouter did not make. */
public interface DriverListener {
    /** The VM's power state changed. */
    void powerStateChanged(int vmIndex, PowerState state);

    /** The VM disappeared from the host. */
    void vmVanished(int vmIndex);
}
