package io.vrouter.api.rest;

import io.vrouter.core.model.VrEvent;
import io.vrouter.core.service.VirtualRouterService;
import java.util.function.Consumer;

/**
 * Subscribes once to the service's events and hands them to the SSE resource, created lazily by
 * Jersey on the first subscription; closing it unsubscribes when the REST interface stops.
 */
final class EventRelay implements AutoCloseable {
    private final AutoCloseable subscription;
    private volatile Consumer<VrEvent> target = e -> { };

    EventRelay(VirtualRouterService service) {
        this.subscription = service.events().subscribe(e -> target.accept(e));
    }

    void attach(Consumer<VrEvent> consumer) {
        this.target = consumer;
    }

    @Override
    public void close() throws Exception {
        subscription.close();
    }
}
