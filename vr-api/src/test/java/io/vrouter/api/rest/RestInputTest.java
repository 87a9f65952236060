package io.vrouter.api.rest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Bad REST input gets a clear 400 (or 415), never a 500 and never internal exception text; a 5xx
 * carries an id that the server's log names too (issue 12).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RestInputTest {
    private static final String ADMIN = RestClient.basic("admin", "admin");
    private static final String JSON = "application/json";

    private final ObjectMapper json = new ObjectMapper();
    private RestServer server;
    private RestClient rest;

    @BeforeAll
    void start() throws Exception {
        server = RestServer.start("vrouter-rest-input");
        rest = new RestClient(server.port());
    }

    @AfterAll
    void stop() {
        server.close();
    }

    /** A 400 problem naming the field, with nothing of Java in it. */
    private JsonNode badRequest(HttpResponse<String> r, String field) throws Exception {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
        assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("application/problem+json");
        assertNoInternals(r.body());
        JsonNode p = json.readTree(r.body());
        if (field != null) assertThat(p.path("field").asText()).as(r.body()).isEqualTo(field);
        return p;
    }

    private static void assertNoInternals(String body) {
        assertThat(body).doesNotContain("java.", "Exception", "io.vrouter", "com.fasterxml", "jakarta.", "`");
    }

    private HttpResponse<String> post(String path, String body) throws Exception {
        return rest.post(path, ADMIN, JSON, body);
    }

    private HttpResponse<String> patch(String path, String body) throws Exception {
        return rest.send(rest.request(path, ADMIN).header("Content-Type", JSON).header("Accept", JSON)
                .method("PATCH", HttpRequest.BodyPublishers.ofString(body)));
    }

    @Test
    void nullListElementsAreABadRequest() throws Exception {
        badRequest(post("/api/v1/routers", "{\"vmName\":\"n1\",\"vmNetworkConfigTable\":[null]}"), "vmNetworkConfigTable");
        badRequest(post("/api/v1/routers/batch", "{\"virtualRouter\":[null]}"), "virtualRouter");
        badRequest(post("/api/v1/routers/batch", "{\"virtualRouter\":[{\"vmName\":\"n2\",\"vmNetworkConfigTable\":[null]}]}"),
                "vmNetworkConfigTable");
        badRequest(patch("/api/v1/routers", "{\"create\":[{\"vmName\":\"n3\",\"vmNetworkConfigTable\":[null]}]}"),
                "vmNetworkConfigTable");
        badRequest(patch("/api/v1/routers", "{\"create\":[null]}"), "create");
        badRequest(patch("/api/v1/routers", "{\"remove\":[null]}"), "remove");
        assertThat(post("/api/v1/routers?wait=10s", "{\"vmName\":\"n4\"}").statusCode()).isEqualTo(201);
        int n4 = server.service().findByName("n4").orElseThrow();
        badRequest(patch("/api/v1/routers", "{\"change\":[{\"vmIndex\":" + n4 + ",\"vmNetworkConfigTable\":[null]}]}"),
                "vmNetworkConfigTable");
        badRequest(patch("/api/v1/routers/" + n4, "{\"vmNetworkConfigTable\":[null]}"), "vmNetworkConfigTable");
        assertThat(server.service().findByName("n1")).isEmpty();
        assertThat(server.service().findByName("n2")).isEmpty();
        assertThat(server.service().findByName("n3")).isEmpty();
        assertThat(server.service().get(n4).orElseThrow().interfaces()).isEmpty();
    }

    @Test
    void integersMustBeIntegers() throws Exception {
        JsonNode p = badRequest(post("/api/v1/routers", "{\"vmName\":\"i1\",\"vmIndex\":1.5}"), "vmIndex");
        assertThat(p.path("detail").asText()).contains("whole number");
        badRequest(post("/api/v1/routers", "{\"vmName\":\"i2\",\"vmConfigMemory\":1e3}"), "vmConfigMemory");
        badRequest(post("/api/v1/routers", "{\"vmName\":\"i3\",\"vmConfigCpuNumber\":2.0}"), "vmConfigCpuNumber");
        assertThat(server.service().findByName("i1")).isEmpty();
        assertThat(server.service().findByName("i2")).isEmpty();
    }

    /**
     * XML is held to the columns' kinds as JSON is: JAXB alone took vmAdminState "sideways" as absent
     * (the VR was created running) and vmConfigAutoStart "maybe" as false.
     */
    @Test
    void xmlValuesOfTheWrongKindAreABadRequest() throws Exception {
        String xml = "application/xml";
        JsonNode p = badRequest(rest.post("/api/v1/routers", ADMIN, xml,
                "<virtualRouter><vmName>x1</vmName><vmAdminState>sideways</vmAdminState></virtualRouter>"), "vmAdminState");
        assertThat(p.path("detail").asText()).contains("running, suspended, paused or shutdown", "sideways");
        badRequest(rest.post("/api/v1/routers", ADMIN, xml,
                "<virtualRouter><vmName>x2</vmName><vmConfigAutoStart>maybe</vmConfigAutoStart></virtualRouter>"),
                "vmConfigAutoStart");
        badRequest(rest.post("/api/v1/routers", ADMIN, xml,
                "<virtualRouter><vmName>x3</vmName><vmConfigMemory>1e3</vmConfigMemory></virtualRouter>"), "vmConfigMemory");
        badRequest(rest.post("/api/v1/routers", ADMIN, xml, "<virtualRouter><vmName>x4</vmName><vmNetworkConfigTable>"
                + "<vmNetworkConfigEntry><vmNetworkConfigParent>br0</vmNetworkConfigParent><vmNetworkConfigAddressType>ipv5"
                + "</vmNetworkConfigAddressType></vmNetworkConfigEntry></vmNetworkConfigTable></virtualRouter>"),
                "vmNetworkConfigAddressType");
        // A label with white space around it was absent to JAXB too.
        badRequest(rest.post("/api/v1/routers", ADMIN, xml,
                "<virtualRouter><vmName>x5</vmName><vmAdminState> shutdown </vmAdminState></virtualRouter>"), "vmAdminState");
        for (String name : List.of("x1", "x2", "x3", "x4", "x5")) assertThat(server.service().findByName(name)).isEmpty();
        // What XML Schema allows and JAXB reads right still is: 1 for true, white space around a number.
        HttpResponse<String> ok = rest.post("/api/v1/routers?wait=10s", ADMIN, xml, "<virtualRouter><vmName>x6</vmName>"
                + "<vmAdminState>shutdown</vmAdminState><vmConfigAutoStart>1</vmConfigAutoStart>"
                + "<vmConfigMemory> 1024 </vmConfigMemory></virtualRouter>");
        assertThat(ok.statusCode()).as(ok.body()).isEqualTo(201);
        JsonNode x6 = json.readTree(ok.body());
        assertThat(x6.path("vmAdminState").asText()).isEqualTo("shutdown");
        assertThat(x6.path("vmConfigAutoStart").asBoolean()).isTrue();
        assertThat(x6.path("vmConfigMemory").asInt()).isEqualTo(1024);
    }

    @Test
    void aTemplateTheDriverDoesNotOfferIsABadRequest() throws Exception {
        JsonNode p = badRequest(post("/api/v1/routers", "{\"vmName\":\"t1\",\"vmConfigTemplate\":\"../../../etc/passwd\"}"),
                "vmConfigTemplate");
        assertThat(p.path("detail").asText()).contains("vyos");
        assertThat(server.service().findByName("t1")).isEmpty();
    }

    @Test
    void unknownQueryParametersAreABadRequest() throws Exception {
        JsonNode p = badRequest(rest.get("/api/v1/routers?nmae=x", ADMIN, JSON), "nmae");
        assertThat(p.path("detail").asText()).contains("name", "limit");
        badRequest(post("/api/v1/routers?wiat=10s", "{\"vmName\":\"q1\"}"), "wiat");
        assertThat(server.service().findByName("q1")).isEmpty();
        assertThat(rest.get("/api/v1/routers?name=x*&limit=5&offset=0", ADMIN, JSON).statusCode()).isEqualTo(200);
    }

    @Test
    void jsonInACharsetOtherThanUtf8IsRefused() throws Exception {
        HttpResponse<String> r = rest.send(rest.request("/api/v1/routers", ADMIN)
                .header("Content-Type", "application/json; charset=ISO-8859-1").header("Accept", JSON)
                .POST(HttpRequest.BodyPublishers.ofByteArray("{\"vmName\":\"caf\u00e9\"}".getBytes(StandardCharsets.ISO_8859_1))));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(415);
        assertThat(r.body()).contains("UTF-8");
        assertThat(server.service().findByName("caf\u00e9")).isEmpty();
        assertThat(rest.send(rest.request("/api/v1/routers", ADMIN).header("Content-Type", "application/json; charset=utf-8")
                .header("Accept", JSON).POST(HttpRequest.BodyPublishers.ofString("{\"vmName\":\"utf8ok\"}")))
                .statusCode()).isEqualTo(202);
    }

    @Test
    void jsonInUtf16OrUtf32IsRefusedThoughNoCharsetIsDeclared() throws Exception {
        for (String charset : List.of("UTF-16BE", "UTF-16LE", "UTF-16", "UTF-32BE", "UTF-32LE")) {
            String name = "wide" + charset.replace("-", "");
            byte[] body = ("{\"vmName\":\"" + name + "\"}").getBytes(java.nio.charset.Charset.forName(charset));
            HttpResponse<String> r = rest.send(rest.request("/api/v1/routers", ADMIN).header("Content-Type", JSON)
                    .header("Accept", JSON).POST(HttpRequest.BodyPublishers.ofByteArray(body)));
            assertThat(r.statusCode()).as(charset + ": " + r.body()).isEqualTo(415);
            assertThat(r.body()).contains("UTF-8");
            assertThat(server.service().findByName(name)).isEmpty();
        }
    }

    /** A create with no VR in its body (issue 22: the resource builds its change set itself). */
    @Test
    void aCreateWithoutAVrIsABadRequestAndChangesNothing() throws Exception {
        var before = List.copyOf(server.service().indices());
        for (String body : new String[] {"", "null"}) {
            JsonNode p = badRequest(post("/api/v1/routers", body), "body");
            assertThat(p.path("detail").asText()).as(body).contains("a VR description is required");
        }
        assertThat(server.service().indices()).containsExactlyElementsOf(before);
    }

    @Test
    void aQueryParameterWithoutANameOrAnEmptyWaitIsABadRequest() throws Exception {
        JsonNode p = badRequest(rest.get("/api/v1/routers?=null", ADMIN, JSON), null);
        assertThat(p.path("detail").asText()).contains("no name", "=null");
        badRequest(post("/api/v1/routers?=null", "{\"vmName\":\"noname\"}"), null);
        assertThat(server.service().findByName("noname")).isEmpty();
        p = badRequest(post("/api/v1/routers?wait=", "{\"vmName\":\"emptywait\"}"), "wait");
        assertThat(server.service().findByName("emptywait")).isEmpty();
        badRequest(rest.send(rest.request("/api/v1/routers/1/start?wait=", ADMIN).header("Accept", JSON)
                .POST(HttpRequest.BodyPublishers.noBody())), "wait");
    }

    /** Nesting without end (issue 23 item 8): a 400, not a StackOverflowError and a 500. */
    @Test
    void bodiesNestedTooDeepAreABadRequestNotAStackOverflow() throws Exception {
        String xml = "<virtualRouter><vmName>deep" + "<a>".repeat(100_000) + "</a>".repeat(100_000) + "</vmName></virtualRouter>";
        // JAXB refuses the first unknown element; the parser's own bound stands behind it.
        badRequest(rest.post("/api/v1/routers", ADMIN, "application/xml", xml), null);
        badRequest(rest.post("/api/v1/routers", ADMIN, "application/xml", "<a>".repeat(100_000) + "</a>".repeat(100_000)), null);
        String json = "{\"vmName\":\"deep\",\"vmNetworkConfigTable\":" + "[".repeat(100_000) + "]".repeat(100_000) + "}";
        badRequest(post("/api/v1/routers", json), null);
        badRequest(patch("/api/v1/routers", "{\"create\":" + "[{\"a\":".repeat(50_000) + "1" + "}]".repeat(50_000) + "}"), null);
        assertThat(server.service().findByName("deep")).isEmpty();
    }

    @Test
    void anIndexOutOfRangeIsABadRequestWhateverItsLength() throws Exception {
        badRequest(rest.get("/api/v1/routers/2147483648", ADMIN, JSON), "vmIndex");
        badRequest(rest.get("/api/v1/routers/99999999999999999999999", ADMIN, JSON), "vmIndex");
        badRequest(rest.get("/api/v1/routers/0", ADMIN, JSON), "vmIndex");
        assertThat(rest.get("/api/v1/routers/2147483647", ADMIN, JSON).statusCode()).isEqualTo(404);
    }

    @Test
    void malformedBodiesSayWhatIsWrongWithoutJava() throws Exception {
        badRequest(post("/api/v1/routers", "{\"vmName\":"), null);
        badRequest(post("/api/v1/routers", "[1,2]"), null);
        badRequest(post("/api/v1/routers", "{\"vmName\":{\"a\":1}}"), "vmName");
        badRequest(post("/api/v1/routers", "{\"vmNetworkConfigTable\":{\"x\":1},\"vmName\":\"m\"}"), "vmNetworkConfigTable");
        badRequest(post("/api/v1/routers", "{\"vmAdminState\":\"sideways\",\"vmName\":\"m\"}"), "vmAdminState");
    }
}
