package io.vrouter.core.service;

import io.vrouter.core.config.Caller;
import io.vrouter.core.config.Tenants;
import io.vrouter.core.driver.VmRuntime;
import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.Commit;
import io.vrouter.core.model.Commitment;
import io.vrouter.core.model.Hypervisor;
import io.vrouter.core.model.OperState;
import io.vrouter.core.model.VirtualRouter;
import io.vrouter.core.model.VirtualRouterList;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VrEvent;
import io.vrouter.core.spi.AccessDeniedException;
import io.vrouter.core.spi.Applied;
import io.vrouter.core.spi.ChangeSet;
import io.vrouter.core.spi.Events;
import io.vrouter.core.spi.RouterQuery;
import io.vrouter.core.spi.Version;
import io.vrouter.core.spi.VirtualRouters;
import java.util.Collections;
import java.util.List;
import java.util.NavigableSet;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * The core as one caller may see and change it ({@link VirtualRouters#as}): the one place where
 * tenants are enforced for every interface. A tenant's user reads only its tenant's VRs (every read,
 * list, walk, count and event), and its change sets go to the core stamped with it, where
 * {@link ChangeCheck} refuses what it may not change and checks its tenant's quotas under the same
 * lock as every other rule. The provider's users (no tenant) read everything as it is; their sets
 * are stamped too, for the audit.
 */
public final class TenantView implements VirtualRouters {
    private final VirtualRouters core;
    private final Caller caller;
    private final Predicate<VmConfigEntry> visible;
    private final Events events;

    public TenantView(VirtualRouters core, Caller caller) {
        this.core = core instanceof TenantView v ? v.core : core;
        this.caller = caller;
        this.visible = row -> caller.sees(row.vmConfigTenant);
        this.events = caller.provider() ? this.core.events() : this.core.events().seenAs(this::seen);
    }

    /**
     * An event as the caller sees it: its tenant's VRs' events as they are; a VR the provider gave
     * to the caller's tenant as created, one it took away as deleted; nothing of the others.
     */
    private VrEvent seen(VrEvent e) {
        boolean now = caller.sees(e.vmConfigTenant);
        if (e.previousTenant == null) return now ? e : null;
        boolean before = caller.sees(e.previousTenant.isEmpty() ? null : e.previousTenant);
        if (now == before) return now ? e : null;
        return e.as(now ? VrEvent.Type.CREATED : VrEvent.Type.DELETED);
    }

    /** Who this view is for. */
    public Caller caller() {
        return caller;
    }

    @Override
    public List<Tenants.Tenant> tenants() {
        List<Tenants.Tenant> all = core.tenants();
        return caller.provider() ? all : all.stream().filter(t -> t.name().equals(caller.tenant())).toList();
    }

    @Override
    public VirtualRouters as(Caller other) {
        return new TenantView(core, other);
    }

    private boolean sees(int vmIndex) {
        if (caller.provider()) return true;
        return core.getConfig(vmIndex).map(visible::test).orElse(false);
    }

    // ---------------------------------------------------------------- reads

    @Override
    public Optional<VirtualRouter> get(int vmIndex) {
        Optional<VirtualRouter> vr = core.get(vmIndex);
        return caller.provider() ? vr : vr.filter(visible);
    }

    @Override
    public Optional<VmConfigEntry> getConfig(int vmIndex) {
        Optional<VmConfigEntry> row = core.getConfig(vmIndex);
        return caller.provider() ? row : row.filter(visible);
    }

    @Override
    public Optional<Version> version(int vmIndex) {
        return sees(vmIndex) ? core.version(vmIndex) : Optional.empty();
    }

    @Override
    public Version version() {
        return core.version();
    }

    @Override
    public Optional<Integer> findByName(String vmName) {
        return core.findByName(vmName).filter(this::sees);
    }

    @Override
    public NavigableSet<Integer> indices() {
        if (caller.provider()) return core.indices();
        NavigableSet<Integer> mine = new TreeSet<>();
        for (Integer i : core.indices()) {
            if (sees(i)) mine.add(i);
        }
        return Collections.unmodifiableNavigableSet(mine);
    }

    @Override
    public Optional<Integer> nextIndexAfter(int vmIndex) {
        Optional<Integer> next = core.nextIndexAfter(vmIndex);
        while (next.isPresent() && !sees(next.get())) next = core.nextIndexAfter(next.get());
        return next;
    }

    @Override
    public VirtualRouterList list(RouterQuery query, Predicate<VmConfigEntry> rows) {
        return core.list(query, caller.provider() ? rows : visible.and(rows));
    }

    // ---------------------------------------------------------------- writes: the core checks them against the caller

    @Override
    public Applied apply(ChangeSet set) {
        return core.apply(set.by(caller));
    }

    @Override
    public Applied accept(ChangeSet set) {
        return core.accept(set.by(caller));
    }

    @Override
    public void lockRunning(Caller holder) {
        core.lockRunning(holder);
    }

    @Override
    public boolean unlockRunning(Caller holder) {
        return core.unlockRunning(holder);
    }

    @Override
    public Optional<Caller> runningLockHolder(Caller scopeOf) {
        return core.runningLockHolder(scopeOf);
    }

    @Override
    public List<VmConfigEntry> validate(ChangeSet set) {
        return core.validate(set.by(caller));
    }

    // ---------------------------------------------------------------- history: the caller's VRs' part of it

    @Override
    public List<Commit> commits() {
        List<Commit> all = core.commits();
        if (caller.provider()) return all;
        List<Commit> mine = new java.util.ArrayList<>();
        for (Commit c : all) {
            Commit part = c.only(vr -> caller.sees(vr.tenant()) || ownedBefore(c, vr.vmIndex()));
            if (!part.vrs.isEmpty()) mine.add(part);
        }
        return mine;
    }

    /** Whether the commit took the VR from the caller's tenant (the provider gave it to another). */
    private boolean ownedBefore(Commit c, int vmIndex) {
        for (VrEvent.LeafChange l : c.changes) {
            if (l.vmIndex() == vmIndex && l.leaf().equals("vmConfigTenant") && l.before() != null
                    && caller.sees(l.before().toString())) return true;
        }
        return false;
    }

    @Override
    public Applied rollback(long number) {
        if (core instanceof VirtualRouterService s) return s.rollback(number, caller, commits());
        throw new UnsupportedOperationException("rollback needs the core service");
    }

    // ---------------------------------------------------------------- events

    @Override
    public Events events() {
        return events;
    }

    /** The notification switches are the router's, not a tenant's. */
    @Override
    public void setNotificationsEnabled(boolean perVm, boolean bulk) {
        if (!caller.provider() || !caller.mayChange()) {
            throw new AccessDeniedException(null, "only the infrastructure provider's operators can switch notifications", false);
        }
        core.setNotificationsEnabled(perVm, bulk);
    }

    @Override
    public boolean perVmNotificationsEnabled() {
        return core.perVmNotificationsEnabled();
    }

    @Override
    public boolean bulkNotificationsEnabled() {
        return core.bulkNotificationsEnabled();
    }

    // ---------------------------------------------------------------- the host

    /** The host as it is, with the counts and commitments of the caller's VRs only. */
    @Override
    public Hypervisor hypervisor() {
        Hypervisor h = core.hypervisor();
        if (caller.provider()) return h;
        Commitment mine = new Commitment();
        for (Integer i : core.indices()) core.getConfig(i).filter(visible).ifPresent(row -> mine.add(row, 1));
        // counted by the core's list, which builds no view for a page of none
        int active = core.list(new RouterQuery(null, OperState.RUNNING, null, 0, 0), visible).total;
        h.vmNumber = (int) mine.vrs();
        h.vmConfiguredVMs = (int) mine.vrs();
        h.vmActiveVMs = active;
        h.vmCommittedCpus = mine.cpus();
        h.vmCommittedMemory = mine.memory();
        return h;
    }

    @Override
    public int nextAvailableVmIndex() {
        return core.nextAvailableVmIndex();
    }

    @Override
    public String driverName() {
        return core.driverName();
    }

    @Override
    public boolean keepUuid(int vmIndex, String vmName, java.util.UUID uuid) {
        return caller.provider() && core.keepUuid(vmIndex, vmName, uuid);
    }

    @Override
    public java.util.Optional<io.vrouter.core.driver.LiveMigration> liveMigration() {
        return caller.provider() ? core.liveMigration() : java.util.Optional.empty();
    }

    @Override
    public void beginMigration(int vmIndex, String peer) {
        providersOnly();
        core.beginMigration(vmIndex, peer);
    }

    @Override
    public Applied endMigration(int vmIndex, boolean moved) {
        return endMigration(vmIndex, moved, null);
    }

    @Override
    public Applied endMigration(int vmIndex, boolean moved, String outcome) {
        providersOnly();
        // the removal is the caller's change set, for the audit, when the core can say so
        return core instanceof VirtualRouterService service ? service.endMigration(vmIndex, moved, outcome, caller)
                : core.endMigration(vmIndex, moved, outcome);
    }

    @Override
    public java.util.Optional<java.time.Instant> drainedSince() {
        return core.drainedSince();
    }

    @Override
    public void setDrained(boolean drained) {
        if (!caller.provider()) throw new AccessDeniedException(null, "only the provider's operators drain or open the router", false);
        core.setDrained(drained);
    }

    private void providersOnly() {
        if (!caller.provider()) throw new AccessDeniedException(null, "only the provider's operators move VRs", false);
    }

    @Override
    public Set<AdminState> adminStates() {
        return core.adminStates();
    }

    @Override
    public List<String> templates() {
        return core.templates();
    }

    @Override
    public Optional<String> driverProblem() {
        return core.driverProblem();
    }

    @Override
    public Optional<String> storageProblem() {
        return core.storageProblem();
    }

    /** VMs no configuration claims are the provider's business. */
    @Override
    public List<VmRuntime> unresolved() {
        return caller.provider() ? core.unresolved() : List.of();
    }
}
