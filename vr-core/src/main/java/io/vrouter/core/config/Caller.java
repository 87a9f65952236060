package io.vrouter.core.config;

import java.util.Objects;

/**
 * Who asks: the user a request was authenticated as, the tenant it belongs to (null: the
 * infrastructure provider's, which sees and may change every VR), its role, and the interface and
 * source address it came from (for the audit). Every read and change set of an interface goes
 * through the core's view for its caller ({@code VirtualRouters.as}), which is where tenants are
 * enforced: no interface filters rows itself.
 *
 * <p>{@code session} tells one session of an interface from another (NETCONF's session-id), 0 for a
 * request that belongs to none (REST, RESTCONF, SNMP, gNMI): running's lock is held by a session, and
 * a change set passes the lock only when its caller is of the holder's session.
 */
public record Caller(String user, String tenant, Credentials.Role role, String iface, String source, int session) {
    /** The server itself (start-up, reconciliation, tests): the infrastructure provider, operator. */
    public static final Caller SYSTEM = new Caller("vrouter", null, Credentials.Role.OPERATOR, "system", null);

    public Caller {
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(iface, "iface");
    }

    /**
     * The session of the server's own restoration of running (a NETCONF confirmed commit not
     * confirmed: RFC 6241 section 8.4 has the server put running back whoever holds its lock).
     */
    public static final int RESTORING = -1;

    /** A caller of no session (a request). */
    public Caller(String user, String tenant, Credentials.Role role, String iface, String source) {
        this(user, tenant, role, iface, source, 0);
    }

    /** The same caller in one session of its interface (NETCONF's session-id). */
    public Caller inSession(int session) {
        return new Caller(user, tenant, role, iface, source, session);
    }

    /** Whether both are the same session of the same interface (never true of requests, session 0). */
    public boolean sameSession(Caller other) {
        return session != 0 && other != null && session == other.session && iface.equals(other.iface);
    }

    /** The infrastructure provider's users (no tenant) see and may change every VR. */
    public boolean provider() {
        return tenant == null;
    }

    /** Whether this caller may see a VR owned by the tenant (null: the provider's own VRs). */
    public boolean sees(String owner) {
        return tenant == null || tenant.equals(owner);
    }

    public boolean mayChange() {
        return role == Credentials.Role.OPERATOR;
    }

    /** The same user over an interface, from a source address (null when there is none, or it is not known). */
    public Caller via(String iface, String source) {
        return new Caller(user, tenant, role, iface, source);
    }
}
