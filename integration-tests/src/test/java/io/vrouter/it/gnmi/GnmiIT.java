package io.vrouter.it.gnmi;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vrouter.it.ServerProcess;
import io.vrouter.netns.TestHost;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * gNMI against the packaged server with two real collectors: pygnmi (and grpc with pygnmi's gnmi.proto
 * stubs for the requests pygnmi will not send) and openconfig's gnmi_cli, each in every encoding it
 * can ask for.
 */
class GnmiIT {
    private static final String SCRIPT = "src/test/python/gnmi_scenarios.py";
    /** Where .ci/install-test-deps builds it. */
    private static final String GNMI_CLI = "/opt/vrouter-go/bin/gnmi_cli";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ENTRY_1 = "/NEW-VMM-MIB/vmTable/vmEntry[vmIndex=1]";

    @TempDir
    static Path dir;
    static ServerProcess server;

    @BeforeAll
    static void startServer() throws Exception {
        server = ServerProcess.start(dir.resolve("server"));
        var created = server.post("/api/v1/routers", "{\"vmIndex\":1,\"vmName\":\"gnmi1\",\"vmNetworkConfigTable\":"
                + "[{\"vmNetworkConfigParent\":\"br0\"}]}");
        assertThat(created.statusCode()).as(created.body()).isIn(201, 202);
        server.awaitRouter(1, vr -> ServerProcess.operState(vr).equals("running"), "running");
    }

    @AfterAll
    static void stopServer() throws Exception {
        if (server != null) server.close();
        server = null;
    }

    private static JsonNode pygnmi(String scenario, String... args) throws Exception {
        return pygnmi(server, scenario, args);
    }

