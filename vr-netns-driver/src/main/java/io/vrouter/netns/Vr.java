package io.vrouter.netns;

import io.vrouter.core.driver.PowerState;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One VR as the netns driver knows it: its namespace and directory, its host record, and what the
 * {@link NetnsCache} last read of it (its namespace's view, host-side links, cgroup usage), with what
 * the listener was last told. The driver's operations and the cache's readers share it.
 */
final class Vr {
    final int vmIndex;
    final String netns;
    final Path dir;
    volatile HostRecord record;
    volatile NsView view = NsView.EMPTY;
    /** The routes added by hand while it ran, put back when it starts again. */
    volatile List<String> staticRoutes = List.of();
    /** Its host-side interfaces by interface index, as sysfs last showed them; absent when gone. Set with reported. */
    volatile Map<Integer, HostLinks.Link> links = Map.of();
    /** What the listener was last told (or would have been, had no operation been under way); guarded by this. */
    Observed reported = Observed.GONE;
    /** Operations of ours under way; changed under this. */
    final AtomicInteger busy = new AtomicInteger();
    /**
     * Counts the starts and ends of our operations, guarded by this: a look at the host that
     * an operation began or ended during may show half its work, and is not kept.
     */
    long operations;
    final AtomicBoolean refreshQueued = new AtomicBoolean();
    volatile long eventAt;
    volatile long viewAt;
    volatile Cgroups.Usage usage = Cgroups.Usage.NONE;
    volatile long usageAt;

    Vr(int vmIndex, String netns, Path dir) {
        this.vmIndex = vmIndex;
        this.netns = netns;
        this.dir = dir;
    }

    /** The VR's state as the host shows it, and what about the host made it so. */
    record Observed(PowerState power, String what) {
        static final Observed GONE = new Observed(null, "gone");

        boolean gone() {
            return power == null;
        }
    }
}
