package io.vrouter.core.service;

import io.vrouter.core.model.VrEvent;
import io.vrouter.core.persistence.EventLog;
import java.time.Instant;
import java.util.ArrayDeque;
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
 * <p>Events are numbered, logged and delivered under one lock, so every subscriber sees them in
 * sequence order. Listeners run on the publishing thread under that lock: they must hand slow work
 * (network sends) to their own threads.
 */
public final class EventBus implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(EventBus.class);
    /** The newest events, kept in memory so that a replaying subscriber catches up without a gap. */
    private static final int TAIL = 512;

    private final CopyOnWriteArrayList<Subscriber> subscribers = new CopyOnWriteArrayList<>();
    private final Object order = new Object();
    private final ArrayDeque<VrEvent> tail = new ArrayDeque<>(TAIL);
    private long sequence;
    private EventLog replayLog;

    /** Who receives events, with what a replay tells besides them. */
    public interface Subscriber {
        void event(VrEvent e);

        /** Every replayed event has been delivered; live events follow. */
        default void replayComplete() {
        }

        /**
         * Events the replay asked for are gone from the log (it keeps a bounded number for a bounded
         * time): the first one asked for and the oldest one still kept (empty when none is).
         */
        default void replayGap(long firstAskedFor, Optional<Long> oldestKept) {
        }
    }

    /** Where a replay starts. */
    public sealed interface Replay {
        /** The events after the one with this sequence number (REST's Last-Event-ID). */
        record After(long sequence) implements Replay {
        }

        /** The events at or after this time (NETCONF's startTime). */
        record Since(Instant time) implements Replay {
        }

        private boolean wants(VrEvent e) {
            if (this instanceof After a) return e.sequence > a.sequence();
            return !Instant.parse(e.timestamp).isBefore(((Since) this).time());
        }
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
    public Optional<EventLog> replayLog() {
        synchronized (order) {
            return Optional.ofNullable(replayLog);
        }
    }

    /** Subscribes to the events published from now on; closing the returned handle unsubscribes. */
    public AutoCloseable subscribe(Consumer<VrEvent> listener) {
        Subscriber subscriber = listener::accept;
        subscribers.add(subscriber);
        return () -> subscribers.remove(subscriber);
    }

    /**
     * Delivers the logged events the replay asks for, oldest first, then {@link Subscriber#replayComplete},
     * then every new event: none twice, none missed between the two.
     */
    public AutoCloseable subscribe(Replay from, Subscriber subscriber) {
        long seen = from instanceof Replay.After a ? a.sequence() : 0;
        EventLog l = replayLog().orElse(null);
        if (from instanceof Replay.After a && a.sequence() < sequenceNow()) {
            Optional<Long> oldest = l == null ? oldestInTail() : l.oldestSequence();
            if (oldest.isEmpty() || oldest.get() > a.sequence() + 1) subscriber.replayGap(a.sequence() + 1, oldest);
        }
        while (true) {
            // The bulk of the replay comes from the file, without holding up publishers.
            if (l != null) seen = deliver(l.read(), from, seen, subscriber);
            synchronized (order) {
                boolean caughtUp = tail.isEmpty() || tail.peekFirst().sequence <= seen + 1 || l == null;
                if (caughtUp) {
                    deliver(List.copyOf(tail), from, seen, subscriber);
                    subscriber.replayComplete();
                    subscribers.add(subscriber);
                    return () -> subscribers.remove(subscriber);
                }
            }
            // More than the tail was published while the file was read: read it again.
        }
    }

    private static long deliver(List<VrEvent> events, Replay from, long seen, Subscriber s) {
        for (VrEvent e : events) {
            if (e.sequence <= seen) continue;
            if (from.wants(e)) s.event(e);
            seen = e.sequence;
        }
        return seen;
    }

    private long sequenceNow() {
        synchronized (order) {
            return sequence;
        }
    }

    private Optional<Long> oldestInTail() {
        synchronized (order) {
            return tail.isEmpty() ? Optional.empty() : Optional.of(tail.peekFirst().sequence);
        }
    }

    /** Numbers the event, logs it and hands it to every subscriber. */
    void publish(VrEvent event) {
        synchronized (order) {
            event.sequence = ++sequence;
            log.info("{}", event);
            if (replayLog != null) replayLog.append(event);
            if (tail.size() == TAIL) tail.removeFirst();
            tail.addLast(event);
            for (Subscriber s : subscribers) {
                try {
                    s.event(event);
                } catch (RuntimeException e) {
                    log.warn("event subscriber {} failed on {}", s, event, e);
                }
            }
        }
    }

    @Override
    public void close() {
        synchronized (order) {
            if (replayLog != null) replayLog.close();
        }
    }
}
