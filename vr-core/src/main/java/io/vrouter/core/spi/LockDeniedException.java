package io.vrouter.core.spi;

import io.vrouter.core.config.Caller;

/**
 * Running's lock (RFC 6241 section 7.5) is held by another session, and it covers a VR the change
 * touches: nothing changed. The message and {@link #holder} name the session, so that each interface
 * can say who holds it in its own terms (NETCONF's error-info session-id, RESTCONF's lock-denied).
 */
public class LockDeniedException extends VrException {
    private final Caller holder;

    public LockDeniedException(Caller holder, String message) {
        super(Reason.LOCKED, null, message);
        this.holder = holder;
    }

    /** The caller whose session holds the lock. */
    public Caller holder() {
        return holder;
    }

    /** The holder's session id in its interface (NETCONF's session-id), 0 when none. */
    public int holderSession() {
        return holder.session();
    }

    /** How the holder is named in messages: "NETCONF session 7 (user admin)". */
    public static String describe(Caller holder) {
        return holder.iface().toUpperCase(java.util.Locale.ROOT) + " session " + holder.session() + " (user " + holder.user() + ")";
    }
}
