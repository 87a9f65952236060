package io.vrouter.core.migration;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Asks each peer's /health now and then, on a thread of its own, so that this router's /health can
 * say which peers answer without waiting on one that does not (a probe may take its 5 s timeout).
 */
public final class PeerWatch implements AutoCloseable {
    /** A peer as last probed: whether its /health answered UP, and if not, why. */
    public record Reach(String name, boolean reachable, String problem) {
    }

    private final Map<String, PeerClient> clients;
    private final Map<String, Reach> last = new ConcurrentHashMap<>();
    private final ScheduledExecutorService probe;

    public PeerWatch(Map<String, PeerClient> clients, Duration every) {
        this.clients = Map.copyOf(clients);
        this.probe = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "peer-watch");
            t.setDaemon(true);
            return t;
        });
        if (!clients.isEmpty()) probe.scheduleWithFixedDelay(this::probeAll, 0, every.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void probeAll() {
        for (PeerClient c : clients.values()) last.put(c.peer().name(), probe(c));
    }

    /** Asks the peer's /health now. */
    public static Reach probe(PeerClient c) {
        String problem = null;
        try {
            PeerClient.Answer a = c.health();
            if (!a.ok()) problem = "its /health answers " + a.status();
        } catch (PeerClient.Unreachable e) {
            problem = e.getMessage();
        }
        return new Reach(c.peer().name(), problem == null, problem);
    }

    /** Each peer probed so far, by name. */
    public List<Reach> reach() {
        List<Reach> out = new ArrayList<>(last.values());
        out.sort((a, b) -> a.name().compareTo(b.name()));
        return out;
    }

    @Override
    public void close() {
        probe.shutdownNow();
    }
}
