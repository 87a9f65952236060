package io.vrouter.netns;

import io.vrouter.core.model.LinkStatus;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Each link (peer or VXLAN) of a running VR probed by the router from inside the VR's namespace, never by the guest:
 * one {@code ping -6} a second to the all-nodes address of the link's own interface (ff02::1%ethN),
 * which only the far end of a point-to-point link answers, its own copy suppressed ({@code -L}); an
 * IPv6 link-local address is all it needs, so it works on links with no address and under any
 * routing. Of the last {@value #WINDOW} probes: the delay is the median round trip, the loss the
 * share not answered; the link is up while the far end answered in the last {@value #UP_WITHIN_MS} ms.
 * A change of a link's status is told to the listener (docs/adr/0018-links.md).
 */
final class LinkProbes implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LinkProbes.class);
    static final int WINDOW = 10;
    static final long UP_WITHIN_MS = 2500;
    private static final Pattern REPLY = Pattern.compile("icmp_seq=(\\d+) .*time=([0-9.]+) ms");
    private static final Pattern SEQ = Pattern.compile("icmp_seq=(\\d+)");

    /** A link's health: absent delay and loss when nothing was measured yet. */
    record Health(LinkStatus status, Long delayMicros, Long lossPercent) {
        static final Health UNKNOWN = new Health(LinkStatus.UNKNOWN, null, null);
    }

    /** Told when a probed link goes up or down. */
    interface Changes {
        void changed(int vmIndex, int networkIndex, LinkStatus now);
    }

    private final String ip;
    private final long counterMaxAgeNanos;
    private final Changes changes;
    private final Map<String, Probe> probes = new ConcurrentHashMap<>();

    LinkProbes(String ip, Duration counterMaxAge, ScheduledExecutorService timer, Changes changes) {
        this.ip = ip;
        this.counterMaxAgeNanos = counterMaxAge.toNanos();
        this.changes = changes;
        // A link goes down with no line from ping (its replies just stop): look every second.
        timer.scheduleWithFixedDelay(this::tell, 1, 1, TimeUnit.SECONDS);
    }

    private static String key(int vm, int n) {
        return vm + "/" + n;
    }

    /** Starts probing interface n of the VR in namespace netns, unless it is probed already. */
    void probe(int vm, int n, String netns) {
        probes.compute(key(vm, n), (k, p) -> p != null && p.process.isAlive() ? p : Probe.start(ip, vm, n, netns));
    }

    /**
     * Probes the interface again at once when it is probed and not up: a probe sends one request a
     * second, and a link that has just become whole should not wait for the next.
     */
    void again(int vm, int n) {
        Probe p = probes.get(key(vm, n));
        if (p == null || p.health().status() == LinkStatus.UP) return;
        stop(vm, n);
        probe(vm, n, p.netns);
    }

    /** Stops probing one interface. */
    void stop(int vm, int n) {
        Probe p = probes.remove(key(vm, n));
        if (p != null) p.stop();
    }

    /** Stops probing every interface of the VR. */
    void stopAll(int vm) {
        for (Probe p : List.copyOf(probes.values())) {
            if (p.vm == vm) stop(vm, p.n);
        }
    }

    Health health(int vm, int n) {
        Probe p = probes.get(key(vm, n));
        return p == null ? Health.UNKNOWN : p.health();
    }

    /**
     * The probed interface's counters, read in the VR's namespace through the probe process's
     * /proc/PID/net/dev (no process of vrouter's own need enter the namespace), at most once per
     * netns.counter-max-age, as the host's are: a walk reads them for every interface of every VR.
     */
    Optional<HostLinks.Counters> counters(int vm, int n) {
        Probe p = probes.get(key(vm, n));
        if (p == null || !p.process.isAlive()) return Optional.empty();
        return Optional.ofNullable(p.counters(counterMaxAgeNanos));
    }

    private void tell() {
        for (Probe p : probes.values()) {
            LinkStatus now = p.health().status();
            if (now != p.told) {
                p.told = now;
                try {
                    changes.changed(p.vm, p.n, now);
                } catch (RuntimeException e) {
                    log.warn("telling of link {} of VR {}: {}", p.n, p.vm, e.toString());
                }
            }
        }
    }

    @Override
    public void close() {
        for (Probe p : List.copyOf(probes.values())) stop(p.vm, p.n);
    }

    /** One ping process and what it saw. */
    private static final class Probe {
        final int vm;
        final int n;
        final String netns;
        final Process process;
        final long started = System.nanoTime();
        /** The last probes by sequence number: the round trip in microseconds, or -1 when unanswered. */
        private final Deque<long[]> window = new ArrayDeque<>();
        private volatile long lastReply;
        private HostLinks.Counters counters;
        private long countersAt;

        synchronized HostLinks.Counters counters(long maxAgeNanos) {
            if (countersAt == 0 || System.nanoTime() - countersAt > maxAgeNanos) {
                counters = HostLinks.readNetDev(Path.of("/proc", Long.toString(process.pid()), "net", "dev"))
                        .get(Names.vrSide(n));
                countersAt = System.nanoTime();
            }
            return counters;
        }

        /** The status last told; starts down, as a link is until its far end answers. */
        volatile LinkStatus told = LinkStatus.DOWN;

        private Probe(int vm, int n, String netns, Process process) {
            this.vm = vm;
            this.n = n;
            this.netns = netns;
            this.process = process;
        }

        static Probe start(String ip, int vm, int n, String netns) {
            String dev = Names.vrSide(n);
            try {
                Process p = new ProcessBuilder(ip, "netns", "exec", netns, "ping", "-6", "-n", "-L", "-O", "-i", "1", "-W", "1",
                        "ff02::1%" + dev).redirectErrorStream(true).start();
                p.getOutputStream().close();
                Probe probe = new Probe(vm, n, netns, p);
                Thread reader = new Thread(probe::read, "link-probe-" + netns + "-" + dev);
                reader.setDaemon(true);
                reader.start();
                return probe;
            } catch (IOException e) {
                log.warn("cannot probe link {} of VR {}: {}", n, vm, e.getMessage());
                return null;
            }
        }

        private void read() {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                    Matcher reply = REPLY.matcher(line);
                    if (reply.find()) {
                        lastReply = System.nanoTime();
                        add(Long.parseLong(reply.group(1)), Math.round(Double.parseDouble(reply.group(2)) * 1000));
                    } else if (line.startsWith("no answer yet")) {
                        Matcher seq = SEQ.matcher(line);
                        if (seq.find()) add(Long.parseLong(seq.group(1)), -1);
                    }
                }
            } catch (IOException e) {
                // the process ended: the link reads down until probed again
            }
        }

        private synchronized void add(long seq, long micros) {
            // A late reply replaces its "no answer yet"; a duplicate is not counted twice.
            for (long[] s : window) {
                if (s[0] == seq) {
                    if (micros >= 0 && s[1] < 0) s[1] = micros;
                    return;
                }
            }
            window.addLast(new long[] {seq, micros});
            while (window.size() > WINDOW) window.removeFirst();
        }

        synchronized Health health() {
            boolean up = process.isAlive() && lastReply != 0 && System.nanoTime() - lastReply < UP_WITHIN_MS * 1_000_000L;
            if (window.isEmpty()) return new Health(up ? LinkStatus.UP : LinkStatus.DOWN, null, null);
            List<Long> rtts = new ArrayList<>();
            for (long[] s : window) if (s[1] >= 0) rtts.add(s[1]);
            long loss = Math.round(100.0 * (window.size() - rtts.size()) / window.size());
            Long delay = null;
            if (!rtts.isEmpty()) {
                long[] sorted = rtts.stream().mapToLong(Long::longValue).toArray();
                Arrays.sort(sorted);
                delay = sorted[sorted.length / 2];
            }
            return new Health(up ? LinkStatus.UP : LinkStatus.DOWN, delay, loss);
        }

        void stop() {
            process.destroy();
        }
    }
}
