package io.vrouter.core.spi;

/**
 * One management interface hosted by the server (REST, SNMP, NETCONF, gNMI). The server finds each
 * through its {@link InterfaceProvider} and creates it only when it is on. Implementations hold no VR
 * state of their own: everything goes through {@link ServerContext#service()}.
 */
public interface ManagementInterface extends AutoCloseable {
    /** Short name for logs and metrics tags: rest, snmp, netconf. */
    String name();

    /**
     * Reads what the interface keeps in the data directory, writing nothing, and throws when a file
     * there is damaged (naming it, what is wrong and what the operator can do). The server calls it
     * on every interface before it writes anything, so that a start refused for a damaged file leaves
     * the data directory as it was.
     */
    default void check(io.vrouter.core.config.Settings settings) throws Exception {
    }

    /** Starts listening. Throws when the interface cannot start (port taken, bad settings). */
    void start(ServerContext context) throws Exception;

    /**
     * Reads the settings again (SIGHUP, systemctl reload) without dropping a session. Reads and checks
     * everything first and throws, naming the setting, when one is wrong; returns the change, which
     * cannot fail: the server applies the interfaces' changes only when every interface and the users
     * accepted the new settings, so a bad reload changes nothing. A setting that cannot change while
     * the interface runs (a port, the bind address) is logged as needing a restart and left as it is.
     * By default nothing is re-read.
     */
    default Runnable reload(io.vrouter.core.config.Settings settings) throws Exception {
        return () -> { };
    }

    /** A line for the start-up log, for example "SNMP on udp:127.0.0.1/1161". */
    String describe();

    /** Stops listening and releases everything. */
    @Override
    void close();
}
