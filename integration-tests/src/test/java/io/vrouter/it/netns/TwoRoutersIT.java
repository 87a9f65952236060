package io.vrouter.it.netns;

import static io.vrouter.it.snmp.NewVmmOids.MIB;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vrouter.it.ServerProcess;
import io.vrouter.netns.TestHost;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two routers on one machine, as the README builds a two-router virtual network: two vrouter servers
 * with the netns driver, each inside a network namespace of its own (its own prefix, data directory
 * and ports) as if on its own router, joined by an underlay veth (203.0.113.1 and .2). A BIRD VR on
 * each, made over REST, is linked to the other by VXLAN and has a host namespace behind it; the hosts
 * ping each other over routes the VRs learn from each other over OSPF across the link; each router
 * reads its end's status and delay over REST, SNMP and NETCONF; stopping one VR takes the other's end
 * down, with a notification, and starting it brings it back. First, the same network is declared in
 * OpenTofu (the provider's examples/two-routers), applied, pinged across and destroyed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TwoRoutersIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String NET = MIB + ".1.8.1.";
    private static final int VNI = 4242;

    @TempDir
    static Path dir;
    TwoRouterHosts two;
    /** Shorthands for two's. */
    TestHost host;
    String[] routerNs;
    String[] mgmt;
    ServerProcess[] routers;
    String[] vrPrefix;
    List<String> hosts;

    @BeforeAll
    void twoRouters() throws Exception {
        two = new TwoRouterHosts(dir);
        host = two.host;
        routerNs = two.routerNs;
        mgmt = two.mgmt;
        routers = two.routers;
        vrPrefix = two.vrPrefix;
        hosts = two.hosts;
        for (int r = 0; r < 2; r++) two.start(r);
    }

    @AfterAll
    void removeEverything() throws Exception {
        if (two != null) two.close();
    }

    // ---------------------------------------------------------------- helpers

    private String hostBehind(int r, String bridge, String address, String gateway) throws Exception {
        return two.hostBehind(r, bridge, address, gateway);
    }

    private JsonNode link(int r) throws Exception {
        return routers[r].router(1).path("vmNetworkTable").get(0);
    }

    private ServerProcess.Result snmpget(int r, String... oids) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("snmpget", "-v2c", "-c", "public", "-On", "-Oqv", "-t", "8", "-r", "0",
                "udp:" + mgmt[r] + ":" + routers[r].snmpPort));
        cmd.addAll(List.of(oids));
        return ServerProcess.run(cmd);
    }

    private JsonNode netconfLink(int r) throws Exception {
        ServerProcess.Result out = ServerProcess.run(List.of("python3", "src/test/python/netconf_scenarios.py", "network_table",
                "--host", mgmt[r], "--port", Integer.toString(routers[r].netconfPort)));
        assertThat(out.exit()).as(out.toString()).isZero();
        String[] lines = out.out().strip().split("\n");
        for (JsonNode e : JSON.readTree(lines[lines.length - 1]).path("entries")) {
            if (e.path("vmNetworkIndex").asText().equals("1")) return e;
        }
        throw new AssertionError("no interface 1 over NETCONF: " + out);
    }

    /**
     * The reasons of the linkChanged events of the router's VR "edge", as its event stream replays them from its start
     * and then tells them as they come, read by a thread of their own until the stream ends.
     */
    private BlockingQueue<String> followLinkEvents(int r) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(routers[r].restBase() + "/api/v1/events"))
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString("admin:admin".getBytes(StandardCharsets.UTF_8)))
                .header("Accept", "text/event-stream").header("Last-Event-ID", "0").GET().build();
        HttpResponse<Stream<String>> response = HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofLines());
        assertThat(response.statusCode()).isEqualTo(200);
        BlockingQueue<String> reasons = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try (Stream<String> lines = response.body()) {
                String event = null;
                for (Iterator<String> it = lines.iterator(); it.hasNext(); ) {
                    String line = it.next();
                    if (line.startsWith("event:")) event = line.substring(6).trim();
                    if (line.startsWith("data:") && "linkChanged".equals(event)) {
                        // The replay holds the OpenTofu test's VRs too, which had vmIndex 1 before: "edge"'s only.
                        JsonNode e = JSON.readTree(line.substring(5));
                        if (e.path("vmName").asText().equals("edge")) reasons.add(e.path("reason").asText());
                    }
                }
            } catch (Exception ended) {
                // the server went at the end of the test
            }
        }, "link-events-" + r);
        reader.setDaemon(true);
        reader.start();
        return reasons;
    }

    /** The next event's reason, waited for at most 10 s. */
    private static String next(BlockingQueue<String> events) throws InterruptedException {
        String e = events.poll(10, TimeUnit.SECONDS);
        assertThat(e).as("a linkChanged event within 10 s").isNotNull();
        return e;
    }

    // ---------------------------------------------------------------- the test

    /** Where .ci/install-test-deps builds it. */
    private static final String TOFU = "/opt/vrouter-go/bin/tofu";

    /** OpenTofu as the operator runs it, with the provider as build.sh makes it: a release in a local mirror. */
    private ServerProcess.Result tofu(Path work, String... args) throws Exception {
        Path mirror = Path.of("..", "terraform-provider-vrouter", "bin", "mirror.tfrc").toAbsolutePath().normalize();
        List<String> cmd = new ArrayList<>(List.of("env", "TF_CLI_CONFIG_FILE=" + mirror, "TF_IN_AUTOMATION=1", TOFU));
        cmd.addAll(List.of(args));
        return ServerProcess.run(cmd, work);
    }

    @Test
    @Order(1)
    void theProvidersTwoRouterExampleAppliesPingsAcrossAndDestroysCleanly() throws Exception {
        Path provider = Path.of("..", "terraform-provider-vrouter").toAbsolutePath().normalize();
        ServerProcess.Result build = ServerProcess.run(List.of(provider.resolve("build.sh").toString()));
        assertThat(build.exit()).as(build.toString()).isZero();
        Path work = Files.createDirectories(dir.resolve("tofu"));
        Files.copy(provider.resolve("examples/two-routers/main.tf"), work.resolve("main.tf"));
        String[] lan = {host.prefix + "t0", host.prefix + "t1"};
        String[] vars = {"-var", "router_a=" + routers[0].restBase(), "-var", "router_b=" + routers[1].restBase(),
                "-var", "underlay=underlay0", "-var", "lan_a=" + lan[0], "-var", "lan_b=" + lan[1], "-var", "password=admin"};

        ServerProcess.Result init = tofu(work, "init", "-no-color");
        assertThat(init.exit()).as(init.toString()).isZero();
        ServerProcess.Result apply = tofu(work, concat(new String[] {"apply", "-auto-approve", "-no-color"}, vars));
        assertThat(apply.exit()).as(apply.toString()).isZero();
        assertThat(apply.out()).contains("Apply complete! Resources: 2 added");
        JsonNode index = JSON.readTree(tofu(work, "output", "-json", "vm_index").out());
        int[] vm = {index.path("a").asInt(), index.path("b").asInt()};
        String hostA = hostBehind(0, lan[0], "192.0.2.130/26", "192.0.2.129");
        hostBehind(1, lan[1], "198.51.100.2/26", "198.51.100.1");
        for (int r = 0; r < 2; r++) {
            int router = r;
            routers[r].awaitRouter(vm[r], v -> v.path("vmEntry").path("vmRoutingProtocols").asText().equals("ospf")
                    && v.path("vmEntry").path("vmRouteEntries").asLong() >= 3, "learned a route over OSPF on router " + router);
        }
        TestHost.Result ping = TestHost.sh("ip", "netns", "exec", hostA, "ping", "-c", "3", "-i", "0.2", "-w", "10", "198.51.100.2");
        assertThat(ping.exit()).as(ping.out()).isZero();

        // Nothing changed: the next plan is empty; destroy leaves no VR on either router.
        ServerProcess.Result plan = tofu(work, concat(new String[] {"plan", "-detailed-exitcode", "-no-color"}, vars));
        assertThat(plan.exit()).as(plan.toString()).isZero();
        ServerProcess.Result destroy = tofu(work, concat(new String[] {"destroy", "-auto-approve", "-no-color"}, vars));
        assertThat(destroy.exit()).as(destroy.toString()).isZero();
        for (ServerProcess r : routers) {
            assertThat(JSON.readTree(r.get("/api/v1/routers").body()).path("total").asInt()).isZero();
        }
        for (String ns : hosts) TestHost.sh("ip", "netns", "del", ns);
        hosts.clear();
    }

    private static String[] concat(String[] a, String[] b) {
        return Stream.concat(Stream.of(a), Stream.of(b)).toArray(String[]::new);
    }

    @Test
    @Order(2)
    void vrsOnTwoRoutersLinkedByVxlanRouteOverOspfAndEachEndSeesTheOthersHealth() throws Exception {
        String[] lan = {"192.0.2.129", "198.51.100.1"};
        for (int r = 0; r < 2; r++) {
            String bridge = host.prefix + "l" + r;
            HttpResponse<String> created = routers[r].post("/api/v1/routers?wait=30s", "{\"vmIndex\":1,\"vmName\":\"edge\","
                    + "\"vmConfigTemplate\":\"bird\",\"vmNetworkConfigTable\":["
                    + "{\"vmNetworkConfigLinkType\":\"vxlan\",\"vmNetworkConfigParent\":\"underlay0\",\"vmNetworkConfigVni\":" + VNI
                    + ",\"vmNetworkConfigRemote\":\"203.0.113." + (2 - r) + "\",\"vmNetworkConfigAddress\":\"192.0.2." + (r + 1)
                    + "\",\"vmNetworkConfigPrefixLength\":30},"
                    + "{\"vmNetworkConfigParent\":\"" + bridge + "\",\"vmNetworkConfigAddress\":\"" + lan[r]
                    + "\",\"vmNetworkConfigPrefixLength\":26}]}");
            assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        }
        String hostA = hostBehind(0, host.prefix + "l0", "192.0.2.130/26", lan[0]);
        hostBehind(1, host.prefix + "l1", "198.51.100.2/26", lan[1]);

        // The link comes up at both ends, each router measuring its own end.
        for (int r = 0; r < 2; r++) {
            int router = r;
            routers[r].awaitRouter(1, v -> v.path("vmNetworkTable").get(0).path("vmNetworkLinkStatus").asText().equals("up")
                    && v.path("vmNetworkTable").get(0).path("vmNetworkLinkDelay").asLong() > 0, "saw its link up on router " + router);
            assertThat(link(r).path("vmNetworkModel").asText()).isEqualTo("vxlan");
            // The VXLAN device is the VR's own, its socket the router's: nothing of it on the router but the namespace.
            assertThat(TestHost.ok("ip", "-n", vrPrefix[r] + "1", "-d", "link", "show", "dev", "eth1"))
                    .contains("vxlan id " + VNI, "remote 203.0.113." + (2 - r), "dstport 4789");
        }
        // Each VR learns the network behind the other over OSPF across the link, and the hosts reach each other.
        for (int r = 0; r < 2; r++) {
            int router = r;
            routers[r].awaitRouter(1, v -> v.path("vmEntry").path("vmRouteEntries").asLong() >= 3
                    && v.path("vmEntry").path("vmRoutingProtocols").asText().equals("ospf"), "learned a route over OSPF on router " + router);
        }
        assertThat(TestHost.ok("ip", "-n", vrPrefix[0] + "1", "route", "show", "198.51.100.0/26")).contains("proto bird", "eth1");
        TestHost.Result ping = TestHost.sh("ip", "netns", "exec", hostA, "ping", "-c", "3", "-i", "0.2", "-w", "10", "198.51.100.2");
        assertThat(ping.exit()).as(ping.out()).isZero();
        assertThat(ping.out()).as("two VRs on the way").contains("ttl=62");

        // Status and delay read alike over SNMP (vmNetworkLinkStatus up(1), vmNetworkLinkDelay) and NETCONF.
        for (int r = 0; r < 2; r++) {
            ServerProcess.Result snmp = snmpget(r, NET + "14.1.1", NET + "15.1.1", NET + "16.1.1");
            assertThat(snmp.exit()).as(snmp.toString()).isZero();
            String[] values = snmp.out().strip().split("\\s+");
            assertThat(values[0]).isEqualTo("1");
            assertThat(Long.parseLong(values[1])).isPositive().isLessThan(1_000_000L);
            JsonNode nc = netconfLink(r);
            assertThat(nc.path("vmNetworkLinkStatus").asText()).isEqualTo("up");
            assertThat(Long.parseLong(nc.path("vmNetworkLinkDelay").asText())).isPositive();
        }

        // B's VR stops: A's end goes down, and A's event stream tells it; B's VR starts: A's end comes back.
        BlockingQueue<String> events = followLinkEvents(0);
        assertThat(next(events)).isEqualTo("the link of interface 1 is up");
        assertThat(routers[1].post("/api/v1/routers/1/stop?wait=30s", "").statusCode()).isEqualTo(200);
        routers[0].awaitRouter(1, v -> v.path("vmNetworkTable").get(0).path("vmNetworkLinkStatus").asText().equals("down"),
                "saw its link go down");
        assertThat(snmpget(0, NET + "14.1.1").out().strip()).isEqualTo("2");
        assertThat(next(events)).isEqualTo("the link of interface 1 is down");
        assertThat(routers[1].post("/api/v1/routers/1/start?wait=30s", "").statusCode()).isEqualTo(200);
        routers[0].awaitRouter(1, v -> v.path("vmNetworkTable").get(0).path("vmNetworkLinkStatus").asText().equals("up"),
                "saw its link come back");
        assertThat(next(events)).isEqualTo("the link of interface 1 is up");
    }
}
