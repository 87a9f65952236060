package io.vrouter.netns;

import io.vrouter.core.driver.DriverException;
import java.io.File;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The routing suite of the {@code bird} template: one BIRD 2 daemon per VR, inside its namespace,
 * with its own configuration, control socket and pid file in the VR's run directory
 * (docs/adr/0003-bird-as-the-routing-suite.md says why BIRD). The driver reads its RIB over the
 * control socket, in BIRD's own line protocol, without starting a process.
 */
final class Bird {
    static final String TEMPLATE = "bird";
    static final String CONF = "bird.conf";
    static final String SOCKET = "bird.ctl";
    static final String PID = "bird.pid";
    private static final Pattern ROUTE_COUNT = Pattern.compile("Total: (\\d+) of (\\d+) routes");
    private static final Pattern ROUTER_ID = Pattern.compile("Router ID is (\\S+)");
    /** BIRD protocols that carry no routing protocol of their own. */
    private static final List<String> PLUMBING = List.of("device", "direct", "kernel", "pipe");

    /** What the daemon reports: routes in its tables, the routing protocols that are up, its router id. */
    record Rib(long routes, List<String> protocols, String routerId) {
    }

    private final String command;
    private final Commands commands;
    private final Duration timeout;

    Bird(String command, Commands commands, Duration timeout) {
        this.command = command;
        this.commands = commands;
        this.timeout = timeout;
    }

