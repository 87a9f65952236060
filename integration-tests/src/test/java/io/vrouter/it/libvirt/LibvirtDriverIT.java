package io.vrouter.it.libvirt;

import static io.vrouter.it.ServerProcess.operState;
import static io.vrouter.it.snmp.NewVmmOids.MIB;
import static io.vrouter.it.snmp.NewVmmOids.NAME;
import static io.vrouter.it.snmp.NewVmmOids.ROW_STATUS;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vrouter.it.HeldIp;
import io.vrouter.it.ServerProcess;
import io.vrouter.netns.TestHost;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged server with {@code --driver libvirt} on this host's libvirtd and QEMU (as root), booting
 * the appliance that vr-libvirt-driver/appliance/build.sh builds: a VR made over SNMP answers pings and
 * counts them alike over REST and SNMP; a VR made over REST with two
 * interfaces on two bridges forwards a ping between two host namespaces, is crashed (with the reason)
 * when its domain is destroyed behind vrouter's back and forwards again once started, forwards nothing
 * once stopped, and leaves nothing on the host once removed; two bird VRs made in one batch, sharing a
 * transit bridge, learn each other's stub networks over OSPF and forward between hosts on them; a
 * kill -9 of the server in the middle of provisioning is finished after the restart. TCG is asked for (the driver's own test covers the choice
 * between KVM and TCG), so the run is the same on every machine; every wait allows for a slow boot.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LibvirtDriverIT {
    static final ObjectMapper JSON = new ObjectMapper();
    /** A boot under TCG on a loaded machine: seconds usually, a minute or two at worst. */
    static final long BOOT_SECONDS = 240;
    /** vmNetworkConfigEntry and vmNetworkEntry columns. */
    static final String NET_CONFIG = MIB + ".1.13.1.";
    static final String NET = MIB + ".1.8.1.";

    @TempDir
    static Path dir;
    TestHost host;
    String prefix;
    Path runDir;
    Path hold;
    Path held;
    ServerProcess server;

    @BeforeAll
    void start() throws Exception {
        host = new TestHost();
        prefix = host.prefix + "-";
        runDir = dir.resolve("run");
        hold = dir.resolve("hold-bridge");
        held = dir.resolve("a-bridge-waits");
        // QEMU runs as libvirt's user (libvirt-qemu on Debian): libvirt hands it the kernel and initramfs
        // but not the directories on their path, which JUnit makes private.
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path images = dir.resolve("images");
        TestHost.ok(Path.of("..", "vr-libvirt-driver", "appliance", "build.sh").toAbsolutePath().normalize().toString(), images.toString());
        // ip, as the driver runs it: while the file HOLD exists, making the bridge of the kill test's second
        // interface waits (and says so in HELD), so that a kill -9 lands in the middle of provisioning.
        Path ip = HeldIp.write(dir, "*\" link add name " + host.bridge("k2") + " \"*", hold, held);
        Path conf = dir.resolve("libvirt.properties");
        Files.writeString(conf, String.join("\n", "libvirt.prefix = " + prefix, "libvirt.image-dir = " + images,
                "libvirt.run-dir = " + runDir, "libvirt.accel = tcg", "libvirt.stop-timeout = 120s", "libvirt.ip = " + ip, ""));
        server = ServerProcess.start(dir.resolve("server"), "--driver", "libvirt", "--config", conf.toString());
    }

    @AfterAll
    void stop() throws Exception {
        try {
            host.removeHosts();
            for (JsonNode vr : JSON.readTree(server.get("/api/v1/routers").body()).path("virtualRouter")) {
                server.delete("/api/v1/routers/" + vr.path("vmIndex").asInt());
                TestHost.await(() -> gone(vr.path("vmIndex").asInt()), BOOT_SECONDS);
            }
            if (server != null) server.close();
        } finally {
            host.close();
        }
    }

    private String console(int vmIndex) {
        try {
            return Files.readString(runDir.resolve(prefix + vmIndex).resolve("console.log"));
        } catch (java.io.IOException e) {
            return "";
        }
    }

    private boolean gone(int vmIndex) {
        try {
            return server.get("/api/v1/routers/" + vmIndex).statusCode() == 404;
        } catch (Exception e) {
            return false;
        }
    }

    private boolean reaches(String fromNs, String to) {
        try {
            return host.reaches(fromNs, to);
        } catch (Exception e) {
            return false;
        }
    }

    @Test
    void aVmVrMadeOverRestForwardsBetweenTwoHostsStopsForwardingWhenStoppedAndLeavesNothing() throws Exception {
        String a = host.bridge("a");
        String b = host.bridge("b");
        HttpResponse<String> created = server.post("/api/v1/routers?wait=60s", "{\"vmIndex\":1,\"vmName\":\"edge\","
                + "\"vmConfigTemplate\":\"bird\",\"vmConfigMemory\":256,\"vmNetworkConfigTable\":["
                + "{\"vmNetworkConfigParent\":\"" + a + "\",\"vmNetworkConfigAddress\":\"192.0.2.1\",\"vmNetworkConfigPrefixLength\":25},"
                + "{\"vmNetworkConfigParent\":\"" + b + "\",\"vmNetworkConfigAddress\":\"198.51.100.1\",\"vmNetworkConfigPrefixLength\":25}]}");
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        JsonNode vr = server.awaitRouter(1, v -> operState(v).equals("running"), "ran");
        assertThat(vr.path("vmNetworkTable")).hasSize(2);
        assertThat(vr.path("vmNetworkTable").get(0).path("vmNetworkParent").asText()).isEqualTo(a);
        assertThat(vr.path("vmNetworkTable").get(0).path("vmNetworkModel").asText()).isEqualTo("virtio");
        assertThat(TestHost.ok("virsh", "-c", "qemu:///system", "domstate", prefix + "1").strip()).isEqualTo("running");

        for (String br : new String[] {a, b}) host.allowBridged(br);
        String left = host.hostOn(a, "192.0.2.10/25", "192.0.2.1");
        host.hostOn(b, "198.51.100.10/25", "198.51.100.1");
        assertThat(TestHost.await(() -> reaches(left, "198.51.100.10"), BOOT_SECONDS))
                .as("a ping through the VM; its console:\n%s", console(1)).isTrue();
        TestHost.Result ping = TestHost.sh("ip", "netns", "exec", left, "ping", "-c", "3", "-i", "0.2", "-w", "10", "198.51.100.10");
        assertThat(ping.out()).as("one router on the way").contains("ttl=63");
        // Forwarding is on before the appliance's init has finished (and said so on its console).
        assertThat(TestHost.await(() -> console(1).contains("vrouter appliance: VR 1 up, template bird, interfaces eth1 eth2"), BOOT_SECONDS))
                .as("the appliance's console:\n%s", console(1)).isTrue();

        // Destroyed behind vrouter's back: crashed, with the reason; started again, it forwards again.
        TestHost.ok("virsh", "-c", "qemu:///system", "destroy", prefix + "1");
        JsonNode crashed = server.awaitRouter(1, v -> operState(v).equals("crashed"), "crashed");
        assertThat(crashed.path("vmEntry").path("vmOperStateReason").asText()).contains("domain stopped (destroyed)");
        // The notification went out with the event: the replay log holds it.
        assertThat(Files.readString(server.dataDir.resolve("events.log"))).contains("domain stopped (destroyed) (changed outside vrouter)");
        HttpResponse<String> started = server.post("/api/v1/routers/1/start?wait=60s", "");
        assertThat(started.statusCode()).as(started.body()).isEqualTo(200);
        assertThat(TestHost.await(() -> reaches(left, "198.51.100.10"), BOOT_SECONDS)).as("a ping after the start").isTrue();

        HttpResponse<String> stopped = server.post("/api/v1/routers/1/stop?wait=25s", "");
        assertThat(stopped.statusCode()).as(stopped.body()).isIn(200, 202);
        server.awaitRouter(1, v -> operState(v).equals("shutdown"), "shut down");
        assertThat(host.cannotReach(left, "198.51.100.10")).as("a ping through a stopped VR").isTrue();

        host.removeHosts();
        HttpResponse<String> removed = server.delete("/api/v1/routers/1?wait=60s");
        assertThat(removed.statusCode()).as(removed.body()).isEqualTo(204);
        assertThat(TestHost.sh("virsh", "-c", "qemu:///system", "dominfo", prefix + "1").exit()).as("the domain").isNotZero();
        assertThat(host.leftovers(runDir)).as("left on the host").isEmpty();
    }

    /** A VR of the bird template with two interfaces, as REST takes it. */
    private static String birdVr(int vmIndex, String bridge1, String address1, int length1, String bridge2, String address2, int length2) {
        return "{\"vmIndex\":" + vmIndex + ",\"vmName\":\"ospf" + vmIndex + "\",\"vmConfigTemplate\":\"bird\",\"vmConfigMemory\":256,"
                + "\"vmNetworkConfigTable\":["
                + "{\"vmNetworkConfigParent\":\"" + bridge1 + "\",\"vmNetworkConfigAddress\":\"" + address1 + "\",\"vmNetworkConfigPrefixLength\":" + length1 + "},"
                + "{\"vmNetworkConfigParent\":\"" + bridge2 + "\",\"vmNetworkConfigAddress\":\"" + address2 + "\",\"vmNetworkConfigPrefixLength\":" + length2 + "}]}";
    }

    @Test
    void twoVmVrsLearnEachOthersStubNetworksOverOspfAndForwardBetweenThemWithNoRouteGiven() throws Exception {
        String stubA = host.bridge("oa");
        String transit = host.bridge("ot");
        String stubB = host.bridge("ob");
        // Both in one change set: VR 4 between stub A and the transit bridge, VR 5 between the transit bridge and stub B.
        HttpResponse<String> created = server.post("/api/v1/routers/batch?wait=25s", "{\"virtualRouter\":["
                + birdVr(4, stubA, "192.0.2.1", 25, transit, "203.0.113.1", 29) + ","
                + birdVr(5, transit, "203.0.113.2", 29, stubB, "198.51.100.1", 25) + "]}");
        assertThat(created.statusCode()).as(created.body()).isIn(201, 202);
        for (int vmIndex : new int[] {4, 5}) server.awaitRouter(vmIndex, v -> operState(v).equals("running"), "ran");

        for (String br : new String[] {stubA, transit, stubB}) host.allowBridged(br);
        String hostA = host.hostOn(stubA, "192.0.2.10/25", "192.0.2.1");
        host.hostOn(stubB, "198.51.100.10/25", "198.51.100.1");
        // Neither VR was given a route: VR 4 knows 198.51.100.0/25, and VR 5 192.0.2.0/25, once OSPF
        // (hello 1 s, dead 4 s in the appliance) has made them adjacent over the transit bridge.
        assertThat(TestHost.await(() -> reaches(hostA, "198.51.100.10"), BOOT_SECONDS))
                .as("a ping across both VMs; their consoles:\n%s\n%s", console(4), console(5)).isTrue();
        TestHost.Result ping = TestHost.sh("ip", "netns", "exec", hostA, "ping", "-c", "3", "-i", "0.2", "-w", "10", "198.51.100.10");
        assertThat(ping.out()).as("two routers on the way").contains("ttl=62");

        host.removeHosts();
        for (int vmIndex : new int[] {4, 5}) {
            HttpResponse<String> removed = server.delete("/api/v1/routers/" + vmIndex);
            assertThat(removed.statusCode()).as(removed.body()).isIn(202, 204);
        }
        for (int vmIndex : new int[] {4, 5}) assertThat(TestHost.await(() -> gone(vmIndex), BOOT_SECONDS)).as("VR %d removed", vmIndex).isTrue();
        assertThat(host.leftovers(runDir)).as("left on the host").isEmpty();
    }

    @Test
    void aKill9InTheMiddleOfProvisioningIsFinishedAfterTheRestart() throws Exception {
        String k1 = host.bridge("k1");
        String k2 = host.bridge("k2");
        Files.createFile(hold);
        try {
            HttpResponse<String> r = server.post("/api/v1/routers", "{\"vmIndex\":7,\"vmName\":\"killed\",\"vmNetworkConfigTable\":["
                    + "{\"vmNetworkConfigParent\":\"" + k1 + "\",\"vmNetworkConfigAddress\":\"192.0.2.1\",\"vmNetworkConfigPrefixLength\":25},"
                    + "{\"vmNetworkConfigParent\":\"" + k2 + "\",\"vmNetworkConfigAddress\":\"198.51.100.1\",\"vmNetworkConfigPrefixLength\":25}]}");
            assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
            assertThat(TestHost.await(() -> Files.exists(held), 60)).as("the driver began making the second bridge").isTrue();
            server.kill9();
        } finally {
            Files.delete(hold);
        }
        assertThat(Files.exists(Path.of("/sys/class/net", k1))).as("the first bridge, made before the kill").isTrue();
        assertThat(TestHost.sh("virsh", "-c", "qemu:///system", "dominfo", prefix + "7").exit()).as("a domain before the kill").isNotZero();

        server.restart();
        JsonNode vr = server.awaitRouter(7, v -> operState(v).equals("running"), "ran after the restart");
        assertThat(vr.path("vmNetworkTable")).hasSize(2);
        assertThat(TestHost.ok("virsh", "-c", "qemu:///system", "domstate", prefix + "7").strip()).isEqualTo("running");
        assertThat(Files.exists(Path.of("/sys/class/net", k2))).as("the second bridge").isTrue();

        // Removed while its guest may still be booting: the power button is pressed until its acpid hears it.
        HttpResponse<String> removed = server.delete("/api/v1/routers/7");
        assertThat(removed.statusCode()).as(removed.body()).isIn(202, 204);
        assertThat(TestHost.await(() -> gone(7), BOOT_SECONDS)).as("VR 7 removed").isTrue();
        assertThat(host.leftovers(runDir)).as("left on the host").isEmpty();
    }

    private ServerProcess.Result snmp(String tool, String... args) throws Exception {
        List<String> cmd = new java.util.ArrayList<>(List.of(tool, "-v2c", "-c", tool.equals("snmpset") ? "private" : "public",
                "-On", "-Oq", "-t", "8", "-r", "0", "udp:127.0.0.1:" + server.snmpPort));
        cmd.addAll(List.of(args));
        return ServerProcess.run(cmd);
    }

    /** VR 3's interface 1 counters (vmNetworkInOctets, InPkts, OutOctets, OutPkts) over REST and over SNMP. */
    private List<Map<String, Long>> countersOverRestAndSnmp() throws Exception {
        Map<String, Long> rest = new TreeMap<>();
        JsonNode n = server.router(3).path("vmNetworkTable").get(0);
        rest.put("6", n.path("vmNetworkInOctets").asLong(-1));
        rest.put("7", n.path("vmNetworkInPkts").asLong(-1));
        rest.put("8", n.path("vmNetworkOutOctets").asLong(-1));
        rest.put("9", n.path("vmNetworkOutPkts").asLong(-1));
        Map<String, Long> snmp = new TreeMap<>();
        for (String column : List.of("6", "7", "8", "9")) {
            ServerProcess.Result r = snmp("snmpget", NET + column + ".3.1");
            assertThat(r.exit()).as(r.toString()).isZero();
            String[] f = r.out().strip().split(" ");
            snmp.put(column, Long.parseLong(f[f.length - 1]));
        }
        return List.of(rest, snmp);
    }

    @Test
    void aVmVrMadeOverSnmpAnswersPingsAndCountsThemAlikeOverRestAndSnmp() throws Exception {
        String s1 = host.bridge("s");
        // VR 3 and its interface (203.0.113.1/24) in one createAndGo.
        ServerProcess.Result set = snmp("snmpset", ROW_STATUS + 3, "i", "4", NAME + 3, "s", "overSnmp",
                NET_CONFIG + "7.3.1", "i", "4", NET_CONFIG + "2.3.1", "s", s1, NET_CONFIG + "4.3.1", "i", "1",
                NET_CONFIG + "5.3.1", "x", "CB007101", NET_CONFIG + "6.3.1", "u", "24");
        assertThat(set.exit()).as(set.toString()).isZero();
        server.awaitRouter(3, v -> operState(v).equals("running"), "ran");
        assertThat(TestHost.ok("virsh", "-c", "qemu:///system", "domstate", prefix + "3").strip()).isEqualTo("running");

        host.allowBridged(s1);
        String h = host.hostOn(s1, "203.0.113.10/24", "203.0.113.1");
        assertThat(TestHost.await(() -> reaches(h, "203.0.113.1"), BOOT_SECONDS)).as("the VR answers; its console:\n%s", console(3)).isTrue();
        long before = server.router(3).path("vmNetworkTable").get(0).path("vmNetworkInPkts").asLong();
        TestHost.Result ping = TestHost.sh("ip", "netns", "exec", h, "ping", "-c", "5", "-i", "0.2", "-w", "10", "203.0.113.1");
        assertThat(ping.exit()).as(ping.out()).isZero();

        // Read alike over REST and SNMP once no packet crosses between the reads (the host's IPv6
        // solicitations go on for some seconds after its link comes up), and once the driver's cache,
        // read again from libvirt every 2 s, holds the pings.
        List<Map<String, Long>> reads = countersOverRestAndSnmp();
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
        // (The cache may be read between a request and its reply: wait for the replies too.)
        while ((!reads.get(0).equals(reads.get(1)) || reads.get(0).get("7") - before < 5 || reads.get(0).get("9") < 5)
                && System.nanoTime() < deadline) {
            Thread.sleep(300);
            reads = countersOverRestAndSnmp();
        }
        assertThat(reads.get(1)).as("SNMP against REST").isEqualTo(reads.get(0));
        assertThat(reads.get(0).get("7") - before).as("echo requests in").isGreaterThanOrEqualTo(5);
        assertThat(reads.get(0).get("9")).as("replies out").isGreaterThanOrEqualTo(5);

        host.removeHosts();
        assertThat(server.delete("/api/v1/routers/3").statusCode()).isIn(202, 204);
        assertThat(TestHost.await(() -> gone(3), BOOT_SECONDS)).as("VR 3 removed").isTrue();
        assertThat(host.leftovers(runDir)).as("left on the host").isEmpty();
    }
}
