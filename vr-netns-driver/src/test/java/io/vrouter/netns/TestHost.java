package io.vrouter.netns;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

/**
 * The real host the driver tests run on, with names of their own: a prefix unique to the run (other
 * engineers run the same tests at the same time), test namespaces and bridges named after it, the
 * firewall opened for those bridges only while a test needs it, and a check that nothing of the
 * prefix is left. Published in this module's test-jar for integration-tests.
 */
public final class TestHost implements AutoCloseable {
    public final String prefix;
    private final List<String> netns = new ArrayList<>();
    private final List<String> bridges = new ArrayList<>();
    private final List<List<String>> firewall = new ArrayList<>();

    public TestHost() {
        SecureRandom r = new SecureRandom();
        StringBuilder p = new StringBuilder("t");
        for (int i = 0; i < 4; i++) p.append((char) ('a' + r.nextInt(26)));
        prefix = p.toString();
    }

    /** A bridge name of this run that is none of the driver's names. */
    public String bridge(String suffix) {
        return prefix + "b" + suffix;
    }

    public record Result(int exit, String out) {
    }

    public static Result sh(String... argv) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException(String.join(" ", argv) + " hangs");
        }
        return new Result(p.exitValue(), out);
    }

    public static String ok(String... argv) throws IOException, InterruptedException {
        Result r = sh(argv);
        assertThat(r.exit()).as(String.join(" ", argv) + ": " + r.out()).isZero();
        return r.out();
    }

    /** A host on a bridge: a namespace with one interface, an address and a default route. */
    public String hostOn(String bridge, String address, String gateway) throws IOException, InterruptedException {
        String ns = behindNic(address);
        ok("ip", "link", "set", "dev", ns + "x", "master", bridge);
        ok("ip", "-n", ns, "route", "add", "default", "via", gateway);
        return ns;
    }

    /**
     * The outside world behind a host NIC: a namespace whose eth0 has the address, at the far end of a
     * veth whose host side, {@code <namespace>x} and up, stands for the NIC. Returns the namespace.
     */
    public String behindNic(String address) throws IOException, InterruptedException {
        String ns = prefix + "h" + (netns.size() + 1);
        ok("ip", "netns", "add", ns);
        netns.add(ns);
        ok("ip", "link", "add", ns + "x", "type", "veth", "peer", "name", "eth0", "netns", ns);
        ok("ip", "link", "set", "dev", ns + "x", "up");
        ok("ip", "-n", ns, "addr", "add", address, "dev", "eth0");
        ok("ip", "-n", ns, "link", "set", "dev", "eth0", "up");
        ok("ip", "-n", ns, "link", "set", "dev", "lo", "up");
        return ns;
    }

    /** A bridge the test makes itself, as an operator's bridge that vrouter must never delete. */
    public void ownBridge(String name) throws IOException, InterruptedException {
        ok("ip", "link", "add", "name", name, "type", "bridge");
        ok("ip", "link", "set", "dev", name, "up");
        bridges.add(name);
    }

    /**
     * Whether one ping gets through within five seconds. What an earlier unanswered ping left in the
     * source's ARP cache is forgotten first: its resolution of the gateway may still be under way, its
     * last probe sent while the way was shut, and when that times out the kernel fails the packet this
     * ping queued behind it, and ping ends at that error ("Destination Host Unreachable" at once,
     * the VR never asked), however long its deadline.
     */
    public boolean reaches(String fromNs, String to) throws IOException, InterruptedException {
        ok("ip", "-n", fromNs, "neigh", "flush", "all");
        return sh("ip", "netns", "exec", fromNs, "ping", "-c", "1", "-w", "5", to).exit() == 0;
    }

    /** Whether two seconds of pings get no reply. */
    public boolean cannotReach(String fromNs, String to) throws IOException, InterruptedException {
        return sh("ip", "netns", "exec", fromNs, "ping", "-c", "1", "-w", "2", to).exit() != 0;
    }

    /**
     * Lets bridged traffic of the bridge pass the host's firewall where br_netfilter sends it there
     * (Docker's FORWARD policy is DROP): a rule in DOCKER-USER, Docker's hook, removed at close.
     */
    public void allowBridged(String bridge) throws IOException, InterruptedException {
        if (!Files.exists(Path.of("/proc/sys/net/bridge/bridge-nf-call-iptables"))
                || !Files.readString(Path.of("/proc/sys/net/bridge/bridge-nf-call-iptables")).strip().equals("1")) {
            return;
        }
        String chain = sh("iptables", "-n", "-L", "DOCKER-USER").exit() == 0 ? "DOCKER-USER" : "FORWARD";
        List<String> rule = List.of(chain, "-i", bridge, "-o", bridge, "-j", "ACCEPT");
        List<String> insert = new ArrayList<>(List.of("iptables", "-I"));
        insert.addAll(rule);
        ok(insert.toArray(String[]::new));
        firewall.add(rule);
    }

    /** What the command printed, or "" when it could not run: for conditions polled with {@link #await}. */
    public static String uncheckedOk(String... argv) {
        try {
            Result r = sh(argv);
            return r.exit() == 0 ? r.out() : "";
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    public static boolean await(BooleanSupplier done, long seconds) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < end) {
            if (done.getAsBoolean()) return true;
            Thread.sleep(20);
        }
        return done.getAsBoolean();
    }

    /** What of this run is on the host: namespaces, interfaces, cgroups and processes named after the prefix. */
    public List<String> leftovers(Path runDir) throws IOException {
        List<String> left = new ArrayList<>();
        try (Stream<Path> s = Files.list(Path.of("/run/netns"))) {
            s.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(prefix)).forEach(n -> left.add("netns " + n));
        }
        try (Stream<Path> s = Files.list(Path.of("/sys/class/net"))) {
            s.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(prefix)).forEach(n -> left.add("link " + n));
        }
        for (String c : List.of("cpu", "cpuacct", "memory", "freezer", "unified")) {
            Path d = Path.of("/sys/fs/cgroup", c, "vrouter");
            if (!Files.isDirectory(d)) continue;
            try (Stream<Path> s = Files.list(d)) {
                s.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(prefix)).forEach(n -> left.add("cgroup " + c + "/" + n));
            }
        }
        ProcessHandle.allProcesses().filter(p -> p.info().commandLine().orElse("").contains(runDir.toString()))
                .forEach(p -> left.add("process " + p.pid() + " " + p.info().commandLine().orElse("")));
        if (Files.isDirectory(runDir)) {
            try (Stream<Path> s = Files.list(runDir)) {
                s.forEach(p -> left.add("file " + p));
            }
        }
        return left;
    }

    /** Removes the test hosts, so that the bridges they were on are left to the driver alone. */
    public void removeHosts() throws IOException, InterruptedException {
        for (String ns : netns) {
            sh("ip", "link", "del", "dev", ns + "x");
            sh("ip", "netns", "del", ns);
        }
        netns.clear();
    }

    @Override
    public void close() throws IOException, InterruptedException {
        removeHosts();
        for (List<String> rule : firewall) {
            List<String> delete = new ArrayList<>(List.of("iptables", "-D"));
            delete.addAll(rule);
            sh(delete.toArray(String[]::new));
        }
        for (String b : bridges) sh("ip", "link", "del", "dev", b);
    }
}
