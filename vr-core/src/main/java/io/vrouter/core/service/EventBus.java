package io.vrouter.core.service;

import io.vrouter.core.model.VrEvent;
import io.vrouter.core.persistence.EventLog;
import io.vrouter.core.spi.Events;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers VR events to the interfaces that subscribed, numbered in one sequence, and keeps them in
 * the replay log when there is one, so that a subscriber can ask for what it missed.
 *
 * <p>An event is numbered under a short lock and queued; then one thread at a time delivers the
 * queued events, in sequence order: logs them, appends them to the replay log and hands each to every
 * subscriber. A publisher returns once its own event is delivered: it delivers the events up to its
 * own (others' before it included, as a group commit does) or waits while another thread delivers
 * them, and never delivers later ones, so a thread that answers a client does not take on the events
 * of the work that follows. The log's I/O and the fan-out never hold up numbering, and the service
 * holds none of its locks while they run (it posts under its lock and delivers after). Every
 * subscriber sees the events in sequence order, one at a time; listeners run on the delivering
 * thread: they must hand slow work (network sends) to their own threads.
 */
public final class EventBus implements Events, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(EventBus.class);
    /** The newest events, kept in memory so that a replaying subscriber catches up without a gap. */
    private static final int TAIL = 512;

    private final CopyOnWriteArrayList<Subscriber> subscribers = new CopyOnWriteArrayList<>();
    /** Guards the fields below; held for no I/O. Threads wait on it for a delivery. */
    private final Object order = new Object();
    private final ArrayDeque<VrEvent> tail = new ArrayDeque<>(TAIL);
    /** Numbered, not delivered yet, in sequence order. */
    private final ArrayDeque<VrEvent> queued = new ArrayDeque<>();
    /** The thread delivering, or null. */
    private Thread delivering;
    /** The sequence number of the last event delivered. */
    private long delivered;
    /** How far the thread delivering goes, raised when a listener publishes (it cannot wait for itself). */
    private long deliverUpTo;
    private long sequence;
    private EventLog replayLog;

    /** Whether a replay from this point delivers the event. */
    private static boolean wants(Replay from, VrEvent e) {
        if (from instanceof Replay.After a) return e.sequence > a.sequence();
        return !Instant.parse(e.timestamp).isBefore(((Replay.Since) from).time());
    }

    /**
     * Keeps every event in the log from now on and goes on with its sequence numbers, so that they
     * keep increasing across restarts. Called once, before anything is published.
     */
    public void recordTo(EventLog replayLog) {
        synchronized (order) {
            this.replayLog = replayLog;
            sequence = Math.max(sequence, replayLog.lastSequence());
        }
    }

    /** The replay log, when events are kept (the server keeps them; tests often do not). */
    @Override
    public Optional<EventLog> replayLog() {
        synchronized (order) {
            return Optional.ofNullable(replayLog);
        }
    }

    /** Subscribes to the events published from now on; closing the returned handle unsubscribes. */
    @Override
    public AutoCloseable subscribe(Consumer<VrEvent> listener) {
        Subscriber subscriber = listener::accept;
        subscribers.add(subscriber);
        return () -> subscribers.remove(subscriber);
    }

    /**
     * Delivers the logged events the replay asks for, oldest first, then {@link Subscriber#replayComplete},
     * then every new event: none twice, none missed between the two.
     */
    @Override
    public AutoCloseable subscribe(Replay from, Subscriber subscriber) {
        long seen = from instanceof Replay.After a ? a.sequence() : 0;
        EventLog l = replayLog().orElse(null);
        if (from instanceof Replay.After a && a.sequence() < sequenceNow()) {
            Optional<Long> oldest = l == null ? oldestInTail() : l.oldestSequence();
            if (oldest.isEmpty() || oldest.get() > a.sequence() + 1) subscriber.replayGap(a.sequence() + 1, oldest);
        }
        while (true) {
            // The bulk of the replay comes from the file, without holding up publishers.
            if (l != null) seen = handOver(l.read(), from, seen, subscriber);
            boolean subscribed = false;
            startDelivering(Long.MAX_VALUE);
            try {
                // Everything numbered so far is delivered, so it is in the file and the tail; what is
                // numbered from here on is queued, and goes to the subscriber once it is added.
                deliverQueued();
                List<VrEvent> rest;
                synchronized (order) {
                    boolean caughtUp = tail.isEmpty() || tail.peekFirst().sequence <= seen + 1 || l == null;
                    rest = caughtUp ? delivered() : null;
                }
                if (rest != null) {
                    handOver(rest, from, seen, subscriber);
                    subscriber.replayComplete();
                    subscribers.add(subscriber);
                    subscribed = true;
                }
            } finally {
                stopDelivering();
            }
            if (subscribed) return () -> subscribers.remove(subscriber);
            // More than the tail was published while the file was read: read it again.
        }
    }

    /** The events of the tail that are delivered (not queued). Under {@code order}. */
    private List<VrEvent> delivered() {
        List<VrEvent> out = new ArrayList<>(tail.size());
        long firstQueued = queued.isEmpty() ? Long.MAX_VALUE : queued.peekFirst().sequence;
        for (VrEvent e : tail) {
            if (e.sequence < firstQueued) out.add(e);
        }
        return out;
    }

    private static long handOver(List<VrEvent> events, Replay from, long seen, Subscriber s) {
        for (VrEvent e : events) {
            if (e.sequence <= seen) continue;
            if (wants(from, e)) s.event(e);
            seen = e.sequence;
        }
        return seen;
    }

    /** The number of the last event numbered. */
    long sequenceNow() {
        synchronized (order) {
            return sequence;
        }
    }

    private Optional<Long> oldestInTail() {
        synchronized (order) {
            return tail.isEmpty() ? Optional.empty() : Optional.of(tail.peekFirst().sequence);
        }
    }

    /** Numbers the event, and returns once it is delivered. */
    void publish(VrEvent event) {
        deliver(post(event));
    }

    /**
     * Numbers the event and queues it, without delivering it: for a publisher that holds a lock of
     * its own (the service's) and calls {@link #deliver()} once it has let go of it. Returns its number.
     */
    long post(VrEvent event) {
        synchronized (order) {
            event.sequence = ++sequence;
            if (tail.size() == TAIL) tail.removeFirst();
            tail.addLast(event);
            queued.addLast(event);
            return event.sequence;
        }
    }

    /** Returns once every event numbered so far is delivered. */
    void deliver() {
        deliver(sequenceNow());
    }

    /** Returns once every event up to this number is delivered, delivering them unless another thread does. */
    void deliver(long upTo) {
        synchronized (order) {
            if (delivering == Thread.currentThread()) {
                // A listener published: the delivery under way goes on to its event.
                deliverUpTo = Math.max(deliverUpTo, upTo);
                return;
            }
        }
        if (!startDelivering(upTo)) return;
        try {
            deliverQueued();
        } finally {
            stopDelivering();
        }
    }

    /**
     * Waits until no other thread delivers; false when the events up to this number were delivered
     * meanwhile, true when this thread is now the one delivering (up to that number).
     */
    private boolean startDelivering(long upTo) {
        boolean interrupted = false;
        try {
            synchronized (order) {
                while (delivered < upTo && delivering != null) {
                    try {
                        order.wait();
                    } catch (InterruptedException e) {
                        // the event is numbered and must be delivered; the interrupt is left for its owner
                        interrupted = true;
                    }
                }
                if (delivered >= upTo) return false;
                delivering = Thread.currentThread();
                deliverUpTo = upTo;
                return true;
            }
        } finally {
            if (interrupted) Thread.currentThread().interrupt();
        }
    }

    private void stopDelivering() {
        synchronized (order) {
            delivering = null;
            order.notifyAll();
        }
    }

    /** Logs, keeps and hands out the queued events up to {@code deliverUpTo}, oldest first. */
    private void deliverQueued() {
        while (true) {
            List<VrEvent> batch = new ArrayList<>();
            EventLog l;
            synchronized (order) {
                while (!queued.isEmpty() && queued.peekFirst().sequence <= deliverUpTo) batch.add(queued.removeFirst());
                if (batch.isEmpty()) return;
                l = replayLog;
            }
            // Debug, not info: a line per state change cost about a twentieth of the server's CPU per VR
            // created or removed (issue 16); the replay log keeps every event, and serves it to clients.
            if (log.isDebugEnabled()) for (VrEvent event : batch) log.debug("{}", event);
            if (l != null) l.append(batch);
            for (VrEvent event : batch) {
                for (Subscriber s : subscribers) {
                    try {
                        s.event(event);
                    } catch (RuntimeException e) {
                        log.warn("event subscriber {} failed on {}", s, event, e);
                    }
                }
            }
            synchronized (order) {
                delivered = batch.get(batch.size() - 1).sequence;
                order.notifyAll();
            }
        }
    }

    @Override
    public void close() {
        startDelivering(Long.MAX_VALUE);
        try {
            deliverQueued();
            synchronized (order) {
                if (replayLog != null) replayLog.close();
            }
        } finally {
            stopDelivering();
        }
    }
}