    /** Whether the daemon is installed: an absolute path that exists, or a name found on PATH. */
    boolean installed() {
        if (command.contains("/")) return Files.isExecutable(Path.of(command));
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/sbin:/usr/bin:/sbin:/bin").split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(dir, command))) return true;
        }
        return false;
    }

    /**
     * Writes the VR's configuration unless it has one already (the operator may have edited it): OSPF
     * (v2 and v3) in area 0 on every interface of the VR, learned routes into the namespace's kernel
     * table.
     */
    static void writeConfig(Path dir, int vmIndex, String routerId) throws IOException {
        Path conf = dir.resolve(CONF);
        if (Files.exists(conf)) return;
        String text = String.join("\n",
                "# BIRD 2 of vrouter VR " + vmIndex + ". Edit it, then: birdc -s " + dir.resolve(SOCKET) + " configure",
                "router id " + routerId + ";",
                "protocol device { scan time 10; }",
                "protocol kernel kernel4 { ipv4 { export where source != RTS_DEVICE; }; }",
                "protocol kernel kernel6 { ipv6 { export where source != RTS_DEVICE; }; }",
                "protocol ospf v2 ospf4 { ipv4 { import all; export none; }; area 0 { interface \"eth*\" { hello 1; wait 2; dead 4; }; }; }",
                "protocol ospf v3 ospf6 { ipv6 { import all; export none; }; area 0 { interface \"eth*\" { hello 1; wait 2; dead 4; }; }; }",
                "");
        Path tmp = dir.resolve(CONF + ".tmp");
        Files.writeString(tmp, text, StandardCharsets.US_ASCII);
        Files.move(tmp, conf, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * Starts the daemon in the namespace and returns its pid. BIRD forks into the background and
     * writes its pid file; both the launcher and the daemon are put in the VR's cgroup, so that the
     * daemon is in it whichever side of the fork it was on when the launcher joined.
     */
    long start(String netns, Path dir, Cgroups cgroups, String cgroup) throws DriverException {
        Path pidFile = dir.resolve(PID);
        try {
            Files.deleteIfExists(pidFile);
            Files.deleteIfExists(dir.resolve(SOCKET));
        } catch (IOException e) {
            throw new DriverException(Commands.FAILED, "cannot clear " + dir + ": " + e.getMessage(), e);
        }
        commands.run(List.of(commands.ipCommand(), "netns", "exec", netns, command, "-c", dir.resolve(CONF).toString(),
                "-s", dir.resolve(SOCKET).toString(), "-P", pidFile.toString()), null, pid -> {
                    try {
                        cgroups.join(cgroup, pid);
                    } catch (IOException raced) {
                        // The launcher is gone already: the daemon joins below.
                    }
                });
        long deadline = System.nanoTime() + timeout.toNanos();
        OptionalLong pid = pid(dir);
        while (pid.isEmpty() && System.nanoTime() < deadline) {
            Cgroups.sleep(5);
            pid = pid(dir);
        }
        if (pid.isEmpty()) throw new DriverException("DAEMON_FAILED", "bird started but wrote no pid file in " + timeout.toMillis() + " ms");
        try {
            cgroups.join(cgroup, pid.getAsLong());
        } catch (IOException e) {
            throw new DriverException("DAEMON_FAILED", "bird (pid " + pid.getAsLong() + ") exited at once or cannot join its cgroup: " + e.getMessage(), e);
        }
        return pid.getAsLong();
    }

    /** The daemon's pid when it runs: its pid file names a live process called bird. */
    static OptionalLong pid(Path dir) {
        try {
            String s = Files.readString(dir.resolve(PID)).strip();
            if (s.isEmpty()) return OptionalLong.empty();
            long pid = Long.parseLong(s);
            return Procs.comm(pid).equals("bird") && Procs.alive(pid) ? OptionalLong.of(pid) : OptionalLong.empty();
        } catch (IOException | NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    /** Asks the daemon over its control socket what its RIB holds; empty when it does not answer in time. */
    java.util.Optional<Rib> rib(Path dir) {
        try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            ch.connect(UnixDomainSocketAddress.of(dir.resolve(SOCKET)));
            ch.configureBlocking(false);
            try (Selector sel = Selector.open()) {
                ch.register(sel, SelectionKey.OP_READ);
                Reply r = new Reply(ch, sel, System.nanoTime() + timeout.toNanos());
                r.read(); // the greeting
                String count = r.ask("show route count");
                String protocols = r.ask("show protocols");
                String status = r.ask("show status");
                Matcher c = ROUTE_COUNT.matcher(count);
                Matcher id = ROUTER_ID.matcher(status);
                return java.util.Optional.of(new Rib(c.find() ? Long.parseLong(c.group(2)) : 0, upProtocols(protocols),
                        id.find() ? id.group(1) : null));
            }
        } catch (IOException | RuntimeException e) {
            return java.util.Optional.empty();
        }
    }

    /** From {@code show protocols}: the protocol kinds that are up, less BIRD's plumbing, lower case. */
    static List<String> upProtocols(String table) {
        TreeSet<String> up = new TreeSet<>();
        for (String line : table.split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 4 || f[0].equals("Name")) continue;
            String proto = f[1].toLowerCase(Locale.ROOT);
            if (f[3].equals("up") && !PLUMBING.contains(proto)) up.add(proto);
        }
        return new ArrayList<>(up);
    }

    /** BIRD's replies: lines {@code CODE-text} that go on, and one {@code CODE text} that ends the reply. */
    private static final class Reply {
        private final SocketChannel ch;
        private final Selector sel;
        private final long deadline;
        private final ByteBuffer buf = ByteBuffer.allocate(8192);
        private final StringBuilder pending = new StringBuilder();

        Reply(SocketChannel ch, Selector sel, long deadline) {
            this.ch = ch;
            this.sel = sel;
            this.deadline = deadline;
        }

        String ask(String command) throws IOException {
            ByteBuffer out = ByteBuffer.wrap((command + "\n").getBytes(StandardCharsets.US_ASCII));
            while (out.hasRemaining()) ch.write(out);
            return read();
        }

        /** Reads one whole reply; returns its text, codes stripped. */
        String read() throws IOException {
            StringBuilder text = new StringBuilder();
            while (true) {
                int nl = pending.indexOf("\n");
                if (nl < 0) {
                    fill();
                    continue;
                }
                String line = pending.substring(0, nl);
                pending.delete(0, nl + 1);
                boolean coded = line.length() >= 5 && Character.isDigit(line.charAt(0)) && Character.isDigit(line.charAt(3));
                text.append(coded ? line.substring(5) : line.substring(Math.min(1, line.length()))).append('\n');
                if (coded && line.charAt(4) == ' ') {
                    if (line.charAt(0) == '8' || line.charAt(0) == '9') throw new IOException("bird: " + line);
                    return text.toString();
                }
            }
        }

        private void fill() throws IOException {
            long left = (deadline - System.nanoTime()) / 1_000_000;
            if (left <= 0 || sel.select(left) == 0) throw new IOException("bird did not answer in time");
            sel.selectedKeys().clear();
            buf.clear();
            if (ch.read(buf) < 0) throw new IOException("bird closed its control socket");
            buf.flip();
            pending.append(StandardCharsets.US_ASCII.decode(buf));
        }
    }
}
