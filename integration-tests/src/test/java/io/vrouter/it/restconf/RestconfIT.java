package io.vrouter.it.restconf;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vrouter.it.ServerProcess;
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
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * RESTCONF against the packaged server over real HTTP: a VR's whole life driven with nothing but
 * RFC 8040 (the root found through host-meta, the module names from the YANG library), and every
 * kind of answer, JSON and XML, checked by yanglint against the module texts the server serves.
 */
class RestconfIT {
    private static final String AUTH = "Basic " + Base64.getEncoder().encodeToString("admin:admin".getBytes(StandardCharsets.UTF_8));
    private static final String JSON = "application/yang-data+json";
    private static final String XML = "application/yang-data+xml";
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    static Path dir;
    static ServerProcess server;
    /** The RESTCONF root, as host-meta gives it. */
    static String root;
    /** The module texts, downloaded from the YANG library's locations. */
    static Path yang;
    static List<String> modules = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        server = ServerProcess.start(dir.resolve("server"));
        HttpResponse<String> meta = send("GET", server.restBase() + "/.well-known/host-meta", null, null, null);
        Matcher href = Pattern.compile("rel=\"restconf\" href=\"([^\"]+)\"").matcher(meta.body());
        assertThat(href.find()).as(meta.body()).isTrue();
        root = server.restBase() + href.group(1);
        yang = Files.createDirectories(dir.resolve("yang"));
        JsonNode set = json(get("/data/ietf-yang-library:yang-library", JSON)).path("ietf-yang-library:yang-library")
                .path("module-set").get(0);
        for (String kind : List.of("module", "import-only-module")) {
            for (JsonNode m : set.path(kind)) {
                Path file = yang.resolve(m.path("name").asText() + "@" + m.path("revision").asText() + ".yang");
                Files.writeString(file, send("GET", m.path("location").get(0).asText(), AUTH, null, null).body());
                if (kind.equals("module")) modules.add(file.toString());
            }
        }
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) server.close();
    }

    private static HttpResponse<String> send(String method, String url, String auth, String type, String body)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (auth != null) b.header("Authorization", auth);
        if (type != null) b.header("Content-Type", type).header("Accept", type);
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> get(String path, String accept) throws Exception {
        HttpRequest r = HttpRequest.newBuilder(URI.create(root + path)).header("Authorization", AUTH).header("Accept", accept)
                .timeout(Duration.ofSeconds(30)).build();
        HttpResponse<String> answer = HTTP.send(r, HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).as(path + ": " + answer.body()).isEqualTo(200);
        return answer;
    }

    private static JsonNode json(HttpResponse<String> r) throws Exception {
        return MAPPER.readTree(r.body());
    }

    /** yanglint accepts the document as the data of a get reply (state included) against the served modules. */
    private static void yanglint(String name, String document) throws Exception {
        Path file = dir.resolve(name);
        Files.writeString(file, document);
        List<String> cmd = new ArrayList<>(List.of("yanglint", "-p", yang.toString(), "-t", "get"));
        cmd.addAll(modules);
        cmd.add(file.toString());
        ServerProcess.Result r = ServerProcess.run(cmd);
        assertThat(r.exit()).as(name + ": " + document + "\n" + r).isZero();
    }

    /** The members of RESTCONF's {@code data} wrapper, which is not a schema node, as top-level JSON. */
    private static String unwrapJson(String body) throws Exception {
        return MAPPER.writeValueAsString(MAPPER.readTree(body).path("ietf-restconf:data"));
    }

    /** The children of the XML {@code data} wrapper: top-level elements, as yanglint reads them. */
    private static String unwrapXml(String body) {
        return body.replaceFirst("^<\\?xml[^>]*\\?>", "")
                .replaceFirst("^<data xmlns=\"urn:ietf:params:xml:ns:yang:ietf-restconf\">", "").replaceFirst("</data>$", "");
    }

    private static String vmm(String inner) {
        return "<NEW-VMM-MIB xmlns=\"urn:ietf:params:xml:ns:yang:smiv2:NEW-VMM-MIB\">" + inner + "</NEW-VMM-MIB>";
    }

    private static String operState(int vmIndex) throws Exception {
        HttpResponse<String> r = send("GET", root + "/data/NEW-VMM-MIB:NEW-VMM-MIB/vmTable/vmEntry=" + vmIndex + "/vmOperState",
                AUTH, JSON, null);
        return r.statusCode() == 404 ? "gone" : json(r).path("NEW-VMM-MIB:vmOperState").asText();
    }

    private static void await(int vmIndex, String state) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        String now = operState(vmIndex);
        while (!now.equals(state) && System.nanoTime() < deadline) {
            Thread.sleep(50);
            now = operState(vmIndex);
        }
        assertThat(now).as("VR " + vmIndex).isEqualTo(state);
    }

    @Test
    void aVrsWholeLifeOverRestconfAloneInJsonAndXml() throws Exception {
        String table = root + "/data/NEW-VMM-MIB:NEW-VMM-MIB/vmConfigTable";
        HttpResponse<String> created = send("POST", table, AUTH, JSON,
                "{\"NEW-VMM-MIB:vmConfigEntry\":[{\"vmIndex\":301,\"vmName\":\"rc-301\",\"vmConfigMemory\":256}]}");
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        String entry = created.headers().firstValue("Location").orElseThrow();
        await(301, "running");
        HttpResponse<String> iface = send("POST", root + "/data/NEW-VMM-MIB:NEW-VMM-MIB/vmNetworkConfigTable", AUTH, XML,
                "<vmNetworkConfigEntry xmlns=\"urn:ietf:params:xml:ns:yang:smiv2:NEW-VMM-MIB\"><vmIndex>301</vmIndex>"
                        + "<vmNetworkConfigIndex>1</vmNetworkConfigIndex><vmNetworkConfigParent>xenbr0</vmNetworkConfigParent><vmNetworkConfigAddress>192.0.2.1</vmNetworkConfigAddress>"
                        + "<vmNetworkConfigPrefixLength>24</vmNetworkConfigPrefixLength></vmNetworkConfigEntry>");
        assertThat(iface.statusCode()).as(iface.body()).isEqualTo(201);
        assertThat(json(send("GET", entry, AUTH, JSON, null)).path("NEW-VMM-MIB:vmConfigEntry").get(0).path("vmConfigMemory")
                .asInt()).isEqualTo(256);

        // Stop, resize, start: writes of vmAdminState and vmConfigMemory, as the MIB has them.
        assertThat(send("PATCH", entry, AUTH, JSON, "{\"NEW-VMM-MIB:vmConfigEntry\":[{\"vmIndex\":301,\"vmAdminState\":\"shutdown\"}]}")
                .statusCode()).isEqualTo(204);
        await(301, "shutdown");
        assertThat(send("PUT", entry + "/vmConfigMemory", AUTH, XML,
                "<vmConfigMemory xmlns=\"urn:ietf:params:xml:ns:yang:smiv2:NEW-VMM-MIB\">1024</vmConfigMemory>").statusCode())
                .isEqualTo(204);
        assertThat(send("PATCH", entry, AUTH, XML, "<vmConfigEntry xmlns=\"urn:ietf:params:xml:ns:yang:smiv2:NEW-VMM-MIB\">"
                + "<vmIndex>301</vmIndex><vmAdminState>running</vmAdminState></vmConfigEntry>").statusCode()).isEqualTo(204);
        await(301, "running");

        // The same VR over REST.
        JsonNode rest = MAPPER.readTree(server.get("/api/v1/routers/301").body());
        assertThat(rest.path("vmName").asText()).isEqualTo("rc-301");
        assertThat(rest.path("vmConfigMemory").asInt()).isEqualTo(1024);

        // Remove.
        assertThat(send("DELETE", entry, AUTH, null, null).statusCode()).isEqualTo(204);
        await(301, "gone");
        assertThat(send("GET", entry, AUTH, JSON, null).statusCode()).isEqualTo(404);
    }

    @Test
    void theReadmesRestconfExampleWorksAsWritten() throws Exception {
        String readme = Files.readString(Path.of("..", "README.md"));
        int section = readme.indexOf("### RESTCONF");
        int start = readme.indexOf("```sh\n", section) + 6;
        String block = readme.substring(start, readme.indexOf("```", start)).replace("127.0.0.1:8080", "127.0.0.1:" + server.restPort);
        ServerProcess.Result r = ServerProcess.run(List.of("bash", "-ec", block));
        assertThat(r.exit()).as(block + "\n" + r).isZero();
        assertThat(r.out()).contains("\"vmName\":\"edge5\"");
        await(5, "gone");
    }

    @Test
    void yanglintAcceptsEveryKindOfAnswerInJsonAndXml() throws Exception {
        String table = root + "/data/NEW-VMM-MIB:NEW-VMM-MIB/vmConfigTable";
        assertThat(send("POST", table, AUTH, JSON, "{\"NEW-VMM-MIB:vmConfigEntry\":[{\"vmIndex\":311,\"vmName\":\"lint-311\"}]}")
                .statusCode()).isEqualTo(201);
        assertThat(send("POST", root + "/data/NEW-VMM-MIB:NEW-VMM-MIB/vmNetworkConfigTable", AUTH, JSON,
                "{\"NEW-VMM-MIB:vmNetworkConfigEntry\":[{\"vmIndex\":311,\"vmNetworkConfigIndex\":1,\"vmNetworkConfigParent\":\"xenbr0\","
                        + "\"vmNetworkConfigAddress\":\"198.51.100.1\",\"vmNetworkConfigPrefixLength\":24}]}").statusCode())
                .isEqualTo(201);
        await(311, "running");

        // The whole datastore: NEW-VMM-MIB with its state, the YANG library, restconf-state.
        yanglint("all.json", unwrapJson(get("/data", JSON).body()));
        yanglint("all.xml", unwrapXml(get("/data", XML).body()));
        for (String p : List.of("?content=config", "?content=nonconfig", "?with-defaults=trim", "?depth=3")) {
            yanglint("all" + p.replaceAll("\\W", "-") + ".json", unwrapJson(get("/data" + p, JSON).body()));
        }
        // Top-level resources as they are.
        for (String p : List.of("/data/NEW-VMM-MIB:NEW-VMM-MIB", "/data/ietf-yang-library:yang-library",
                "/data/ietf-restconf-monitoring:restconf-state")) {
            String name = p.replaceAll("\\W", "-");
            yanglint(name + ".json", get(p, JSON).body());
            yanglint(name + ".xml", get(p, XML).body().replaceFirst("^<\\?xml[^>]*\\?>", ""));
        }
        // An entry, a leaf, an interface, a state entry: inside their parents.
        String entry = "/data/NEW-VMM-MIB:NEW-VMM-MIB/vmConfigTable/vmConfigEntry=311";
        JsonNode e = json(get(entry, JSON)).path("NEW-VMM-MIB:vmConfigEntry");
        yanglint("entry.json", "{\"NEW-VMM-MIB:NEW-VMM-MIB\":{\"vmConfigTable\":{\"vmConfigEntry\":" + e + "}}}");
        yanglint("entry.xml", vmm("<vmConfigTable>" + get(entry, XML).body().replaceFirst("^<\\?xml[^>]*\\?>", "")
                .replace(" xmlns=\"urn:ietf:params:xml:ns:yang:smiv2:NEW-VMM-MIB\"", "") + "</vmConfigTable>"));
        JsonNode state = json(get("/data/NEW-VMM-MIB:NEW-VMM-MIB/vmTable/vmEntry=311", JSON)).path("NEW-VMM-MIB:vmEntry");
        yanglint("state.json", "{\"NEW-VMM-MIB:NEW-VMM-MIB\":{\"vmTable\":{\"vmEntry\":" + state + "}}}");
        JsonNode net = json(get("/data/NEW-VMM-MIB:NEW-VMM-MIB/vmNetworkConfigTable/vmNetworkConfigEntry=311,1", JSON))
                .path("NEW-VMM-MIB:vmNetworkConfigEntry");
        yanglint("iface.json", "{\"NEW-VMM-MIB:NEW-VMM-MIB\":{\"vmNetworkConfigTable\":{\"vmNetworkConfigEntry\":" + net + "}}}");
        JsonNode tagged = json(get(entry + "?with-defaults=report-all-tagged", JSON)).path("NEW-VMM-MIB:vmConfigEntry");
        assertThat(tagged.toString()).contains("\"ietf-netconf-with-defaults:default\":true");
        String leaf = json(get(entry + "/vmName", JSON)).path("NEW-VMM-MIB:vmName").asText();
        assertThat(leaf).isEqualTo("lint-311");
        // An error document is an instance of ietf-restconf's yang-data errors: its shape is checked by hand.
        HttpResponse<String> err = send("GET", root + "/data/NEW-VMM-MIB:NEW-VMM-MIB/vmConfigTable/vmConfigEntry=9", AUTH, JSON, null);
        assertThat(err.statusCode()).isEqualTo(404);
        assertThat(json(err).path("ietf-restconf:errors").path("error").get(0).path("error-type").asText()).isEqualTo("protocol");
    }
}
