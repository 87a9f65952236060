package io.vrouter.it.restconf;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vrouter.it.ServerProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * RESTCONF's YANG library is self-contained (issue 23 item 3): every module it lists, implemented or
 * import-only, is downloaded from the server itself into an empty directory, yanglint loads them with
 * no other search path, and the server's datastore reply, in JSON and in XML, is valid data of all of
 * them (issue 37 item 10: ietf-netconf-acm is implemented, /nacm served, so its mandatory counters are there).
 */
class YangLibrarySelfContainedIT {
    private static final String AUTH = "Basic " + Base64.getEncoder().encodeToString("admin:admin".getBytes());
    private final ObjectMapper json = new ObjectMapper();
    private final HttpClient http = HttpClient.newHttpClient();

    @TempDir
    Path dir;

    private HttpResponse<String> get(String url, String accept) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).header("Authorization", AUTH)
                .header("Accept", accept).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void everyListedModuleComesFromTheServerAndYanglintValidatesItsReplies() throws Exception {
        try (ServerProcess server = ServerProcess.start(dir.resolve("server"))) {
            HttpResponse<String> created = server.post("/api/v1/routers?wait=20s", "{\"vmName\":\"lib1\",\"vmNetworkConfigTable\":"
                    + "[{\"vmNetworkConfigIndex\":1,\"vmNetworkConfigParent\":\"br-lan\"}]}");
            assertThat(created.statusCode()).as(created.body()).isEqualTo(201);

            Path modules = Files.createDirectory(dir.resolve("modules"));
            JsonNode library = json.readTree(get(server.restBase() + "/restconf/data/ietf-yang-library:yang-library",
                    "application/yang-data+json").body()).path("ietf-yang-library:yang-library");
            List<String> implemented = new ArrayList<>();
            for (JsonNode set : library.path("module-set")) {
                for (String kind : List.of("module", "import-only-module")) {
                    for (JsonNode m : set.path(kind)) {
                        String file = m.path("name").asText() + "@" + m.path("revision").asText() + ".yang";
                        HttpResponse<String> text = get(m.path("location").path(0).asText(), "application/yang");
                        assertThat(text.statusCode()).as(file + " from " + m.path("location")).isEqualTo(200);
                        Files.writeString(modules.resolve(file), text.body());
                        if (kind.equals("module")) implemented.add(file);
                    }
                }
            }
            assertThat(implemented).contains("NEW-VMM-MIB@2026-11-28.yang", "ietf-yang-library@2019-01-04.yang",
                    "ietf-netconf-acm@2018-02-14.yang");

            // -D: no search directory but the downloaded modules' own. Every module listed loads, with
            // whatever it imports found among them.
            List<String> all = new ArrayList<>(List.of("yanglint", "-D", "-p", modules.toString()));
            try (var files = Files.list(modules)) {
                files.map(Path::toString).sorted().forEach(all::add);
            }
            ServerProcess.Result load = ServerProcess.run(all);
            assertThat(load.exit()).as(load.toString()).isZero();
            // Data is validated against every module the library lists, as a user who downloaded them all would.
            List<String> yanglint = new ArrayList<>(all);

            // The datastore's content (RFC 8040's ietf-restconf:data wrapper taken off) is valid data.
            JsonNode data = json.readTree(get(server.restBase() + "/restconf/data", "application/yang-data+json").body())
                    .path("ietf-restconf:data");
            Path dataJson = dir.resolve("data.json");
            Files.writeString(dataJson, json.writeValueAsString(data));
            String xml = get(server.restBase() + "/restconf/data", "application/yang-data+xml").body()
                    .replaceFirst("^(<\\?xml[^>]*\\?>)?\\s*<data[^>]*>", "").replaceFirst("</data>\\s*$", "");
            Path dataXml = dir.resolve("data.xml");
            Files.writeString(dataXml, xml);
            for (Path reply : List.of(dataJson, dataXml)) {
                List<String> validate = new ArrayList<>(yanglint);
                validate.addAll(List.of("-t", "data", reply.toString()));
                ServerProcess.Result r = ServerProcess.run(validate);
                assertThat(r.exit()).as(reply.getFileName() + ": " + r).isZero();
            }
        }
    }
}
