package io.vrouter.yang.datastore;

import io.vrouter.core.config.Caller;
import io.vrouter.core.spi.VirtualRouters;
import io.vrouter.yang.DataGuard;
import io.vrouter.yang.nacm.Nacm;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The configuration datastores of a server, one {@link Datastore} per tenant scope (the provider's
 * users have their own), made by the application once and handed to NETCONF, RESTCONF and gNMI, so
 * that a lock, a candidate and access control's write check are the same whichever interface a
 * transaction comes from. An interface started alone (a module's tests) makes its own.
 */
public final class Datastores {
    private final VirtualRouters service;
    private final DataGuard guard;
    /** By tenant, the provider's under "" (a tenant's name is never empty). */
    private final Map<String, Datastore> scopes = new ConcurrentHashMap<>();

    /**
     * @param service the whole service
     * @param guard   access control (NACM) of every transaction's write
     */
    public Datastores(VirtualRouters service, DataGuard guard) {
        this.service = service;
        this.guard = guard;
    }

    /** The datastore of a tenant's scope (null: the provider's). */
    public Datastore of(String tenant) {
        return scopes.computeIfAbsent(tenant == null ? "" : tenant, k -> new Datastore(service, k.isEmpty() ? null : k, guard));
    }

    /** Begins a transaction of {@code caller} on a datastore of its scope ({@link Datastore#begin}). */
    public Transaction begin(Caller caller, Datastore.Name target) {
        return of(caller.tenant()).begin(caller, target, false);
    }

    public DataGuard guard() {
        return guard;
    }

    /** Access control's configuration, edited over NETCONF and RESTCONF; null when the server has none. */
    public Nacm nacm() {
        return guard instanceof Nacm n ? n : null;
    }
}
