package io.vrouter.api.rest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vrouter.core.model.VrEvent;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The REST interface over real HTTP, on a whole server with the simulated driver. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RestApiTest {
    private static final String ADMIN = RestClient.basic("admin", "admin");
    private static final String VIEWER = RestClient.basic("viewer", "viewer");
    private static final String JSON = "application/json";
    private static final String XML = "application/xml";

    private final ObjectMapper json = new ObjectMapper();
    private RestServer server;
    private RestClient rest;
    private final List<VrEvent> events = java.util.Collections.synchronizedList(new java.util.ArrayList<>());

    @BeforeAll
    void start() throws Exception {
        // Lists are kept until a change, not for a second only: the list test compares bodies whatever the load.
        server = RestServer.start("vrouter-rest-test", Map.of("rest.list-max-age", "1h"));
        rest = new RestClient(server.port());
        server.service().events().subscribe(events::add);
    }

    @AfterAll
    void stop() {
        server.close();
    }

    /** The oper states the service published for a VR, in order. */
    private List<String> events(int vmIndex) {
        synchronized (events) {
            return events.stream().filter(e -> e.vmIndex == vmIndex && e.vmOperState != null)
                    .filter(e -> e.type == VrEvent.Type.STATE_CHANGED)
                    .map(e -> e.vmOperState.label()).distinct().toList();
        }
    }

    private JsonNode body(HttpResponse<String> r) throws IOException {
        return json.readTree(r.body());
    }

    private JsonNode create(String name) throws Exception {
        HttpResponse<String> r = rest.post("/api/v1/routers?wait=10s", ADMIN, JSON, "{\"vmName\":\"" + name + "\"}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        return body(r);
    }

    private static void assertProblem(HttpResponse<String> r, int status, String contentType) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith(contentType);
    }

    // ------------------------------------------------------------ the happy path, both encodings

    @Test
    void createReadStopStartDeleteInJson() throws Exception {
        HttpResponse<String> created = rest.post("/api/v1/routers?wait=10s", ADMIN, JSON,
                "{\"vmName\":\"walk\",\"vmConfigMemory\":256,\"vmNetworkConfigTable\":[{\"vmNetworkConfigParent\":\"xenbr0\","
                        + "\"vmNetworkConfigAddress\":\"192.0.2.1\"}]}");
        assertThat(created.statusCode()).isEqualTo(201);
        int i = body(created).get("vmIndex").asInt();
        assertThat(created.headers().firstValue("Location")).hasValue(rest.base + "/api/v1/routers/" + i);
        assertThat(body(created).at("/vmEntry/vmOperState").asText()).isEqualTo("running");

        JsonNode vr = body(rest.get("/api/v1/routers/" + i, VIEWER, JSON));
        assertThat(vr.get("vmName").asText()).isEqualTo("walk");
        assertThat(vr.get("vmConfigMemory").asInt()).isEqualTo(256);
        assertThat(vr.at("/vmNetworkConfigTable/0/vmNetworkConfigPrefixLength").asInt()).isEqualTo(24);
        assertThat(vr.at("/vmEntry/vmRouterAddr").asText()).isEqualTo("192.0.2.1");
        assertThat(vr.at("/vmNetworkTable/0/vmNetworkParent").asText()).isEqualTo("xenbr0");

        HttpResponse<String> stopped = rest.post("/api/v1/routers/" + i + "/stop?wait=10s", ADMIN, JSON, "");
        assertThat(stopped.statusCode()).isEqualTo(200);
        assertThat(body(stopped).at("/vmEntry/vmOperState").asText()).isEqualTo("shutdown");
        assertThat(body(stopped).get("vmAdminState").asText()).isEqualTo("shutdown");
        HttpResponse<String> started = rest.post("/api/v1/routers/" + i + "/start?wait=10s", ADMIN, JSON, "");
        assertThat(body(started).at("/vmEntry/vmOperState").asText()).isEqualTo("running");

        assertThat(rest.delete("/api/v1/routers/" + i + "?wait=10s", ADMIN).statusCode()).isEqualTo(204);
        assertProblem(rest.get("/api/v1/routers/" + i, VIEWER, JSON), 404, "application/problem+json");
    }

    @Test
    void patchChangesColumns() throws Exception {
        int i = create("patched").get("vmIndex").asInt();
        HttpResponse<String> running = rest.send(rest.request("/api/v1/routers/" + i, ADMIN)
                .header("Content-Type", "application/merge-patch+json")
                .method("PATCH", HttpRequest.BodyPublishers.ofString("{\"vmConfigMemory\":1024}")));
        assertProblem(running, 409, "application/problem+json");
        assertThat(body(running).get("field").asText()).isEqualTo("vmConfigMemory");

        // Stopped, resized and renamed in one request; started again in the next.
        HttpResponse<String> resized = rest.send(rest.request("/api/v1/routers/" + i + "?wait=10s", ADMIN)
                .header("Content-Type", JSON).method("PATCH", HttpRequest.BodyPublishers.ofString(
                        "{\"vmAdminState\":\"shutdown\",\"vmConfigMemory\":1024,\"vmConfigCpuNumber\":2,\"vmName\":\"patched-2\"}")));
        assertThat(resized.statusCode()).as(resized.body()).isEqualTo(200);
        assertThat(body(resized).get("vmConfigMemory").asInt()).isEqualTo(1024);
        assertThat(body(resized).get("vmName").asText()).isEqualTo("patched-2");
        assertThat(body(resized).at("/vmEntry/vmOperState").asText()).isEqualTo("shutdown");
        assertThat(body(resized).at("/vmEntry/vmMaxMem").asLong()).isEqualTo(1024);
        HttpResponse<String> started = rest.send(rest.request("/api/v1/routers/" + i + "?wait=10s", ADMIN)
                .header("Content-Type", XML).header("Accept", JSON).method("PATCH", HttpRequest.BodyPublishers.ofString(
                        "<virtualRouter><vmAdminState>running</vmAdminState></virtualRouter>")));
        assertThat(body(started).at("/vmEntry/vmOperState").asText()).isEqualTo("running");
        assertThat(body(started).at("/vmEntry/vmCurCpuNumber").asInt()).isEqualTo(2);

        assertProblem(rest.send(rest.request("/api/v1/routers/" + i, ADMIN).header("Content-Type", JSON)
                .method("PATCH", HttpRequest.BodyPublishers.ofString("{\"vmConfigTemplate\":\"other\"}"))), 409,
                "application/problem+json");
        assertProblem(rest.send(rest.request("/api/v1/routers/" + i, ADMIN).header("Content-Type", JSON)
                .method("PATCH", HttpRequest.BodyPublishers.ofString("{\"vmIndex\":99}"))), 400, "application/problem+json");
        assertProblem(rest.send(rest.request("/api/v1/routers/" + i, VIEWER).header("Content-Type", JSON)
                .method("PATCH", HttpRequest.BodyPublishers.ofString("{\"vmConfigAutoStart\":true}"))), 403,
                "application/problem+json");
    }

    @Test
    void aRefusedPatchChangesNothing() throws Exception {
        int i = create("kept-running").get("vmIndex").asInt();
        HttpResponse<String> r = rest.send(rest.request("/api/v1/routers/" + i + "?wait=10s", ADMIN)
                .header("Content-Type", JSON).method("PATCH", HttpRequest.BodyPublishers.ofString(
                        "{\"vmAdminState\":\"shutdown\",\"vmConfigMemory\":-5}")));
        assertProblem(r, 400, "application/problem+json");
        assertThat(body(r).get("field").asText()).isEqualTo("vmConfigMemory");
        JsonNode vr = body(rest.get("/api/v1/routers/" + i, VIEWER, JSON));
        assertThat(vr.get("vmAdminState").asText()).isEqualTo("running");
        // Nothing was queued for the hypervisor either: a change after it, done once the queue is, finds it running.
        HttpResponse<String> renamed = rest.send(rest.request("/api/v1/routers/" + i + "?wait=10s", ADMIN)
                .header("Content-Type", JSON).method("PATCH", HttpRequest.BodyPublishers.ofString(
                        "{\"vmName\":\"still-running\"}")));
        assertThat(renamed.statusCode()).as(renamed.body()).isEqualTo(200);
        assertThat(body(renamed).at("/vmEntry/vmOperState").asText()).isEqualTo("running");
        assertThat(events(i)).as("never stopped").containsExactly("running");
    }

    @Test
    void xmlInAndOut() throws Exception {
        HttpResponse<String> created = rest.send(rest.request("/api/v1/routers?wait=10s", ADMIN)
                .header("Content-Type", XML).header("Accept", XML)
                .POST(HttpRequest.BodyPublishers.ofString("<virtualRouter><vmName>xml1</vmName>"
                        + "<vmAdminState>shutdown</vmAdminState><vmConfigCpuNumber>2</vmConfigCpuNumber></virtualRouter>")));
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        assertThat(created.body()).contains("<vmName>xml1</vmName>").contains("<vmOperState>shutdown</vmOperState>");
        String location = created.headers().firstValue("Location").orElseThrow();
        String path = location.substring(rest.base.length());
        HttpResponse<String> read = rest.get(path, VIEWER, XML);
        assertThat(read.headers().firstValue("Content-Type").orElse("")).startsWith(XML);
        assertThat(read.body()).startsWith("<?xml").contains("<virtualRouter>").contains("<vmConfigCpuNumber>2</vmConfigCpuNumber>");
        assertThat(rest.get("/api/v1/routers?name=xml1", VIEWER, XML).body())
                .contains("<virtualRouters>").contains("<total>1</total>");
        assertThat(rest.get("/api/v1/hypervisor", VIEWER, XML).body()).contains("<vmHvSoftware>");
    }

    @Test
    void withoutWaitTheAnswerIsAcceptedAndPreparing() throws Exception {
        HttpResponse<String> r = rest.post("/api/v1/routers", ADMIN, JSON, "{\"vmName\":\"nowait\"}");
        assertThat(r.statusCode()).isEqualTo(202);
        assertThat(r.headers().firstValue("Location")).isPresent();
        assertThat(body(r).at("/vmEntry/vmOperState").asText()).isEqualTo("preparing");
        int i = body(r).get("vmIndex").asInt();
        HttpResponse<String> gone = rest.delete("/api/v1/routers/" + i, ADMIN);
        assertThat(gone.statusCode()).isEqualTo(202);
    }

    @Test
    void preferWaitIsHonouredAndSaysSo() throws Exception {
        HttpResponse<String> r = rest.send(rest.request("/api/v1/routers", ADMIN).header("Content-Type", JSON)
                .header("Prefer", "wait=10").POST(HttpRequest.BodyPublishers.ofString("{\"vmName\":\"prefer\"}")));
        assertThat(r.statusCode()).isEqualTo(201);
        assertThat(r.headers().firstValue("Preference-Applied")).hasValue("wait");
        assertThat(body(r).at("/vmEntry/vmOperState").asText()).isEqualTo("running");
    }

    @Test
    void returnMinimalNamesTheVrsInsteadOfRepresentingThem() throws Exception {
        HttpResponse<String> r = rest.send(rest.request("/api/v1/routers/batch?wait=10s", ADMIN).header("Content-Type", JSON)
                .header("Prefer", "return=minimal").POST(HttpRequest.BodyPublishers.ofString(
                        "{\"virtualRouter\":[{\"vmName\":\"min-1\"},{\"vmName\":\"min-2\"}]}")));
        assertThat(r.statusCode()).isEqualTo(201);
        assertThat(r.headers().firstValue("Preference-Applied")).hasValue("return=minimal");
        JsonNode first = body(r).at("/virtualRouter/0");
        assertThat(first.get("vmName").asText()).isEqualTo("min-1");
        assertThat(first.has("vmIndex")).isTrue();
        assertThat(first.has("vmEntry")).isFalse();
        assertThat(first.has("vmConfigTemplate")).isFalse();
        HttpResponse<String> one = rest.send(rest.request("/api/v1/routers", ADMIN).header("Content-Type", JSON)
                .header("Prefer", "return=minimal, wait=10").POST(HttpRequest.BodyPublishers.ofString("{\"vmName\":\"min-3\"}")));
        assertThat(one.statusCode()).isEqualTo(201);
        assertThat(one.headers().firstValue("Preference-Applied")).hasValue("wait, return=minimal");
        assertThat(body(one).size()).isEqualTo(2);
        // The VR itself is whole.
        int i = body(one).get("vmIndex").asInt();
        assertThat(body(rest.get("/api/v1/routers/" + i, VIEWER, JSON)).at("/vmEntry/vmOperState").asText()).isEqualTo("running");
    }

    /**
     * Lists are sent again as the bytes encoded the first time while nothing changes, and every change
     * shows at once: a creation, a state change, a removal, in JSON and in XML.
     */
    @Test
    void aListAskedForAgainIsTheSameUntilAVrChanges() throws Exception {
        create("kept-1");
        String json = rest.get("/api/v1/routers?name=kept-*", VIEWER, JSON).body();
        String xml = rest.get("/api/v1/routers?name=kept-*", VIEWER, XML).body();
        assertThat(rest.get("/api/v1/routers?name=kept-*", VIEWER, JSON).body()).isEqualTo(json);
        assertThat(rest.get("/api/v1/routers?name=kept-*", VIEWER, XML).body()).isEqualTo(xml);
        assertThat(xml).startsWith("<?xml").contains("<vmName>kept-1</vmName>");

        HttpResponse<String> accepted = rest.post("/api/v1/routers", ADMIN, JSON, "{\"vmName\":\"kept-2\"}");
        assertThat(accepted.statusCode()).isEqualTo(202);
        int second = body(accepted).get("vmIndex").asInt();
        assertThat(body(rest.get("/api/v1/routers?name=kept-*", VIEWER, JSON)).get("total").asInt()).isEqualTo(2);
        assertThat(rest.get("/api/v1/routers?name=kept-*", VIEWER, XML).body()).contains("<vmName>kept-2</vmName>");

        assertThat(rest.post("/api/v1/routers/" + second + "/stop?wait=10s", ADMIN, JSON, "").statusCode())
                .isEqualTo(200);
        JsonNode stopped = body(rest.get("/api/v1/routers?name=kept-2", VIEWER, JSON));
        assertThat(stopped.at("/virtualRouter/0/vmEntry/vmOperState").asText()).isEqualTo("shutdown");

        assertThat(rest.delete("/api/v1/routers/" + second + "?wait=10s", ADMIN).statusCode()).isEqualTo(204);
        assertThat(body(rest.get("/api/v1/routers?name=kept-*", VIEWER, JSON)).get("total").asInt()).isEqualTo(1);
    }

    /**
     * A kept list longer than Jersey's 8 KiB buffer goes out with its Content-Length, not in chunks of
     * 4 KiB (KnownLength), when it is encoded and when it is sent again, in JSON and in XML; HEAD says
     * the same length.
     */
    @Test
    void aLongKeptListIsSentWithItsLength() throws Exception {
        for (int k = 1; k <= 10; k++) create("long-" + k);
        for (String type : List.of(JSON, XML)) {
            for (int round = 0; round < 2; round++) {
                HttpResponse<String> list = rest.get("/api/v1/routers?name=long-*", VIEWER, type);
                int bytes = list.body().getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
                assertThat(bytes).isGreaterThan(8192);
                assertThat(list.headers().firstValue("Transfer-Encoding")).isEmpty();
                assertThat(list.headers().firstValueAsLong("Content-Length")).hasValue(bytes);
            }
        }
        HttpResponse<String> head = rest.send(rest.request("/api/v1/routers?name=long-*", VIEWER)
                .header("Accept", JSON).method("HEAD", HttpRequest.BodyPublishers.noBody()));
        assertThat(head.body()).isEmpty();
        assertThat(head.headers().firstValueAsLong("Content-Length"))
                .hasValue(rest.get("/api/v1/routers?name=long-*", VIEWER, JSON).body().length());
    }

    @Test
    void listFiltersAndPages() throws Exception {
        for (int k = 1; k <= 4; k++) create("page-" + k);
        JsonNode all = body(rest.get("/api/v1/routers?name=page-*", VIEWER, JSON));
        assertThat(all.get("total").asInt()).isEqualTo(4);
        JsonNode page = body(rest.get("/api/v1/routers?name=page-*&offset=1&limit=2", VIEWER, JSON));
        assertThat(page.get("virtualRouter")).hasSize(2);
        assertThat(page.at("/virtualRouter/0/vmName").asText()).isEqualTo("page-2");
        assertThat(body(rest.get("/api/v1/routers?name=page-*&operState=shutdown", VIEWER, JSON)).get("total").asInt()).isZero();
        assertProblem(rest.get("/api/v1/routers?operState=flying", VIEWER, JSON), 400, "application/problem+json");
        assertProblem(rest.get("/api/v1/routers?limit=lots", VIEWER, JSON), 400, "application/problem+json");
    }

    @Test
    void hypervisorShowsTheScalars() throws Exception {
        create("hv-1");
        JsonNode hv = body(rest.get("/api/v1/hypervisor", VIEWER, JSON));
        assertThat(hv.get("vmHvSoftware").asText()).contains("simulated");
        assertThat(hv.get("vmConfiguredVMs").asInt()).isGreaterThanOrEqualTo(1);
        assertThat(hv.get("vmActiveVMs").asInt()).isGreaterThanOrEqualTo(1);
        assertThat(hv.get("vmConfigNextAvailableVmIndex").asInt()).isGreaterThan(1);
    }

    @Test
    void interfacesAreASubResource() throws Exception {
        int i = create("ifs").get("vmIndex").asInt();
        HttpResponse<String> added = rest.post("/api/v1/routers/" + i + "/interfaces?wait=10s", ADMIN, JSON,
                "{\"vmNetworkConfigParent\":\"xenbr1\",\"vmNetworkConfigPhysAddress\":\"02:AA:00:00:00:01\"}");
        assertThat(added.statusCode()).as(added.body()).isEqualTo(201);
        assertThat(added.headers().firstValue("Location")).hasValue(rest.base + "/api/v1/routers/" + i + "/interfaces/1");
        assertThat(body(added).get("vmNetworkConfigPhysAddress").asText()).isEqualTo("02:aa:00:00:00:01");
        assertThat(body(rest.get("/api/v1/routers/" + i + "/interfaces", VIEWER, JSON)).get("vmNetworkConfigEntry")).hasSize(1);
        assertThat(body(rest.get("/api/v1/routers/" + i, VIEWER, JSON)).at("/vmNetworkTable/0/vmNetworkPhysAddress").asText())
                .isEqualTo("02:aa:00:00:00:01");
        assertProblem(rest.post("/api/v1/routers/" + i + "/interfaces", ADMIN, JSON,
                "{\"vmNetworkConfigIndex\":1,\"vmNetworkConfigParent\":\"xenbr2\"}"), 409, "application/problem+json");
        assertProblem(rest.post("/api/v1/routers/" + i + "/interfaces", ADMIN, JSON,
                "{\"vmNetworkConfigParent\":\"xenbr2\",\"vmNetworkConfigPhysAddress\":\"01:00:00:00:00:01\"}"), 400,
                "application/problem+json");
        assertThat(rest.delete("/api/v1/routers/" + i + "/interfaces/1", ADMIN).statusCode()).isEqualTo(204);
        assertProblem(rest.get("/api/v1/routers/" + i + "/interfaces/1", VIEWER, JSON), 404, "application/problem+json");
    }

    @Test
    void aBatchIsAllOrNothing() throws Exception {
        HttpResponse<String> ok = rest.post("/api/v1/routers/batch?wait=10s", ADMIN, JSON,
                "{\"virtualRouter\":[{\"vmName\":\"b-1\"},{\"vmName\":\"b-2\"}]}");
        assertThat(ok.statusCode()).as(ok.body()).isEqualTo(201);
        assertThat(body(ok).get("virtualRouter")).hasSize(2);
        assertThat(body(ok).at("/virtualRouter/1/vmEntry/vmOperState").asText()).isEqualTo("running");
        HttpResponse<String> bad = rest.post("/api/v1/routers/batch", ADMIN, JSON,
                "{\"virtualRouter\":[{\"vmName\":\"b-3\"},{\"vmName\":\"b-1\"}]}");
        assertProblem(bad, 409, "application/problem+json");
        assertThat(body(rest.get("/api/v1/routers?name=b-3", VIEWER, JSON)).get("total").asInt()).isZero();
    }

    @Test
    void aDescriptionIsWrittenOnCreationAndByPatchInJsonAndXml() throws Exception {
        HttpResponse<String> made = rest.post("/api/v1/routers?wait=10s", ADMIN, JSON,
                "{\"vmName\":\"described\",\"vmConfigDescription\":\"edge router, rack 4\"}");
        assertThat(made.statusCode()).as(made.body()).isEqualTo(201);
        int i = body(made).get("vmIndex").asInt();
        assertThat(body(made).get("vmConfigDescription").asText()).isEqualTo("edge router, rack 4");
        HttpResponse<String> xml = rest.send(rest.request("/api/v1/routers/" + i + "?wait=10s", ADMIN)
                .header("Content-Type", XML).header("Accept", XML).method("PATCH", HttpRequest.BodyPublishers.ofString(
                        "<virtualRouter><vmConfigDescription>core, Zürich</vmConfigDescription></virtualRouter>")));
        assertThat(xml.statusCode()).as(xml.body()).isEqualTo(200);
        assertThat(xml.body()).contains("<vmConfigDescription>core, Zürich</vmConfigDescription>");
        HttpResponse<String> tooLong = rest.send(rest.request("/api/v1/routers/" + i, ADMIN).header("Content-Type", JSON)
                .method("PATCH", HttpRequest.BodyPublishers.ofString("{\"vmConfigDescription\":\"" + "x".repeat(256) + "\"}")));
        assertProblem(tooLong, 400, "application/problem+json");
        assertThat(body(tooLong).get("field").asText()).isEqualTo("vmConfigDescription");
        HttpResponse<String> cleared = rest.send(rest.request("/api/v1/routers/" + i + "?wait=10s", ADMIN)
                .header("Content-Type", JSON).method("PATCH", HttpRequest.BodyPublishers.ofString("{\"vmConfigDescription\":\"\"}")));
        assertThat(body(cleared).has("vmConfigDescription")).as(cleared.body()).isFalse();
    }

    @Test
    void aBatchChangeCreatesChangesAndRemovesAllOrNothing() throws Exception {
        int a = create("chg-a").get("vmIndex").asInt();
        int b = create("chg-b").get("vmIndex").asInt();
        int c = create("chg-c").get("vmIndex").asInt();
        // One bad change (a resize of a running VR) and nothing happens: no VR created, renamed or removed.
        HttpResponse<String> bad = rest.send(rest.request("/api/v1/routers?wait=10s", ADMIN).header("Content-Type", JSON)
                .method("PATCH", HttpRequest.BodyPublishers.ofString("{\"create\":[{\"vmName\":\"chg-d\"}],"
                        + "\"change\":[{\"vmIndex\":" + a + ",\"vmName\":\"chg-a2\"},{\"vmIndex\":" + b
                        + ",\"vmConfigMemory\":1024}],\"remove\":[" + c + "]}")));
        assertProblem(bad, 409, "application/problem+json");
        assertThat(body(bad).get("field").asText()).isEqualTo("vmConfigMemory");
        assertThat(body(rest.get("/api/v1/routers?name=chg-*", VIEWER, JSON)).get("virtualRouter"))
                .extracting(v -> v.get("vmName").asText()).containsExactly("chg-a", "chg-b", "chg-c");
        // The same with b shut down in it: all done; a swap of names among them too.
        HttpResponse<String> ok = rest.send(rest.request("/api/v1/routers?wait=10s", ADMIN).header("Content-Type", JSON)
                .method("PATCH", HttpRequest.BodyPublishers.ofString("{\"create\":[{\"vmName\":\"chg-d\"}],"
                        + "\"change\":[{\"vmIndex\":" + a + ",\"vmName\":\"chg-b\"},{\"vmIndex\":" + b
                        + ",\"vmName\":\"chg-a\",\"vmConfigMemory\":1024,\"vmAdminState\":\"shutdown\"}],\"remove\":[" + c + "]}")));
        assertThat(ok.statusCode()).as(ok.body()).isEqualTo(200);
        assertThat(body(ok).get("virtualRouter")).extracting(v -> v.get("vmName").asText())
                .containsExactly("chg-d", "chg-b", "chg-a");
        assertThat(body(rest.get("/api/v1/routers/" + b, VIEWER, JSON)).at("/vmEntry/vmMaxMem").asLong()).isEqualTo(1024);
        assertProblem(rest.get("/api/v1/routers/" + c, VIEWER, JSON), 404, "application/problem+json");
        // In XML too.
        HttpResponse<String> xml = rest.send(rest.request("/api/v1/routers?wait=10s", ADMIN).header("Content-Type", XML)
                .header("Accept", XML).method("PATCH", HttpRequest.BodyPublishers.ofString("<routerChanges><change>"
                        + "<virtualRouter><vmIndex>" + a + "</vmIndex><vmConfigAutoStart>true</vmConfigAutoStart></virtualRouter>"
                        + "</change></routerChanges>")));
        assertThat(xml.statusCode()).as(xml.body()).isEqualTo(200);
        assertThat(xml.body()).contains("<vmConfigAutoStart>true</vmConfigAutoStart>");
        assertProblem(rest.send(rest.request("/api/v1/routers", ADMIN).header("Content-Type", JSON)
                .method("PATCH", HttpRequest.BodyPublishers.ofString("{\"change\":[{\"vmName\":\"x\"}]}"))), 400,
                "application/problem+json");
    }

    // ------------------------------------------------------------ errors

    @Test
    void duplicateNameIsConflict() throws Exception {
        create("twice");
        HttpResponse<String> r = rest.post("/api/v1/routers", ADMIN, JSON, "{\"vmName\":\"twice\"}");
        assertProblem(r, 409, "application/problem+json");
        assertThat(body(r).get("field").asText()).isEqualTo("vmName");
        assertThat(body(r).get("status").asInt()).isEqualTo(409);
        assertThat(body(r).get("title").asText()).isEqualTo("Conflict");
    }

    @Test
    void conflictingStateIsConflict() throws Exception {
        HttpResponse<String> off = rest.post("/api/v1/routers?wait=10s", ADMIN, JSON,
                "{\"vmName\":\"offline\",\"vmAdminState\":\"shutdown\"}");
        int i = body(off).get("vmIndex").asInt();
        assertProblem(rest.post("/api/v1/routers/" + i + "/suspend", ADMIN, JSON, ""), 409, "application/problem+json");
    }

    @Test
    void invalidBodiesAreBadRequestsNamingTheField() throws Exception {
        HttpResponse<String> malformed = rest.post("/api/v1/routers", ADMIN, JSON, "{\"vmName\": ");
        assertProblem(malformed, 400, "application/problem+json");
        assertThat(body(malformed).get("detail").asText()).contains("malformed JSON");

        HttpResponse<String> range = rest.post("/api/v1/routers", ADMIN, JSON, "{\"vmName\":\"m\",\"vmConfigMemory\":1}");
        assertProblem(range, 400, "application/problem+json");
        assertThat(body(range).get("field").asText()).isEqualTo("vmConfigMemory");

        HttpResponse<String> unknown = rest.post("/api/v1/routers", ADMIN, JSON, "{\"vmName\":\"u\",\"colour\":\"red\"}");
        assertProblem(unknown, 400, "application/problem+json");
        assertThat(body(unknown).get("field").asText()).isEqualTo("colour");

        HttpResponse<String> label = rest.post("/api/v1/routers", ADMIN, JSON, "{\"vmName\":\"l\",\"vmAdminState\":\"flying\"}");
        assertProblem(label, 400, "application/problem+json");
        assertThat(body(label).get("field").asText()).isEqualTo("vmAdminState");
        assertThat(body(label).get("detail").asText()).isEqualTo("'vmAdminState' must be one of running, suspended, paused, shutdown");

        HttpResponse<String> number = rest.post("/api/v1/routers", ADMIN, JSON, "{\"vmName\":123}");
        assertProblem(number, 400, "application/problem+json");
        assertThat(body(number).get("detail").asText()).isEqualTo("'vmName' must be a string");

        HttpResponse<String> text = rest.post("/api/v1/routers", ADMIN, JSON, "{\"vmName\":\"t\",\"vmConfigMemory\":\"512\"}");
        assertProblem(text, 400, "application/problem+json");
        assertThat(body(text).get("detail").asText()).isEqualTo("'vmConfigMemory' must be a whole number");

        HttpResponse<String> empty = rest.send(rest.request("/api/v1/routers", ADMIN).header("Content-Type", JSON)
                .POST(HttpRequest.BodyPublishers.noBody()));
        assertProblem(empty, 400, "application/problem+json");
        assertThat(body(empty).get("field").asText()).isEqualTo("body");

        HttpResponse<String> missing = rest.post("/api/v1/routers", ADMIN, JSON, "{}");
        assertProblem(missing, 400, "application/problem+json");
        assertThat(body(missing).get("field").asText()).isEqualTo("vmName");

        HttpResponse<String> wait = rest.post("/api/v1/routers?wait=soon", ADMIN, JSON, "{\"vmName\":\"w\"}");
        assertProblem(wait, 400, "application/problem+json");
        assertThat(body(rest.get("/api/v1/routers?name=w", VIEWER, JSON)).get("total").asInt()).isZero();
    }

    @Test
    void badXmlIsABadRequestInXml() throws Exception {
        HttpResponse<String> r = rest.send(rest.request("/api/v1/routers", ADMIN).header("Content-Type", XML)
                .header("Accept", XML).POST(HttpRequest.BodyPublishers.ofString("<virtualRouter><vmName>x</vmNam")));
        assertProblem(r, 400, "application/problem+xml");
        assertThat(r.body()).contains("urn:ietf:rfc:7807").contains("<status>400</status>");
        HttpResponse<String> unknown = rest.send(rest.request("/api/v1/routers", ADMIN).header("Content-Type", XML)
                .header("Accept", XML).POST(HttpRequest.BodyPublishers.ofString(
                        "<virtualRouter><vmName>x</vmName><colour>red</colour></virtualRouter>")));
        assertProblem(unknown, 400, "application/problem+xml");
    }

    @Test
    void externalEntitiesAreRefused() throws Exception {
        String xxe = "<?xml version=\"1.0\"?><!DOCTYPE virtualRouter [<!ENTITY xxe SYSTEM \"file:///etc/passwd\">]>"
                + "<virtualRouter><vmName>&xxe;</vmName></virtualRouter>";
        HttpResponse<String> r = rest.send(rest.request("/api/v1/routers", ADMIN).header("Content-Type", XML)
                .POST(HttpRequest.BodyPublishers.ofString(xxe)));
        assertProblem(r, 400, "application/problem+xml");
        assertThat(r.body()).doesNotContain("root:").contains("DOCTYPE");
        assertThat(body(rest.get("/api/v1/routers", VIEWER, JSON)).toString()).doesNotContain("root:");
    }

    @Test
    void entityExpansionBombsAreRefused() throws Exception {
        StringBuilder bomb = new StringBuilder("<?xml version=\"1.0\"?><!DOCTYPE lolz [<!ENTITY lol \"lol\">");
        bomb.append("<!ENTITY lol1 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">");
        for (int k = 2; k <= 9; k++) {
            bomb.append("<!ENTITY lol").append(k).append(" \"");
            for (int n = 0; n < 10; n++) bomb.append("&lol").append(k - 1).append(';');
            bomb.append("\">");
        }
        bomb.append("]><virtualRouter><vmName>&lol9;</vmName></virtualRouter>");
        long t0 = System.nanoTime();
        HttpResponse<String> r = rest.send(rest.request("/api/v1/routers", ADMIN).header("Content-Type", XML)
                .header("Accept", JSON).POST(HttpRequest.BodyPublishers.ofString(bomb.toString())));
        assertProblem(r, 400, "application/problem+json");
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(10));
        assertThat(body(rest.get("/api/v1/hypervisor", VIEWER, JSON)).get("vmHvSoftware").asText()).isNotEmpty();
    }

    @Test
    void unknownIndexAndPathAreNotFound() throws Exception {
        assertProblem(rest.get("/api/v1/routers/999999", VIEWER, JSON), 404, "application/problem+json");
        assertProblem(rest.delete("/api/v1/routers/999999", ADMIN), 404, "application/problem+json");
        assertProblem(rest.post("/api/v1/routers/999999/start", ADMIN, JSON, ""), 404, "application/problem+json");
        assertProblem(rest.get("/api/v1/nothing-here", VIEWER, JSON), 404, "application/problem+json");
    }

    @Test
    void authenticationAndRoles() throws Exception {
        HttpResponse<String> none = rest.get("/api/v1/routers", null, JSON);
        assertProblem(none, 401, "application/problem+json");
        assertThat(none.headers().firstValue("WWW-Authenticate").orElse("")).startsWith("Basic realm=\"vrouter\"");
        assertProblem(rest.get("/api/v1/routers", RestClient.basic("admin", "wrong"), JSON), 401, "application/problem+json");
        assertProblem(rest.get("/api/v1/routers", "Basic !!!", JSON), 401, "application/problem+json");
        assertThat(rest.get("/api/v1/routers", VIEWER, JSON).statusCode()).isEqualTo(200);
        HttpResponse<String> readOnly = rest.post("/api/v1/routers", VIEWER, JSON, "{\"vmName\":\"viewer-made\"}");
        assertProblem(readOnly, 403, "application/problem+json");
        assertThat(body(rest.get("/api/v1/routers?name=viewer-made", VIEWER, JSON)).get("total").asInt()).isZero();
        // Public endpoints.
        assertThat(rest.get("/health", null, JSON).statusCode()).isEqualTo(200);
        assertThat(rest.get("/api/v1/openapi.json", null, JSON).statusCode()).isEqualTo(200);
    }

    @Test
    void oversizedBodiesAreRefused() throws Exception {
        String big = "{\"vmName\":\"big\",\"vmConfigTemplate\":\"" + "x".repeat(2 * 1024 * 1024) + "\"}";
        assertProblem(rest.post("/api/v1/routers", ADMIN, JSON, big), 413, "application/problem+json");
        // The same without Content-Length (chunked): refused while it is read.
        HttpResponse<String> chunked = rest.send(rest.request("/api/v1/routers", ADMIN).header("Content-Type", JSON)
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(big.getBytes()))));
        assertProblem(chunked, 413, "application/problem+json");
        assertThat(body(rest.get("/api/v1/routers?name=big", VIEWER, JSON)).get("total").asInt()).isZero();
        // The connection is still usable for the next request.
        assertThat(rest.post("/api/v1/routers", ADMIN, JSON, big).statusCode()).isEqualTo(413);
        assertThat(rest.get("/api/v1/hypervisor", VIEWER, JSON).statusCode()).isEqualTo(200);
    }

    @Test
    void unsupportedMediaTypes() throws Exception {
        assertProblem(rest.post("/api/v1/routers", ADMIN, "text/plain", "vmName=x"), 415, "application/problem+json");
        assertThat(rest.get("/api/v1/routers", VIEWER, "text/csv").statusCode()).isEqualTo(406);
    }

    // ------------------------------------------------------------ events, documents, metrics

    @Test
    void eventsStreamStateChanges() throws Exception {
        CompletableFuture<HttpResponse<Stream<String>>> stream = rest.http().sendAsync(
                rest.request("/api/v1/events", VIEWER).header("Accept", "text/event-stream").GET().build(),
                HttpResponse.BodyHandlers.ofLines());
        HttpResponse<Stream<String>> response = stream.get(10, TimeUnit.SECONDS);
        assertThat(response.statusCode()).isEqualTo(200);
        Iterator<String> lines = response.body().iterator();
        assertThat(lines.next()).startsWith(": subscribed");
        create("streamed");
        boolean sawCreated = false;
        boolean sawRunning = false;
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        String event = null;
        while (!(sawCreated && sawRunning) && System.nanoTime() < deadline && lines.hasNext()) {
            String line = lines.next();
            if (line.startsWith("event: ")) event = line.substring(7);
            if (line.startsWith("data: ") && line.contains("\"vmName\":\"streamed\"")) {
                JsonNode data = json.readTree(line.substring(6));
                if ("created".equals(event)) sawCreated = true;
                if ("stateChanged".equals(event) && data.get("vmOperState").asText().equals("running")) sawRunning = true;
            }
        }
        response.body().close();
        assertThat(sawCreated).isTrue();
        assertThat(sawRunning).isTrue();
    }

    @Test
    void openApiDocumentDescribesTheApi() throws Exception {
        JsonNode doc = body(rest.get("/api/v1/openapi.json", null, JSON));
        assertThat(doc.get("openapi").asText()).startsWith("3.");
        assertThat(doc.at("/paths").has("/api/v1/routers")).isTrue();
        assertThat(doc.at("/paths").has("/api/v1/routers/{vmIndex}")).isTrue();
        assertThat(doc.at("/components/schemas/VirtualRouter/properties").has("vmName")).isTrue();
        assertThat(doc.at("/components/schemas/VmEntry/properties/vmOperState/enum").toString()).contains("\"shuttingdown\"");
        HttpResponse<String> yaml = rest.get("/api/v1/openapi.yaml", null, "application/yaml");
        assertThat(yaml.statusCode()).isEqualTo(200);
        assertThat(yaml.body()).contains("openapi: 3.").contains("/api/v1/routers:");
    }

    @Test
    void theDocumentSaysWhatEveryRequestBodyTheServerRefuses() throws Exception {
        // Schema-driven testing sent these as valid and got 400s (issue 12): the document must say so.
        JsonNode doc = body(rest.get("/api/v1/openapi.json", null, JSON));
        int bodies = 0;
        for (JsonNode path : doc.get("paths")) {
            for (JsonNode op : path) {
                if (!op.has("requestBody")) continue;
                bodies++;
                assertThat(op.at("/requestBody/required").asBoolean()).as(op.path("operationId").asText()).isTrue();
            }
        }
        assertThat(bodies).isGreaterThanOrEqualTo(5);
        doc.get("components").get("schemas").fields().forEachRemaining(e -> {
            if (!e.getKey().equals("Problem")) {
                assertThat(e.getValue().path("additionalProperties").isBoolean()).as(e.getKey()).isTrue();
                assertThat(e.getValue().path("additionalProperties").asBoolean()).as(e.getKey()).isFalse();
            }
        });
        assertThat(doc.at("/components/schemas/VmNetworkConfigEntry/required").toString()).contains("vmNetworkConfigParent");
        // What they declare is what the server does.
        int i = create("strict").get("vmIndex").asInt();
        assertThat(rest.post("/api/v1/routers", ADMIN, JSON, "{\"vmName\":\"x\",\"vmColour\":1}").statusCode()).isEqualTo(400);
        assertThat(rest.post("/api/v1/routers/" + i + "/interfaces", ADMIN, JSON, "").statusCode()).isEqualTo(400);
        assertThat(rest.post("/api/v1/routers/" + i + "/interfaces", ADMIN, JSON, "{}").statusCode()).isEqualTo(400);
    }

    @Test
    void theCommittedSpecIsWhatTheServerServes() throws Exception {
        // docs/openapi.yaml generates the client of the integration tests; it must not drift.
        String served = rest.get("/api/v1/openapi.yaml", null, "application/yaml").body();
        String committed = Files.readString(Path.of("..", "docs", "openapi.yaml"));
        assertThat(served).as("docs/openapi.yaml is stale: curl -s http://127.0.0.1:8080/api/v1/openapi.yaml"
                + " > docs/openapi.yaml").isEqualTo(committed);
    }

    @Test
    void metricsAndHealth() throws Exception {
        create("metered");
        String metrics = rest.get("/metrics", null, "text/plain").body();
        assertThat(metrics).contains("vrouter_requests_seconds_count{interface=\"rest\",operation=\"POST /api/v1/routers\"");
        assertThat(metrics).contains("vrouter_hypervisor_operations_seconds_count{operation=\"provision\"");
        assertThat(metrics).containsPattern("vrouter_routers\\{state=\"running\"} [1-9]");
        JsonNode health = body(rest.get("/health", null, JSON));
        assertThat(health.get("status").asText()).isEqualTo("UP");
        assertThat(health.get("driver").asText()).isEqualTo("sim");
    }
}
