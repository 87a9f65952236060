package io.vrouter.core.service;

import io.vrouter.core.model.VrEvent;
import io.vrouter.core.persistence.EventLog;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The VRs' events as an interface follows them: live, or replayed from a point on. The core's
 * {@link EventBus} is the source; a caller's view ({@code VirtualRouters.as}) hands out only the
 * events of the VRs the caller may see ({@link #only}).
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

    /** These events with only those the predicate accepts delivered, live and replayed. */
    default Events only(Predicate<VrEvent> visible) {
        Events all = this;
        return new Events() {
            @Override
            public AutoCloseable subscribe(Consumer<VrEvent> listener) {
                return all.subscribe(e -> {
                    if (visible.test(e)) listener.accept(e);
                });
            }

            @Override
            public AutoCloseable subscribe(EventBus.Replay from, EventBus.Subscriber subscriber) {
                return all.subscribe(from, new EventBus.Subscriber() {
                    @Override
                    public void event(VrEvent e) {
                        if (visible.test(e)) subscriber.event(e);
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
