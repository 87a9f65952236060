package io.vrouter.core.spi;

import io.vrouter.core.config.Caller;
import io.vrouter.core.config.Tenants;
import io.vrouter.core.driver.VmRuntime;
import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.Commit;
import io.vrouter.core.model.Hypervisor;
import io.vrouter.core.model.VirtualRouter;
import io.vrouter.core.model.VirtualRouterList;
import io.vrouter.core.model.VmConfigEntry;
import java.util.List;
import java.util.NavigableSet;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The core as the management interfaces see it: the VRs to read, change sets to apply, the events to
 * follow, and what the host offers. Interfaces hold this port, never the service that implements it,
 * so that the core's parts can change without them.
 */
public interface VirtualRouters {
    // ---------------------------------------------------------------- reads

    Optional<VirtualRouter> get(int vmIndex);

    /** The configured row only, without asking the driver: cheap, for interfaces that need just that. */
    Optional<VmConfigEntry> getConfig(int vmIndex);

    /** The VR's {@link Version}, for ETags and Last-Modified; read it before the representation it goes with. */
    Optional<Version> version(int vmIndex);

    /** The datastore's {@link Version}: it changes with every VR's, and when a VR is gone (for lists). */
    Version version();

    Optional<Integer> findByName(String vmName);

    /** The vmIndex values in order, a live read-only view, for table walks (SNMP GETNEXT) without copying them. */
    NavigableSet<Integer> indices();

    /** The first vmIndex greater than the given one, for table walks. */
    Optional<Integer> nextIndexAfter(int vmIndex);

    default VirtualRouterList list(RouterQuery query) {
        return list(query, row -> true);
    }

    /** The VRs the query selects among those whose row {@code rows} accepts (a tenant's, say). */
    VirtualRouterList list(RouterQuery query, Predicate<VmConfigEntry> rows);

    // ---------------------------------------------------------------- who asks

    /** The tenants declared, with their quotas (a tenant's user: its own only). */
    List<Tenants.Tenant> tenants();

    /**
     * The core as the caller may see and change it: its tenant's VRs only (the provider's users: all),
     * every change set stamped with the caller, checked against what it may change and its tenant's
     * quotas, and recorded with its events. Every interface reads and writes through the view of the
     * user a request or session authenticated as; this is the one place tenants are enforced.
     */
    VirtualRouters as(Caller caller);

    // ---------------------------------------------------------------- writes

    /**
     * Checks a change set against the VRs as they are and accepts it whole, durable before this
     * returns, or throws the {@link io.vrouter.core.spi.VrException} naming what is wrong and
     * changes nothing.
     */
    Applied apply(ChangeSet set);

    /** As {@link #apply}, returning before the journal record is flushed: the caller calls {@link Applied#awaitDurable}. */
    Applied accept(ChangeSet set);

    /** Checks a change set as {@link #apply} does and changes nothing; returns the rows it would make. */
    List<VmConfigEntry> validate(ChangeSet set);

    // ---------------------------------------------------------------- running's lock (RFC 6241 section 7.5)

    /**
     * Takes running's lock for the holder's session ({@link Caller#session}, not 0): until it is let
     * go, {@link #apply} and {@link #accept} refuse with {@link io.vrouter.core.spi.LockDeniedException}
     * every set of another caller that touches a VR the lock covers (the provider's: all; a tenant's:
     * its own), whatever its interface. Throws that exception, naming the holder, when a lock of
     * another session is in the way.
     */
    void lockRunning(Caller holder);

    /** Lets go of the holder's session's lock (its unlock, or its end); false when it held none. */
    boolean unlockRunning(Caller holder);

    /** The session holding the lock of the caller's scope (its tenant's, or the provider's), if any. */
    Optional<Caller> runningLockHolder(Caller scopeOf);

    // ---------------------------------------------------------------- history (docs/adr/0021-history-and-rollback.md)

