package io.vrouter.it.tenants;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vrouter.it.ServerProcess;
import io.vrouter.it.tenants.TenantClient.Outcome;
import io.vrouter.it.tenants.TenantsIT.User;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Access control (NACM, RFC 8341) on every YANG interface of the packaged server (docs/adr/0024): a
 * rule the provider's operator adds over NETCONF, denying vmConfigDescription to the group admin,
 * refuses its write over NETCONF (access-denied) and RESTCONF (403 access-denied) alike and leaves it
 * out of the reads of NETCONF (get-config, ncclient), RESTCONF (GET, JSON and XML) and gNMI (Get,
 * gnmi_cli), while the rest of the VR is read as before.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NacmIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SCRIPT = "src/test/python/netconf_nacm.py";
    private static final String GNMI_CLI = "/opt/vrouter-go/bin/gnmi_cli";
    private static final String SECRET = "description-for-the-rule";

    @TempDir
    static Path dir;
    ServerProcess server;
    RestClient rest;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeAll
    void start() throws Exception {
        Path config = dir.resolve("vrouter.conf");
        Files.write(config, TenantsIT.SETTINGS);
        server = ServerProcess.start(dir.resolve("server"), "--config", config.toString());
        rest = new RestClient(server);
    }

    @AfterAll
    void stop() throws Exception {
        if (server != null) server.close();
    }

    private JsonNode netconf(String action) throws Exception {
        ServerProcess.Result r = ServerProcess.run(List.of("python3", SCRIPT, action, "--port", Integer.toString(server.netconfPort),
                "--user", User.ADMIN.name, "--password", User.ADMIN.password));
        if (r.exit() != 0) throw new AssertionError("netconf " + action + " failed: " + r);
        String[] lines = r.out().strip().split("\n");
        return JSON.readTree(lines[lines.length - 1]);
    }

    private String restconf(String path, String accept) throws Exception {
        HttpResponse<String> r = http.send(rest.request(User.ADMIN, path).header("Accept", accept).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return r.body();
    }

    private String gnmi(int vm) throws Exception {
        ServerProcess.Result r = ServerProcess.run(List.of("env", "GNMI_USER=admin", "GNMI_PASS=admin", GNMI_CLI,
                "-address", "127.0.0.1:" + server.gnmiPort, "-insecure", "-with_user_pass", "-timeout", "30s", "-get", "-proto",
                "path: <elem: <name: \"NEW-VMM-MIB\"> elem: <name: \"vmConfigTable\"> elem: <name: \"vmConfigEntry\""
                        + " key: <key: \"vmIndex\" value: \"" + vm + "\">>> encoding: JSON_IETF"));
        if (r.exit() != 0) throw new AssertionError("gnmi_cli failed: " + r);
        return r.out();
    }

    /** What each read of the VR's configuration returns, by interface. */
    private List<String> reads(int vm) throws Exception {
        String entry = "/restconf/data/NEW-VMM-MIB:NEW-VMM-MIB/vmConfigTable/vmConfigEntry=" + vm;
        return List.of("netconf " + netconf("get-config").path("said").asText(),
                "restconf-json " + restconf(entry, "application/yang-data+json"),
                "restconf-xml " + restconf(entry, "application/yang-data+xml"),
                "gnmi " + gnmi(vm));
    }

    @Test
    void aRuleDenyingALeafRefusesItsWriteOverNetconfAndRestconfAndHidesItFromEveryRead() throws Exception {
        Outcome made = rest.createFor("nacm-vr", null);
        assertThat(made.kind()).as(made.said()).isEqualTo(Outcome.Kind.OK);
        int vm = made.vmIndex();
        Outcome described = rest.describe(User.ADMIN, vm, SECRET);
        assertThat(described.kind()).as(described.said()).isEqualTo(Outcome.Kind.OK);
        assertThat(reads(vm)).as("before the rule").allSatisfy(r -> assertThat(r).contains(SECRET, "nacm-vr"));

        JsonNode rule = netconf("deny-description");
        assertThat(rule.path("ok").asBoolean()).as(rule.toString()).isTrue();

        Outcome byNetconf = new NetconfClient(server).describe(User.ADMIN, vm, "by netconf");
        assertThat(byNetconf.kind()).as(byNetconf.said()).isEqualTo(Outcome.Kind.DENIED);
        assertThat(byNetconf.said()).contains("access-denied");
        Outcome byRestconf = new RestconfClient(server).describe(User.ADMIN, vm, "by restconf");
        assertThat(byRestconf.kind()).as(byRestconf.said()).isEqualTo(Outcome.Kind.DENIED);
        assertThat(byRestconf.said()).startsWith("403 ").contains("\"access-denied\"", "vmConfigDescription");

        assertThat(reads(vm)).as("under the rule").allSatisfy(r -> assertThat(r).contains("nacm-vr")
                .doesNotContain(SECRET));
        // REST is not YANG data: it shows the description, unchanged by the refused writes
        HttpResponse<String> plain = http.send(rest.request(User.ADMIN, "/api/v1/routers/" + vm).header("Accept", "application/json")
                .GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(plain.body()).contains(SECRET);
    }
}
