package io.vrouter.yang.edit;

import io.vrouter.core.config.Caller;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.spi.ChangeSet;
import io.vrouter.core.spi.LockDeniedException;
import io.vrouter.core.spi.VirtualRouters;
import io.vrouter.core.spi.VrException;
import io.vrouter.yang.edit.EditError.Kind;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The running and candidate configuration datastores and their locks, one set per server, whatever
 * the protocol (NETCONF has them all; RESTCONF edits running).
 *
 * <p>Running is the service itself. The candidate is either "clean", following running, or a copy
 * that edits changed, kept with the running configuration it started from (its base). Commit applies
 * the difference between base and candidate to the service, so that VRs created or removed over REST
 * or SNMP while the candidate was being edited are left alone. Locks exclude other sessions; running's
 * is the core's too ({@code VirtualRouters.lockRunning}), so that it stops every other interface's
 * changes as well (docs/adr/0020). A caller that reads, edits and writes a datastore holds this object's
 * monitor throughout.
 *
 * <p>With tenants, a server keeps one set per tenant, over the view of its tenant
 * ({@code VirtualRouters.as}): a configuration read, edited or committed then holds that tenant's VRs
 * only, so a commit's difference can never remove a VR the tenant cannot see. Writes go through the
 * view of the caller who makes them ({@code via}), which the core checks and records.
 */
public final class Datastores {
    public enum Name { RUNNING, CANDIDATE }

    private final VirtualRouters service;
    private ConfigData candidate;
    private ConfigData candidateBase;
    private int runningLock;
    /** The session holding running's lock, as the core knows it; null when none. */
    private Caller runningHolder;
    private int candidateLock;
    private Instant runningLockTime;
    private Instant candidateLockTime;

    public Datastores(VirtualRouters service) {
        this.service = service;
    }

    public VirtualRouters service() {
        return service;
    }

    /** The content of a configuration datastore now. */
    public synchronized ConfigData read(Name ds) {
        if (ds == Name.CANDIDATE && candidate != null) return candidate.copy();
        return ConfigData.of(service);
    }

    /** The candidate and the base it started from (the current running when clean). */
    public synchronized ConfigData[] candidateAndBase() {
        if (candidate == null) {
            ConfigData running = ConfigData.of(service);
            return new ConfigData[] {running.copy(), running};
        }
        return new ConfigData[] {candidate.copy(), candidateBase};
    }

    public synchronized void storeCandidate(ConfigData data, ConfigData base) {
        candidate = data;
        candidateBase = base;
    }

    public synchronized boolean candidateModified() {
        return candidate != null;
    }

    public synchronized void discardCandidate() {
        candidate = null;
        candidateBase = null;
    }

    // ------------------------------------------------------------------ checking and applying

    /**
     * Checks with the service the change from {@code base} to {@code edited}, changing nothing: at the
     * first refusal it stops, or, with {@code dropRefused}, puts the refused VR back in {@code edited}
     * as it is in {@code base} and checks the rest again. The rows left in {@code edited} are completed
     * as the service would make them (defaults filled in). Returns the refusals.
     */
    public List<VrException> check(ConfigData base, ConfigData edited, boolean dropRefused) {
        return check(service, base, edited, dropRefused);
    }

    /** As {@link #check(ConfigData, ConfigData, boolean)}, asked of {@code via} (the view of the caller who edits). */
    public List<VrException> check(VirtualRouters via, ConfigData base, ConfigData edited, boolean dropRefused) {
        List<VrException> refused = new ArrayList<>();
        while (true) {
            try {
                for (VmConfigEntry row : via.validate(edited.changesFrom(base))) edited.put(row);
                return refused;
            } catch (VrException e) {
                refused.add(e);
                if (!dropRefused || !putBack(base, edited, e)) return refused;
            }
        }
    }

    /**
     * What {@link #accept} did: the service's refusals, and what it accepted (null when nothing),
     * whose {@link io.vrouter.core.spi.Applied#awaitDurable} the caller calls once it lets go of this
     * object's monitor.
     */
    public record Accepted(List<VrException> refused, io.vrouter.core.spi.Applied applied) {
    }

    /**
     * Accepts the change from {@code base} to {@code edited} into running, each attempt checked once
     * (by the service's accept, all or nothing); with {@code dropRefused}, a refused VR is put back as
     * it is in {@code base} and the rest tried again. The VRs accepted are put in {@code edited} as the
     * service made them.
     */
    public Accepted accept(ConfigData base, ConfigData edited, boolean dropRefused) {
        return accept(service, base, edited, dropRefused);
    }

