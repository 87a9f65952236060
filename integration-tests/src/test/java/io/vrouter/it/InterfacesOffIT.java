package io.vrouter.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every interface can be turned off, and one that is off costs nothing: the packaged server started
 * with one of them off (bin/vrouter, its classes logged with {@code -Xlog:class+load}) listens on
 * the others' ports alone, they answer their clients, and no class of the one that is off (its
 * module's but the small provider that names it, its library's) was loaded, none of its threads started.
 */
class InterfacesOffIT {
    @TempDir
    Path dir;

    /** An interface: the option that turns it off, the prefixes of its classes, the names of its threads. */
    enum Part {
        REST("--rest-port", List.of("io.vrouter.api.", "org.glassfish.jersey.", "sun.net.httpserver."),
                List.of("HTTP-Dispatcher", "rest-worker")),
        CONSOLE("--console", List.of("io.vrouter.api.console."), List.of()),
        SNMP("--snmp-port", List.of("io.vrouter.snmp.", "org.snmp4j."), List.of("DefaultUDPTransportMapping")),
        NETCONF("--netconf-port", List.of("io.vrouter.netconf.", "org.apache.sshd."), List.of("netconf-", "sshd-")),
        GNMI("--gnmi-port", List.of("io.vrouter.gnmi.", "io.grpc.", "com.google.protobuf."), List.of("grpc-", "gnmi-"));

        final String option;
        final List<String> classes;
        final List<String> threads;

        Part(String option, List<String> classes, List<String> threads) {
            this.option = option;
            this.classes = classes;
            this.threads = threads;
        }

        /** Its classes among those loaded; the provider that names it (a few hundred bytes) is not one. */
        List<String> classesIn(List<String> loaded) {
            return loaded.stream().filter(c -> classes.stream().anyMatch(c::startsWith))
                    .filter(c -> !c.endsWith("InterfaceProvider")).toList();
        }

        List<String> threadsIn(List<String> running) {
            return running.stream().filter(t -> threads.stream().anyMatch(t::startsWith)).toList();
        }
    }

    /** What a server showed: the classes it loaded, its threads and the ports it listens on. */
    record Seen(ServerProcess server, List<String> classes, List<String> threads, Set<String> listening) {
    }

    @Test
    void withEveryInterfaceOnEachHasItsClassesThreadsAndPort() throws Exception {
        // What the tests below look for exists: each pattern finds something in a server with everything on.
        try (ServerProcess server = start(null)) {
            Seen seen = look(server);
            for (Part p : Part.values()) {
                assertThat(p.classesIn(seen.classes())).as(p + "'s classes").isNotEmpty();
                if (!p.threads.isEmpty()) assertThat(p.threadsIn(seen.threads())).as(p + "'s threads").isNotEmpty();
            }
            assertThat(seen.listening()).isEqualTo(ports(server, EnumSet.allOf(Part.class)));
            for (Part p : Part.values()) assertWorks(server, p);
        }
    }

    @ParameterizedTest
    @EnumSource(Part.class)
    void anInterfaceTurnedOffLoadsNothingStartsNothingAndListensNowhere(Part off) throws Exception {
        try (ServerProcess server = start(off)) {
            Seen seen = look(server);
            assertThat(off.classesIn(seen.classes())).as("classes of " + off + ", which is off").isEmpty();
            assertThat(off.threadsIn(seen.threads())).as("threads of " + off + ", which is off").isEmpty();
            EnumSet<Part> on = EnumSet.complementOf(EnumSet.of(off));
            if (off == Part.REST) on.remove(Part.CONSOLE); // the console is served on REST's port
            assertThat(seen.listening()).isEqualTo(ports(server, on));
            for (Part p : on) assertWorks(server, p);
            if (off == Part.CONSOLE) assertThat(server.get("/").statusCode()).isEqualTo(404);
        }
    }

