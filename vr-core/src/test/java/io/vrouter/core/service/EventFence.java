package io.vrouter.core.service;

import io.vrouter.core.spi.ChangeSet;
import io.vrouter.core.model.VrEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * "Nothing more happened", proved by a later event instead of a quiet moment: a change of a VR's
 * vmConfigDescription runs after every earlier run of that VR (the scheduler queues a VR's runs one
 * after another), and its run ends by telling a CONFIG_CHANGED event of its own (the last of the VR's
 * when the run is done). Once the run is done and every event numbered so far is delivered,
 * whatever the earlier changes were to tell of the VR has been told; a test that waited a fixed
 * moment instead passed when the event was merely late. Shared with the other modules' tests
 * through vr-core's test-jar.
 */
public final class EventFence {
    private static final Duration WAIT = Duration.ofSeconds(10);

    private EventFence() {
    }

    /**
     * Puts a fence after the earlier changes of the VRs (one change set of them all, so queued after
     * each one's runs), waits (10 s at most) until it is done and its events are delivered to
     * {@code seen}, a list a subscriber of the service's events fills, and returns a copy of what
     * {@code seen} then holds but the fence's own events, which it also takes out of the list, so the
     * caller counts only its own. The fence's change is told by the first event of the VR after it is
     * accepted (an earlier run's, when one was still to tell), so its own event is found by its place.
     */
    public static List<VrEvent> before(VirtualRouterService service, List<VrEvent> seen, int... vmIndices)
            throws Exception {
        String marker = "fence " + UUID.randomUUID();
        ChangeSet.Builder fence = ChangeSet.builder();
        for (int vmIndex : vmIndices) fence.edit(vmIndex, row -> row.vmConfigDescription = marker);
        service.apply(fence.build()).completion().get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        service.events().deliver();
        synchronized (seen) {
            List<VrEvent> fences = new ArrayList<>();
            for (int vmIndex : vmIndices) {
                VrEvent last = null;
                for (VrEvent e : seen) if (e.vmIndex == vmIndex && e.type == VrEvent.Type.CONFIG_CHANGED) last = e;
                if (last == null) throw new AssertionError("no event of the fence on VR " + vmIndex + ": " + seen);
                fences.add(last);
            }
            seen.removeAll(fences);
            return List.copyOf(seen);
        }
    }
}