    /** As {@link #accept(ConfigData, ConfigData, boolean)}, through {@code via} (the view of the caller who edits). */
    public Accepted accept(VirtualRouters via, ConfigData base, ConfigData edited, boolean dropRefused) {
        List<VrException> refused = new ArrayList<>();
        while (true) {
            ChangeSet set = edited.changesFrom(base);
            if (set.isEmpty()) return new Accepted(refused, null);
            try {
                io.vrouter.core.spi.Applied applied = via.accept(set);
                for (io.vrouter.core.spi.Accepted a : applied.routers()) {
                    if (edited.get(a.accepted().vmIndex) != null) edited.put(a.accepted().copy());
                }
                return new Accepted(refused, applied);
            } catch (VrException e) {
                refused.add(e);
                if (!dropRefused || !putBack(base, edited, e)) return new Accepted(refused, null);
            }
        }
    }

    /**
     * What {@link #commit} did: what {@link #accept} did, the candidate applied and the running it
     * started from, and the running rows before, by vmIndex, of the VRs it changes (null for those it
     * creates), which a confirmed commit restores.
     */
    public record Committed(Accepted accepted, ConfigData candidate, ConfigData base, Map<Integer, VmConfigEntry> before) {
    }

    /**
     * Commit: the candidate's changes into running, all or nothing; the candidate is clean again once
     * they are accepted. Null when the candidate has no changes.
     */
    public synchronized Committed commit() {
        return commit(service);
    }

    /** As {@link #commit()}, through {@code via} (the view of the caller who commits). */
    public synchronized Committed commit(VirtualRouters via) {
        if (candidate == null) return null;
        ConfigData[] cb = candidateAndBase();
        Map<Integer, VmConfigEntry> before = new HashMap<>();
        for (int i : cb[0].changedFrom(cb[1])) {
            if (cb[0].get(i) != cb[1].get(i)) before.put(i, service.getConfig(i).orElse(null));
        }
        Accepted accepted = accept(via, cb[1], cb[0], false);
        if (accepted.refused().isEmpty()) discardCandidate();
        return new Committed(accepted, cb[0], cb[1], before);
    }

    /** Puts the VR a refusal names back as it is in {@code base}; false when there is none to put back. */
    private static boolean putBack(ConfigData base, ConfigData edited, VrException e) {
        Integer i = e.vmIndex();
        if (i == null || base.get(i) == edited.get(i)) return false;
        if (base.get(i) == null) edited.remove(i); else edited.put(base.get(i));
        return true;
    }

    // ------------------------------------------------------------------ locks

    /** Refuses a write by a session while another session holds the datastore's lock. */
    public synchronized void checkWritable(Name ds, int sessionId) {
        int holder = ds == Name.RUNNING ? runningLock : candidateLock;
        if (holder != 0 && holder != sessionId) {
            throw EditError.lock(Kind.IN_USE, holder,
                    "the " + ds.name().toLowerCase(Locale.ROOT) + " datastore is locked by session " + holder);
        }
    }

    /** Takes the datastore's lock for the holder's session ({@link Caller#session}); running's in the core as well. */
    public synchronized void lock(Name ds, Caller holderSession) {
        int sessionId = holderSession.session();
        int holder = ds == Name.RUNNING ? runningLock : candidateLock;
        if (holder != 0) throw EditError.lock(Kind.LOCK_DENIED, holder, "the lock is held by session " + holder);
        if (ds == Name.CANDIDATE && candidate != null) {
            throw EditError.lock(Kind.LOCK_DENIED, 0, "the candidate has changes that are neither committed nor discarded");
        }
        if (ds == Name.RUNNING) {
            try {
                service.lockRunning(holderSession);
            } catch (LockDeniedException e) {
                // a session of another scope holds a lock covering this one's VRs (the provider's, or a tenant's)
                throw EditError.lock(Kind.LOCK_DENIED, e.holderSession(), e.getMessage());
            }
            runningLock = sessionId;
            runningHolder = holderSession;
            runningLockTime = Instant.now();
        } else {
            candidateLock = sessionId;
            candidateLockTime = Instant.now();
        }
    }

    public synchronized void unlock(Name ds, int sessionId) {
        int holder = ds == Name.RUNNING ? runningLock : candidateLock;
        if (holder != sessionId) {
            throw EditError.lock(Kind.OPERATION_FAILED, holder, holder == 0
                    ? "the datastore is not locked" : "the lock is held by session " + holder);
        }
        if (ds == Name.RUNNING) {
            unlockRunning();
        } else {
            candidateLock = 0;
        }
    }

    private void unlockRunning() {
        service.unlockRunning(runningHolder);
        runningLock = 0;
        runningHolder = null;
    }

    /** Releases a closing session's locks; its candidate changes go with its candidate lock (RFC 6241 8.3.5.2). */
    public synchronized void release(int sessionId) {
        if (runningLock == sessionId) unlockRunning();
        if (candidateLock == sessionId) {
            candidateLock = 0;
            discardCandidate();
        }
    }

    /** The session holding the lock, 0 when none; and since when. */
    public synchronized int lockHolder(Name ds) {
        return ds == Name.RUNNING ? runningLock : candidateLock;
    }

    public synchronized Instant lockTime(Name ds) {
        return ds == Name.RUNNING ? runningLockTime : candidateLockTime;
    }
}
