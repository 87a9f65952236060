package io.vrouter.it.netns;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vrouter.it.ServerProcess;
import io.vrouter.netns.TestHost;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Two routers on one machine, for the tests that need two: each a network namespace of its own (as if
 * on its own router) with a management veth from this host (198.51.100.250/.254 here, .249/.253 on the
 * router), the two joined by an underlay veth ({@code underlay0}, 203.0.113.1 and .2), each running a
 * vrouter server with the netns driver ({@link #start}) under its own VR prefix and data directory.
 * Or three (router C: 198.51.100.246 here, .245 on it), their underlays then ports of a switch, a bridge
 * in a namespace of its own (203.0.113.1, .2 and .3/24).
 */
final class TwoRouterHosts implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    final Path dir;
    final TestHost host = new TestHost();
    private static final String[] SIDES = {"a", "b", "c"};
    /** Router A, B (and C): their namespaces, management addresses (this host's end +1), servers and prefixes. */
    final String[] routerNs;
    final String[] mgmt;
    final ServerProcess[] routers;
    final String[] vrPrefix;
    /** The host namespaces made behind the routers' bridges. */
    final List<String> hosts = new ArrayList<>();
    /** The underlay switch's namespace, when three routers share it. */
    private String underlaySwitch;

    TwoRouterHosts(Path dir) throws Exception {
        this(dir, 2);
    }

    /** Two or three routers. */
    TwoRouterHosts(Path dir, int count) throws Exception {
        this.dir = dir;
        routerNs = new String[count];
        mgmt = java.util.Arrays.copyOf(new String[] {"198.51.100.249", "198.51.100.253", "198.51.100.245"}, count);
        routers = new ServerProcess[count];
        vrPrefix = new String[count];
        String p = host.prefix;
        for (int r = 0; r < count; r++) {
            String side = SIDES[r];
            routerNs[r] = p + "r" + side;
            vrPrefix[r] = p + side;
            TestHost.ok("ip", "netns", "add", routerNs[r]);
            TestHost.ok("ip", "-n", routerNs[r], "link", "set", "dev", "lo", "up");
            // Management: a point-to-point veth from this host, .250/.254/.246 here, .249/.253/.245 on the router.
            String here = p + "m" + side;
            TestHost.ok("ip", "link", "add", here, "type", "veth", "peer", "name", "mgmt0", "netns", routerNs[r]);
            TestHost.ok("ip", "addr", "add", new String[] {"198.51.100.250", "198.51.100.254", "198.51.100.246"}[r] + "/30", "dev", here);
            TestHost.ok("ip", "link", "set", "dev", here, "up");
            TestHost.ok("ip", "-n", routerNs[r], "addr", "add", mgmt[r] + "/30", "dev", "mgmt0");
            TestHost.ok("ip", "-n", routerNs[r], "link", "set", "dev", "mgmt0", "up");
        }
        if (count == 2) {
            // The underlay between the routers.
            TestHost.ok("ip", "link", "add", p + "ua", "netns", routerNs[0], "type", "veth", "peer", "name", p + "ub", "netns", routerNs[1]);
        } else {
            // A switch of its own namespace, so no host firewall sees the underlay's frames; a port per router.
            underlaySwitch = p + "u";
            TestHost.ok("ip", "netns", "add", underlaySwitch);
            TestHost.ok("ip", "-n", underlaySwitch, "link", "add", "name", "sw0", "type", "bridge");
            TestHost.ok("ip", "-n", underlaySwitch, "link", "set", "dev", "sw0", "up");
            for (int r = 0; r < count; r++) {
                TestHost.ok("ip", "link", "add", p + "u" + SIDES[r], "netns", routerNs[r], "type", "veth", "peer", "name", "port" + r,
                        "netns", underlaySwitch);
                TestHost.ok("ip", "-n", underlaySwitch, "link", "set", "dev", "port" + r, "master", "sw0", "up");
            }
        }
        for (int r = 0; r < count; r++) {
            TestHost.ok("ip", "-n", routerNs[r], "link", "set", "dev", p + "u" + SIDES[r], "name", "underlay0");
            TestHost.ok("ip", "-n", routerNs[r], "addr", "add", "203.0.113." + (r + 1) + (count == 2 ? "/30" : "/24"), "dev", "underlay0");
            TestHost.ok("ip", "-n", routerNs[r], "link", "set", "dev", "underlay0", "up");
        }
    }

    /** Starts router {@code r}'s server: user admin, SNMP communities public/private, and the settings given. */
    ServerProcess start(int r, String... settings) throws Exception {
        Path conf = dir.resolve("router-" + r + ".properties");
        List<String> lines = new ArrayList<>(List.of("netns.prefix = " + vrPrefix[r], "netns.run-dir = " + dir.resolve("run-" + r),
                "netns.refresh-delay = 50ms", "user.admin = operator:admin", "snmp.community.read = public",
                "snmp.community.write = private"));
        lines.addAll(List.of(settings));
        Files.writeString(conf, String.join("\n", lines) + "\n");
        routers[r] = ServerProcess.startIn(routerNs[r], mgmt[r], dir.resolve("router-" + r), "--driver", "netns",
                "--config", conf.toString(), "--gnmi-port", "off");
        return routers[r];
    }

    /** A host namespace on the router's bridge, its address and default route given. */
    String hostBehind(int r, String bridge, String address, String gateway) throws Exception {
        String ns = host.prefix + "h" + (hosts.size() + 1);
        TestHost.ok("ip", "netns", "add", ns);
        hosts.add(ns);
        TestHost.ok("ip", "link", "add", ns + "x", "netns", routerNs[r], "type", "veth", "peer", "name", "eth0", "netns", ns);
        TestHost.ok("ip", "-n", routerNs[r], "link", "set", "dev", ns + "x", "master", bridge, "up");
        TestHost.ok("ip", "-n", ns, "addr", "add", address, "dev", "eth0");
        TestHost.ok("ip", "-n", ns, "link", "set", "dev", "eth0", "up");
        TestHost.ok("ip", "-n", ns, "link", "set", "dev", "lo", "up");
        TestHost.ok("ip", "-n", ns, "route", "add", "default", "via", gateway);
        return ns;
    }

    /** Removes every VR, stops the servers, removes the namespaces, and checks that nothing of the run is left. */
    @Override
    public void close() throws Exception {
        try {
            for (String ns : hosts) TestHost.sh("ip", "netns", "del", ns);
            for (ServerProcess r : routers) {
                if (r == null) continue;
                for (JsonNode vr : JSON.readTree(r.get("/api/v1/routers").body()).path("virtualRouter")) {
                    r.delete("/api/v1/routers/" + vr.path("vmIndex").asInt() + "?wait=30s");
                }
                r.close();
            }
        } finally {
            // The management veths go with their namespaces, but only once nothing holds those: delete them now.
            for (int r = 0; r < routerNs.length; r++) TestHost.sh("ip", "link", "del", "dev", host.prefix + "m" + SIDES[r]);
            for (String ns : routerNs) if (ns != null) TestHost.sh("ip", "netns", "del", ns);
            if (underlaySwitch != null) TestHost.sh("ip", "netns", "del", underlaySwitch);
            host.close();
        }
        for (int r = 0; r < routerNs.length; r++) {
            assertThat(host.leftovers(dir.resolve("run-" + r))).as("left on the host").isEmpty();
        }
    }
}
