package io.vrouter.it.netns;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vrouter.it.ServerProcess;
import io.vrouter.netns.TestHost;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableSet;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The far end of a VXLAN link follows a moved VR (docs/adr/0023-backup-restore-and-migration.md), on
 * three routers, each a vrouter server with the netns driver in a namespace of its own, their underlays
 * on one switch (203.0.113.1, .2, .3): a BIRD VR on A, linked by VXLAN to a BIRD VR on C, routes over
 * OSPF between a host on its LAN and a host behind C. The LAN is stretched to B (a switch with a port
 * on A's bridge and one on B's), as a data centre's is for a moving machine. A ping runs from the LAN's
 * host across the link every 50 ms while the VR moves from A to B: nobody tells C, yet C's end follows
 * (A tells its peer C), the ping comes back through B, and the VR and its host objects are gone from A.
 * And a VR linked by VXLAN to one on B, moved to B: B makes the two ends one peer link.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FarEndMigrationIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int VNI = 4343;
    /** B's and C's REST as A reaches them: their underlay addresses, forwarded in their namespaces to where they listen. */
    private static final int PEER_PORT = 8443;
    private static final double INTERVAL = 0.05;

    @TempDir
    static Path dir;
    TwoRouterHosts three;
    ServerProcess[] routers;
    final List<Process> forwarders = new ArrayList<>();

    @BeforeAll
    void threeRouters() throws Exception {
        three = new TwoRouterHosts(dir, 3);
        routers = three.routers;
        three.start(1);
        three.start(2);
        for (int r = 1; r <= 2; r++) {
            Process f = new ProcessBuilder("ip", "netns", "exec", three.routerNs[r], "python3", "src/test/python/tcp_forward.py",
                    "203.0.113." + (r + 1), Integer.toString(PEER_PORT), three.mgmt[r], Integer.toString(routers[r].restPort)).start();
            forwarders.add(f);
            String ready = new BufferedReader(new InputStreamReader(f.getInputStream(), StandardCharsets.UTF_8)).readLine();
            assertThat(ready).as("the forwarder to router " + r + "'s REST").isEqualTo("listening");
        }
        three.start(0, "peer.b = http://203.0.113.2:" + PEER_PORT, "peer.b.user = admin", "peer.b.password = admin",
                "peer.c = http://203.0.113.3:" + PEER_PORT, "peer.c.user = admin", "peer.c.password = admin");
    }

    @AfterAll
    void removeEverything() throws Exception {
        forwarders.forEach(Process::destroy);
        if (three != null) three.close();
    }

    private static String vr(String name, String mac, String remote, String linkAddress, String bridge, String lan) {
        return "{\"vmIndex\":1,\"vmName\":\"" + name + "\",\"vmConfigTemplate\":\"bird\",\"vmNetworkConfigTable\":["
                + "{\"vmNetworkConfigLinkType\":\"vxlan\",\"vmNetworkConfigParent\":\"underlay0\",\"vmNetworkConfigVni\":" + VNI
                + ",\"vmNetworkConfigRemote\":\"" + remote + "\",\"vmNetworkConfigAddress\":\"" + linkAddress
                + "\",\"vmNetworkConfigPrefixLength\":30,\"vmNetworkConfigPhysAddress\":\"" + mac + "1\"},"
                + "{\"vmNetworkConfigParent\":\"" + bridge + "\",\"vmNetworkConfigAddress\":\"" + lan
                + "\",\"vmNetworkConfigPrefixLength\":26,\"vmNetworkConfigPhysAddress\":\"" + mac + "2\"}]}";
    }

    /** A bridge of the test's in router r's namespace, up. */
    private void bridge(int r, String name) throws Exception {
        TestHost.ok("ip", "-n", three.routerNs[r], "link", "add", "name", name, "type", "bridge");
        TestHost.ok("ip", "-n", three.routerNs[r], "link", "set", "dev", name, "up");
    }

    /**
     * The LAN of the VR that moves, stretched over A's and B's bridges: a switch (a bridge in a namespace of
     * its own) with a port on each and a host on it, its gateway the VR's LAN address. Returns the host.
     */
    private String stretchedLan(String bridge, String address, String gateway) throws Exception {
        String p = three.host.prefix;
        String sw = p + "s";
        String lanHost = p + "p";
        for (String ns : List.of(sw, lanHost)) {
            TestHost.ok("ip", "netns", "add", ns);
            three.hosts.add(ns);
        }
        TestHost.ok("ip", "-n", sw, "link", "add", "name", "sw0", "type", "bridge");
        TestHost.ok("ip", "-n", sw, "link", "set", "dev", "sw0", "up");
        TestHost.ok("ip", "link", "add", p + "sp", "netns", sw, "type", "veth", "peer", "name", "eth0", "netns", lanHost);
        TestHost.ok("ip", "-n", sw, "link", "set", "dev", p + "sp", "master", "sw0", "up");
        for (int r = 0; r < 2; r++) {
            TestHost.ok("ip", "link", "add", p + "s" + r, "netns", sw, "type", "veth", "peer", "name", p + "t" + r, "netns",
                    three.routerNs[r]);
            TestHost.ok("ip", "-n", sw, "link", "set", "dev", p + "s" + r, "master", "sw0", "up");
            TestHost.ok("ip", "-n", three.routerNs[r], "link", "set", "dev", p + "t" + r, "master", bridge, "up");
        }
        TestHost.ok("ip", "-n", lanHost, "addr", "add", address, "dev", "eth0");
        TestHost.ok("ip", "-n", lanHost, "link", "set", "dev", "eth0", "up");
        TestHost.ok("ip", "-n", lanHost, "link", "set", "dev", "lo", "up");
        TestHost.ok("ip", "-n", lanHost, "route", "add", "default", "via", gateway);
        return lanHost;
    }

    /** A ping every 50 ms; the sequence numbers answered, as they come. */
    private record Pinger(Process process, NavigableSet<Integer> answered) implements AutoCloseable {
        static Pinger start(String fromNs, String to) throws IOException {
            Process p = new ProcessBuilder("ip", "netns", "exec", fromNs, "ping", "-n", "-i", Double.toString(INTERVAL), "-W", "1", to)
                    .redirectErrorStream(true).start();
            NavigableSet<Integer> answered = new ConcurrentSkipListSet<>();
            Thread reader = new Thread(() -> {
                Pattern reply = Pattern.compile("icmp_seq=(\\d+) ttl=");
                try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String line; (line = in.readLine()) != null; ) {
                        Matcher m = reply.matcher(line);
                        if (m.find()) answered.add(Integer.parseInt(m.group(1)));
                    }
                } catch (IOException ended) {
                    // the ping was stopped
                }
            }, "pinger");
            reader.setDaemon(true);
            reader.start();
            return new Pinger(p, answered);
        }

        /** Whether the last {@code n} answers came in a row after {@code after}: the way is back. */
        boolean answeringAgainAfter(int after, int n) {
            NavigableSet<Integer> since = answered.tailSet(after, false);
            if (since.size() < n) return false;
            int last = since.last();
            return since.subSet(last - n + 1, true, last, true).size() == n;
        }

        /** The longest run of unanswered pings between the first and last answer. */
        int longestGap() {
            int gap = 0;
            Integer previous = null;
            for (int seq : answered) {
                if (previous != null) gap = Math.max(gap, seq - previous - 1);
                previous = seq;
            }
            return gap;
        }

        int lost() {
            return answered.isEmpty() ? 0 : answered.last() - answered.first() + 1 - answered.size();
        }

        @Override
        public void close() {
            process.destroy();
        }
    }

    @Test
    void theFarEndFollowsAMovedVrAndThePingComesBackThroughTheDestination() throws Exception {
        String lanBridge = three.host.prefix + "l";
        bridge(0, lanBridge);
        bridge(1, lanBridge);
        // C's VR, the far end, to A; A's VR, with a LAN, to C.
        HttpResponse<String> far = routers[2].post("/api/v1/routers?wait=30s",
                vr("far", "02:00:5e:00:53:c", "203.0.113.1", "192.0.2.2", lanBridge, "198.51.100.1"));
        assertThat(far.statusCode()).as(far.body()).isEqualTo(201);
        HttpResponse<String> mover = routers[0].post("/api/v1/routers?wait=30s",
                vr("mover", "02:00:5e:00:53:a", "203.0.113.3", "192.0.2.1", lanBridge, "192.0.2.129"));
        assertThat(mover.statusCode()).as(mover.body()).isEqualTo(201);
        String lanHost = stretchedLan(lanBridge, "192.0.2.130/26", "192.0.2.129");
        three.hostBehind(2, lanBridge, "198.51.100.2/26", "198.51.100.1");
        for (int r : new int[] {0, 2}) {
            int router = r;
            routers[r].awaitRouter(1, v -> v.path("vmEntry").path("vmRouteEntries").asLong() >= 3
                    && v.path("vmEntry").path("vmRoutingProtocols").asText().equals("ospf"), "learned a route over OSPF on router " + router);
        }
        TestHost.Result first = TestHost.sh("ip", "netns", "exec", lanHost, "ping", "-c", "3", "-i", "0.2", "-w", "10", "198.51.100.2");
        assertThat(first.exit()).as(first.out()).isZero();

        try (Pinger ping = Pinger.start(lanHost, "198.51.100.2")) {
            assertThat(TestHost.await(() -> ping.answered.size() >= 20, 30)).as("the ping runs across the link").isTrue();
            long began = System.nanoTime();
            HttpResponse<String> moved = routers[0].post("/api/v1/routers/1/migrate?wait=2m", "{\"peer\":\"b\"}");
            long moveMs = (System.nanoTime() - began) / 1_000_000;
            assertThat(moved.statusCode()).as(moved.body()).isEqualTo(200);
            int answeredWhenMoved = ping.answered.isEmpty() ? 0 : ping.answered.last();

            // Back through B: twenty answers in a row after the move's answer (a minute at most, OSPF re-converging).
            boolean back = TestHost.await(() -> ping.answeringAgainAfter(answeredWhenMoved, 20), 60);
            System.out.printf("FarEndMigrationIT: moved A -> B in %d ms; ping every %d ms: %d lost, the longest gap %d pings (%d ms)%n",
                    moveMs, (int) (INTERVAL * 1000), ping.lost(), ping.longestGap(), (int) (ping.longestGap() * INTERVAL * 1000));
            assertThat(back).as("the ping comes back through B (answered up to seq " + ping.answered.last() + ")").isTrue();
            // A said which far end it told, on which peer, from where to where.
            JsonNode farEnds = JSON.readTree(moved.body()).path("farEnds");
            assertThat(farEnds).as(moved.body()).hasSize(1);
            assertThat(farEnds.get(0).path("toldOn").toString()).as(moved.body()).isEqualTo("[\"c\"]");
            assertThat(farEnds.get(0).path("from").asText()).isEqualTo("203.0.113.1");
            assertThat(farEnds.get(0).path("to").asText()).isEqualTo("203.0.113.2");
        }

        // C's end now points at B, as C's REST and its VXLAN device say; nobody but A told C.
        JsonNode farEnd = routers[2].router(1).path("vmNetworkConfigTable").get(0);
        assertThat(farEnd.path("vmNetworkConfigRemote").asText()).isEqualTo("203.0.113.2");
        assertThat(TestHost.ok("ip", "-n", three.vrPrefix[2] + "1", "-d", "link", "show", "dev", "eth1"))
                .contains("vxlan id " + VNI, "remote 203.0.113.2");
        // The VR runs on B and is gone from A, its namespace and every device of it.
        assertThat(ServerProcess.operState(routers[1].router(1))).isEqualTo("running");
        assertThat(routers[0].get("/api/v1/routers/1").statusCode()).isEqualTo(404);
        assertThat(TestHost.ok("ip", "netns", "list")).doesNotContain(three.vrPrefix[0] + "1").contains(three.vrPrefix[1] + "1");
        assertThat(TestHost.ok("ip", "-n", three.routerNs[0], "link", "show")).doesNotContain(three.vrPrefix[0]);
    }

    @Test
    void aFarEndOnTheDestinationBecomesAPeerLinkThere() throws Exception {
        // left on A and right on B, linked by VXLAN (no routing: a ping across the link's own /30)
        for (int r = 0; r < 2; r++) {
            HttpResponse<String> made = routers[r].post("/api/v1/routers?wait=30s", "{\"vmIndex\":" + (5 + r) + ",\"vmName\":\""
                    + (r == 0 ? "left" : "right") + "\",\"vmConfigTemplate\":\"kernel\",\"vmNetworkConfigTable\":["
                    + "{\"vmNetworkConfigLinkType\":\"vxlan\",\"vmNetworkConfigParent\":\"underlay0\",\"vmNetworkConfigVni\":4444,"
                    + "\"vmNetworkConfigRemote\":\"203.0.113." + (2 - r) + "\",\"vmNetworkConfigAddress\":\"192.0.2." + (9 + r)
                    + "\",\"vmNetworkConfigPrefixLength\":30,\"vmNetworkConfigPhysAddress\":\"02:00:5e:00:53:5" + r + "\"}]}");
            assertThat(made.statusCode()).as(made.body()).isEqualTo(201);
        }
        String right = three.vrPrefix[1] + "6";
        TestHost.Result first = TestHost.sh("ip", "netns", "exec", right, "ping", "-c", "3", "-i", "0.2", "-w", "10", "192.0.2.9");
        assertThat(first.exit()).as(first.out()).isZero();

        try (Pinger ping = Pinger.start(right, "192.0.2.9")) {
            assertThat(TestHost.await(() -> ping.answered.size() >= 20, 30)).as("the ping runs across the link").isTrue();
            HttpResponse<String> moved = routers[0].post("/api/v1/routers/5/migrate?wait=2m", "{\"peer\":\"b\"}");
            assertThat(moved.statusCode()).as(moved.body()).isEqualTo(200);
            int answeredWhenMoved = ping.answered.last();
            boolean back = TestHost.await(() -> ping.answeringAgainAfter(answeredWhenMoved, 20), 60);
            System.out.printf("FarEndMigrationIT: far end on the destination: ping every %d ms: %d lost, the longest gap %d pings (%d ms)%n",
                    (int) (INTERVAL * 1000), ping.lost(), ping.longestGap(), (int) (ping.longestGap() * INTERVAL * 1000));
            assertThat(back).as("the ping comes back over the peer link on B (answered up to seq " + ping.answered.last() + ")").isTrue();
            JsonNode farEnd = JSON.readTree(moved.body()).path("farEnds").get(0);
            assertThat(farEnd.path("joined").asText()).as(moved.body()).startsWith("a peer link with interface 1 of VR right");
        }
        // Both ends are a peer link on B now: a veth between the two namespaces, no VXLAN device.
        for (int i : new int[] {5, 6}) {
            JsonNode end = routers[1].router(i).path("vmNetworkConfigTable").get(0);
            assertThat(end.path("vmNetworkConfigLinkType").asText()).isEqualTo("peer");
            assertThat(end.path("vmNetworkConfigPeerRouter").asInt()).isEqualTo(11 - i);
            assertThat(TestHost.ok("ip", "-n", three.vrPrefix[1] + i, "-d", "link", "show", "dev", "eth1")).contains("veth")
                    .doesNotContain("vxlan");
        }
        assertThat(routers[0].get("/api/v1/routers/5").statusCode()).isEqualTo(404);
        assertThat(TestHost.ok("ip", "netns", "list")).doesNotContain(three.vrPrefix[0] + "5");
    }
}