    private ServerProcess start(Part off) throws Exception {
        Path d = dir.resolve(off == null ? "all" : off.name().toLowerCase());
        Files.createDirectories(d);
        Map<String, String> env = Map.of("JAVA_OPTS", "-Xlog:class+load=info:file=" + d.resolve("classes.log"));
        return off == null ? ServerProcess.startWithEnv(env, d) : ServerProcess.startWithEnv(env, d, off.option, "off");
    }

    /** Read once the server is ready: every interface has started by then (REST last). */
    private static Seen look(ServerProcess server) throws Exception {
        List<String> classes = new ArrayList<>();
        // "[0.123s][info][class,load] io.vrouter.snmp.SnmpInterface source: jar:file:..."
        for (String line : Files.readAllLines(server.dir.resolve("classes.log"))) {
            String[] fields = line.substring(line.lastIndexOf(']') + 1).trim().split(" ");
            if (!fields[0].isEmpty()) classes.add(fields[0]);
        }
        ServerProcess.Result dump = ServerProcess.run(List.of("jcmd", Long.toString(server.pid()), "Thread.print"));
        assertThat(dump.exit()).as(dump.toString()).isZero();
        List<String> threads = dump.out().lines().filter(l -> l.startsWith("\""))
                .map(l -> l.substring(1, l.indexOf('"', 1))).toList();
        ServerProcess.Result ss = ServerProcess.run(List.of("ss", "-H", "-l", "-n", "-t", "-u", "-p"));
        Set<String> listening = ss.out().lines().filter(l -> l.contains("pid=" + server.pid() + ","))
                .map(l -> l.split("\\s+")[0] + ":" + l.split("\\s+")[4].replaceAll(".*:", ""))
                .collect(Collectors.toCollection(TreeSet::new));
        return new Seen(server, classes, threads, listening);
    }

    /** The sockets these interfaces listen on, as "tcp:PORT" and "udp:PORT". */
    private static Set<String> ports(ServerProcess server, Set<Part> on) {
        Set<String> ports = new TreeSet<>();
        if (on.contains(Part.REST)) ports.add("tcp:" + server.restPort);
        if (on.contains(Part.SNMP)) ports.add("udp:" + server.snmpPort);
        if (on.contains(Part.NETCONF)) ports.add("tcp:" + server.netconfPort);
        if (on.contains(Part.GNMI)) ports.add("tcp:" + server.gnmiPort);
        return ports;
    }

    /** Each interface answers its own client. */
    private static void assertWorks(ServerProcess server, Part p) throws Exception {
        switch (p) {
            case REST -> assertThat(server.get("/api/v1/routers").statusCode()).isEqualTo(200);
            case CONSOLE -> assertThat(server.get("/").body()).contains("<html");
            case SNMP -> {
                ServerProcess.Result r = ServerProcess.run(List.of("snmpget", "-v2c", "-c", "public", "-t", "5", "-r", "1",
                        "127.0.0.1:" + server.snmpPort, "1.3.6.1.2.1.1.1.0"));
                assertThat(r.out()).as(r.toString()).contains("vrouter");
            }
            case NETCONF -> {
                ServerProcess.Result r = ServerProcess.run(List.of("python3", "-c", "import sys\n"
                        + "from ncclient import manager\n"
                        + "with manager.connect(host='127.0.0.1', port=int(sys.argv[1]), username='admin', password='admin',"
                        + " hostkey_verify=False, allow_agent=False, look_for_keys=False, timeout=30) as m:\n"
                        + "    print('session', m.session_id)\n", Integer.toString(server.netconfPort)));
                assertThat(r.out()).as(r.toString()).startsWith("session ");
            }
            case GNMI -> {
                ServerProcess.Result r = ServerProcess.run(List.of("env", "GNMI_USER=admin", "GNMI_PASS=admin",
                        "/opt/vrouter-go/bin/gnmi_cli", "-address", "127.0.0.1:" + server.gnmiPort, "-insecure",
                        "-with_user_pass", "-timeout", "30s", "-capabilities"));
                assertThat(r.out()).as(r.toString()).contains("NEW-VMM-MIB");
            }
        }
    }
}
