package io.vrouter.core.driver.sim;

import java.time.Duration;
import java.util.Locale;

/** How long each simulated hypervisor operation takes. */
public record LatencyProfile(Duration provision, Duration start, Duration stop, Duration destroy, Duration suspend) {
    /** Instant: measures vrouter's own management-plane cost. */
    public static final LatencyProfile NONE = new LatencyProfile(Duration.ZERO, Duration.ZERO, Duration.ZERO,
            Duration.ZERO, Duration.ZERO);

    /**
     * The XenServer 5.6 timings of the paper's Table I: about 1.0 s to create a VR, 3.4 s to remove a
     * running one (a clean shutdown, then the VM and its disk destroyed).
     */
    public static final LatencyProfile PAPER = new LatencyProfile(Duration.ofMillis(1000), Duration.ofMillis(500),
            Duration.ofMillis(1400), Duration.ofMillis(2000), Duration.ofMillis(600));

    /** This profile, making a VM take {@code provision}. */
    public LatencyProfile withProvision(Duration provision) {
        return new LatencyProfile(provision, start, stop, destroy, suspend);
    }

    public static LatencyProfile named(String name) {
        switch (name.toLowerCase(Locale.ROOT)) {
            case "none": return NONE;
            case "paper": return PAPER;
            default: throw new IllegalArgumentException("sim-latency must be none or paper, not '" + name + "'");
        }
    }
}
