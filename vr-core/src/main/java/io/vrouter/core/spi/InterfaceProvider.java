package io.vrouter.core.spi;

import io.vrouter.core.config.Settings;

/**
 * What the server finds on the class path for each management interface, with
 * {@link java.util.ServiceLoader}: a small class that names the interface and makes it. The server
 * asks {@link #create()} only for an interface the settings leave on, so that one turned off loads
 * none of its classes (nor its libraries': Netty, snmp4j, MINA) and starts none of its threads. An
 * implementation must therefore refer to its interface's classes in {@code create()} alone.
 */
public interface InterfaceProvider {
    /** The interface's name, as {@link ManagementInterface#name()}; its port setting is {@code NAME-port}. */
    String name();

    /** Whether the settings turn it off: its port setting is {@code off}. */
    default boolean off(Settings settings) {
        return settings.get(name() + "-port", "").trim().equalsIgnoreCase("off");
    }

    /** The interface, not started yet. */
    ManagementInterface create();
}
