package io.vrouter.api.rest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The history of commits and the rollback over REST ({@code /api/v1/commits}) and RESTCONF (the
 * vrouter-history operations), on a whole server with the simulated driver (docs/adr/0021).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HistoryResourcesTest {
    private static final String ADMIN = RestClient.basic("admin", "admin");
    private static final String VIEWER = RestClient.basic("viewer", "viewer");
    private final ObjectMapper json = new ObjectMapper();
    private final HttpClient http = HttpClient.newHttpClient();
    private RestServer server;

    @BeforeAll
    void start() throws Exception {
        server = RestServer.start("vrouter-history-test");
    }

    @AfterAll
    void stop() {
        server.close();
    }

    private HttpResponse<String> send(String method, String path, String auth, String type, String body, String accept)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .timeout(Duration.ofSeconds(30)).header("Authorization", auth).header("Accept", accept)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (type != null) b.header("Content-Type", type);
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void commitsAreListedReadAndRolledBackOverRestAndRestconf() throws Exception {
        HttpResponse<String> made = send("POST", "/api/v1/routers?wait=10s", ADMIN, "application/json",
                "{\"vmName\":\"h1\",\"vmConfigDescription\":\"first\"}", "application/json");
        assertThat(made.statusCode()).as(made.body()).isEqualTo(201);
        int vr = json.readTree(made.body()).get("vmIndex").asInt();
        assertThat(send("PATCH", "/api/v1/routers/" + vr + "?wait=10s", ADMIN, "application/json",
                "{\"vmConfigDescription\":\"second\"}", "application/json").statusCode()).isEqualTo(200);

        JsonNode all = json.readTree(send("GET", "/api/v1/commits", VIEWER, null, null, "application/json").body());
        long last = all.get(all.size() - 1).get("number").asLong();
        JsonNode change = json.readTree(send("GET", "/api/v1/commits/" + last, VIEWER, null, null, "application/json").body());
        assertThat(change.at("/changes/0/leaf").asText()).isEqualTo("vmConfigDescription");
        assertThat(change.at("/changes/0/before").asText()).isEqualTo("first");
        assertThat(change.at("/changedBy/interface").asText()).isEqualTo("rest");
        assertThat(send("GET", "/api/v1/commits/999999", ADMIN, null, null, "application/json").statusCode()).isEqualTo(404);

        assertThat(send("POST", "/api/v1/commits/" + (last - 1) + "/rollback", VIEWER, null, null, "application/json")
                .statusCode()).as("a viewer may not").isEqualTo(403);
        HttpResponse<String> back = send("POST", "/api/v1/commits/" + (last - 1) + "/rollback?wait=10s", ADMIN, null, null,
                "application/json");
        assertThat(back.statusCode()).as(back.body()).isEqualTo(200);
        assertThat(json.readTree(back.body()).get("commit").asLong()).isEqualTo(last + 1);
        assertThat(back.headers().firstValue("Location").orElseThrow()).endsWith("/api/v1/commits/" + (last + 1));
        assertThat(server.service().getConfig(vr).orElseThrow().vmConfigDescription).isEqualTo("first");

        // RESTCONF: the operations, get-commits in XML, rollback in JSON, an unknown operation
        String ops = send("GET", "/restconf/operations", ADMIN, null, null, "application/yang-data+json").body();
        assertThat(ops).contains("\"vrouter-history:get-commits\"", "\"vrouter-history:rollback\"");
        HttpResponse<String> xml = send("POST", "/restconf/operations/vrouter-history:get-commits", ADMIN,
                "application/yang-data+xml", "<input xmlns=\"urn:vrouter:yang:vrouter-history\"><number>" + (last + 1)
                        + "</number></input>", "application/yang-data+xml");
        assertThat(xml.statusCode()).as(xml.body()).isEqualTo(200);
        assertThat(xml.body()).contains("<rollback-to>" + (last - 1) + "</rollback-to>", "<before>second</before>");
        HttpResponse<String> rolled = send("POST", "/restconf/operations/vrouter-history:rollback", ADMIN,
                "application/yang-data+json", "{\"vrouter-history:input\":{\"number\":\"" + last + "\"}}",
                "application/yang-data+json");
        assertThat(rolled.statusCode()).as(rolled.body()).isEqualTo(200);
        assertThat(json.readTree(rolled.body()).at("/vrouter-history:output/commit").asText()).isEqualTo(Long.toString(last + 2));
        HttpResponse<String> gone = send("POST", "/restconf/operations/vrouter-history:rollback", ADMIN,
                "application/yang-data+json", "{\"vrouter-history:input\":{\"number\":\"999999\"}}", "application/yang-data+json");
        assertThat(gone.statusCode()).as(gone.body()).isEqualTo(409);
        assertThat(gone.body()).contains("data-missing", "is not in the history");
        assertThat(send("POST", "/restconf/operations/vrouter-history:forget", ADMIN, null, null, "application/yang-data+json")
                .statusCode()).isEqualTo(404);
    }
}
