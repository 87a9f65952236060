package io.vrouter.netconf.protocol;

import io.vrouter.core.model.VrEvent;
import io.vrouter.core.service.EventBus;
import io.vrouter.core.spi.Events;
import io.vrouter.yang.Notifications;
import io.vrouter.yang.Ns;
import io.vrouter.yang.DataNode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.w3c.dom.Element;

/**
 * One session's subscription to the NETCONF stream (RFC 5277): the VR events of the service and the
 * server's own notifications (RFC 6470), through the subscription's filter, written in the order
 * they happened by a thread of its own (or by the session's, for what its own rpc caused).
 *
 * <p>With a startTime the events since then are first replayed from the service's replay log (which
 * survives restarts), then {@code replayComplete} is sent, then live notifications follow with none
 * missed or repeated. With a stopTime nothing later is sent, and {@code notificationComplete} ends the
 * subscription at that time (at once when it has passed). The server's own notifications are not in
 * the replay log: they are sent live only, after the replay.
 */
final class Subscription implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Subscription.class);

    /** Writes one notification to the session. */
    interface Sink {
        void send(String eventTime, DataNode content, Element filter);
    }

    private final NetconfServerContext ctx;
    private final Requester session;
    private final int sessionId;
    private final Element filter;
    private final Instant startTime;
    private final Instant stopTime;
    private final Sink sink;
    private final Runnable ended;
    private final ExecutorService writer;
    /**
     * What is still to be written, in order. The writer thread writes it; what the session's own thread
     * queues while it handles an rpc (its own netconf-config-change) it writes itself once the rpc
     * lets go of its locks ({@link #writeHere}): a hand-off to the writer and back for a notification
     * the session could write at once bought nothing.
     */
    private final java.util.ArrayDeque<Runnable> queue = new java.util.ArrayDeque<>();
    /** Whether a thread is writing the queue or the writer is about to (guarded by {@link #queue}). */
    private boolean draining;
    /** Nothing more is queued: the subscription completed or ended (guarded by {@link #queue}). */
    private boolean shut;
    /** The session's thread while it handles an rpc: what it queues then waits for {@link #writeHere}. */
    private volatile Thread here;
    private final Object lock = new Object();
    /**
     * Done once the replay asked for is written: replayComplete, and notificationComplete too when
     * the stopTime had passed already. The session reads its next rpc only then (see
     * {@link #awaitCaughtUp}), so a client sees the stretch of time it asked for before the replies to
     * what it sends next, instead of racing them (yangcli, which quits after its script's last reply,
     * lost the replay's end that way).
     */
    private final java.util.concurrent.CompletableFuture<Void> caughtUp = new java.util.concurrent.CompletableFuture<>();
    private volatile boolean stopPassedAtStart;
    /** Server notifications that came during the replay, sent after replayComplete. */
    private List<Runnable> heldBack;
    private AutoCloseable events;
    /** Whether the events now come live (the server's own notifications, config changes among them, are not replayed). */
    private volatile boolean live;
    private ScheduledFuture<?> stop;
    private boolean closed;

    /**
     * @param ended called (on the subscription's thread) right before notificationComplete is sent, so
     *              that the session may subscribe again
     */
    Subscription(NetconfServerContext ctx, Requester session, Element filter, Instant startTime, Instant stopTime,
                 Sink sink, Runnable ended) {
        this.ctx = ctx;
        this.session = session;
        this.sessionId = session.sessionId();
        this.filter = filter;
        this.startTime = startTime;
        this.stopTime = stopTime;
        this.sink = sink;
        this.ended = ended;
        this.writer = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "netconf-notify-" + sessionId);
            t.setDaemon(true);
            return t;
        });
    }

    /** Who subscribed: the server's own notifications go to the subscriptions that may see them. */
    io.vrouter.core.config.Caller caller() {
        return session.caller();
    }

    /** Starts delivering (after the reply to create-subscription has been sent). */
    void start() {
        stopPassedAtStart = stopTime != null && !stopTime.isAfter(Instant.now());
        if (startTime == null) {
            live = true;
            caughtUp.complete(null);
        }
        synchronized (lock) {
            if (startTime != null) heldBack = new ArrayList<>();
        }
        ctx.subscribe(this);
        // The session's view: a tenant's user is told (live and replayed) of its tenant's VRs only.
        Events bus = session.service().events();
        AutoCloseable subscribed;
        if (startTime == null) {
            subscribed = bus.subscribe(this::vrEvent);
        } else {
            subscribed = bus.subscribe(new EventBus.Replay.Since(startTime), new EventBus.Subscriber() {
                @Override
                public void event(VrEvent e) {
                    vrEvent(e);
                }

                @Override
                public void replayComplete() {
                    live = true;
                    synchronized (lock) {
                        enqueue(() -> {
                            try {
                                sink.send(Instant.now().toString(), DataNode.empty(Ns.STREAMS, "replayComplete"), null);
                            } finally {
                                if (!stopPassedAtStart) caughtUp.complete(null);
                            }
                        });
                        heldBack.forEach(Subscription.this::enqueue);
                        heldBack = null;
                    }
                }
            });
        }
        synchronized (lock) {
            events = subscribed;
            if (closed) {
                close();
                return;
            }
            if (stopTime != null) {
                long delay = Math.max(0, Duration.between(Instant.now(), stopTime).toMillis());
                stop = ctx.timer().schedule(this::complete, delay, java.util.concurrent.TimeUnit.MILLISECONDS);
            }
        }
    }

    /**
     * Waits (on the session's own thread, which holds no lock the writer needs) until the replay is
     * written, at most {@code limit}: a replay that takes longer lets the session go on, interleaved.
     */
    void awaitCaughtUp(Duration limit) {
        try {
            caughtUp.get(limit.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            log.debug("NETCONF session {}: the replay is still being written; the session goes on", sessionId);
        }
    }

    private void vrEvent(VrEvent e) {
        if (stopTime != null && Instant.parse(e.timestamp).isAfter(stopTime)) return;
        // A change of running made elsewhere (REST, SNMP, ...) is told live, as RFC 6470 tells one of NETCONF.
        boolean told = live;
        enqueue(() -> {
            Notifications.content(e, session.service()).ifPresent(content -> sink.send(e.timestamp, content, filter));
            if (told) ConfigChange.of(e).ifPresent(change -> sink.send(e.timestamp, change, filter));
        });
    }

    /** A notification of the server itself (RFC 6470). */
    void serverNotification(Instant time, DataNode content) {
        if (stopTime != null && time.isAfter(stopTime)) return;
        Runnable send = () -> sink.send(time.toString(), content, filter);
        synchronized (lock) {
            if (heldBack != null) {
                heldBack.add(send);
                return;
            }
        }
        enqueue(send);
    }

    private void enqueue(Runnable r) {
        synchronized (queue) {
            if (shut) return;
            queue.add(r);
            if (draining || Thread.currentThread() == here) return;
            draining = true;
        }
        if (!schedule()) {
            // The subscription completed meanwhile: what comes after it is not sent.
            synchronized (queue) {
                queue.clear();
                draining = false;
            }
        }
    }

    /** Has the writer write the queue; false when it has stopped (the subscription completed). */
    private boolean schedule() {
        try {
            writer.execute(() -> drain(Integer.MAX_VALUE));
            return true;
        } catch (RejectedExecutionException shutDown) {
            return false;
        }
    }

    /**
     * The session's thread starts (its own thread) or stops (null) handling an rpc: until it calls
     * {@link #writeHere}, what it queues is left for it to write.
     */
    void handling(Thread sessionThread) {
        here = sessionThread;
    }

    /**
     * Writes, on the session's thread (which holds no lock then), the notifications queued when
     * nothing else was writing: at most as many as are queued now, so that a stream of other events
     * cannot keep the session from its next rpc; the writer takes any that follow.
     */
    void writeHere() {
        int most;
        synchronized (queue) {
            if (draining || queue.isEmpty()) return;
            draining = true;
            most = queue.size();
        }
        drain(most);
    }

    /** Writes up to {@code most} queued notifications in order; hands what is left to the writer. */
    private void drain(int most) {
        for (int done = 0; ; done++) {
            Runnable r;
            synchronized (queue) {
                r = queue.poll();
                if (r == null) {
                    draining = false;
                    return;
                }
                if (done == most) {
                    queue.addFirst(r);
                    break;
                }
            }
            try {
                r.run();
            } catch (RuntimeException e) {
                log.warn("NETCONF session {}: a notification failed", sessionId, e);
            }
        }
        if (!schedule()) drain(Integer.MAX_VALUE);
    }

    /** The stopTime has come: nothing more is sent but notificationComplete; then the subscription ends. */
    private void complete() {
        unsubscribe();
        enqueue(() -> {
            // The session may subscribe again as soon as the client reads notificationComplete.
            ended.run();
            try {
                sink.send(Instant.now().toString(), DataNode.empty(Ns.STREAMS, "notificationComplete"), null);
            } finally {
                caughtUp.complete(null);
            }
        });
        synchronized (queue) {
            shut = true;
        }
        writer.shutdown();
    }

    private void unsubscribe() {
        AutoCloseable e;
        synchronized (lock) {
            closed = true;
            if (stop != null) stop.cancel(false);
            e = events;
            events = null;
        }
        ctx.unsubscribe(this);
        if (e != null) {
            try {
                e.close();
            } catch (Exception ignored) {
                // Nothing to do.
            }
        }
    }

    /** Ends the subscription with its session. */
    @Override
    public void close() {
        unsubscribe();
        synchronized (queue) {
            shut = true;
            queue.clear();
        }
        writer.shutdownNow();
        caughtUp.complete(null);
    }
}
