package io.vrouter.netconf.protocol;

import io.vrouter.core.spi.VirtualRouters;
import io.vrouter.netconf.protocol.RpcError.Type;
import java.time.Instant;

/**
 * The running and candidate datastores and their locks, shared by every NETCONF session.
 *
 * <p>Running is the service itself. The candidate is either "clean", following running, or a copy
 * that edits changed, kept with the running configuration it started from (its base). Commit applies
 * the difference between base and candidate to the service, so that VRs created or removed over REST
 * or SNMP while the candidate was being edited are left alone. Locks exclude other NETCONF sessions;
 * REST and SNMP do not take them.
 */
public final class Datastores {
    public enum Name { RUNNING, CANDIDATE }

    private final VirtualRouters service;
    private ConfigData candidate;
    private ConfigData candidateBase;
    private int runningLock;
    private int candidateLock;
    private Instant runningLockTime;
    private Instant candidateLockTime;

    public Datastores(VirtualRouters service) {
        this.service = service;
    }

    public VirtualRouters service() {
        return service;
    }

    public static Name parse(String name, String path) throws RpcError {
        return switch (name) {
            case "running" -> Name.RUNNING;
            case "candidate" -> Name.CANDIDATE;
            case "startup" -> throw new RpcError(Type.PROTOCOL, "operation-not-supported", null, path,
                    "this server has no startup datastore (:startup is not advertised)");
            default -> throw RpcError.unknownElement(Type.PROTOCOL, path, name, "no datastore named '" + name + "'");
        };
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

    /** Refuses a write by a session while another session holds the datastore's lock. */
    public synchronized void checkWritable(Name ds, int sessionId) throws RpcError {
        int holder = ds == Name.RUNNING ? runningLock : candidateLock;
        if (holder != 0 && holder != sessionId) {
            throw new RpcError(Type.PROTOCOL, "in-use", null, null,
                    "the " + ds.name().toLowerCase(java.util.Locale.ROOT) + " datastore is locked by session " + holder)
                    .info("session-id", String.valueOf(holder));
        }
    }

    public synchronized void lock(Name ds, int sessionId) throws RpcError {
        int holder = ds == Name.RUNNING ? runningLock : candidateLock;
        if (holder != 0) {
            throw new RpcError(Type.PROTOCOL, "lock-denied", null, null, "the lock is held by session " + holder)
                    .info("session-id", String.valueOf(holder));
        }
        if (ds == Name.CANDIDATE && candidate != null) {
            throw new RpcError(Type.PROTOCOL, "lock-denied", null, null,
                    "the candidate has changes that are neither committed nor discarded").info("session-id", "0");
        }
        if (ds == Name.RUNNING) {
            runningLock = sessionId;
            runningLockTime = Instant.now();
        } else {
            candidateLock = sessionId;
            candidateLockTime = Instant.now();
        }
    }

    public synchronized void unlock(Name ds, int sessionId) throws RpcError {
        int holder = ds == Name.RUNNING ? runningLock : candidateLock;
        if (holder != sessionId) {
            throw new RpcError(Type.PROTOCOL, "operation-failed", null, null, holder == 0
                    ? "the datastore is not locked" : "the lock is held by session " + holder)
                    .info("session-id", String.valueOf(holder));
        }
        if (ds == Name.RUNNING) {
            runningLock = 0;
        } else {
            candidateLock = 0;
        }
    }

    /** Releases a closing session's locks; its candidate changes go with its candidate lock (RFC 6241 8.3.5.2). */
    public synchronized void release(int sessionId) {
        if (runningLock == sessionId) runningLock = 0;
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
