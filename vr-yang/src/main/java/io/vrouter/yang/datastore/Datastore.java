package io.vrouter.yang.datastore;

import io.vrouter.core.config.Caller;
import io.vrouter.core.config.Credentials;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.spi.Applied;
import io.vrouter.core.spi.ChangeSet;
import io.vrouter.core.spi.LockDeniedException;
import io.vrouter.core.spi.VirtualRouters;
import io.vrouter.core.spi.VrException;
import io.vrouter.yang.DataGuard;
import io.vrouter.yang.edit.ConfigData;
import io.vrouter.yang.edit.EditError;
import io.vrouter.yang.edit.EditError.Kind;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * The running and candidate configuration datastores of one tenant scope (the provider's, or one
 * tenant's), their locks, its pending confirmed commit, and the transactions that change them
 * ({@link #begin}): one per scope,
 * made by the application ({@link Datastores}) and shared by NETCONF, RESTCONF and gNMI.
 *
 * <p>Running is the service itself, seen through the scope's view ({@code VirtualRouters.as}): a
 * configuration read, edited or committed holds the scope's VRs only, so a commit's difference can
 * never remove a VR the tenant cannot see. The candidate is either "clean", following running, or a
 * copy that edits changed, kept with the running configuration it started from (its base). Commit
 * applies the difference between base and candidate to the service, so that VRs created or removed
 * over REST or SNMP while the candidate was being edited are left alone. Locks exclude other
 * sessions; running's is the core's too ({@code VirtualRouters.lockRunning}), so that it stops every
 * other interface's changes as well (docs/adr/0020). A transaction holds this datastore from its
 * begin to its close, so that what it read is what it writes.
 */
public final class Datastore {
    public enum Name { RUNNING, CANDIDATE }

    /** The whole service: each transaction writes through its caller's view of it. */
    private final VirtualRouters root;
    /** The scope's view: what is read, and where running's lock is taken. */
    private final VirtualRouters service;
    private final String tenant;
    private final DataGuard guard;
    private final ConfirmedCommit confirmedCommit;
    /** Held by a transaction from begin to close, and by every method here. */
    private final ReentrantLock lock = new ReentrantLock();
    private ConfigData candidate;
    private ConfigData candidateBase;
    private int runningLock;
    /** The session holding running's lock, as the core knows it; null when none. */
    private Caller runningHolder;
    private int candidateLock;
    private Instant runningLockTime;
    private Instant candidateLockTime;

    /**
     * @param root    the whole service
     * @param tenant  the scope (null: the provider's)
     * @param guard   access control's write check of every transaction
     * @param dataDir where a pending confirmed commit is kept across restarts (null: in memory only)
     * @param timer   runs the confirm timeouts
     */
    Datastore(VirtualRouters root, String tenant, DataGuard guard, java.nio.file.Path dataDir,
              java.util.concurrent.ScheduledExecutorService timer) {
        this.root = root;
        this.tenant = tenant;
        this.guard = guard;
        // The server itself acting for the scope: reads, and the restoration of a confirmed commit.
        this.service = root.as(new Caller("vrouter", tenant, Credentials.Role.OPERATOR, "netconf", null));
        this.confirmedCommit = new ConfirmedCommit(service, dataDir, tenant, timer);
    }

    /** The scope's pending confirmed commit (RFC 6241 section 8.4), which a commit's transaction starts, extends or confirms. */
    public ConfirmedCommit confirmedCommit() {
        return confirmedCommit;
    }

    /** The scope's view of the service. */
    public VirtualRouters service() {
        return service;
    }

    public String tenant() {
        return tenant;
    }

    DataGuard guard() {
        return guard;
    }

    // ------------------------------------------------------------------ transactions

    /**
     * Begins a transaction of {@code caller} on {@code target}: an edit of a copy of it, then a
     * validate or a commit. A session's transaction is refused here ({@link EditError}, in-use) while
     * another session of the scope holds the target's lock; a request's (session 0) meets running's
     * lock in the core when it commits. The caller closes it (try-with-resources).
     *
     * @param continueOnError whether an edit goes on past a failing entry (NETCONF's continue-on-error)
     */
    public Transaction begin(Caller caller, Name target, boolean continueOnError) {
        lock.lock();
        try {
            if (caller.session() != 0) checkWritable(target, caller.session());
            ConfigData base = target == Name.CANDIDATE && candidate != null ? candidateBase : ConfigData.of(service);
            ConfigData start = target == Name.CANDIDATE && candidate != null ? candidate.copy() : base.copy();
            return new Transaction(this, caller, root.as(caller), guard.access(caller), target, base, start, continueOnError);
        } catch (RuntimeException e) {
            lock.unlock();
            throw e;
        }
    }

    void end() {
        lock.unlock();
    }

    /**
     * Refuses a change of what is the server's rather than a scope's (access control's {@code /nacm})
     * while a session other than the caller's holds running's lock of the provider or of the caller's
     * scope, as the core refuses a change of VRs.
     */
    public void checkServerWritable(Caller caller) {
        Caller provider = new Caller("vrouter", null, Credentials.Role.OPERATOR, "system", null);
        for (Caller scopeOf : List.of(provider, caller)) {
            root.runningLockHolder(scopeOf).filter(h -> !h.sameSession(caller)).ifPresent(h -> {
                throw new LockDeniedException(h, "the running datastore is locked by " + LockDeniedException.describe(h)
                        + ": nothing was changed");
            });
        }
    }

    // ------------------------------------------------------------------ reading

    /** The content of a configuration datastore now. */
    public ConfigData read(Name ds) {
        return locked(() -> ds == Name.CANDIDATE && candidate != null ? candidate.copy() : ConfigData.of(service));
    }

    /** The candidate and the base it started from (the current running when clean). */
    public ConfigData[] candidateAndBase() {
        return locked(() -> {
            if (candidate == null) {
                ConfigData running = ConfigData.of(service);
                return new ConfigData[] {running.copy(), running};
            }
            return new ConfigData[] {candidate.copy(), candidateBase};
        });
    }

    public boolean candidateModified() {
        return locked(() -> candidate != null);
    }

    /** discard-changes: the candidate follows running again; refused while another session holds its lock. */
    public void discardCandidate(int sessionId) {
        lock.lock();
        try {
            checkWritable(Name.CANDIDATE, sessionId);
            discardCandidate();
        } finally {
            lock.unlock();
        }
    }

    void storeCandidate(ConfigData data, ConfigData base) {
        candidate = data;
        candidateBase = base;
    }

    private void discardCandidate() {
        candidate = null;
        candidateBase = null;
    }

    // ------------------------------------------------------------------ checking and applying

    /**
     * Checks with the service, through {@code via} (the view of the caller who edits), the change from
     * {@code base} to {@code edited}, changing nothing: at the first refusal it stops, or, with
     * {@code dropRefused}, puts the refused VR back in {@code edited} as it is in {@code base} and
     * checks the rest again. The rows left in {@code edited} are completed as the service would make
     * them (defaults filled in). Returns the refusals.
     */
    public static List<VrException> check(VirtualRouters via, ConfigData base, ConfigData edited, boolean dropRefused) {
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
     * whose {@link Applied#awaitDurable} the caller calls once the transaction is closed.
     */
    public record Accepted(List<VrException> refused, Applied applied) {
    }

    /**
     * Accepts into running, through {@code via}, the set {@code set} makes of the change from
     * {@code base} to {@code edited}, each attempt checked once (by the service's accept, all or
     * nothing); with {@code dropRefused}, a refused VR is put back as it is in {@code base} and the rest
     * tried again. The VRs accepted are put in {@code edited} as the service made them.
     */
    static Accepted accept(VirtualRouters via, ConfigData base, ConfigData edited, boolean dropRefused, Supplier<ChangeSet> set) {
        List<VrException> refused = new ArrayList<>();
        while (true) {
            ChangeSet s = set.get();
            if (s.isEmpty()) return new Accepted(refused, null);
            try {
                Applied applied = via.accept(s);
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
     * The candidate's changes into running through {@code via}, all or nothing; the candidate is
     * clean again once they are accepted. {@code before} gets the running rows, by vmIndex, of the
     * VRs it changes (null for those it creates), which a confirmed commit restores.
     */
    Accepted commitCandidate(VirtualRouters via, ConfigData cand, ConfigData base, Map<Integer, VmConfigEntry> before) {
        for (int i : cand.changedFrom(base)) {
            if (cand.get(i) != base.get(i)) before.put(i, service.getConfig(i).orElse(null));
        }
        Accepted accepted = accept(via, base, cand, false, () -> cand.changesFrom(base));
        if (accepted.refused().isEmpty()) discardCandidate();
        return accepted;
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
    public void checkWritable(Name ds, int sessionId) {
        int holder = lockHolder(ds);
        if (holder != 0 && holder != sessionId) {
            throw EditError.lock(Kind.IN_USE, holder,
                    "the " + ds.name().toLowerCase(Locale.ROOT) + " datastore is locked by session " + holder);
        }
    }

    /** Takes the datastore's lock for the holder's session ({@link Caller#session}); running's in the core as well. */
    public void lock(Name ds, Caller holderSession) {
        lock.lock();
        try {
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
        } finally {
            lock.unlock();
        }
    }

    public void unlock(Name ds, int sessionId) {
        lock.lock();
        try {
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
        } finally {
            lock.unlock();
        }
    }

    private void unlockRunning() {
        service.unlockRunning(runningHolder);
        runningLock = 0;
        runningHolder = null;
    }

    /** Releases a closing session's locks; its candidate changes go with its candidate lock (RFC 6241 8.3.5.2). */
    public void release(int sessionId) {
        lock.lock();
        try {
            if (runningLock == sessionId) unlockRunning();
            if (candidateLock == sessionId) {
                candidateLock = 0;
                discardCandidate();
            }
        } finally {
            lock.unlock();
        }
    }

    /** The session holding the lock, 0 when none; and since when. */
    public int lockHolder(Name ds) {
        return locked(() -> ds == Name.RUNNING ? runningLock : candidateLock);
    }

    public Instant lockTime(Name ds) {
        return locked(() -> ds == Name.RUNNING ? runningLockTime : candidateLockTime);
    }

    private <T> T locked(Supplier<T> read) {
        lock.lock();
        try {
            return read.get();
        } finally {
            lock.unlock();
        }
    }
}
