package io.vrouter.core.service;

import io.vrouter.core.model.VrEvent;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers VR events to the interfaces that subscribed. Events of one VR are published in order from
 * that VR's worker; listeners run on the publishing thread, so they must hand slow work (network
 * sends) to their own threads.
 */
public final class EventBus {
    private static final Logger log = LoggerFactory.getLogger(EventBus.class);

    private final CopyOnWriteArrayList<Consumer<VrEvent>> listeners = new CopyOnWriteArrayList<>();

    /** Subscribes; closing the returned handle unsubscribes. */
    public AutoCloseable subscribe(Consumer<VrEvent> listener) {
        listeners.add(listener);
        return () -> listeners.remove(listener);
    }

    void publish(VrEvent event) {
        log.info("{}", event);
        for (Consumer<VrEvent> l : listeners) {
            try {
                l.accept(event);
            } catch (RuntimeException e) {
                log.warn("event listener {} failed on {}", l, event, e);
            }
        }
    }
}
