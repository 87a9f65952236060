package io.vrouter.core.spi;

import io.vrouter.core.model.VrEvent;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * The VRs' events as an interface follows them: live, or replayed from a point on. The core's
 * event bus is the source; a caller's view ({@code VirtualRouters.as}) hands out only the
 * events of the VRs the caller may see ({@link #seenAs}).
 */
public interface Events {
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
    }

    /** Subscribes to the events published from now on; closing the returned handle unsubscribes. */
    AutoCloseable subscribe(Consumer<VrEvent> listener);

    /**
     * Delivers the logged events the replay asks for, oldest first, then
     * {@link Subscriber#replayComplete}, then every new event: none twice, none missed.
     */
    AutoCloseable subscribe(Replay from, Subscriber subscriber);

    /** The replay log, when events are kept (the server keeps them; tests often do not). */
    Optional<? extends ReplayLog> replayLog();

    /**
     * These events as one subscriber sees them, live and replayed: each as {@code visible} gives it
     * (the event, another event in its place, or null: not delivered).
     */
    default Events seenAs(UnaryOperator<VrEvent> visible) {
        Events all = this;
        return new Events() {
            @Override
            public AutoCloseable subscribe(Consumer<VrEvent> listener) {
                return all.subscribe(e -> {
                    VrEvent seen = visible.apply(e);
                    if (seen != null) listener.accept(seen);
                });
            }

            @Override
            public AutoCloseable subscribe(Replay from, Subscriber subscriber) {
                return all.subscribe(from, new Subscriber() {
                    @Override
                    public void event(VrEvent e) {
                        VrEvent seen = visible.apply(e);
                        if (seen != null) subscriber.event(seen);
                    }

                    @Override
                    public void replayComplete() {
                        subscriber.replayComplete();
                    }

                    @Override
                    public void replayGap(long firstAskedFor, Optional<Long> oldestKept) {
                        subscriber.replayGap(firstAskedFor, oldestKept);
                    }
                });
            }

            @Override
            public Optional<? extends ReplayLog> replayLog() {
                return all.replayLog();
            }
        };
    }
}