    private static JsonNode pygnmi(ServerProcess server, String scenario, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("python3", SCRIPT, scenario, "--port", Integer.toString(server.gnmiPort),
                "--rest-port", Integer.toString(server.restPort)));
        cmd.addAll(List.of(args));
        ServerProcess.Result r = ServerProcess.run(cmd);
        if (r.exit() != 0) throw new AssertionError("scenario " + scenario + " failed: " + r);
        String[] lines = r.out().strip().split("\n");
        return JSON.readTree(lines[lines.length - 1]);
    }

    private static List<String> gnmiCli(String... args) {
        List<String> cmd = new ArrayList<>(List.of("env", "GNMI_USER=admin", "GNMI_PASS=admin", GNMI_CLI,
                "-address", "127.0.0.1:" + server.gnmiPort, "-insecure", "-with_user_pass", "-timeout", "30s"));
        cmd.addAll(List.of(args));
        return cmd;
    }

    private static String runGnmiCli(String... args) throws Exception {
        ServerProcess.Result r = ServerProcess.run(gnmiCli(args));
        if (r.exit() != 0) throw new AssertionError("gnmi_cli failed: " + r);
        return oneSpace(r.out());
    }

    /** Go's text format varies its spaces from build to build on purpose: compared with single spaces. */
    private static String oneSpace(String text) {
        return text.replaceAll("\\s+", " ");
    }

    // ------------------------------------------------------------------ pygnmi

    @Test
    void pygnmiCapabilitiesNameTheModuleAndTheEncodings() throws Exception {
        JsonNode caps = pygnmi("capabilities");
        assertThat(caps.at("/supported_models/0/name").asText()).isEqualTo("NEW-VMM-MIB");
        assertThat(caps.at("/supported_models/0/organization").asText()).isEqualTo("vrouter project");
        assertThat(caps.at("/supported_models/0/version").asText()).isEqualTo("2026-11-28");
        assertThat(caps.at("/supported_models/1/name").asText()).isEqualTo("openconfig-interfaces");
        assertThat(caps.at("/supported_models/1/organization").asText()).isEqualTo("OpenConfig working group");
        assertThat(caps.at("/supported_models/1/version").asText()).isEqualTo("3.5.0");
        assertThat(caps.get("supported_encodings").toString()).isEqualTo("[\"json\",\"json_ietf\",\"proto\"]");
        assertThat(caps.get("gnmi_version").asText()).isEqualTo("0.10.0");
    }

    @ParameterizedTest
    @ValueSource(strings = {"json", "json_ietf", "proto"})
    void pygnmiGetsALeafInEachEncoding(String encoding) throws Exception {
        JsonNode got = pygnmi("get", "--path", ENTRY_1 + "/vmOperState", "--encoding", encoding);
        // the leaf under its entry's keyed prefix, as Subscribe sends it (pygnmi's get keeps the two apart)
        assertThat(got.at("/notification/0/prefix").asText()).isEqualTo("NEW-VMM-MIB/vmTable/vmEntry[vmIndex=1]");
        JsonNode update = got.at("/notification/0/update/0");
        assertThat(update.get("path").asText()).isEqualTo("vmOperState");
        assertThat(update.get("val").asText()).isEqualTo("running");
    }

    @Test
    void pygnmiGetsAnEntryAsOneJsonIetfValueOrAsScalarsPerLeaf() throws Exception {
        JsonNode ietf = pygnmi("get", "--path", ENTRY_1, "--encoding", "json_ietf");
        assertThat(ietf.at("/notification/0/update/0/val/NEW-VMM-MIB:vmIndex").asInt()).isEqualTo(1);
        assertThat(ietf.at("/notification/0/update/0/val/NEW-VMM-MIB:vmOperState").asText()).isEqualTo("running");
        JsonNode proto = pygnmi("get", "--path", ENTRY_1, "--encoding", "proto");
        assertThat(proto.get("notification")).as("one notification for the entry").hasSize(1);
        assertThat(proto.at("/notification/0/prefix").asText()).isEqualTo("NEW-VMM-MIB/vmTable/vmEntry[vmIndex=1]");
        List<String> paths = new ArrayList<>();
        proto.at("/notification/0/update").forEach(u -> paths.add(u.get("path").asText()));
        assertThat(paths).contains("vmOperState", "vmCpuTime");
        // a 64-bit counter as PROTO's uint_val: pygnmi gives a number, where JSON_IETF writes a string
        proto.at("/notification/0/update").forEach(u -> {
            if (u.get("path").asText().equals("vmCpuTime")) assertThat(u.get("val").isNumber()).isTrue();
        });
    }

    @Test
    void pygnmiGetsTheConfigurationApartFromTheState() throws Exception {
        JsonNode config = pygnmi("get", "--path", "/NEW-VMM-MIB/vmConfigTable/vmConfigEntry[vmIndex=1]/vmName",
                "--datatype", "config");
        assertThat(config.at("/notification/0/update/0/val").asText()).isEqualTo("gnmi1");
        JsonNode state = pygnmi("get", "--path", "/NEW-VMM-MIB/vmConfigTable", "--datatype", "state");
        assertThat(state.get("code").asText()).isEqualTo("NOT_FOUND");
    }

    @ParameterizedTest
    @ValueSource(strings = {"json", "json_ietf", "proto"})
    void pygnmiSubscribesOnceInEachEncoding(String encoding) throws Exception {
        JsonNode once = pygnmi("once", "--path", "/NEW-VMM-MIB/vmTable/vmEntry/vmOperState", "--encoding", encoding);
        assertThat(once.get("sync").asBoolean()).isTrue();
        JsonNode first = once.at("/updates/0");
        assertThat(first.get("prefix").asText()).isEqualTo("NEW-VMM-MIB/vmTable/vmEntry[vmIndex=1]");
        assertThat(first.at("/update/0/path").asText()).isEqualTo("vmOperState");
        assertThat(first.at("/update/0/val").asText()).isEqualTo("running");
    }

    @Test
    void pygnmiPollsAndGetsEveryValueEachTime() throws Exception {
        JsonNode poll = pygnmi("poll", "--path", ENTRY_1, "--encoding", "proto");
        JsonNode rounds = poll.get("rounds");
        assertThat(rounds).hasSize(3);
        assertThat(rounds.get(0).asInt()).isGreaterThan(10);
        assertThat(rounds.get(1).asInt()).isEqualTo(rounds.get(0).asInt());
        assertThat(rounds.get(2).asInt()).isEqualTo(rounds.get(0).asInt());
    }

    @ParameterizedTest
    @ValueSource(strings = {"json_ietf", "proto"})
    void anOnChangeSubscriberSeesAVrCreatedOverRestAndItsRemovalAsADelete(String encoding) throws Exception {
        JsonNode seen = pygnmi("on-change", "--encoding", encoding);
        int vm = seen.get("vmIndex").asInt();
        assertThat(seen.at("/created/prefix").asText()).isEqualTo("NEW-VMM-MIB/vmTable/vmEntry[vmIndex=" + vm + "]");
        assertThat(seen.at("/deleted/prefix").asText()).isEqualTo("NEW-VMM-MIB/vmTable");
        assertThat(seen.at("/deleted/delete/0/path").asText()).isEqualTo("vmEntry[vmIndex=" + vm + "]");
    }

    // ------------------------------------------------------------------ origin openconfig

    @ParameterizedTest
    @ValueSource(strings = {"json", "json_ietf", "proto"})
    void pygnmiGetsTheOperStatusOfEveryInterfaceByAWildcardName(String encoding) throws Exception {
        JsonNode got = pygnmi("get", "--path", "openconfig:/interfaces/interface[name=*]/state/oper-status",
                "--encoding", encoding);
        assertThat(got.at("/notification/0/prefix").asText()).isEqualTo("interfaces/interface[name=vr1-1]/state");
        JsonNode update = got.at("/notification/0/update/0");
        assertThat(update.get("path").asText()).isEqualTo("oper-status");
        assertThat(update.get("val").asText()).isEqualTo("UP");
    }

    @Test
    void pygnmiGetsAnInterfacesConfigurationWithItsVrInTheDescription() throws Exception {
        JsonNode got = pygnmi("get", "--path", "openconfig:/interfaces/interface[name=vr1-1]/config", "--encoding", "json_ietf",
                "--datatype", "config");
        JsonNode config = got.at("/notification/0/update/0/val");
        assertThat(config.path("openconfig-interfaces:name").asText()).isEqualTo("vr1-1");
        assertThat(config.path("openconfig-interfaces:description").asText()).isEqualTo("VR gnmi1 (vmIndex 1) interface 1");
        assertThat(config.path("openconfig-interfaces:enabled").asBoolean()).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"json_ietf", "proto"})
    void anOnChangeSubscriberSeesAnInterfaceGoDownWhenItsVrStopsAndUpWhenItStarts(String encoding) throws Exception {
        var created = server.post("/api/v1/routers?wait=30s", "{\"vmIndex\":3,\"vmName\":\"gnmi3\",\"vmNetworkConfigTable\":"
                + "[{\"vmNetworkConfigParent\":\"br0\"}]}");
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        try {
            JsonNode seen = pygnmi("oc-on-change", "--vm", "3", "--encoding", encoding);
            assertThat(seen.at("/first").toString()).contains("interfaces/interface[name=vr3-1]/state");
            assertThat(seen.at("/stop/prefix").asText()).isEqualTo("interfaces/interface[name=vr3-1]/state");
            assertThat(seen.at("/stop/update/0/path").asText()).isEqualTo("oper-status");
            assertThat(seen.at("/start/update/0/val").asText()).isEqualTo("UP");
        } finally {
            assertThat(server.delete("/api/v1/routers/3?wait=30s").statusCode()).isIn(202, 204);
        }
    }

    /**
     * On the netns driver (this host's kernel, as root) an interface has the host's name (its host-side
     * veth) and counters: a SAMPLE subscription to every interface's counters sends them as REST shows
     * vmNetworkTable's, each between a read before and one after.
     */
    @Test
    void pygnmiSamplesTheCountersOfAnInterfaceNamedAsTheHostNamesIt() throws Exception {
        TestHost host = new TestHost();
        Path netns = dir.resolve("netns");
        Files.createDirectories(netns);
        Path conf = netns.resolve("netns.properties");
        Files.writeString(conf, "netns.prefix = " + host.prefix + "\nnetns.run-dir = " + netns.resolve("run") + "\n");
        try (ServerProcess withNetns = ServerProcess.start(netns.resolve("server"), "--driver", "netns", "--config", conf.toString())) {
            var created = withNetns.post("/api/v1/routers?wait=30s", "{\"vmIndex\":1,\"vmName\":\"counted\","
                    + "\"vmNetworkConfigTable\":[{\"vmNetworkConfigParent\":\"" + host.bridge("a") + "\"}]}");
            assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
            try {
                String veth = host.prefix + "1-1";
                long before = withNetns.router(1).at("/vmNetworkTable/0/vmNetworkInPkts").asLong(-1);
                JsonNode samples = pygnmi(withNetns, "sample", "--path", "openconfig:/interfaces/interface[name=*]/state/counters",
                        "--encoding", "proto").get("samples");
                long after = withNetns.router(1).at("/vmNetworkTable/0/vmNetworkInPkts").asLong(-1);
                assertThat(samples.at("/0/prefix").asText()).isEqualTo("interfaces/interface[name=" + veth + "]/state/counters");
                assertThat(Files.exists(Path.of("/sys/class/net", veth))).as("the host's interface " + veth).isTrue();
                java.util.Map<String, JsonNode> counters = new java.util.TreeMap<>();
                samples.at("/0/update").forEach(u -> counters.put(u.get("path").asText(), u.get("val")));
                assertThat(counters).containsOnlyKeys("in-octets", "in-pkts", "out-octets", "out-pkts",
                        "in-errors", "out-errors", "in-discards", "out-discards");
                assertThat(counters.values()).allMatch(JsonNode::isNumber);
                assertThat(counters.get("in-pkts").asLong()).isBetween(before, after);
            } finally {
                assertThat(withNetns.delete("/api/v1/routers/1?wait=30s").statusCode()).isEqualTo(204);
            }
        } finally {
            host.close();
        }
        assertThat(host.leftovers(netns.resolve("run"))).as("left on the host").isEmpty();
    }

    @Test
    void gnmiCliGetsAnInterfacesStatusUnderOriginOpenconfig() throws Exception {
        String out = runGnmiCli("-get", "-proto", "path: <origin: \"openconfig\" elem: <name: \"interfaces\">"
                + " elem: <name: \"interface\" key: <key: \"name\" value: \"*\">> elem: <name: \"state\">"
                + " elem: <name: \"admin-status\">> encoding: PROTO");
        assertThat(out).contains("value: \"vr1-1\"", "string_val: \"UP\"");
    }

    @Test
    void aSampleSubscriptionSendsACounterEveryInterval() throws Exception {
        JsonNode samples = pygnmi("sample", "--path", "/NEW-VMM-MIB/vmTable/vmEntry/vmCpuTime", "--encoding", "proto")
                .get("samples");
        long first = samples.at("/0/timestamp").asLong();
        long second = samples.at("/1/timestamp").asLong();
        assertThat(second).isGreaterThan(first);
        assertThat(samples.at("/1/update/0/path").asText()).isEqualTo("vmCpuTime");
    }

    @Test
    void badRequestsGetTheStatusTheSpecificationNamesAndTheServerGoesOn() throws Exception {
        JsonNode bad = pygnmi("bad-input");
        assertThat(bad.at("/malformedPath/code").asText()).isEqualTo("INVALID_ARGUMENT");
        assertThat(bad.at("/unknownOrigin/code").asText()).isEqualTo("INVALID_ARGUMENT");
        assertThat(bad.at("/unknownOrigin/details").asText()).contains("unknown origin 'ietf'");
        assertThat(bad.at("/unknownPath/code").asText()).isEqualTo("NOT_FOUND");
        assertThat(bad.at("/unsupportedEncoding/code").asText()).isEqualTo("UNIMPLEMENTED");
        assertThat(bad.at("/sampleTooFast/code").asText()).isEqualTo("INVALID_ARGUMENT");
        assertThat(bad.at("/sampleTooFast/details").asText()).contains("below this target's minimum");
        assertThat(bad.at("/secondList/code").asText()).isEqualTo("INVALID_ARGUMENT");
        assertThat(bad.at("/pollWithoutPollMode/code").asText()).isEqualTo("INVALID_ARGUMENT");
        assertThat(bad.at("/subscribeEncoding/code").asText()).isEqualTo("UNIMPLEMENTED");
        assertThat(bad.at("/noCredentials/code").asText()).isEqualTo("UNAUTHENTICATED");
        assertThat(bad.get("afterwards").asInt()).isEqualTo(1);
        assertThat(server.log()).doesNotContain("Exception");
    }

    @Test
    void aWrongPasswordIsUnauthenticated() throws Exception {
        assertThat(pygnmi("wrong-password").get("code").asText()).isEqualTo("UNAUTHENTICATED");
    }

    @Test
    void pygnmiTalksTlsToATargetWithAKeystoreTrustingTheServersCertificate() throws Exception {
        Path tls = dir.resolve("tls");
        Path cert = serverKeystore(tls);
        Path config = tls.resolve("vrouter.properties");
        Files.writeString(config, "gnmi.tls.keystore=" + tls.resolve("server.p12") + "\ngnmi.tls.keystore-password=changeit\n");
        try (ServerProcess withTls = ServerProcess.start(tls.resolve("server"), "--config", config.toString())) {
            JsonNode caps = pygnmi(withTls, "capabilities", "--cert", cert.toString());
            assertThat(caps.at("/supported_models/0/name").asText()).isEqualTo("NEW-VMM-MIB");
        }
    }

    /** {@code server.p12} in the directory, with a key and a certificate for 127.0.0.1; returns the certificate (PEM). */
    private static Path serverKeystore(Path dir) throws Exception {
        Files.createDirectories(dir);
        Path keystore = dir.resolve("server.p12");
        Path cert = dir.resolve("server.pem");
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        run(List.of(keytool, "-genkeypair", "-alias", "vrouter", "-keyalg", "EC", "-groupname", "secp256r1",
                "-dname", "CN=127.0.0.1", "-ext", "SAN=ip:127.0.0.1", "-validity", "2", "-storetype", "PKCS12",
                "-keystore", keystore.toString(), "-storepass", "changeit"));
        run(List.of(keytool, "-exportcert", "-rfc", "-alias", "vrouter", "-keystore", keystore.toString(),
                "-storepass", "changeit", "-file", cert.toString()));
        return cert;
    }

    private static void run(List<String> cmd) throws Exception {
        ServerProcess.Result r = ServerProcess.run(cmd);
        assertThat(r.exit()).as(r.toString()).isZero();
    }

    /**
     * With {@code gnmi.tls.client-ca}, pygnmi and gnmi_cli get in with a client certificate that CA
     * signed (made by openssl), and not without one or with one it did not sign; the username and
     * password still log in.
     */
    @Test
    void withClientCasOnlyACollectorWithACertificateTheySignedGetsIn() throws Exception {
        Path mtls = dir.resolve("mtls");
        Path serverCert = serverKeystore(mtls);
        String ec = "ec_paramgen_curve:prime256v1";
        String ca = mtls.resolve("ca").toString();
        String client = mtls.resolve("client").toString();
        String rogue = mtls.resolve("rogue").toString();
        run(List.of("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", ec, "-nodes", "-keyout", ca + ".key",
                "-out", ca + ".pem", "-subj", "/CN=collectors-ca", "-days", "2"));
        run(List.of("openssl", "req", "-newkey", "ec", "-pkeyopt", ec, "-nodes", "-keyout", client + ".key",
                "-out", client + ".csr", "-subj", "/CN=collector"));
        run(List.of("openssl", "x509", "-req", "-in", client + ".csr", "-CA", ca + ".pem", "-CAkey", ca + ".key",
                "-CAcreateserial", "-out", client + ".pem", "-days", "2"));
        run(List.of("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", ec, "-nodes", "-keyout", rogue + ".key",
                "-out", rogue + ".pem", "-subj", "/CN=collector", "-days", "2"));
        Path config = mtls.resolve("vrouter.properties");
        Files.writeString(config, "gnmi.tls.keystore=" + mtls.resolve("server.p12") + "\ngnmi.tls.keystore-password=changeit\n"
                + "gnmi.tls.client-ca=" + ca + ".pem\n");
        try (ServerProcess withMtls = ServerProcess.start(mtls.resolve("server"), "--config", config.toString())) {
            String cert = serverCert.toString();
            assertThat(pygnmi(withMtls, "capabilities", "--cert", cert, "--client-cert", client + ".pem",
                    "--client-key", client + ".key").at("/supported_models/0/name").asText()).isEqualTo("NEW-VMM-MIB");
            assertThat(pygnmi(withMtls, "capabilities", "--cert", cert).has("supported_models")).as("no certificate").isFalse();
            assertThat(pygnmi(withMtls, "capabilities", "--cert", cert, "--client-cert", rogue + ".pem",
                    "--client-key", rogue + ".key").has("supported_models")).as("a certificate of no CA configured").isFalse();
            List<String> gnmiCli = List.of("env", "GNMI_USER=admin", "GNMI_PASS=admin", GNMI_CLI, "-address",
                    "127.0.0.1:" + withMtls.gnmiPort, "-with_user_pass", "-timeout", "30s", "-ca_crt", cert, "-capabilities");
            ServerProcess.Result in = ServerProcess.run(concat(gnmiCli, "-client_crt", client + ".pem", "-client_key", client + ".key"));
            assertThat(in.exit()).as(in.toString()).isZero();
            assertThat(oneSpace(in.out())).contains("name: \"openconfig-interfaces\"");
            ServerProcess.Result out = ServerProcess.run(concat(gnmiCli, "-client_crt", rogue + ".pem", "-client_key", rogue + ".key"));
            assertThat(out.exit()).as(out.toString()).isNotZero();
            assertThat(ServerProcess.run(gnmiCli).exit()).as("gnmi_cli without a certificate").isNotZero();
        }
    }

    private static List<String> concat(List<String> head, String... tail) {
        List<String> all = new ArrayList<>(head);
        all.addAll(List.of(tail));
        return all;
    }

    @Test
    void callsAreCountedInTheMetricsAsTheOtherInterfacesCountTheirs() throws Exception {
        pygnmi("get", "--path", ENTRY_1 + "/vmOperState");
        pygnmi("wrong-password");
        List<String> requests = server.metrics().lines()
                .filter(l -> l.startsWith("vrouter_requests_seconds_count{") && l.contains("interface=\"gnmi\"")).toList();
        assertThat(requests).anyMatch(l -> l.contains("operation=\"get\"") && l.contains("outcome=\"ok\""));
        assertThat(requests).anyMatch(l -> l.contains("operation=\"capabilities\"") && l.contains("outcome=\"unauthenticated\""));
        assertThat(server.metrics()).contains("vrouter_gnmi_streams", "vrouter_gnmi_coalesced_total");
    }

    @Test
    void aCollectorThatStopsReadingHoldsUpNoOtherClient() throws Exception {
        assertThat(pygnmi("stalled-reader").get("answers").asInt()).isEqualTo(5);
        assertThat(server.get("/health/ready").statusCode()).isEqualTo(200);
    }

    // ------------------------------------------------------------------ gnmi_cli

    @Test
    void gnmiCliCapabilities() throws Exception {
        String out = runGnmiCli("-capabilities");
        assertThat(out).contains("name: \"NEW-VMM-MIB\"", "supported_encodings: JSON_IETF", "supported_encodings: PROTO",
                "gNMI_version: \"0.10.0\"");
    }

    @ParameterizedTest
    @ValueSource(strings = {"JSON", "JSON_IETF", "PROTO"})
    void gnmiCliGetsInEachEncoding(String encoding) throws Exception {
        String out = runGnmiCli("-get", "-proto", "path: <elem: <name: \"NEW-VMM-MIB\"> elem: <name: \"vmTable\">"
                + " elem: <name: \"vmEntry\" key: <key: \"vmIndex\" value: \"1\">> elem: <name: \"vmOperState\">>"
                + " encoding: " + encoding);
        assertThat(out).contains(switch (encoding) {
            case "JSON" -> "json_val: \"\\\"running\\\"\"";
            case "JSON_IETF" -> "json_ietf_val: \"\\\"running\\\"\"";
            default -> "string_val: \"running\"";
        });
    }

    @Test
    void gnmiCliSubscribesOnceAndPolls() throws Exception {
        assertThat(runGnmiCli("-qt", "once", "-display_type", "p", "-q", "NEW-VMM-MIB/vmTable/vmEntry[vmIndex=1]/vmOperState"))
                .contains("value: \"1\"", "json_val: \"\\\"running\\\"\"", "sync_response: true");
        // -c counts what the grouped display shows (the proto display would poll on for ever): the first values and a poll
        String polled = runGnmiCli("-qt", "p", "-pi", "1s", "-c", "2", "-q", "NEW-VMM-MIB/vmObjects/vmNumber");
        assertThat(polled.split("\"vmNumber\"", -1)).hasSize(3);
    }

    @Test
    void gnmiCliStreamsAVrCreatedOverRestAndItsRemoval() throws Exception {
        Path out = dir.resolve("gnmi_cli-stream.out");
        Process p = new ProcessBuilder(gnmiCli("-qt", "s", "-sd", "90s", "-display_type", "p", "-q",
                "NEW-VMM-MIB/vmTable/vmEntry/vmOperState")).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        try {
            await(out, "sync_response: true");
            var created = server.post("/api/v1/routers", "{\"vmIndex\":7,\"vmName\":\"gnmi7\"}");
            assertThat(created.statusCode()).as(created.body()).isIn(201, 202);
            await(out, "value: \"7\"");
            assertThat(server.delete("/api/v1/routers/7").statusCode()).isIn(202, 204);
            await(out, "delete:");
        } finally {
            p.destroy();
            p.waitFor(10, TimeUnit.SECONDS);
        }
        assertThat(oneSpace(Files.readString(out))).contains("name: \"vmEntry\"");
    }

    /** Waits until the client's output holds the text (a minute at most). */
    private static void await(Path out, String text) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < end) {
            if (Files.exists(out) && oneSpace(Files.readString(out)).contains(text)) return;
            Thread.sleep(100);
        }
        throw new AssertionError("gnmi_cli never printed " + text + ":\n" + Files.readString(out));
    }
}
