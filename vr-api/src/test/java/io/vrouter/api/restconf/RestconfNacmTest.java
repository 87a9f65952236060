package io.vrouter.api.restconf;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vrouter.api.rest.RestServer;
import io.vrouter.core.config.Caller;
import io.vrouter.core.config.Credentials.Role;
import io.vrouter.yang.nacm.NacmConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * RESTCONF under the application's access control (NACM, RFC 8341, as NETCONF): a rule denying a
 * leaf refuses every method's write of it with 403 access-denied and leaves it out of every read,
 * while the rest of the entry is written and read as before.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RestconfNacmTest {
    private static final String ADMIN = basic("admin:admin");
    private static final String ALICE = basic("alice:alice-secret");
    private static final String NACM = "/restconf/data/ietf-netconf-acm:nacm";
    private static final String JSON = "application/yang-data+json";
    private static final String XML = "application/yang-data+xml";
    private static final String ENTRY = "/restconf/data/NEW-VMM-MIB:NEW-VMM-MIB/vmConfigTable/vmConfigEntry=1";

    private final ObjectMapper json = new ObjectMapper();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private RestServer server;

    @BeforeAll
    void start() throws Exception {
        server = RestServer.start("vrouter-restconf-nacm", Map.of("tenant.acme", "vrs=5",
                "user.admin", "operator:admin", "user.alice", "operator@acme:alice-secret"));
        HttpResponse<String> r = send("POST", "/restconf/data/NEW-VMM-MIB:NEW-VMM-MIB/vmConfigTable", JSON,
                "{\"NEW-VMM-MIB:vmConfigEntry\":[{\"vmIndex\":1,\"vmName\":\"kept\",\"vmConfigDescription\":\"before\"}]}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        // the provider's operators (group admin) denied vmName, reads and writes
        NacmConfig c = server.nacm().config().copy();
        NacmConfig.RuleList list = new NacmConfig.RuleList();
        list.name = "no-names";
        list.groups = List.of("admin");
        NacmConfig.Rule rule = new NacmConfig.Rule();
        rule.name = "vmName";
        rule.moduleName = "NEW-VMM-MIB";
        rule.path = "/new-vmm-mib:NEW-VMM-MIB/new-vmm-mib:vmConfigTable/new-vmm-mib:vmConfigEntry/new-vmm-mib:vmName";
        rule.action = "deny";
        list.rules.add(rule);
        c.ruleLists.add(list);
        server.nacm().replace(c);
    }

    @AfterAll
    void stop() {
        server.close();
    }

    private static String basic(String userAndPassword) {
        return "Basic " + Base64.getEncoder().encodeToString(userAndPassword.getBytes(StandardCharsets.UTF_8));
    }

    private HttpResponse<String> send(String method, String path, String type, String body, String... headers) throws Exception {
        return sendAs(ADMIN, method, path, type, body, headers);
    }

    private HttpResponse<String> sendAs(String auth, String method, String path, String type, String body, String... headers)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .timeout(Duration.ofSeconds(30)).header("Authorization", auth)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (type != null) b.header("Content-Type", type);
        for (int i = 0; i < headers.length; i += 2) b.header(headers[i], headers[i + 1]);
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private void accessDenied(HttpResponse<String> r) throws Exception {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(403);
        JsonNode e = json.readTree(r.body()).path("ietf-restconf:errors").path("error").get(0);
        assertThat(e.path("error-tag").asText()).as(r.body()).isEqualTo("access-denied");
        assertThat(e.path("error-message").asText()).contains("vmName");
    }

    @Test
    void everyWriteOfTheDeniedLeafIsRefusedAndChangesNothing() throws Exception {
        accessDenied(send("PUT", ENTRY + "/vmName", JSON, "{\"NEW-VMM-MIB:vmName\":\"put\"}"));
        accessDenied(send("PATCH", ENTRY, JSON, "{\"NEW-VMM-MIB:vmConfigEntry\":[{\"vmIndex\":1,\"vmName\":\"patched\"}]}"));
        accessDenied(send("PATCH", ENTRY, XML, "<vmConfigEntry xmlns=\"urn:ietf:params:xml:ns:yang:smiv2:NEW-VMM-MIB\">"
                + "<vmIndex>1</vmIndex><vmName>xml</vmName></vmConfigEntry>", "Accept", JSON));
        accessDenied(send("DELETE", ENTRY + "/vmName", null, null));
        // a YANG Patch is refused whole, the permitted edit with it
        HttpResponse<String> patch = send("PATCH", "/restconf/data/NEW-VMM-MIB:NEW-VMM-MIB", "application/yang-patch+json",
                "{\"ietf-yang-patch:yang-patch\":{\"patch-id\":\"p\",\"edit\":["
                        + "{\"edit-id\":\"1\",\"operation\":\"merge\",\"target\":\"/vmConfigTable/vmConfigEntry=1/vmConfigDescription\","
                        + "\"value\":{\"NEW-VMM-MIB:vmConfigDescription\":\"patched\"}},"
                        + "{\"edit-id\":\"2\",\"operation\":\"merge\",\"target\":\"/vmConfigTable/vmConfigEntry=1/vmName\","
                        + "\"value\":{\"NEW-VMM-MIB:vmName\":\"patched\"}}]}}", "Accept", JSON);
        assertThat(patch.statusCode()).as(patch.body()).isEqualTo(403);
        assertThat(patch.body()).contains("access-denied");
        assertThat(server.service().getConfig(1).orElseThrow().vmName).isEqualTo("kept");
        assertThat(server.service().getConfig(1).orElseThrow().vmConfigDescription).isEqualTo("before");
        // the entry's other leaves are written as before
        HttpResponse<String> ok = send("PUT", ENTRY + "/vmConfigDescription", JSON, "{\"NEW-VMM-MIB:vmConfigDescription\":\"after\"}");
        assertThat(ok.statusCode()).as(ok.body()).isEqualTo(204);
        assertThat(server.service().getConfig(1).orElseThrow().vmConfigDescription).isEqualTo("after");
    }

    @Test
    void theDeniedLeafIsLeftOutOfEveryRead() throws Exception {
        // the configuration only (/nacm, beside it, names vmName in its rule): vmTable's vmName (state) is another node, which the rule does not name
        for (String path : List.of("/restconf/data/NEW-VMM-MIB:NEW-VMM-MIB?content=config", ENTRY)) {
            for (String accept : List.of(JSON, XML)) {
                HttpResponse<String> r = send("GET", path, null, null, "Accept", accept);
                assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
                assertThat(r.body()).as(path).contains("vmIndex").doesNotContain("vmName").doesNotContain("kept");
            }
        }
        HttpResponse<String> leaf = send("GET", ENTRY + "/vmName", null, null, "Accept", JSON);
        assertThat(leaf.statusCode()).as(leaf.body()).isEqualTo(404);
        assertThat(leaf.body()).doesNotContain("kept");
    }

    @Test
    void nacmIsReadAndEditedInJsonAndXmlByTheProvidersOperatorsAlone() throws Exception {
        JsonNode read = json.readTree(send("GET", NACM, null, null, "Accept", JSON).body());
        assertThat(read.path("ietf-netconf-acm:nacm").path("rule-list").get(0).path("name").asText()).isEqualTo("no-names");
        assertThat(read.path("ietf-netconf-acm:nacm").path("enable-nacm").isBoolean()).as("a boolean in JSON").isTrue();
        assertThat(read.path("ietf-netconf-acm:nacm").path("denied-data-writes").isNumber()).as("a counter in JSON").isTrue();
        assertThat(send("GET", NACM, null, null, "Accept", XML).body()).contains("<name>no-names</name>", "<denied-data-writes>");
        // JSON: a rule list that denies vmConfigCpuNumber to admin, merged
        HttpResponse<String> merged = send("PATCH", NACM, JSON, "{\"ietf-netconf-acm:nacm\":{\"rule-list\":[{\"name\":\"no-cpus\","
                + "\"group\":[\"admin\"],\"rule\":[{\"name\":\"cpus\",\"module-name\":\"NEW-VMM-MIB\",\"path\":"
                + "\"/new-vmm-mib:NEW-VMM-MIB/new-vmm-mib:vmConfigTable/new-vmm-mib:vmConfigEntry/new-vmm-mib:vmConfigCpuNumber\","
                + "\"access-operations\":\"update\",\"action\":\"deny\"}]}]}}");
        assertThat(merged.statusCode()).as(merged.body()).isEqualTo(204);
        assertThat(server.nacm().config().ruleLists).extracting(l -> l.name).containsExactly("no-names", "no-cpus");
        HttpResponse<String> cpus = send("PUT", ENTRY + "/vmConfigCpuNumber", JSON, "{\"NEW-VMM-MIB:vmConfigCpuNumber\":2}");
        assertThat(cpus.statusCode()).as(cpus.body()).isEqualTo(403);
        // XML: a group, merged; then a bad action refused with nothing changed
        HttpResponse<String> group = send("PATCH", NACM, XML, "<nacm xmlns=\"urn:ietf:params:xml:ns:yang:ietf-netconf-acm\">"
                + "<groups><group><name>ops</name><user-name>carol</user-name></group></groups></nacm>");
        assertThat(group.statusCode()).as(group.body()).isEqualTo(204);
        assertThat(server.nacm().config().groups).containsEntry("ops", List.of("carol"));
        HttpResponse<String> bad = send("PATCH", NACM, XML, "<nacm xmlns=\"urn:ietf:params:xml:ns:yang:ietf-netconf-acm\">"
                + "<read-default>maybe</read-default></nacm>", "Accept", JSON);
        assertThat(bad.statusCode()).as(bad.body()).isEqualTo(400);
        assertThat(bad.body()).contains("invalid-value");
        assertThat(server.nacm().config().readDefault).isEqualTo("permit");
        // a tenant's operator neither reads nor writes it (nacm:default-deny-all)
        assertThat(sendAs(ALICE, "GET", "/restconf/data", null, null, "Accept", JSON).body()).doesNotContain("ietf-netconf-acm:nacm");
        HttpResponse<String> byAlice = sendAs(ALICE, "PATCH", NACM, JSON, "{\"ietf-netconf-acm:nacm\":{\"enable-nacm\":false}}",
                "Accept", JSON);
        assertThat(byAlice.statusCode()).as(byAlice.body()).isEqualTo(403);
        assertThat(byAlice.body()).contains("access-denied");
        assertThat(server.nacm().config().enableNacm).isTrue();
    }

    @Test
    void nacmIsNotEditedWhileAnotherSessionHoldsRunningsLock() throws Exception {
        Caller holder = new Caller("admin", null, Role.OPERATOR, "netconf", null).inSession(7);
        server.service().lockRunning(holder);
        String body = "{\"ietf-netconf-acm:nacm\":{\"exec-default\":\"deny\"}}";
        try {
            for (String method : List.of("PUT", "PATCH", "DELETE")) {
                HttpResponse<String> r = send(method, NACM, method.equals("DELETE") ? null : JSON,
                        method.equals("DELETE") ? null : body, "Accept", JSON);
                assertThat(r.statusCode()).as(method + " " + r.body()).isEqualTo(409);
                assertThat(r.body()).contains("in-use", "session 7");
            }
            assertThat(server.nacm().config().execDefault).isEqualTo("permit");
            assertThat(server.nacm().config().ruleLists).extracting(l -> l.name).contains("no-names");
        } finally {
            server.service().unlockRunning(holder);
        }
        HttpResponse<String> after = send("PATCH", NACM, JSON, body, "Accept", JSON);
        assertThat(after.statusCode()).as(after.body()).isEqualTo(204);
        assertThat(server.nacm().config().execDefault).isEqualTo("deny");
        assertThat(send("PATCH", NACM, JSON, "{\"ietf-netconf-acm:nacm\":{\"exec-default\":\"permit\"}}").statusCode()).isEqualTo(204);
    }
}
