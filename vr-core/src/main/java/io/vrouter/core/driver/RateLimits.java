package io.vrouter.core.driver;

import io.vrouter.core.model.LinkType;
import io.vrouter.core.model.VmNetworkConfigEntry;

/**
 * A driver's behaviour: it limits an interface's rate in each direction (vmNetworkConfigRateIn,
 * vmNetworkConfigRateOut), when the interface is attached and on a live interface, without
 * restarting the VR. Without it, the service refuses rates before anything changes.
 */
public interface RateLimits {

    /**
     * Applies the interface's rates (absent: unlimited) to the attached interface. Safe to run again;
     * the service undoes a failed change by calling it with the rates before.
     */
    void setRates(int vmIndex, VmNetworkConfigEntry iface) throws DriverException;

    /** Whether the driver can limit what the VR receives on an interface of this type. */
    default boolean limitsIngress(LinkType type) {
        return true;
    }
}
