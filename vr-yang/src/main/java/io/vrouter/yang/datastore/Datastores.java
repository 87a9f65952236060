package io.vrouter.yang.datastore;

import io.vrouter.core.config.Caller;
import io.vrouter.core.spi.VirtualRouters;
import io.vrouter.yang.DataGuard;
import io.vrouter.yang.nacm.Nacm;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The configuration datastores of a server, one {@link Datastore} per tenant scope (the provider's
 * users have their own), each with its candidate, locks and pending confirmed commit, made by the application once and handed to NETCONF, RESTCONF and gNMI, so
 * that a lock, a candidate and access control's write check are the same whichever interface a
 * transaction comes from. An interface started alone (a module's tests) makes its own.
 */
public final class Datastores {
    private final VirtualRouters service;
    private final DataGuard guard;
    private final Path dataDir;
    /** Runs the confirm timeouts of every scope (its thread made at the first). */
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "confirmed-commit-timer");
        t.setDaemon(true);
        return t;
    });
    /** By tenant, the provider's under "" (a tenant's name is never empty). */
    private final Map<String, Datastore> scopes = new ConcurrentHashMap<>();

    /**
     * @param service the whole service
     * @param guard   access control (NACM) of every transaction's write
     */
    public Datastores(VirtualRouters service, DataGuard guard) {
        this(service, guard, null);
    }

    /** @param dataDir where pending confirmed commits are kept across restarts (null: in memory only) */
    public Datastores(VirtualRouters service, DataGuard guard, Path dataDir) {
        this.service = service;
        this.guard = guard;
        this.dataDir = dataDir;
    }

    /** The datastore of a tenant's scope (null: the provider's). */
    public Datastore of(String tenant) {
        return scopes.computeIfAbsent(tenant == null ? "" : tenant, k -> new Datastore(service, k.isEmpty() ? null : k, guard, dataDir, timer));
    }

    /** Begins a transaction of {@code caller} on a datastore of its scope ({@link Datastore#begin}). */
    public Transaction begin(Caller caller, Datastore.Name target) {
        return of(caller.tenant()).begin(caller, target, false);
    }

    /** The tenants (null: the provider) whose confirmed commit a previous run left pending, to put back at start-up. */
    public java.util.List<String> pendingConfirmedCommits() {
        return ConfirmedCommit.pendingTenants(dataDir);
    }

    public DataGuard guard() {
        return guard;
    }

    /** Access control's configuration, edited over NETCONF and RESTCONF; null when the server has none. */
    public Nacm nacm() {
        return guard instanceof Nacm n ? n : null;
    }
}
