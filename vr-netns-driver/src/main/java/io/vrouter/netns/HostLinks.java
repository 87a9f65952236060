package io.vrouter.netns;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The host's own interfaces as sysfs and {@code /proc/net/dev} show them: read as files, no process.
 * The VRs' host-side veths are read here; what is inside a namespace is not visible from here.
 */
final class HostLinks {
    static final Path SYS_NET = Path.of("/sys/class/net");
    private static final Path PROC_NET_DEV = Path.of("/proc/net/dev");

    /** A host interface: its ifIndex, whether it is up and has carrier (its veth peer is up), its bridge. */
    record Link(String name, int ifindex, boolean up, boolean carrier, String master) {
    }

    /** Bytes, packets, errors and drops received and sent, as the host interface counts them. */
    record Counters(long rxBytes, long rxPackets, long rxErrors, long rxDropped,
                    long txBytes, long txPackets, long txErrors, long txDropped) {
    }

    private final long maxAgeNanos;
    private volatile Map<String, Counters> counters = Map.of();
    private volatile long countersAt;

    HostLinks(Duration counterMaxAge) {
        this.maxAgeNanos = counterMaxAge.toNanos();
    }

    static Optional<Link> read(String name) {
        Path d = SYS_NET.resolve(name);
        try {
            int ifindex = Integer.parseInt(Files.readString(d.resolve("ifindex")).strip());
            int flags = Integer.decode(Files.readString(d.resolve("flags")).strip());
            boolean carrier;
            try {
                carrier = Files.readString(d.resolve("carrier")).strip().equals("1");
            } catch (IOException down) {
                carrier = false; // EINVAL while the interface is down
            }
            Path master = d.resolve("master");
            String bridge = Files.isSymbolicLink(master) ? Files.readSymbolicLink(master).getFileName().toString() : null;
            return Optional.of(new Link(name, ifindex, (flags & 1) != 0, carrier, bridge));
        } catch (IOException | RuntimeException gone) {
            return Optional.empty();
        }
    }

    static boolean exists(String name) {
        return Files.exists(SYS_NET.resolve(name));
    }

    static boolean isBridge(String name) {
        return Files.isDirectory(SYS_NET.resolve(name).resolve("bridge"));
    }

    /**
     * Whether the host has an interface of that name that is not a bridge, from one read of its
     * uevent, which says {@code DEVTYPE=bridge} from before a bridge's directory appears until it is
     * gone. A bridge being made or removed meanwhile thus reads as a bridge or as nothing. Two reads
     * (the directory, then its {@code bridge/}) can see a bridge in between: the kernel adds
     * {@code bridge/} after the directory and removes it first, and a removal can come between them.
     */
    static boolean isNonBridge(String name) {
        try {
            return !Files.readAllLines(SYS_NET.resolve(name).resolve("uevent"), StandardCharsets.US_ASCII).contains("DEVTYPE=bridge");
        } catch (IOException gone) {
            return false;
        }
    }

    /** The bridge's ports. */
    static List<String> ports(String bridge) {
        try (Stream<Path> s = Files.list(SYS_NET.resolve(bridge).resolve("brif"))) {
            return s.map(p -> p.getFileName().toString()).toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    static String alias(String name) {
        try {
            return Files.readString(SYS_NET.resolve(name).resolve("ifalias")).strip();
        } catch (IOException e) {
            return "";
        }
    }

    /** Every host interface name. */
    static List<String> names() {
        try (Stream<Path> s = Files.list(SYS_NET)) {
            return s.map(p -> p.getFileName().toString()).toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    /** The interface's counters, from a reading of {@code /proc/net/dev} at most the maximum age old. */
    Optional<Counters> counters(String name) {
        if (System.nanoTime() - countersAt > maxAgeNanos) {
            synchronized (this) {
                if (System.nanoTime() - countersAt > maxAgeNanos) {
                    counters = readProcNetDev();
                    countersAt = System.nanoTime();
                }
            }
        }
        return Optional.ofNullable(counters.get(name));
    }

    private static Map<String, Counters> readProcNetDev() {
        return readNetDev(PROC_NET_DEV);
    }

    /**
     * The counters of every interface a net/dev file lists: /proc/net/dev for vrouter's own namespace,
     * /proc/PID/net/dev for the namespace process PID runs in.
     */
    static Map<String, Counters> readNetDev(Path netDev) {
        Map<String, Counters> out = new HashMap<>();
        List<String> lines;
        try {
            lines = Files.readAllLines(netDev, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            return out;
        }
        for (String line : lines) {
            int colon = line.indexOf(':');
            if (colon < 0) continue;
            String[] f = line.substring(colon + 1).trim().split("\\s+");
            // Receive: bytes packets errs drop fifo frame compressed multicast; then Transmit: bytes packets errs drop ...
            if (f.length < 12) continue;
            out.put(line.substring(0, colon).trim(), new Counters(Long.parseLong(f[0]), Long.parseLong(f[1]),
                    Long.parseLong(f[2]), Long.parseLong(f[3]), Long.parseLong(f[8]), Long.parseLong(f[9]),
                    Long.parseLong(f[10]), Long.parseLong(f[11])));
        }
        return out;
    }

    static List<String> matching(java.util.function.Predicate<String> p) {
        List<String> out = new ArrayList<>();
        for (String n : names()) if (p.test(n)) out.add(n);
        return out;
    }
}
