package io.vrouter.api.rest;

import java.net.InetAddress;

/**
 * The address of the client whose request this thread is serving, for what needs it below Jersey
 * (the brake on password guessing): Jersey's JDK container does not pass it on, so the server's own
 * filter sets it ({@link AdmissionFilter}, or a servlet filter in the WAR) around the request.
 */
public final class ClientAddress {
    private static final ThreadLocal<InetAddress> CURRENT = new ThreadLocal<>();

    private ClientAddress() {
    }

    /** The client of the request on this thread, or null where none was set. */
    static InetAddress current() {
        return CURRENT.get();
    }

    /** Sets the client of the request this thread serves now; {@link #clear()} when it is done. */
    public static void set(InetAddress client) {
        CURRENT.set(client);
    }

    public static void clear() {
        CURRENT.remove();
    }
}
