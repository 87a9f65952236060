package io.vrouter.core.config;

import java.util.Objects;

/**
 * Who asks: the user a request was authenticated as, the tenant it belongs to (null: the
 * infrastructure provider's, which sees and may change every VR), its role, and the interface and
 * source address it came from (for the audit). Every read and change set of an interface goes
 * through the core's view for its caller ({@code VirtualRouters.as}), which is where tenants are
 * enforced: no interface filters rows itself.
 */
public record Caller(String user, String tenant, Credentials.Role role, String iface, String source) {
    /** The server itself (start-up, reconciliation, tests): the infrastructure provider, operator. */
    public static final Caller SYSTEM = new Caller("vrouter", null, Credentials.Role.OPERATOR, "system", null);

    public Caller {
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(iface, "iface");
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
