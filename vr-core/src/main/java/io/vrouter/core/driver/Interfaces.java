package io.vrouter.core.driver;

import io.vrouter.core.model.VmNetworkConfigEntry;

/**
 * A driver's behaviour: it attaches and detaches interfaces of an existing VM (a VR's interfaces are
 * otherwise made with it by {@link Lifecycle#provision}). Without it, the service refuses a change
 * that adds, removes or re-attaches an interface of an existing VR before anything changes.
 */
public interface Interfaces {

    /** Attaches an interface to an existing VM. */
    void addInterface(int vmIndex, VmNetworkConfigEntry iface) throws DriverException;

    /** Detaches an interface. Detaching one that does not exist is not an error. */
    void removeInterface(int vmIndex, int networkIndex) throws DriverException;
}
