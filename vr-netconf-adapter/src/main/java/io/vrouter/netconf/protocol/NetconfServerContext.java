package io.vrouter.netconf.protocol;

import io.vrouter.yang.edit.Datastores;
import io.vrouter.core.metrics.VrMetrics;
import io.vrouter.core.spi.VirtualRouters;
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
 * What all sessions of one NETCONF server share: the service, the datastores, the session table,
 * the server's counters, the subscriptions to its own notifications (RFC 6470), and one timer thread.
 */
public final class NetconfServerContext implements AutoCloseable {
    private final VirtualRouters service;
    private final VrMetrics metrics;
    private final Datastores datastores;
    private final AtomicInteger sessionIds = new AtomicInteger();
    private final Map<Integer, NetconfSession> sessions = new ConcurrentSkipListMap<>();
    private final int maxMessageBytes;
    private final MessageMemory messageMemory;
    private final Statistics statistics = new Statistics();
    private final List<Subscription> subscriptions = new CopyOnWriteArrayList<>();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "netconf-timer");
        t.setDaemon(true);
        return t;
    });

    private final ConfirmedCommit confirmedCommit;

    public NetconfServerContext(VirtualRouters service, VrMetrics metrics, int maxMessageBytes) {
        this(service, metrics, maxMessageBytes, MessageMemory.quarterOfHeap(), null);
    }

    /**
     * @param messageMemory what the requests in progress of all sessions may hold
     * @param dataDir       where a pending confirmed commit is kept across restarts (null: in memory only)
     */
    public NetconfServerContext(VirtualRouters service, VrMetrics metrics, int maxMessageBytes,
                                MessageMemory messageMemory, java.nio.file.Path dataDir) {
        this.service = service;
        this.metrics = metrics;
        this.datastores = new Datastores(service);
        this.maxMessageBytes = maxMessageBytes;
        this.messageMemory = messageMemory;
        this.confirmedCommit = new ConfirmedCommit(this, dataDir);
    }

    /** The server's one pending confirmed commit (RFC 6241 section 8.4). */
    public ConfirmedCommit confirmedCommit() {
        return confirmedCommit;
    }

    public VirtualRouters service() {
        return service;
    }

    public VrMetrics metrics() {
        return metrics;
    }

    public Datastores datastores() {
        return datastores;
    }

    public int maxMessageBytes() {
        return maxMessageBytes;
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
        datastores.release(s.id());
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

    /** Sends a notification of the server itself (session start and end, ...) to every subscription. */
    void publish(DataNode content) {
        Instant now = Instant.now();
        for (Subscription s : subscriptions) s.serverNotification(now, content);
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
