package io.vrouter.it.netns;

import static io.vrouter.it.ServerProcess.operState;
import static io.vrouter.it.snmp.NewVmmOids.*;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vrouter.it.HeldIp;
import io.vrouter.it.ServerProcess;
import io.vrouter.netns.TestHost;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged server with {@code --driver netns} on this host's real kernel (as root): VRs made
 * over REST, SNMP and NETCONF forward a ping between two host namespaces, stop forwarding when
 * stopped, count the traffic alike on every interface; BIRD VRs learn each other's routes over
 * OSPF; a kill -9 mid-provisioning and a namespace deleted behind vrouter's back are handled; and
 * nothing of the run is left on the host afterwards.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NetnsDriverIT {
    static final ObjectMapper JSON = new ObjectMapper();
    /** vmNetworkConfigEntry and vmNetworkEntry columns. */
    static final String NET_CONFIG = MIB + ".1.13.1.";
    static final String NET = MIB + ".1.8.1.";

    @TempDir
    static Path dir;
    Path hold;
    Path held;
    TestHost host;
    Path runDir;
    ServerProcess server;

    @BeforeAll
    void start() throws Exception {
        host = new TestHost();
        runDir = dir.resolve("run");
        hold = dir.resolve("hold-ip-batches");
        held = dir.resolve("an-ip-batch-waits");
        // ip, as the driver runs it: while the file HOLD exists, a batch waits (and says so in HELD), so
        // that a kill -9 lands in the middle of provisioning; it does nothing once its server is gone.
        Path ip = HeldIp.write(dir, "*\" -batch \"*", hold, held);
        Path conf = dir.resolve("netns.properties");
        Files.writeString(conf, String.join("\n", "netns.prefix = " + host.prefix, "netns.run-dir = " + runDir,
                "netns.resync-interval = 1s", "netns.refresh-delay = 50ms", "netns.ip = " + ip, ""));
        server = ServerProcess.start(dir.resolve("server"), "--driver", "netns", "--config", conf.toString());
    }

    @AfterEach
    void removeEverything() throws Exception {
        host.removeHosts();
        for (JsonNode vr : JSON.readTree(server.get("/api/v1/routers").body()).path("virtualRouter")) {
            HttpResponse<String> r = server.delete("/api/v1/routers/" + vr.path("vmIndex").asInt() + "?wait=30s");
            assertThat(r.statusCode()).as(r.body()).isEqualTo(204);
        }
        assertThat(host.leftovers(runDir)).as("left on the host").isEmpty();
    }

    @AfterAll
    void stop() throws Exception {
        try {
            if (server != null) server.close();
        } finally {
            host.close();
        }
        assertThat(host.leftovers(runDir)).as("left on the host").isEmpty();
    }

    // ---------------------------------------------------------------- helpers

    private ServerProcess.Result snmp(String tool, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(tool, "-v2c", "-c", tool.equals("snmpset") ? "private" : "public",
                "-On", "-Oq", "-t", "8", "-r", "0", "udp:127.0.0.1:" + server.snmpPort));
        cmd.addAll(List.of(args));
        return ServerProcess.run(cmd);
    }

    private JsonNode netconf(String scenario, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("python3", "src/test/python/netconf_scenarios.py", scenario,
                "--port", Integer.toString(server.netconfPort)));
        cmd.addAll(List.of(args));
        ServerProcess.Result r = ServerProcess.run(cmd);
        assertThat(r.exit()).as(r.toString()).isZero();
        String[] lines = r.out().strip().split("\n");
        return JSON.readTree(lines[lines.length - 1]);
    }

    /** vmNetworkTable's counters, columns 6 to 13: traffic, errors and discards, read from the host. */
    private static final List<String> COUNTERS = List.of("vmNetworkInOctets", "vmNetworkInPkts", "vmNetworkOutOctets",
            "vmNetworkOutPkts", "vmNetworkInErrors", "vmNetworkOutErrors", "vmNetworkInDiscards", "vmNetworkOutDiscards");
    private static final int FIRST_COUNTER = 6;

    /** The counters of every interface of the VRs, as REST shows them: "vmIndex.n.column" to value. */
    private Map<String, Long> restCounters(int... vmIndices) throws Exception {
        Map<String, Long> out = new TreeMap<>();
        for (int i : vmIndices) {
            for (JsonNode n : server.router(i).path("vmNetworkTable")) {
                String k = i + "." + n.path("vmNetworkIndex").asInt() + ".";
                for (int c = 0; c < COUNTERS.size(); c++) out.put(k + (FIRST_COUNTER + c), n.path(COUNTERS.get(c)).asLong(-1));
            }
        }
        return out;
    }

    /** The same counters as an SNMP walk of vmNetworkTable's columns 6 to 13 shows them. */
    private Map<String, Long> snmpCounters() throws Exception {
        Map<String, Long> out = new TreeMap<>();
        for (int column = FIRST_COUNTER; column < FIRST_COUNTER + COUNTERS.size(); column++) {
            ServerProcess.Result r = snmp("snmpbulkwalk", NET + column);
            assertThat(r.exit()).as(r.toString()).isZero();
            for (String line : r.out().strip().split("\n")) {
                String[] f = line.trim().split(" ");
                String oid = f[0].substring(("." + NET + column + ".").length());
                out.put(oid + "." + column, Long.parseLong(f[f.length - 1]));
            }
        }
        return out;
    }

    /** The same counters as a NETCONF get of vmNetworkTable shows them. */
    private Map<String, Long> netconfCounters() throws Exception {
        Map<String, Long> out = new TreeMap<>();
        for (JsonNode e : netconf("network_table").path("entries")) {
            String k = e.path("vmIndex").asText() + "." + e.path("vmNetworkIndex").asText() + ".";
            for (int c = 0; c < COUNTERS.size(); c++) out.put(k + (FIRST_COUNTER + c), e.path(COUNTERS.get(c)).asLong(-1));
        }
        return out;
    }

    // ---------------------------------------------------------------- tests

    @Test
    void twoVrsMadeOverRestSnmpAndNetconfForwardAPingThatStopsWhenOneStops() throws Exception {
        String a = host.bridge("a");
        String m = host.bridge("m");
        String b = host.bridge("b");

        // VR 1 over REST, with both its interfaces.
        HttpResponse<String> created = server.post("/api/v1/routers?wait=30s", "{\"vmIndex\":1,\"vmName\":\"left\","
                + "\"vmNetworkConfigTable\":[{\"vmNetworkConfigParent\":\"" + a + "\",\"vmNetworkConfigAddress\":\"192.0.2.1\",\"vmNetworkConfigPrefixLength\":25},"
                + "{\"vmNetworkConfigParent\":\"" + m + "\",\"vmNetworkConfigAddress\":\"203.0.113.1\",\"vmNetworkConfigPrefixLength\":29}]}");
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        // VR 2 over SNMP: the VR and its first interface in one createAndGo.
        ServerProcess.Result set = snmp("snmpset", ROW_STATUS + 2, "i", "4", NAME + 2, "s", "right",
                NET_CONFIG + "7.2.1", "i", "4", NET_CONFIG + "2.2.1", "s", m, NET_CONFIG + "4.2.1", "i", "1",
                NET_CONFIG + "5.2.1", "x", "CB007102", NET_CONFIG + "6.2.1", "u", "29");
        assertThat(set.exit()).as(set.toString()).isZero();
        server.awaitRouter(2, v -> operState(v).equals("running"), "ran");
        // Its second interface over NETCONF.
        JsonNode added = netconf("add_interface", "--index", "2", "--net-index", "2", "--parent", b,
                "--address", "198.51.100.1", "--prefix", "25");
        assertThat(added.path("ok").asBoolean()).as(added.toString()).isTrue();
        server.awaitRouter(2, v -> v.path("vmNetworkTable").size() == 2 && v.path("vmNetworkTable").get(1).path("vmNetworkIfIndex").asInt() > 0,
                "showed its second interface");

        // Each host-side interface is the one vmNetworkIfIndex names.
        JsonNode left = server.router(1);
        assertThat(left.path("vmNetworkTable").get(0).path("vmNetworkIfIndex").asInt()).isEqualTo(
                Integer.parseInt(Files.readString(Path.of("/sys/class/net", host.prefix + "1-1", "ifindex")).strip()));
        assertThat(left.path("vmNetworkTable").get(1).path("vmNetworkParent").asText()).isEqualTo(m);

        // The kernel template routes statically: the operator adds the routes in the namespaces.
        TestHost.ok("ip", "-n", host.prefix + "1", "route", "add", "198.51.100.0/25", "via", "203.0.113.2");
        TestHost.ok("ip", "-n", host.prefix + "2", "route", "add", "192.0.2.0/25", "via", "203.0.113.1");
        for (String br : List.of(a, m, b)) host.allowBridged(br);
        String h1 = host.hostOn(a, "192.0.2.10/25", "192.0.2.1");
        host.hostOn(b, "198.51.100.10/25", "198.51.100.1");

        Map<String, Long> before = restCounters(1, 2);
        TestHost.Result ping = TestHost.sh("ip", "netns", "exec", h1, "ping", "-c", "3", "-i", "0.2", "-w", "5", "198.51.100.10");
        assertThat(ping.exit()).as(ping.out()).isZero();
        assertThat(ping.out()).as("two routers on the way").contains("ttl=62");

        // Stopped over REST, VR 2 forwards nothing; started, it forwards again (its routes kept).
        assertThat(server.post("/api/v1/routers/2/stop?wait=30s", "").statusCode()).isEqualTo(200);
        assertThat(host.cannotReach(h1, "198.51.100.10")).as("ping through a stopped VR").isTrue();
        assertThat(server.post("/api/v1/routers/2/start?wait=30s", "").statusCode()).isEqualTo(200);
        assertThat(host.reaches(h1, "198.51.100.10")).as("ping after the start").isTrue();

        // The counters grew with the pings, and read alike over REST, SNMP and NETCONF.
        Map<String, Long> viaRest = null;
        Map<String, Long> viaSnmp = null;
        Map<String, Long> viaNetconf = null;
        // Three reads a second or more apart agree once no packet crosses between them: the hosts' IPv6
        // router solicitations and MLD reports go on for some seconds after their links come up.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        do {
            viaRest = restCounters(1, 2);
            viaSnmp = snmpCounters();
            viaNetconf = netconfCounters();
            if (viaRest.equals(viaSnmp) && viaRest.equals(viaNetconf)) break;
            Thread.sleep(300);
        } while (System.nanoTime() < deadline);
        assertThat(viaSnmp).as("SNMP against REST").isEqualTo(viaRest);
        assertThat(viaNetconf).as("NETCONF against REST").isEqualTo(viaRest);
        assertThat(viaRest).hasSize(32);
        assertThat(viaRest.values()).as("every counter is read from the host").allMatch(v -> v >= 0);
        // Four echo requests in at VR 1's interface 1 and out of VR 2's interface 2, replies the other way.
        for (String k : List.of("1.1.7", "1.2.9", "2.1.7", "2.2.9", "2.2.7", "2.1.9", "1.2.7", "1.1.9")) {
            assertThat(viaRest.get(k) - before.get(k)).as(k).isGreaterThanOrEqualTo(4);
        }

        // Suspending is not something this driver does: refused in each protocol's terms, and nothing changes.
        HttpResponse<String> suspend = server.post("/api/v1/routers/1/suspend?wait=30s", "");
        assertThat(suspend.statusCode()).as(suspend.body()).isEqualTo(409);
        assertThat(suspend.body()).contains("netns", "suspended");
        ServerProcess.Result snmpSuspend = snmp("snmpset", ADMIN + 1, "i", "2");
        assertThat(snmpSuspend.exit()).isNotZero();
        assertThat(snmpSuspend.err() + snmpSuspend.out()).contains("inconsistentValue");
        JsonNode ncSuspend = netconf("admin_state", "--index", "1", "--state", "suspended");
        assertThat(ncSuspend.path("error").path("tag").asText()).as(ncSuspend.toString()).isEqualTo("operation-not-supported");
        JsonNode still = server.router(1);
        assertThat(operState(still)).isEqualTo("running");
        assertThat(still.path("vmAdminState").asText()).isEqualTo("running");
    }

    /** A hostile interface for VR 7 and how each interface must refuse it: the column, REST status, SNMP error-status, NETCONF error-tag. */
    record Hostile(String what, String parent, String mac, String type, String address, Integer prefix,
                   String field, int rest, String snmp, String netconf) {
    }

    /**
     * Interface values that the driver (its names) or the service (addresses, MACs) can never take are
     * refused before the answer, by REST, SNMP (snmpset) and NETCONF (ncclient) alike, at the column,
     * and nothing is made: no VR, nothing on the host (issue 23 item 6).
     */
    @Test
    void hostileInterfaceValuesAreRefusedBeforeTheAnswerOnEveryInterface() throws Exception {
        String br = host.bridge("d");
        String mac = "02:00:5e:00:53:07";
        HttpResponse<String> first = server.post("/api/v1/routers?wait=30s", "{\"vmIndex\":1,\"vmName\":\"holder\","
                + "\"vmNetworkConfigTable\":[{\"vmNetworkConfigParent\":\"" + br + "\",\"vmNetworkConfigPhysAddress\":\"" + mac + "\"}]}");
        assertThat(first.statusCode()).as(first.body()).isEqualTo(201);
        String parent = "vmNetworkConfigParent";
        List<Hostile> hostile = List.of(
                new Hostile("a name of the driver's own, with leading zeros", host.prefix + "00", null, null, null, null,
                        parent, 400, "wrongValue", "invalid-value"),
                new Hostile("a parent no Linux interface can be named", "x;reboot", null, null, null, null,
                        parent, 400, "wrongValue", "invalid-value"),
                new Hostile("a parent longer than Linux's 15 characters", "a".repeat(16), null, null, null, null,
                        parent, 400, "wrongValue", "invalid-value"),
                new Hostile("an IPv4 address typed ipv6", br, null, "ipv6", "192.0.2.1", 64,
                        "vmNetworkConfigAddress", 400, "inconsistentValue", "invalid-value"),
                new Hostile("the limited broadcast address", br, null, "ipv4", "255.255.255.255", 24,
                        "vmNetworkConfigAddress", 400, "inconsistentValue", "invalid-value"),
                new Hostile("the zero MAC", br, "00:00:00:00:00:00", null, null, null,
                        "vmNetworkConfigPhysAddress", 400, "wrongValue", "invalid-value"),
                new Hostile("VR 1's MAC", br, mac, null, null, null,
                        "vmNetworkConfigPhysAddress", 409, "inconsistentValue", "operation-failed"));
        List<String> edits = new ArrayList<>();
        for (Hostile h : hostile) {
            // REST
            StringBuilder row = new StringBuilder("{\"vmNetworkConfigParent\":\"" + h.parent() + "\"");
            if (h.mac() != null) row.append(",\"vmNetworkConfigPhysAddress\":\"").append(h.mac()).append('"');
            if (h.address() != null) {
                row.append(",\"vmNetworkConfigAddressType\":\"").append(h.type()).append("\",\"vmNetworkConfigAddress\":\"")
                        .append(h.address()).append("\",\"vmNetworkConfigPrefixLength\":").append(h.prefix());
            }
            HttpResponse<String> r = server.post("/api/v1/routers?wait=30s", "{\"vmIndex\":7,\"vmName\":\"hostile\","
                    + "\"vmNetworkConfigTable\":[" + row + "}]}");
            assertThat(r.statusCode()).as("REST, " + h.what() + ": " + r.body()).isEqualTo(h.rest());
            assertThat(JSON.readTree(r.body()).path("field").asText()).as("REST, " + h.what()).isEqualTo(h.field());

            // SNMP: the VR and its interface in one createAndGo
            List<String> set = new ArrayList<>(List.of(ROW_STATUS + 7, "i", "4", NAME + 7, "s", "hostile",
                    NET_CONFIG + "7.7.1", "i", "4", NET_CONFIG + "2.7.1", "s", h.parent()));
            if (h.mac() != null) set.addAll(List.of(NET_CONFIG + "3.7.1", "x", h.mac().replace(":", "")));
            if (h.address() != null) {
                StringBuilder hex = new StringBuilder();
                for (byte b : java.net.InetAddress.getByName(h.address()).getAddress()) hex.append(String.format("%02X", b));
                set.addAll(List.of(NET_CONFIG + "4.7.1", "i", h.type().equals("ipv4") ? "1" : "2", NET_CONFIG + "5.7.1", "x",
                        hex.toString(), NET_CONFIG + "6.7.1", "u", Integer.toString(h.prefix())));
            }
            ServerProcess.Result snmpSet = snmp("snmpset", set.toArray(String[]::new));
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("Reason: (\\w+).*?Failed object: \\.?([0-9.]+)",
                    java.util.regex.Pattern.DOTALL).matcher(snmpSet.err() + snmpSet.out());
            assertThat(m.find()).as("SNMP, " + h.what() + ": " + snmpSet).isTrue();
            int column = switch (h.field()) {
                case "vmNetworkConfigParent" -> 2;
                case "vmNetworkConfigPhysAddress" -> 3;
                default -> 5;
            };
            assertThat(m.group(1) + " " + m.group(2)).as("SNMP, " + h.what()).isEqualTo(h.snmp() + " " + NET_CONFIG + column + ".7.1");

            // NETCONF, in one session below
            StringBuilder leaves = new StringBuilder("<vmNetworkConfigParent>" + h.parent().replace("&", "&amp;").replace("<", "&lt;")
                    + "</vmNetworkConfigParent>");
            if (h.mac() != null) leaves.append("<vmNetworkConfigPhysAddress>").append(h.mac()).append("</vmNetworkConfigPhysAddress>");
            if (h.address() != null) {
                leaves.append("<vmNetworkConfigAddressType>").append(h.type()).append("</vmNetworkConfigAddressType><vmNetworkConfigAddress>")
                        .append(h.address()).append("</vmNetworkConfigAddress><vmNetworkConfigPrefixLength>").append(h.prefix())
                        .append("</vmNetworkConfigPrefixLength>");
            }
            edits.add("<vmConfigTable><vmConfigEntry nc:operation=\"create\"><vmIndex>7</vmIndex><vmName>hostile</vmName>"
                    + "</vmConfigEntry></vmConfigTable><vmNetworkConfigTable><vmNetworkConfigEntry><vmIndex>7</vmIndex>"
                    + "<vmNetworkConfigIndex>1</vmNetworkConfigIndex>" + leaves + "</vmNetworkConfigEntry></vmNetworkConfigTable>");
        }
        Path file = dir.resolve("hostile-edits.txt");
        Files.write(file, edits);
        JsonNode answers = netconf("edits", "--edits", file.toString());
        for (int k = 0; k < hostile.size(); k++) {
            Hostile h = hostile.get(k);
            JsonNode e = answers.get(k).path("errors").path(0);
            assertThat(e.path("tag").asText()).as("NETCONF, " + h.what() + ": " + answers.get(k)).isEqualTo(h.netconf());
            assertThat(e.path("path").asText()).as("NETCONF, " + h.what()).contains("vmIndex='7'").endsWith(":" + h.field());
        }

        // Nothing was made: no VR 7, nothing of it on the host.
        assertThat(server.get("/api/v1/routers/7").statusCode()).isEqualTo(404);
        assertThat(Path.of("/run/netns", host.prefix + "7")).doesNotExist();
        assertThat(Path.of("/sys/class/net", host.prefix + "7-1")).doesNotExist();
        assertThat(runDir.resolve(host.prefix + "7")).doesNotExist();
        assertThat(server.log()).doesNotContain("VR 7 (hostile)");
    }

    @Test
    void birdVrsLearnEachOthersNetworksOverOspf() throws Exception {
        String s = host.bridge("s");
        host.allowBridged(s);
        for (int i = 3; i <= 4; i++) {
            String lan = host.bridge("l" + i);
            HttpResponse<String> r = server.post("/api/v1/routers?wait=30s", "{\"vmIndex\":" + i + ",\"vmName\":\"ospf" + i
                    + "\",\"vmConfigTemplate\":\"bird\",\"vmNetworkConfigTable\":["
                    + "{\"vmNetworkConfigParent\":\"" + s + "\",\"vmNetworkConfigAddress\":\"203.0.113." + i + "\",\"vmNetworkConfigPrefixLength\":29},"
                    + "{\"vmNetworkConfigParent\":\"" + lan + "\",\"vmNetworkConfigAddress\":\"198.51.100." + (i * 16 + 1) + "\",\"vmNetworkConfigPrefixLength\":28}]}");
            assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        }
        // Each has its two networks; with the other's stub network learned over OSPF, three.
        JsonNode vr3 = server.awaitRouter(3, v -> v.path("vmEntry").path("vmRouteEntries").asLong() >= 3
                && v.path("vmEntry").path("vmRoutingProtocols").asText().equals("ospf"), "learned a route over OSPF");
        assertThat(vr3.path("vmEntry").path("vmRouterAddr").asText()).isEqualTo("203.0.113.3");
        assertThat(TestHost.ok("ip", "-n", host.prefix + "3", "route", "show", "198.51.100.64/28")).contains("proto bird");
        ServerProcess.Result routes = snmp("snmpget", VM + "18.4", VM + "20.4");
        assertThat(routes.exit()).as(routes.toString()).isZero();
        server.awaitRouter(4, v -> v.path("vmEntry").path("vmRouteEntries").asLong() >= 3, "learned a route over OSPF");
        assertThat(snmp("snmpget", VM + "18.4").out()).as("vmRouteEntries over SNMP").matches("(?s).* [3-9]\\s*");
        // An unknown template is refused on creation.
        HttpResponse<String> bad = server.post("/api/v1/routers", "{\"vmIndex\":5,\"vmName\":\"frr\",\"vmConfigTemplate\":\"frr\"}");
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(bad.body()).contains("vmConfigTemplate", "kernel", "bird");
    }

    @Test
    void birdVrsOnAPeerLinkRouteOverOspfWithNoBridgeBetweenThem() throws Exception {
        // VR 8 and VR 9, each with a LAN and a host on it, joined by a peer link declared at both ends,
        // made in one batch (a link names a VR that exists, or one made in the same change).
        String[] lans = {"192.0.2.129", "198.51.100.129"};
        List<String> vrs = new ArrayList<>();
        for (int i = 8; i <= 9; i++) {
            String lan = host.bridge("p" + i);
            vrs.add("{\"vmIndex\":" + i + ",\"vmName\":\"peer" + i
                    + "\",\"vmConfigTemplate\":\"bird\",\"vmNetworkConfigTable\":["
                    + "{\"vmNetworkConfigLinkType\":\"peer\",\"vmNetworkConfigPeerRouter\":" + (17 - i)
                    + ",\"vmNetworkConfigPeerInterface\":1,\"vmNetworkConfigAddress\":\"203.0.113." + (i - 7)
                    + "\",\"vmNetworkConfigPrefixLength\":30},"
                    + "{\"vmNetworkConfigParent\":\"" + lan + "\",\"vmNetworkConfigAddress\":\"" + lans[i - 8]
                    + "\",\"vmNetworkConfigPrefixLength\":26}]}");
            host.allowBridged(lan);
        }
        HttpResponse<String> made = server.post("/api/v1/routers/batch?wait=30s", "{\"virtualRouter\":[" + String.join(",", vrs) + "]}");
        assertThat(made.statusCode()).as(made.body()).isIn(200, 201);
        String h8 = host.hostOn(host.bridge("p8"), "192.0.2.130/26", lans[0]);
        host.hostOn(host.bridge("p9"), "198.51.100.130/26", lans[1]);
        // The link: one veth pair between the two namespaces; neither end on a bridge, nothing of it on the host.
        for (int i = 8; i <= 9; i++) {
            JsonNode end = JSON.readTree(TestHost.ok("ip", "-n", host.prefix + i, "-j", "-d", "link", "show", "dev", "eth1")).get(0);
            assertThat(end.path("linkinfo").path("info_kind").asText()).isEqualTo("veth");
            assertThat(end.path("master").isMissingNode()).as("eth1 of VR " + i + " on no bridge").isTrue();
            assertThat(Path.of("/sys/class/net", host.prefix + i + "-1")).doesNotExist();
            server.awaitRouter(i, v -> v.path("vmNetworkTable").get(0).path("vmNetworkLinkStatus").asText().equals("up"), "saw its link up");
            server.awaitRouter(i, v -> v.path("vmEntry").path("vmRouteEntries").asLong() >= 3
                    && v.path("vmEntry").path("vmRoutingProtocols").asText().equals("ospf"), "learned a route over OSPF");
        }
        assertThat(TestHost.ok("ip", "-n", host.prefix + "8", "route", "show", "198.51.100.128/26")).contains("proto bird", "eth1");
        TestHost.Result ping = TestHost.sh("ip", "netns", "exec", h8, "ping", "-c", "3", "-i", "0.2", "-w", "10", "198.51.100.130");
        assertThat(ping.exit()).as(ping.out()).isZero();
        assertThat(ping.out()).as("two VRs on the way").contains("ttl=62");
        // A VR cannot be linked to an interface already linked, nor to itself: refused, nothing made.
        HttpResponse<String> taken = server.post("/api/v1/routers", "{\"vmIndex\":10,\"vmName\":\"third\",\"vmNetworkConfigTable\":["
                + "{\"vmNetworkConfigLinkType\":\"peer\",\"vmNetworkConfigPeerRouter\":8,\"vmNetworkConfigPeerInterface\":1}]}");
        assertThat(taken.statusCode()).as(taken.body()).isEqualTo(409);
        assertThat(taken.body()).contains("already linked");
        HttpResponse<String> self = server.post("/api/v1/routers", "{\"vmIndex\":10,\"vmName\":\"third\",\"vmNetworkConfigTable\":["
                + "{\"vmNetworkConfigLinkType\":\"peer\",\"vmNetworkConfigPeerRouter\":10,\"vmNetworkConfigPeerInterface\":2}]}");
        assertThat(self.statusCode()).as(self.body()).isEqualTo(400);
        assertThat(Path.of("/run/netns", host.prefix + "10")).doesNotExist();
    }

    @Test
    void aNamespaceDeletedBehindVroutersBackCrashesTheVrWithANotification() throws Exception {
        assertThat(server.post("/api/v1/routers?wait=30s", "{\"vmIndex\":6,\"vmName\":\"victim\",\"vmNetworkConfigTable\":["
                + "{\"vmNetworkConfigParent\":\"" + host.bridge("v") + "\"}]}").statusCode()).isEqualTo(201);
        TestHost.ok("ip", "-n", host.prefix + "6", "link", "set", "dev", "eth1", "down");
        JsonNode vr = server.awaitRouter(6, v -> operState(v).equals("crashed"), "crashed when its interface went down");
        assertThat(vr.path("vmEntry").path("vmOperStateReason").asText()).contains("interface 1 was set down in the VR");
        assertThat(server.post("/api/v1/routers/6/start?wait=30s", "").statusCode()).isEqualTo(200);
        assertThat(operState(server.router(6))).isEqualTo("running");
        TestHost.ok("ip", "netns", "del", host.prefix + "6");
        vr = server.awaitRouter(6, v -> operState(v).equals("crashed"), "crashed when its namespace was deleted");
        assertThat(vr.path("vmEntry").path("vmOperStateReason").asText()).contains("deleted");
        // The notification went out with the event: the replay log holds it.
        assertThat(Files.readString(server.dataDir.resolve("events.log"))).contains("deleted from the host outside vrouter");
    }

    @Test
    void withoutRootsCapabilitiesTheServerRefusesToStartInOneLine() throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        ServerProcess.Result r = ServerProcess.run(List.of("setpriv", "--bounding-set=-net_admin,-sys_admin",
                "--inh-caps=-net_admin,-sys_admin", java, "-jar", System.getProperty("vrouter.jar"), "--driver", "netns",
                "--data-dir", dir.resolve("unprivileged").toString(), "--rest-port", Integer.toString(ServerProcess.freeTcpPort()),
                "--snmp-port", Integer.toString(ServerProcess.freeUdpPort()), "--netconf-port", Integer.toString(ServerProcess.freeTcpPort())));
        assertThat(r.exit()).as(r.toString()).isEqualTo(1);
        assertThat(r.err().strip()).isEqualTo("vrouter: --driver netns needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN);"
                + " this process lacks CAP_NET_ADMIN and CAP_SYS_ADMIN");
    }

    @Test
    void aKillDuringProvisioningIsProvisionedAgainWholeAfterTheRestart() throws Exception {
        StringBuilder ifaces = new StringBuilder();
        for (int n = 1; n <= 8; n++) {
            ifaces.append(n == 1 ? "" : ",").append("{\"vmNetworkConfigParent\":\"").append(host.bridge("k")).append("\"}");
        }
        Path record = runDir.resolve(host.prefix + "7").resolve("vr.properties");
        // Killed while the driver builds the VR: its record written, its namespace and veths not yet
        // (a kill as soon as the record appeared came too late under load: the VR was ready).
        Files.createFile(hold);
        try {
            HttpResponse<String> r = server.post("/api/v1/routers", "{\"vmIndex\":7,\"vmName\":\"killed\",\"vmNetworkConfigTable\":[" + ifaces + "]}");
            assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
            assertThat(TestHost.await(() -> Files.exists(held), 30)).as("the driver's ip batch began").isTrue();
            server.kill9();
        } finally {
            Files.delete(hold);
        }
        assertThat(Files.readString(record)).as("killed in the middle of provisioning").contains("state=provisioning");
        server.restart();
        JsonNode vr = server.awaitRouter(7, v -> operState(v).equals("running"), "ran after the restart");
        assertThat(vr.path("vmNetworkTable")).hasSize(8);
        assertThat(server.log()).contains("left half built");
        assertThat(Files.readString(record)).contains("state=ready");
    }
}
