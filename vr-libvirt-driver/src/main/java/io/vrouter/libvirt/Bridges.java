package io.vrouter.libvirt;

import io.vrouter.core.driver.DriverException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The host bridges the VRs' interfaces plug into, as the netns driver keeps them: made when absent and
 * marked with the driver's alias, removed when marked and without ports. A bridge's lock is held from
 * the look to the change, so a removal never takes away a bridge another VR is about to use. Small
 * enough to keep here rather than make the two driver modules depend on each other.
 */
final class Bridges {
    private static final Logger log = LoggerFactory.getLogger(Bridges.class);
    private static final Path SYS_NET = Path.of("/sys/class/net");

    private final String ip;
    private final String alias;
    private final Duration timeout;
    private final Map<String, Object> locks = new ConcurrentHashMap<>();

    Bridges(String ip, String alias, Duration timeout) {
        this.ip = ip;
        this.alias = alias;
        this.timeout = timeout;
    }

    interface Work<T> {
        T run() throws DriverException;
    }

    /** Makes the missing bridges, then runs the work holding their locks (the domain started or defined on them). */
    <T> T withBridges(List<String> sortedNames, Work<T> work) throws DriverException {
        if (sortedNames.isEmpty()) return work.run();
        String first = sortedNames.get(0);
        synchronized (locks.computeIfAbsent(first, b -> new Object())) {
            ensure(first);
            return withBridges(sortedNames.subList(1, sortedNames.size()), work);
        }
    }

    private void ensure(String bridge) throws DriverException {
        if (isBridge(bridge)) return;
        if (Files.exists(SYS_NET.resolve(bridge))) {
            throw new DriverException("INVALID_CONFIG", "vmNetworkConfigParent '" + bridge + "' is an interface of the host that is not a bridge");
        }
        run(ip, "link", "add", "name", bridge, "type", "bridge");
        run(ip, "link", "set", "dev", bridge, "alias", alias, "addrgenmode", "none", "up");
        log.info("made bridge {} ({})", bridge, alias);
    }

    /** Removes a bridge this driver made (it carries the alias) once no port is left on it. */
    void removeIfUnused(String bridge) throws DriverException {
        synchronized (locks.computeIfAbsent(bridge, b -> new Object())) {
            if (isBridge(bridge) && alias(bridge).equals(alias) && ports(bridge).isEmpty()) {
                run(ip, "link", "del", "dev", bridge);
                log.info("removed bridge {}: vrouter made it and nothing uses it any more", bridge);
            }
        }
    }

    /** Whether the host has an interface of that name that is not a bridge (one read of its uevent). */
    static boolean isNonBridge(String name) {
        try {
            return !Files.readAllLines(SYS_NET.resolve(name).resolve("uevent"), StandardCharsets.US_ASCII).contains("DEVTYPE=bridge");
        } catch (IOException gone) {
            return false;
        }
    }

    static boolean isBridge(String name) {
        return Files.isDirectory(SYS_NET.resolve(name).resolve("bridge"));
    }

    static String alias(String name) {
        try {
            return Files.readString(SYS_NET.resolve(name).resolve("ifalias")).strip();
        } catch (IOException e) {
            return "";
        }
    }

    static List<String> ports(String bridge) {
        try (Stream<Path> s = Files.list(SYS_NET.resolve(bridge).resolve("brif"))) {
            return s.map(p -> p.getFileName().toString()).toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    private void run(String... argv) throws DriverException {
        run(timeout, argv);
    }

    /** Runs a command (an argument vector, no shell), killed after the timeout; a failure carries its error output. */
    static void run(Duration timeout, String... argv) throws DriverException {
        try {
            Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
            p.getOutputStream().close();
            // ip prints a line or two: read to the end, then wait; the timeout kills one that hangs.
            var reader = p.getInputStream();
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new DriverException("HOST_COMMAND_FAILED", String.join(" ", argv) + " did not finish in " + timeout.toMillis() + " ms");
            }
            String out = new String(reader.readAllBytes(), StandardCharsets.UTF_8).strip();
            if (p.exitValue() != 0) {
                throw new DriverException("HOST_COMMAND_FAILED", String.join(" ", argv) + ": " + (out.isEmpty() ? "exit " + p.exitValue() : out));
            }
        } catch (IOException e) {
            throw new DriverException("HOST_COMMAND_FAILED", "cannot run " + argv[0] + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DriverException("HOST_COMMAND_FAILED", argv[0] + " interrupted", e);
        }
    }
}
