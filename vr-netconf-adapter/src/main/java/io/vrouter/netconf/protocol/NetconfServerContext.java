package io.vrouter.netconf.protocol;

import io.vrouter.core.metrics.VrMetrics;
import io.vrouter.core.service.VirtualRouterService;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicInteger;

/** What all sessions of one NETCONF server share: the service, the datastores, the session table. */
public final class NetconfServerContext {
    private final VirtualRouterService service;
    private final VrMetrics metrics;
    private final Datastores datastores;
    private final AtomicInteger sessionIds = new AtomicInteger();
    private final Map<Integer, NetconfSession> sessions = new ConcurrentSkipListMap<>();
    private final int maxMessageBytes;
    /** The last vmUUID seen per VR, for the vmDeleted notification. */
    private final Map<Integer, String> uuids = new java.util.concurrent.ConcurrentHashMap<>();

    public NetconfServerContext(VirtualRouterService service, VrMetrics metrics, int maxMessageBytes) {
        this.service = service;
        this.metrics = metrics;
        this.datastores = new Datastores(service);
        this.maxMessageBytes = maxMessageBytes;
    }

    public VirtualRouterService service() {
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

    Map<Integer, String> uuids() {
        return uuids;
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

    /** Information about one session for ietf-netconf-monitoring. */
    public record SessionInfo(int id, String user, String sourceHost, Instant loginTime) {
    }
}
