package io.vrouter.core.spi;

/**
 * One management interface hosted by the server (REST, SNMP, NETCONF). Implementations are found
 * with {@link java.util.ServiceLoader}, need a public no-argument constructor, and hold no VR state
 * of their own: everything goes through {@link ServerContext#service()}.
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

    /** A line for the start-up log, for example "SNMP on udp:127.0.0.1/1161". */
    String describe();

    /** Stops listening and releases everything. */
    @Override
    void close();
}
