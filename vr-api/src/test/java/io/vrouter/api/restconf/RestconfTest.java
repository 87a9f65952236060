package io.vrouter.api.restconf;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vrouter.api.rest.RestServer;
import io.vrouter.core.model.OperState;
import io.vrouter.core.model.VirtualRouter;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** RESTCONF over real HTTP, on a whole server with the simulated driver: every method, parameter and error mapping. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RestconfTest {
    private static final String ADMIN = basic("admin", "admin");
    private static final String VIEWER = basic("viewer", "viewer");
    private static final String JSON = "application/yang-data+json";
    private static final String XML = "application/yang-data+xml";
    private static final String TABLE = "/restconf/data/NEW-VMM-MIB:NEW-VMM-MIB/vmConfigTable";

    private final ObjectMapper json = new ObjectMapper();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private RestServer server;
    private String base;

    @BeforeAll
    void start() throws Exception {
        server = RestServer.start("vrouter-restconf-test");
        base = "http://127.0.0.1:" + server.port();
    }

    @AfterAll
    void stop() {
        server.close();
    }

    private static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    private HttpResponse<String> send(String method, String path, String auth, String type, String body, String... headers)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (auth != null) b.header("Authorization", auth);
        if (type != null) b.header("Content-Type", type);
        for (int i = 0; i < headers.length; i += 2) b.header(headers[i], headers[i + 1]);
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A YANG Patch (RFC 8072) of the module's whole tree, the body in encoding (json or xml). */
    private HttpResponse<String> yangPatch(String encoding, String body, String accept) throws Exception {
        return send("PATCH", "/restconf/data/NEW-VMM-MIB:NEW-VMM-MIB", ADMIN, "application/yang-patch+" + encoding, body,
                "Accept", accept);
    }

    private HttpResponse<String> get(String path, String accept) throws Exception {
        return send("GET", path, ADMIN, null, null, "Accept", accept);
    }

    private JsonNode getJson(String path) throws Exception {
        HttpResponse<String> r = get(path, JSON);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type")).contains(JSON);
        return json.readTree(r.body());
    }

    /** Creates a VR by POST with its vmIndex, and waits until it runs. */
    private void create(int vmIndex, String name) throws Exception {
        HttpResponse<String> r = send("POST", TABLE, ADMIN, JSON,
                "{\"NEW-VMM-MIB:vmConfigEntry\":[{\"vmIndex\":" + vmIndex + ",\"vmName\":\"" + name + "\"}]}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        assertThat(r.headers().firstValue("Location")).contains(base + TABLE + "/vmConfigEntry=" + vmIndex);
        awaitOperState(vmIndex, OperState.RUNNING);
    }

    private void awaitOperState(int vmIndex, OperState state) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < deadline) {
            Optional<VirtualRouter> vr = server.service().get(vmIndex);
            if (vr.isPresent() && vr.get().operState() == state) return;
            Thread.sleep(20);
        }
        throw new AssertionError("VR " + vmIndex + " did not reach " + state + ": " + server.service().get(vmIndex));
    }

    /** The one error of an ietf-restconf:errors body in JSON. */
    private JsonNode error(HttpResponse<String> r, int status, String tag) throws Exception {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        assertThat(r.headers().firstValue("Content-Type")).contains(JSON);
        JsonNode e = json.readTree(r.body()).path("ietf-restconf:errors").path("error").get(0);
        assertThat(e.path("error-tag").asText()).as(r.body()).isEqualTo(tag);
        return e;
    }

    // ------------------------------------------------------------------ discovery

    @Test
    void hostMetaNamesTheRootInXrdAndJsonWithoutLogin() throws Exception {
        HttpResponse<String> xrd = send("GET", "/.well-known/host-meta", null, null, null);
        assertThat(xrd.statusCode()).isEqualTo(200);
        assertThat(xrd.headers().firstValue("Content-Type")).contains("application/xrd+xml");
        assertThat(xrd.body()).contains("<Link rel=\"restconf\" href=\"/restconf\"/>");
        HttpResponse<String> js = send("GET", "/.well-known/host-meta", null, null, null, "Accept", "application/json");
        assertThat(json.readTree(js.body()).path("links").get(0).path("href").asText()).isEqualTo("/restconf");
        HttpResponse<String> file = send("GET", "/.well-known/host-meta.json", null, null, null);
        assertThat(json.readTree(file.body()).path("links").get(0).path("rel").asText()).isEqualTo("restconf");
    }

    @Test
    void theApiRootTheLibraryVersionAndTheOperationsInBothEncodings() throws Exception {
        JsonNode root = getJson("/restconf").path("ietf-restconf:restconf");
        assertThat(root.path("yang-library-version").asText()).isEqualTo("2019-01-04");
        assertThat(root.has("data")).isTrue();
        HttpResponse<String> xml = get("/restconf", XML);
        assertThat(xml.headers().firstValue("Content-Type")).contains(XML);
        assertThat(xml.body()).contains("<restconf xmlns=\"urn:ietf:params:xml:ns:yang:ietf-restconf\">")
                .contains("<yang-library-version>2019-01-04</yang-library-version>");
        assertThat(getJson("/restconf/yang-library-version").path("ietf-restconf:yang-library-version").asText())
                .isEqualTo("2019-01-04");
        // vrouter-history's RPCs, each an empty leaf as RFC 8040 section 3.3.2 lists them (issue 35)
        JsonNode ops = getJson("/restconf/operations").path("ietf-restconf:operations");
        assertThat(ops.has("vrouter-history:get-commits")).isTrue();
        assertThat(ops.has("vrouter-history:rollback")).isTrue();
        assertThat(get("/restconf/operations", XML).body()).contains("<rollback xmlns=\"urn:vrouter:yang:vrouter-history\"/>");
    }

    @Test
    void theYangLibraryPointsAtModuleTextsThatAreServed() throws Exception {
        JsonNode set = getJson("/restconf/data/ietf-yang-library:yang-library").path("ietf-yang-library:yang-library")
                .path("module-set").get(0);
        JsonNode vmm = null;
        for (JsonNode m : set.path("module")) {
            if (m.path("name").asText().equals("NEW-VMM-MIB")) vmm = m;
        }
        assertThat(vmm).as(set.toString()).isNotNull();
        String location = vmm.path("location").get(0).asText();
        assertThat(location).startsWith(base + "/restconf/modules/NEW-VMM-MIB/");
        HttpResponse<String> text = send("GET", location.substring(base.length()), ADMIN, null, null);
        assertThat(text.statusCode()).isEqualTo(200);
        assertThat(text.body()).startsWith("module NEW-VMM-MIB");
        for (JsonNode m : set.path("import-only-module")) {
            String loc = m.path("location").get(0).asText();
            assertThat(send("GET", loc.substring(base.length()), ADMIN, null, null).statusCode()).as(loc).isEqualTo(200);
        }
        error(send("GET", "/restconf/modules/NEW-VMM-MIB/1999-01-01", ADMIN, null, null, "Accept", JSON), 404, "invalid-value");
    }

    @Test
    void monitoringListsTheCapabilitiesAndTheStreamInBothEncodings() throws Exception {
        JsonNode state = getJson("/restconf/data/ietf-restconf-monitoring:restconf-state")
                .path("ietf-restconf-monitoring:restconf-state");
        assertThat(state.path("capabilities").path("capability").toString())
                .contains("urn:ietf:params:restconf:capability:depth:1.0", "urn:ietf:params:restconf:capability:yang-patch:1.0");
        JsonNode stream = state.path("streams").path("stream").get(0);
        assertThat(stream.path("name").asText()).isEqualTo("NETCONF");
        assertThat(stream.path("access").toString()).contains(base + "/restconf/streams/NETCONF/json",
                base + "/restconf/streams/NETCONF/xml");
    }

    // ------------------------------------------------------------------ reads

    @Test
    void readsTheTreeATableAnEntryAndALeafInBothEncodings() throws Exception {
        create(11, "read-11");
        JsonNode all = getJson("/restconf/data").path("ietf-restconf:data");
        assertThat(all.has("NEW-VMM-MIB:NEW-VMM-MIB")).isTrue();
        assertThat(all.has("ietf-yang-library:yang-library")).isTrue();
        JsonNode table = getJson(TABLE).path("NEW-VMM-MIB:vmConfigTable").path("vmConfigEntry");
        assertThat(table.toString()).contains("\"vmName\":\"read-11\"");
        JsonNode entry = getJson(TABLE + "/vmConfigEntry=11").path("NEW-VMM-MIB:vmConfigEntry").get(0);
        // RFC 7951: numbers of 32 bits as numbers, enumerations as labels, booleans as literals.
        assertThat(entry.path("vmIndex").isInt()).isTrue();
        assertThat(entry.path("vmConfigMemory").isInt()).isTrue();
        assertThat(entry.path("vmAdminState").asText()).isEqualTo("running");
        assertThat(entry.path("vmConfigAutoStart").isBoolean()).isTrue();
        assertThat(getJson(TABLE + "/vmConfigEntry=11/vmName").path("NEW-VMM-MIB:vmName").asText()).isEqualTo("read-11");
        HttpResponse<String> xml = get(TABLE + "/vmConfigEntry=11", XML);
        assertThat(xml.body()).contains("<vmConfigEntry xmlns=\"urn:ietf:params:xml:ns:yang:smiv2:NEW-VMM-MIB\">")
                .contains("<vmName>read-11</vmName>");
        // State data of the same VR, by its key in vmTable.
        JsonNode state = getJson("/restconf/data/NEW-VMM-MIB:NEW-VMM-MIB/vmTable/vmEntry=11").path("NEW-VMM-MIB:vmEntry").get(0);
        assertThat(state.path("vmOperState").asText()).isEqualTo("running");
        error(get(TABLE + "/vmConfigEntry=9999", JSON), 404, "invalid-value");
    }

    @Test
    void depthFieldsContentAndWithDefaults() throws Exception {
        create(12, "params-12");
        JsonNode shallow = getJson(TABLE + "?depth=1").path("NEW-VMM-MIB:vmConfigTable");
        assertThat(shallow.size()).isZero();
        JsonNode keysOnly = getJson(TABLE + "?depth=2").path("NEW-VMM-MIB:vmConfigTable").path("vmConfigEntry").get(0);
        assertThat(keysOnly.has("vmIndex")).isTrue();
        assertThat(keysOnly.has("vmName")).isFalse();
        JsonNode fields = getJson(TABLE + "/vmConfigEntry=12?fields=vmName;vmAdminState").path("NEW-VMM-MIB:vmConfigEntry").get(0);
        assertThat(fields.size()).as(fields.toString()).isEqualTo(3); // the key comes with them
        assertThat(fields.path("vmName").asText()).isEqualTo("params-12");
        JsonNode config = getJson("/restconf/data/NEW-VMM-MIB:NEW-VMM-MIB?content=config").path("NEW-VMM-MIB:NEW-VMM-MIB");
        assertThat(config.has("vmConfigTable")).isTrue();
        assertThat(config.has("vmTable")).isFalse();
        JsonNode nonconfig = getJson("/restconf/data/NEW-VMM-MIB:NEW-VMM-MIB?content=nonconfig").path("NEW-VMM-MIB:NEW-VMM-MIB");
        assertThat(nonconfig.has("vmTable")).isTrue();
        assertThat(nonconfig.has("vmConfigTable")).isFalse();
        JsonNode trimmed = getJson(TABLE + "/vmConfigEntry=12?with-defaults=trim").path("NEW-VMM-MIB:vmConfigEntry").get(0);
        assertThat(trimmed.has("vmConfigMemory")).as(trimmed.toString()).isFalse();
        JsonNode tagged = getJson(TABLE + "/vmConfigEntry=12?with-defaults=report-all-tagged").path("NEW-VMM-MIB:vmConfigEntry").get(0);
        assertThat(tagged.path("@vmConfigMemory").path("ietf-netconf-with-defaults:default").asBoolean()).isTrue();
        error(get(TABLE + "?depth=0", JSON), 400, "invalid-value");
        error(get(TABLE + "?content=some", JSON), 400, "invalid-value");
        error(get(TABLE + "?with-defaults=explicit", JSON), 400, "invalid-value");
        error(get(TABLE + "?fields=(", JSON), 400, "invalid-value");
        error(get(TABLE + "?color=red", JSON), 400, "invalid-value");
        error(get(TABLE + "?depth=1&depth=2", JSON), 400, "invalid-value");
    }

    @Test
    void anEncodingNoOneAsksForIsRefusedWith406() throws Exception {
        error(get(TABLE, "text/html"), 406, "invalid-value");
    }

    // ------------------------------------------------------------------ writes

    @Test
    void postPutPatchAndDeleteAVrIncludingStopAndStart() throws Exception {
        create(21, "life-21");
        // POST without vmIndex: the service picks one, Location names it.
        HttpResponse<String> picked = send("POST", TABLE, ADMIN, XML,
                "<vmConfigEntry xmlns=\"urn:ietf:params:xml:ns:yang:smiv2:NEW-VMM-MIB\"><vmName>life-picked</vmName></vmConfigEntry>");
        assertThat(picked.statusCode()).as(picked.body()).isEqualTo(201);
        String location = picked.headers().firstValue("Location").orElseThrow();
        assertThat(location).matches(".*/vmConfigEntry=\\d+");
        assertThat(getJson(location.substring(base.length())).toString()).contains("life-picked");

        // Stop: a merge of vmAdminState.
        HttpResponse<String> stop = send("PATCH", TABLE + "/vmConfigEntry=21", ADMIN, JSON,
                "{\"NEW-VMM-MIB:vmConfigEntry\":[{\"vmIndex\":21,\"vmAdminState\":\"shutdown\"}]}");
        assertThat(stop.statusCode()).as(stop.body()).isEqualTo(204);
        awaitOperState(21, OperState.SHUTDOWN);
        // Change a leaf with PUT (memory changes only while shut down), then start again.
        HttpResponse<String> mem = send("PUT", TABLE + "/vmConfigEntry=21/vmConfigMemory", ADMIN, JSON,
                "{\"NEW-VMM-MIB:vmConfigMemory\":1024}");
        assertThat(mem.statusCode()).as(mem.body()).isEqualTo(204);
        assertThat(server.service().getConfig(21).orElseThrow().vmConfigMemory).isEqualTo(1024);
        HttpResponse<String> start = send("PUT", TABLE + "/vmConfigEntry=21/vmAdminState", ADMIN, XML,
                "<vmAdminState xmlns=\"urn:ietf:params:xml:ns:yang:smiv2:NEW-VMM-MIB\">running</vmAdminState>");
        assertThat(start.statusCode()).as(start.body()).isEqualTo(204);
        awaitOperState(21, OperState.RUNNING);

        // PUT of a whole new entry creates it (201); PUT again replaces it (204).
        String entry = "{\"NEW-VMM-MIB:vmConfigEntry\":[{\"vmIndex\":28,\"vmName\":\"life-28\"}]}";
        assertThat(send("PUT", TABLE + "/vmConfigEntry=28", ADMIN, JSON, entry).statusCode()).isEqualTo(201);
        assertThat(send("PUT", TABLE + "/vmConfigEntry=28", ADMIN, JSON, entry.replace("life-28", "life-28b")).statusCode())
                .isEqualTo(204);
        assertThat(server.service().getConfig(28).orElseThrow().vmName).isEqualTo("life-28b");

        // DELETE; then a second DELETE finds nothing.
        assertThat(send("DELETE", TABLE + "/vmConfigEntry=21", ADMIN, null, null).statusCode()).isEqualTo(204);
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (server.service().get(21).isPresent() && System.nanoTime() < deadline) Thread.sleep(20);
        assertThat(server.service().get(21)).isEmpty();
        error(send("DELETE", TABLE + "/vmConfigEntry=21", ADMIN, null, null, "Accept", JSON), 409, "data-missing");
    }

    @Test
    void refusalsAreRestconfErrorsWithTheirStatusAndChangeNothing() throws Exception {
        create(31, "err-31");
        error(send("POST", TABLE, ADMIN, JSON, "{\"NEW-VMM-MIB:vmConfigEntry\":[{\"vmIndex\":31,\"vmName\":\"x\"}]}"),
                409, "data-exists");
        JsonNode bad = error(send("PATCH", TABLE + "/vmConfigEntry=31", ADMIN, JSON,
                "{\"NEW-VMM-MIB:vmConfigEntry\":[{\"vmIndex\":31,\"vmConfigMemory\":\"lots\"}]}"), 400, "invalid-value");
        assertThat(bad.path("error-path").asText())
                .isEqualTo("/NEW-VMM-MIB:NEW-VMM-MIB/vmConfigTable/vmConfigEntry[vmIndex='31']/vmConfigMemory");
        error(send("PATCH", TABLE + "/vmConfigEntry=31", ADMIN, JSON, "{\"NEW-VMM-MIB:vmConfigEntry\":"), 400, "malformed-message");
        error(send("PATCH", TABLE + "/vmConfigEntry=31", ADMIN, JSON,
                "{\"NEW-VMM-MIB:vmConfigEntry\":[{\"vmIndex\":31,\"vmColour\":\"red\"}]}"), 400, "unknown-element");
        // The service's own rule: memory changes only while the VR is shut down.
        JsonNode running = error(send("PUT", TABLE + "/vmConfigEntry=31/vmConfigMemory", ADMIN, JSON,
                "{\"NEW-VMM-MIB:vmConfigMemory\":2048}"), 500, "operation-failed");
        assertThat(running.path("error-app-tag").asText()).isEqualTo("vr-not-shut-down");
        error(send("PUT", "/restconf/data/NEW-VMM-MIB:NEW-VMM-MIB/vmTable/vmEntry=31", ADMIN, JSON, "{}"), 405,
                "operation-not-supported");
        error(send("PATCH", TABLE + "/vmConfigEntry=9998", ADMIN, JSON,
                "{\"NEW-VMM-MIB:vmConfigEntry\":[{\"vmIndex\":9998,\"vmName\":\"n\"}]}"), 404, "invalid-value");
        error(send("PUT", TABLE + "/vmConfigEntry=31", ADMIN, "text/plain", "x"), 415, "invalid-value");
        error(send("POST", TABLE + "?insert=first", ADMIN, JSON, "{}"), 400, "invalid-value");
        // Roles: the viewer reads, the operator writes; without login nothing.
        assertThat(send("GET", TABLE, VIEWER, null, null).statusCode()).isEqualTo(200);
        error(send("DELETE", TABLE + "/vmConfigEntry=31", VIEWER, null, null), 403, "access-denied");
        error(send("GET", TABLE, null, null, null), 401, "access-denied");
        // A browser's write from another site is refused, as REST's is.
        error(send("DELETE", TABLE + "/vmConfigEntry=31", ADMIN, null, null, "Sec-Fetch-Site", "cross-site"), 403,
                "access-denied");
        // XML errors when XML is asked for.
        HttpResponse<String> xml = send("DELETE", TABLE + "/vmConfigEntry=9997", ADMIN, null, null, "Accept", XML);
        assertThat(xml.statusCode()).isEqualTo(409);
        assertThat(xml.body()).contains("<errors xmlns=\"urn:ietf:params:xml:ns:yang:ietf-restconf\">")
                .contains("<error-tag>data-missing</error-tag>").contains("new-vmm-mib:vmIndex='9997'");
        VirtualRouter after = server.service().get(31).orElseThrow();
        assertThat(after.vmName).isEqualTo("err-31");
        assertThat(after.vmConfigMemory).isEqualTo(512);
    }

    /** Nesting without end (issue 23 item 8): a 400 in RESTCONF's terms, not a StackOverflowError and a 500. */
    @Test
    void requestsNestedTooDeepAreMalformedNotAStackOverflow() throws Exception {
        JsonNode e = error(get("/restconf/data/NEW-VMM-MIB:NEW-VMM-MIB?fields=" + "a(".repeat(3000) + "a"
                + ")".repeat(3000), JSON), 400, "invalid-value");
        assertThat(e.path("error-message").asText()).contains("deeper than 64");
        String json = "{\"NEW-VMM-MIB:vmConfigEntry\":" + "{\"a\":".repeat(100_000) + "1" + "}".repeat(100_000) + "}";
        e = error(send("POST", TABLE, ADMIN, JSON, json, "Accept", JSON), 400, "malformed-message");
        assertThat(e.path("error-message").asText()).isEqualTo("the request nests deeper than 64 levels");
        String xml = "<vmConfigEntry xmlns=\"urn:ietf:params:xml:ns:yang:smiv2:NEW-VMM-MIB\">" + "<a>".repeat(100_000)
                + "</a>".repeat(100_000) + "</vmConfigEntry>";
        e = error(send("POST", TABLE, ADMIN, XML, xml, "Accept", JSON), 400, "malformed-message");
        assertThat(e.path("error-message").asText()).isEqualTo("the request nests deeper than 64 levels");
        e = error(yangPatch("json", "{\"ietf-yang-patch:yang-patch\":" + "[".repeat(100_000) + "]".repeat(100_000) + "}", JSON),
                400, "malformed-message");
        assertThat(e.path("error-message").asText()).isEqualTo("the request nests deeper than 64 levels");
        // Jackson's own words stay in the server: where the JSON broke, in the client's terms.
        e = error(send("POST", TABLE, ADMIN, JSON, "{\"NEW-VMM-MIB:vmConfigEntry\":[{\"vmIndex\" 5}]}", "Accept", JSON),
                400, "malformed-message");
        assertThat(e.path("error-message").asText()).startsWith("malformed JSON at line 1, column")
                .doesNotContain("Unexpected", "code", "Source", "jackson", "`");
    }

    @Test
    void yangPatchIsAllOrNothingInJsonAndXml() throws Exception {
        create(41, "patch-41");
        String ok = "{\"ietf-yang-patch:yang-patch\":{\"patch-id\":\"p1\",\"edit\":["
                + "{\"edit-id\":\"e1\",\"operation\":\"create\",\"target\":\"/vmConfigTable/vmConfigEntry=42\","
                + "\"value\":{\"NEW-VMM-MIB:vmConfigEntry\":[{\"vmIndex\":42,\"vmName\":\"patch-42\"}]}},"
                + "{\"edit-id\":\"e2\",\"operation\":\"merge\",\"target\":\"/vmConfigTable/vmConfigEntry=41/vmName\","
                + "\"value\":{\"NEW-VMM-MIB:vmName\":\"patch-41b\"}}]}}";
        HttpResponse<String> r = yangPatch("json", ok, JSON);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(json.readTree(r.body()).path("ietf-yang-patch:yang-patch-status").has("ok")).isTrue();
        assertThat(server.service().getConfig(42)).isPresent();
        assertThat(server.service().getConfig(41).orElseThrow().vmName).isEqualTo("patch-41b");

        // The second edit fails: the first is not made either.
        String xml = "<yang-patch xmlns=\"urn:ietf:params:xml:ns:yang:ietf-yang-patch\"><patch-id>p2</patch-id>"
                + "<edit><edit-id>a</edit-id><operation>merge</operation><target>/vmConfigTable/vmConfigEntry=41/vmName</target>"
                + "<value><vmName xmlns=\"urn:ietf:params:xml:ns:yang:smiv2:NEW-VMM-MIB\">patch-41c</vmName></value></edit>"
                + "<edit><edit-id>b</edit-id><operation>delete</operation><target>/vmConfigTable/vmConfigEntry=4343</target></edit>"
                + "</yang-patch>";
        HttpResponse<String> refused = yangPatch("xml", xml, XML);
        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(409);
        assertThat(refused.body()).contains("<yang-patch-status xmlns=\"urn:ietf:params:xml:ns:yang:ietf-yang-patch\">")
                .contains("<edit-id>b</edit-id>").contains("<error-tag>data-missing</error-tag>");
        assertThat(server.service().getConfig(41).orElseThrow().vmName).isEqualTo("patch-41b");

        // A rule of the service breaks the set: both VRs named alike.
        String clash = "{\"ietf-yang-patch:yang-patch\":{\"patch-id\":\"p3\",\"edit\":["
                + "{\"edit-id\":\"x\",\"operation\":\"merge\",\"target\":\"/vmConfigTable/vmConfigEntry=41/vmName\","
                + "\"value\":{\"NEW-VMM-MIB:vmName\":\"same\"}},"
                + "{\"edit-id\":\"y\",\"operation\":\"merge\",\"target\":\"/vmConfigTable/vmConfigEntry=42/vmName\","
                + "\"value\":{\"NEW-VMM-MIB:vmName\":\"same\"}}]}}";
        HttpResponse<String> both = yangPatch("json", clash, JSON);
        assertThat(both.statusCode()).as(both.body()).isEqualTo(500);
        assertThat(json.readTree(both.body()).path("ietf-yang-patch:yang-patch-status").path("errors").path("error")
                .get(0).path("error-app-tag").asText()).isEqualTo("data-not-unique");
        assertThat(server.service().getConfig(41).orElseThrow().vmName).isEqualTo("patch-41b");
        assertThat(server.service().getConfig(42).orElseThrow().vmName).isEqualTo("patch-42");
    }

    @Test
    void etagsAndLastModifiedComeFromTheVersionsAndGuardWrites() throws Exception {
        create(51, "etag-51");
        HttpResponse<String> r = get(TABLE + "/vmConfigEntry=51", JSON);
        String etag = r.headers().firstValue("ETag").orElseThrow();
        assertThat(etag).isEqualTo("\"" + server.service().version(51).orElseThrow().tag() + "\"");
        assertThat(r.headers().firstValue("Last-Modified")).isPresent();
        assertThat(send("GET", TABLE + "/vmConfigEntry=51", ADMIN, null, null, "If-None-Match", etag).statusCode()).isEqualTo(304);
        String rename = "{\"NEW-VMM-MIB:vmName\":\"etag-51b\"}";
        HttpResponse<String> first = send("PUT", TABLE + "/vmConfigEntry=51/vmName", ADMIN, JSON, rename, "If-Match", etag);
        assertThat(first.statusCode()).as(first.body()).isEqualTo(204);
        assertThat(first.headers().firstValue("ETag")).isPresent().get().isNotEqualTo(etag);
        // The same tag again is stale now.
        error(send("PUT", TABLE + "/vmConfigEntry=51/vmName", ADMIN, JSON, "{\"NEW-VMM-MIB:vmName\":\"etag-51c\"}",
                "If-Match", etag), 412, "operation-failed");
        assertThat(server.service().getConfig(51).orElseThrow().vmName).isEqualTo("etag-51b");
    }

    @Test
    void preconditionsAreEvaluatedAsRestEvaluatesThem() throws Exception {
        create(52, "etag-52");
        String entry = TABLE + "/vmConfigEntry=52";
        String etag = get(entry, JSON).headers().firstValue("ETag").orElseThrow();
        // One version, one tag: REST's VR resource carries RESTCONF's entry's ETag, and a digest of its counters after a dot.
        HttpResponse<String> rest = send("GET", "/api/v1/routers/52", ADMIN, null, null, "Accept", "application/json");
        assertThat(rest.statusCode()).as(rest.body()).isEqualTo(200);
        assertThat(rest.headers().firstValue("ETag").orElseThrow()).startsWith(etag.substring(0, etag.length() - 1) + ".");
        // A malformed tag list is the client's error (Jersey's evaluation answered 500).
        error(send("GET", entry, ADMIN, null, null, "Accept", JSON, "If-Match", "not-a-tag"), 400, "invalid-value");
        error(send("PUT", entry + "/vmName", ADMIN, JSON, "{\"NEW-VMM-MIB:vmName\":\"etag-52b\"}",
                "If-None-Match", "\"unterminated"), 400, "invalid-value");
        // A weak tag never matches If-Match (strong comparison), on a read as on a write.
        error(send("GET", entry, ADMIN, null, null, "Accept", JSON, "If-Match", "W/" + etag), 412, "operation-failed");
        error(send("PUT", entry + "/vmName", ADMIN, JSON, "{\"NEW-VMM-MIB:vmName\":\"etag-52b\"}",
                "If-Match", "W/" + etag), 412, "operation-failed");
        // If-Unmodified-Since before the VR's last change refuses the write; a later date lets it through.
        error(send("PUT", entry + "/vmName", ADMIN, JSON, "{\"NEW-VMM-MIB:vmName\":\"etag-52b\"}",
                "If-Unmodified-Since", "Sun, 06 Nov 1994 08:49:37 GMT"), 412, "operation-failed");
        assertThat(server.service().getConfig(52).orElseThrow().vmName).isEqualTo("etag-52");
        String later = java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME.format(
                java.time.ZonedDateTime.now(java.time.ZoneOffset.UTC).plusMinutes(1));
        assertThat(send("PUT", entry + "/vmName", ADMIN, JSON, "{\"NEW-VMM-MIB:vmName\":\"etag-52b\"}",
                "If-Unmodified-Since", later).statusCode()).isEqualTo(204);
        // If-Modified-Since: a date from before the change is not a 304, one after it is.
        assertThat(send("GET", entry, ADMIN, null, null, "Accept", JSON, "If-Modified-Since", later).statusCode())
                .isEqualTo(304);
        assertThat(send("GET", entry, ADMIN, null, null, "Accept", JSON, "If-Modified-Since",
                "Sun, 06 Nov 1994 08:49:37 GMT").statusCode()).isEqualTo(200);
    }

    // ------------------------------------------------------------------ event streams

    @Test
    void theStreamSendsNotificationsAsServerSentEventsAndReplaysFromStartTime() throws Exception {
        Instant before = Instant.now();
        HttpRequest live = HttpRequest.newBuilder(URI.create(base + "/restconf/streams/NETCONF/json"))
                .header("Authorization", ADMIN).header("Accept", "text/event-stream").build();
        HttpResponse<InputStream> stream = http.send(live, HttpResponse.BodyHandlers.ofInputStream());
        assertThat(stream.statusCode()).isEqualTo(200);
        try (BufferedReader in = new BufferedReader(new InputStreamReader(stream.body(), StandardCharsets.UTF_8))) {
            create(61, "events-61");
            String data = dataLine(in, "vmRunning");
            JsonNode n = json.readTree(data).path("ietf-restconf:notification");
            assertThat(n.path("eventTime").asText()).isNotEmpty();
            assertThat(n.path("NEW-VMM-MIB:vmRunning").path("vmName").path("vmName").asText()).isEqualTo("events-61");
        }
        // Replay in XML from before the VR was made.
        HttpRequest replay = HttpRequest.newBuilder(URI.create(base + "/restconf/streams/NETCONF/xml?start-time=" + before))
                .header("Authorization", ADMIN).build();
        HttpResponse<InputStream> old = http.send(replay, HttpResponse.BodyHandlers.ofInputStream());
        try (BufferedReader in = new BufferedReader(new InputStreamReader(old.body(), StandardCharsets.UTF_8))) {
            String data = dataLine(in, "events-61");
            assertThat(data).contains("<notification xmlns=\"urn:ietf:params:xml:ns:netconf:notification:1.0\">")
                    .contains("<vmRunning xmlns=\"urn:ietf:params:xml:ns:yang:smiv2:NEW-VMM-MIB\">");
        }
        error(send("GET", "/restconf/streams/NETCONF/json?start-time=yesterday", ADMIN, null, null), 400, "invalid-value");
        error(send("GET", "/restconf/streams/OTHER/json", ADMIN, null, null), 404, "invalid-value");
    }

    /** The first {@code data:} line that contains {@code text}. */
    private static String dataLine(BufferedReader in, String text) throws Exception {
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            if (line.startsWith("data: ") && line.contains(text)) return line.substring(6);
        }
        throw new AssertionError("the stream ended without " + text);
    }
}
