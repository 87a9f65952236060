package io.vrouter.core.config;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Slows down password guessing from one source: a source address may fail {@code auth.max-failures}
 * (10) logins in a row; after that it gets one more try per {@code auth.failure-interval} (1 s), and
 * tries in between are refused without being checked. The real user, from another address, is never
 * held back; from the guesser's address it competes with the guesser for those tries, so it is held
 * back as long as the guessing goes on (a try that let the right password through would tell the
 * guesser it had guessed right). Failures are logged and counted
 * ({@code vrouter_auth_failures_total{interface}}, {@code vrouter_auth_throttled_total{interface}},
 * {@code vrouter_auth_throttled_sources{brake}}).
 *
 * <p>{@link Credentials} keeps two: one for the TCP interfaces, whose source address is the
 * connection's, and SNMP's own, since a UDP source address can be forged: SNMP failures sent in
 * someone else's name hold back SNMP from that address, never its REST, RESTCONF or NETCONF logins.
 *
 * <p>A token bucket per source: capacity max-failures, one token back per interval, one spent per
 * failed login. At most {@value #MAX_SOURCES} sources are tracked (SNMP's source addresses can be
 * forged); beyond, sources whose allowance is whole are forgotten first.
 *
 * <p>A reload ({@link #take}) changes both settings at once for every source: a lowered capacity
 * caps what a source has left, a raised one refills at the new pace.
 */
public final class AuthThrottle implements MeterBinder {
    private static final Logger log = LoggerFactory.getLogger(AuthThrottle.class);
    static final int MAX_SOURCES = 10_000;

    private final String brake;
    /** Replaced whole by a reload; each use reads one version of it. */
    private volatile Limits limits;
    private final LongSupplier nanoTime;
    private final Map<InetAddress, Bucket> sources = new ConcurrentHashMap<>();
    private volatile MeterRegistry registry = new SimpleMeterRegistry();

    /** {@code auth.max-failures} and {@code auth.failure-interval}, checked. */
    public record Limits(int maxFailures, Duration interval) {
        public Limits {
            if (maxFailures < 1) throw new IllegalArgumentException("setting 'auth.max-failures' must be at least 1");
            if (interval.isNegative() || interval.isZero()) {
                throw new IllegalArgumentException("setting 'auth.failure-interval' must be positive");
            }
        }

        /** Reads and checks them; throws, naming the setting, when one is wrong. */
        public static Limits from(Settings s) {
            return new Limits(s.getInt("auth.max-failures", 10), s.getDuration("auth.failure-interval", "1s"));
        }
    }

    private final class Bucket {
        private double tokens = limits.maxFailures();
        private long updated = nanoTime.getAsLong();

        /** Refills by the time passed; whether a try is allowed now. */
        synchronized boolean allows(long now) {
            Limits l = limits;
            tokens = Math.min(l.maxFailures(), tokens + (double) (now - updated) / l.interval().toNanos());
            updated = now;
            return tokens >= 1;
        }

        /** Spends a token; true when this failure used the last one. */
        synchronized boolean spend(long now) {
            allows(now);
            tokens = Math.max(0, tokens - 1);
            return tokens < 1;
        }

        synchronized boolean whole(long now) {
            allows(now);
            return tokens >= limits.maxFailures();
        }
    }

    /** @param brake what it brakes, the tag of its {@code vrouter_auth_throttled_sources} gauge */
    public AuthThrottle(String brake, int maxFailures, Duration interval) {
        this(brake, maxFailures, interval, System::nanoTime);
    }

    /** On the given clock (System.nanoTime, or a test's). */
    AuthThrottle(String brake, int maxFailures, Duration interval, LongSupplier nanoTime) {
        this.brake = brake;
        this.limits = new Limits(maxFailures, interval);
        this.nanoTime = nanoTime;
    }

    static AuthThrottle from(String brake, Settings s, LongSupplier nanoTime) {
        Limits l = Limits.from(s);
        return new AuthThrottle(brake, l.maxFailures(), l.interval(), nanoTime);
    }

    /** Takes new limits (a reload): from the next login on, for every source. */
    void take(Limits next) {
        limits = next;
    }

    /**
     * Whether a source may try to log in now. When not, the try is counted as throttled and must be
     * refused without checking the credentials. An unknown source (null) is never held back.
     */
    public boolean allow(String iface, InetAddress source) {
        Bucket b = source == null ? null : sources.get(source);
        if (b == null || b.allows(nanoTime.getAsLong())) return true;
        Counter.builder("vrouter.auth.throttled").description("Logins refused unchecked: too many failures from the source")
                .tag("interface", iface).register(registry).increment();
        return false;
    }

    /** Records a failed login from a source: a log line, a count, and one try less for the source. */
    public void failed(String iface, InetAddress source, String user) {
        Counter.builder("vrouter.auth.failures").description("Failed logins").tag("interface", iface)
                .register(registry).increment();
        log.info("{}: failed login{} from {}", iface, user == null ? "" : " as '" + user + "'",
                source == null ? "an unknown address" : source.getHostAddress());
        if (source == null) return;
        Bucket b = sources.get(source);
        if (b == null) {
            if (sources.size() >= MAX_SOURCES) forgetIdle();
            if (sources.size() >= MAX_SOURCES) return;
            b = sources.computeIfAbsent(source, k -> new Bucket());
        }
        if (b.spend(nanoTime.getAsLong())) {
            Limits l = limits;
            log.warn("{}: {} failed logins from {}: one more try every {} ms from there (auth.max-failures, "
                    + "auth.failure-interval)", iface, l.maxFailures(), source.getHostAddress(), l.interval().toMillis());
        }
    }

    private void forgetIdle() {
        long now = nanoTime.getAsLong();
        sources.values().removeIf(b -> b.whole(now));
    }

    /** Sources held back right now. */
    int throttledSources() {
        long now = nanoTime.getAsLong();
        return (int) sources.values().stream().filter(b -> !b.allows(now)).count();
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        this.registry = registry;
        Gauge.builder("vrouter.auth.throttled.sources", this, AuthThrottle::throttledSources).tag("brake", brake)
                .description("Source addresses whose logins are throttled now").register(registry);
    }
}
