package io.vrouter.core.service;

import io.vrouter.core.spi.LockDeniedException;
import io.vrouter.core.config.Caller;
import io.vrouter.core.model.VmConfigEntry;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Running's locks, one for every interface (as FRR's nb_running_lock): a session that holds one
 * (a NETCONF {@code <lock>} on running) is the only one whose change sets may touch the VRs it
 * covers, whatever interface the others come from. The provider's lock covers every VR; a tenant's
 * covers its own tenant's VRs, as they are and as the set would leave them (ADR 0017), so tenants
 * lock apart, and the provider's lock and a tenant's exclude each other. Checked under the
 * registry's lock with the other rules, so that no set slips between a check and its acceptance.
 * The server's own restoration of running ({@link Caller#RESTORING}) passes every lock.
 */
final class RunningLocks {
    /** The holders by tenant, the provider's under "" (no tenant's name). */
    private final Map<String, Caller> held = new HashMap<>();

    private static String scope(Caller c) {
        return c.tenant() == null ? "" : c.tenant();
    }

    /** Takes the lock of the holder's scope for its session, or throws naming the session that has one in the way. */
    synchronized void lock(Caller holder) {
        if (holder.session() == 0) throw new IllegalArgumentException("a lock is held by a session");
        Caller inTheWay = held.get(scope(holder));
        if (inTheWay == null) {
            // The provider's lock covers the tenants' VRs, and a tenant's lock stands in the provider's way.
            inTheWay = holder.provider() ? held.values().stream().findFirst().orElse(null) : held.get("");
        }
        if (inTheWay != null) {
            throw new LockDeniedException(inTheWay, "the running datastore is locked by " + LockDeniedException.describe(inTheWay));
        }
        held.put(scope(holder), holder);
    }

    /** Lets go of the holder's lock; false when its session held none. */
    synchronized boolean unlock(Caller holder) {
        Caller h = held.get(scope(holder));
        if (h == null || !h.sameSession(holder)) return false;
        held.remove(scope(holder));
        return true;
    }

    /** The session holding the lock of the caller's scope, if any. */
    synchronized Optional<Caller> holder(Caller scopeOf) {
        return Optional.ofNullable(held.get(scope(scopeOf)));
    }

    /**
     * Refuses a set of a caller other than the holder's session when a lock covers a VR it touches
     * (before or after the change). Called under the registry's lock.
     */
    synchronized void check(Caller caller, List<ChangeCheck.Target> targets) {
        if (held.isEmpty() || caller.session() == Caller.RESTORING) return;
        for (Caller h : held.values()) {
            if (h.sameSession(caller)) continue;
            if (h.provider() || targets.stream().anyMatch(t -> owned(t.before(), h) || owned(t.after(), h))) {
                throw new LockDeniedException(h, "the running datastore is locked by " + LockDeniedException.describe(h)
                        + ": nothing was changed");
            }
        }
    }

    private static boolean owned(VmConfigEntry row, Caller h) {
        return row != null && Objects.equals(row.vmConfigTenant, h.tenant());
    }
}
