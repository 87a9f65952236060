package io.vrouter.netconf.protocol;

import io.vrouter.core.migration.PeerClient;

import io.vrouter.core.config.Caller;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.yang.Ns;
import io.vrouter.yang.datastore.ConfirmedCommit;
import io.vrouter.yang.datastore.Datastore;
import io.vrouter.yang.datastore.Datastores;
import io.vrouter.core.metrics.VrMetrics;
import io.vrouter.core.spi.VirtualRouters;
import io.vrouter.yang.nacm.Nacm;
import io.vrouter.netconf.transport.MessageMemory;
import io.vrouter.yang.DataNode;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What all sessions of one NETCONF server share: the service, the session table, the server's
 * counters, the subscriptions to its own notifications (RFC 6470), one timer thread, and a
 * {@link Scope} per tenant: the candidate, the locks and the pending confirmed commit of the
 * tenant's sessions, over the tenant's view of the service (the provider's users have their own).
 */
public final class NetconfServerContext implements AutoCloseable {
    private final VirtualRouters service;
    private final VrMetrics metrics;
    private final java.nio.file.Path dataDir;
    private final Nacm nacm;
    /** The configuration datastores, one per tenant scope: the application's, shared with RESTCONF and gNMI. */
    private final Datastores datastores;
    /** By tenant, the provider's under "" (a tenant's name is never empty). */
    private final Map<String, Scope> scopes = new java.util.concurrent.ConcurrentHashMap<>();
    private final AtomicInteger sessionIds = new AtomicInteger();
    private final Map<Integer, NetconfSession> sessions = new ConcurrentSkipListMap<>();
    private final int maxMessageBytes;
    /** The peer routers VRs may move to (settings peer.NAME), for vrouter-migration's migrate; none until told. */
    private volatile Map<String, PeerClient> peers = Map.of();
    /** vrouter-migration's drain and open. */
    private io.vrouter.core.migration.Drain drain;
    private final MessageMemory messageMemory;
    private final Statistics statistics = new Statistics();
    private final List<Subscription> subscriptions = new CopyOnWriteArrayList<>();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "netconf-timer");
        t.setDaemon(true);
        return t;
    });

    public NetconfServerContext(VirtualRouters service, VrMetrics metrics, int maxMessageBytes) {
        this(service, metrics, maxMessageBytes, MessageMemory.quarterOfHeap(), null);
    }

    /**
     * @param messageMemory what the requests in progress of all sessions may hold
     * @param dataDir       where a pending confirmed commit is kept across restarts (null: in memory only)
     */
    public NetconfServerContext(VirtualRouters service, VrMetrics metrics, int maxMessageBytes,
                                MessageMemory messageMemory, java.nio.file.Path dataDir) {
        this(service, metrics, maxMessageBytes, messageMemory, dataDir, new Nacm(dataDir, true));
    }

    /** @param nacm the access control (RFC 8341) of every session */
    public NetconfServerContext(VirtualRouters service, VrMetrics metrics, int maxMessageBytes,
                                MessageMemory messageMemory, java.nio.file.Path dataDir, Nacm nacm) {
        this(service, metrics, maxMessageBytes, messageMemory, dataDir, nacm, new Datastores(service, nacm, dataDir));
    }

    /** @param datastores the configuration datastores of every scope, over {@code service} under {@code nacm} */
    public NetconfServerContext(VirtualRouters service, VrMetrics metrics, int maxMessageBytes,
                                MessageMemory messageMemory, java.nio.file.Path dataDir, Nacm nacm, Datastores datastores) {
        this.service = service;
        this.nacm = nacm;
        this.datastores = datastores;
        this.metrics = metrics;
        this.dataDir = dataDir;
        this.maxMessageBytes = maxMessageBytes;
        this.messageMemory = messageMemory;
    }

    /**
     * What the sessions of one tenant share, and only they (null: the provider's users): the
     * tenant's datastore (the application's, over the tenant's view of the service), so that a
     * session never reads, edits or commits another tenant's rows, and a lock or a confirmed commit of
     * one tenant never stands in another's way; and the tenant's pending confirmed commit (RFC 6241
     * section 8.4).
     */
    public record Scope(String tenant, Datastore datastore, ConfirmedCommit confirmedCommit) {
    }

    public Scope scope(String tenant) {
        return scopes.computeIfAbsent(tenant == null ? "" : tenant, k -> {
            Datastore ds = datastores.of(k.isEmpty() ? null : k);
            ds.confirmedCommit().tellTo(confirmedCommitEvents(ds.tenant()));
            return new Scope(ds.tenant(), ds, ds.confirmedCommit());
        });
    }

    /** A tenant's confirmed commit told to the subscriptions that see the tenant (RFC 6470). */
    private ConfirmedCommit.Events confirmedCommitEvents(String tenant) {
        return new ConfirmedCommit.Events() {
            @Override
            public void confirmedCommit(Caller by, String event, Long timeout) {
                DataNode.Inner n = DataNode.inner(Ns.NETCONF_NOTIFICATIONS, "netconf-confirmed-commit");
                if (by != null) n.add("username", by.user()).add("session-id", by.session()).add("source-host", by.source());
                n.add("confirm-event", event).add("timeout", timeout);
                publish(n, tenant);
            }

            @Override
            public void restored(Map<Integer, VmConfigEntry> now, Map<Integer, VmConfigEntry> back) {
                ConfigChange.between(null, now, back).ifPresent(n -> publish(n, tenant));
            }
        };
    }

    /** The provider's pending confirmed commit. */
    public ConfirmedCommit confirmedCommit() {
        return scope(null).confirmedCommit();
    }

    /**
     * At start-up: the confirmed commits the last run left unconfirmed (the provider's, and each
     * tenant's) are put back before anyone connects.
     */
    public void recover() {
        for (String tenant : datastores.pendingConfirmedCommits()) scope(tenant).confirmedCommit().recover();
    }

    /** The whole service, unfiltered: for what a session must tell apart from "does not exist" (never for a reply). */
    public VirtualRouters service() {
        return service;
    }

    /** The peers migrate moves VRs to. */
    public void usePeers(Map<String, PeerClient> peers) {
        this.peers = Map.copyOf(peers);
    }

    public Map<String, PeerClient> peers() {
        return peers;
    }

    /** The router's drain, shared with the other interfaces; until told, one of its own over the peers. */
    public void useDrain(io.vrouter.core.migration.Drain drain) {
        this.drain = drain;
    }

    public synchronized io.vrouter.core.migration.Drain drain() {
        if (drain == null) drain = new io.vrouter.core.migration.Drain(peers);
        return drain;
    }

    public VrMetrics metrics() {
        return metrics;
    }

    /** The provider's datastore. */
    public Datastore datastore() {
        return scope(null).datastore();
    }

    public int maxMessageBytes() {
        return maxMessageBytes;
    }

    public Nacm nacm() {
        return nacm;
    }

    public MessageMemory messageMemory() {
        return messageMemory;
    }

    Statistics statistics() {
        return statistics;
    }

    /** Runs stop times and confirm timeouts. */
    ScheduledExecutorService timer() {
        return timer;
    }

    int nextSessionId() {
        return sessionIds.incrementAndGet();
    }

    void register(NetconfSession s) {
        sessions.put(s.id(), s);
    }

    void unregister(NetconfSession s) {
        sessions.remove(s.id(), s);
        s.scope().datastore().release(s.id());
    }

    public Map<Integer, NetconfSession> sessions() {
        return sessions;
    }

    void subscribe(Subscription s) {
        subscriptions.add(s);
    }

    void unsubscribe(Subscription s) {
        subscriptions.remove(s);
    }

    /** Whether any session subscribed to notifications (so that building one is worth it). */
    boolean hasSubscriptions() {
        return !subscriptions.isEmpty();
    }

    /**
     * Sends a notification of the server itself (session start and end, ...) to the subscriptions of
     * the provider's users and of the tenant it concerns (null: the provider's only), so that no
     * tenant learns of another's sessions or changes.
     */
    void publish(DataNode content, String tenant) {
        publish(content, c -> c.sees(tenant));
    }

    /** Sends a notification of the server itself to the subscriptions of the users {@code audience} accepts. */
    void publish(DataNode content, java.util.function.Predicate<Caller> audience) {
        Instant now = Instant.now();
        for (Subscription s : subscriptions) {
            if (audience.test(s.caller())) s.serverNotification(now, content);
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
