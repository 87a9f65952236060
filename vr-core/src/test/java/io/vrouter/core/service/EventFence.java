package io.vrouter.core.service;

import io.vrouter.core.model.VrEvent;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * "Nothing more happened", proved by the state instead of a quiet moment: once every change accepted
 * on the VRs has run to its end (their lanes done, the run's last events told) and every event
 * numbered so far is delivered, whatever those changes were to tell has been told; a test that waited
 * a fixed moment instead passed when the event was merely late. Shared with the other modules' tests
 * through vr-core's test-jar.
 */
public final class EventFence {
    private static final Duration WAIT = Duration.ofSeconds(10);

    private EventFence() {
    }

    /**
     * Waits (10 s at most) until every change accepted so far on the VRs is done and its events are
     * delivered to {@code seen}, a list a subscriber of the service's events fills, and returns a copy
     * of what {@code seen} then holds.
     */
    public static List<VrEvent> before(VirtualRouterService service, List<VrEvent> seen, int... vmIndices)
            throws Exception {
        service.lanesDone(vmIndices).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        service.events().deliver();
        synchronized (seen) {
            return List.copyOf(seen);
        }
    }
}
