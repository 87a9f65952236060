package io.vrouter.netns;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The host's cgroups, whose frozen() holds the driver's own threads (its polls and event work, named
 * netns-*) once, when the test asks, until the test lets them go: a test can act while the driver is
 * in the middle of a look at the host.
 */
final class HoldingCgroups extends Cgroups {
    private final Cgroups host;
    final CountDownLatch held = new CountDownLatch(1);
    /** frozen() calls by the driver's own threads. */
    final AtomicInteger looks = new AtomicInteger();
    private volatile CountDownLatch release;

    HoldingCgroups(Cgroups host) {
        super(host.parent);
        this.host = host;
    }

    /** The next frozen() on a thread of the driver's waits for {@code release} (10 s at the most). */
    void hold(CountDownLatch release) {
        this.release = release;
    }

    @Override
    boolean frozen(String name) {
        boolean frozen = host.frozen(name);
        if (!Thread.currentThread().getName().startsWith("netns-")) return frozen;
        looks.incrementAndGet();
        CountDownLatch r = release;
        if (r != null) {
            release = null;
            held.countDown();
            try {
                r.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return frozen;
    }

    @Override String describe() { return host.describe(); }
    @Override void create(String name, int cpus, int memoryMib) throws IOException { host.create(name, cpus, memoryMib); }
    @Override void limit(String name, int cpus, int memoryMib) throws IOException { host.limit(name, cpus, memoryMib); }
    @Override void weight(String name, int weight) throws IOException { host.weight(name, weight); }
    @Override void join(String name, long pid) throws IOException { host.join(name, pid); }
    @Override Set<Long> pids(String name) { return host.pids(name); }
    @Override void freeze(String name, boolean frozen) throws IOException { host.freeze(name, frozen); }
    @Override Usage usage(String name) { return host.usage(name); }
    @Override List<Path> dirs(String name) { return host.dirs(name); }
}
