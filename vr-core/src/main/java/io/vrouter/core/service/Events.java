package io.vrouter.core.service;

import io.vrouter.core.model.VrEvent;
import io.vrouter.core.persistence.EventLog;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * The VRs' events as an interface follows them: live, or replayed from a point on. The core's
 * {@link EventBus} is the source; a caller's view ({@code VirtualRouters.as}) hands out only the
 * events of the VRs the caller may see ({@link #seenAs}).
 */
public interface Events {
    /** Subscribes to the events published from now on; closing the returned handle unsubscribes. */
    AutoCloseable subscribe(Consumer<VrEvent> listener);

    /**
     * Delivers the logged events the replay asks for, oldest first, then
     * {@link EventBus.Subscriber#replayComplete}, then every new event: none twice, none missed.
     */
    AutoCloseable subscribe(EventBus.Replay from, EventBus.Subscriber subscriber);

    /** The replay log, when events are kept (the server keeps them; tests often do not). */
    Optional<EventLog> replayLog();

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
            public AutoCloseable subscribe(EventBus.Replay from, EventBus.Subscriber subscriber) {
                return all.subscribe(from, new EventBus.Subscriber() {
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
            public Optional<EventLog> replayLog() {
                return all.replayLog();
            }
        };
    }
}