    /**
     * The committed change sets the history keeps, oldest first, numbered, with who, when, from which
     * interface and their leaf changes (a tenant's user: the commits touching its VRs, with only
     * their parts).
     */
    List<Commit> commits();

    /**
     * Applies one new change set that brings the VRs back to what they were after commit
     * {@code number} (a tenant's user: its own VRs), through the same checks as any other; refused
     * whole, changing nothing, when any part of it cannot be done. A commit the history does not
     * keep is a {@link io.vrouter.core.spi.NotFoundException}.
     */
    Applied rollback(long number);

    // ---------------------------------------------------------------- events

    /** Every change of a VR, numbered, with a replay of what a subscriber missed. */
    Events events();

    void setNotificationsEnabled(boolean perVm, boolean bulk);

    boolean perVmNotificationsEnabled();

    boolean bulkNotificationsEnabled();

    // ---------------------------------------------------------------- the host

    Hypervisor hypervisor();

    /** vmConfigNextAvailableVmIndex: an index no VR has, to be used for the next row created. */
    int nextAvailableVmIndex();

    String driverName();

    /**
     * Asks the driver to give the VR about to be created as {@code vmIndex} and {@code vmName} this
     * vmUUID (a VR restored or moved here keeps its identity); null forgets it. False when the driver
     * cannot (its host gives a new UUID), or the caller is not the provider's.
     */
    default boolean keepUuid(int vmIndex, String vmName, java.util.UUID uuid) {
        return false;
    }

    /**
     * The driver's {@link io.vrouter.core.driver.LiveMigration}, when it offers one and the caller is the
     * provider's: a move of a VR then goes by the hypervisor (ADR 0023, decision 13).
     */
    default java.util.Optional<io.vrouter.core.driver.LiveMigration> liveMigration() {
        return java.util.Optional.empty();
    }

    /**
     * Marks the VR as moving to {@code peer} (ADR 0023): vmOperState {@code migrating} (vmMigrating on
     * every interface), and every change of it, its removal and a second move are refused with
     * {@link VrException.Reason#STATE} until {@link #endMigration}. The provider's only.
     */
    default void beginMigration(int vmIndex, String peer) {
        throw new NotSupportedException(null, "this view cannot move VRs");
    }

    /**
     * Ends a move begun by {@link #beginMigration}: {@code moved}, the VR is removed here (one change set,
     * its events end with its deletion); not moved, it is as the host has it again (running, as a rule).
     * Null when not moved.
     */
    default Applied endMigration(int vmIndex, boolean moved) {
        throw new NotSupportedException(null, "this view cannot move VRs");
    }

    /**
     * {@link #endMigration(int, boolean)}, with what became of the move ({@code outcome}: where it went,
     * or why it did not), which the VR's last event says as its reason: the deletion's when moved, the
     * change back from {@code migrating} when not. Null: the default words.
     */
    default Applied endMigration(int vmIndex, boolean moved, String outcome) {
        return endMigration(vmIndex, moved);
    }

    /**
     * Since when this router is drained (ADR 0023): it takes no new VRs (creations, restores, moves
     * from peers are refused with {@link VrException.Reason#IN_USE}) until it is opened. Empty: open.
     */
    default Optional<java.time.Instant> drainedSince() {
        return Optional.empty();
    }

    /**
     * Drains ({@code true}) or opens the router, kept in its data directory across restarts. The
     * provider's only. Moving the VRs away is the caller's (migration's {@code Drain}).
     */
    default void setDrained(boolean drained) {
        throw new NotSupportedException(null, "this view cannot drain the router");
    }

    /** The admin states the driver can bring a VR to. */
    Set<AdminState> adminStates();

    /** The vmConfigTemplate values the driver offers, its default first. */
    List<String> templates();

    /** What keeps the driver from knowing the host's state right now, or empty. */
    Optional<String> driverProblem();

    /** What keeps the server from recording changes right now, or empty. */
    Optional<String> storageProblem();

    /** VMs on the host that carry our marker but that no configuration claims. */
    List<VmRuntime> unresolved();
}
