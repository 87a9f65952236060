package io.vrouter.core.spi;

import io.vrouter.core.config.Caller;
import io.vrouter.core.config.Tenants;
import io.vrouter.core.driver.VmRuntime;
import io.vrouter.core.model.AdminState;
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
