package io.vrouter.netns;

import io.vrouter.core.config.Settings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Pattern;

/**
 * The driver's settings, keys {@code netns.*} of the server's config file (see the module README).
 *
 * @param prefix       starts the name of every namespace, host interface and cgroup of a VR
 *                     ({@code vr} makes VR 5 the namespace {@code vr5}), so that two servers, or two
 *                     test runs, share a host without touching each other's VRs
 * @param runDir       where each VR keeps its record (the marker reconciliation recognises) and its
 *                     routing daemon's configuration, control socket and pid file
 * @param cgroupParent the cgroup under which each VR gets its own
 */
public record NetnsSettings(String prefix, Path runDir, String cgroupParent, String ip, String bird,
                            Duration commandTimeout, Duration stopTimeout, Duration resyncInterval,
                            Duration daemonCheckInterval, Duration refreshDelay, Duration counterMaxAge) {
    private static final Pattern PREFIX = Pattern.compile("[a-z]{1,6}");
    private static final Pattern CGROUP = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

    public NetnsSettings {
        if (!PREFIX.matcher(prefix).matches()) {
            throw new IllegalArgumentException("netns.prefix must be 1 to 6 lower-case letters, not '" + prefix + "'");
        }
        if (!CGROUP.matcher(cgroupParent).matches() || cgroupParent.startsWith(".")) {
            throw new IllegalArgumentException("netns.cgroup-parent must be a plain directory name, not '" + cgroupParent + "'");
        }
    }

    public static NetnsSettings from(Settings s) {
        return new NetnsSettings(s.get("netns.prefix", "vr"), Path.of(s.get("netns.run-dir", "/run/vrouter/netns")),
                s.get("netns.cgroup-parent", "vrouter"), s.get("netns.ip", "ip"), s.get("netns.bird", "bird"),
                s.getDuration("netns.command-timeout", "10s"), s.getDuration("netns.stop-timeout", "5s"),
                s.getDuration("netns.resync-interval", "10s"), s.getDuration("netns.daemon-check-interval", "1s"),
                s.getDuration("netns.refresh-delay", "200ms"), s.getDuration("netns.counter-max-age", "1s"));
    }

    /**
     * iproute2's tc: beside the ip command when that is given by a path that has one (iproute2 installs
     * both in one directory), else found on the PATH (a wrapper of ip, say, has none beside it).
     */
    public String tc() {
        Path p = Path.of(ip);
        Path beside = p.getParent() == null ? null : p.resolveSibling("tc");
        return beside != null && java.nio.file.Files.isExecutable(beside) ? beside.toString() : "tc";
    }

    /** The same settings with another prefix and run directory (tests run side by side with their own). */
    public NetnsSettings with(String prefix, Path runDir) {
        return new NetnsSettings(prefix, runDir, cgroupParent, ip, bird, commandTimeout, stopTimeout, resyncInterval,
                daemonCheckInterval, refreshDelay, counterMaxAge);
    }
}
