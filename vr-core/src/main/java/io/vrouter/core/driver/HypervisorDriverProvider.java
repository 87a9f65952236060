package io.vrouter.core.driver;

import io.vrouter.core.config.Settings;

/**
 * Makes a driver from the server's settings. Drivers are found with {@link java.util.ServiceLoader},
 * so that a driver module on the class path is all it takes to offer {@code --driver NAME}.
 */
public interface HypervisorDriverProvider {
    /** The name chosen with {@code --driver}. */
    String name();

    HypervisorDriver create(Settings settings) throws DriverException;
}
