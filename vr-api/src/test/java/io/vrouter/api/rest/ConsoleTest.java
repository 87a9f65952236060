package io.vrouter.api.rest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The web console's side of the server over real HTTP: its static files and their headers, the
 * session resource it starts from, and the CSRF rule for writes (browsers' writes from other origins
 * refused, programs' writes untouched).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConsoleTest {
    private static final String ADMIN = RestClient.basic("admin", "admin");
    private static final String VIEWER = RestClient.basic("viewer", "viewer");
    private final ObjectMapper json = new ObjectMapper();
    private RestServer server;
    private RestClient rest;
    private String host;

    @BeforeAll
    void start() throws Exception {
        server = RestServer.start("vrouter-console-test");
        int port = server.port();
        rest = new RestClient(port);
        host = "127.0.0.1:" + port;
    }

    @AfterAll
    void stop() {
        server.close();
    }

    private HttpResponse<String> get(String path) throws Exception {
        return rest.send(rest.request(path, null).GET());
    }

    @Test
    void theConsoleIsServedAtTheRootWithAPolicyThatForbidsInlineScript() throws Exception {
        HttpResponse<String> index = get("/");
        assertThat(index.statusCode()).isEqualTo(200);
        assertThat(index.headers().firstValue("Content-Type").orElse("")).startsWith("text/html");
        String csp = index.headers().firstValue("Content-Security-Policy").orElse("");
        assertThat(csp).contains("script-src 'self'").contains("default-src 'none'").contains("frame-ancestors 'none'")
                .doesNotContain("unsafe-inline").doesNotContain("unsafe-eval");
        assertThat(index.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
        // Every script of the page is a file of this origin: none is inline.
        Matcher scripts = Pattern.compile("<script([^>]*)>").matcher(index.body());
        int count = 0;
        while (scripts.find()) {
            assertThat(scripts.group(1)).contains("src=\"js/");
            count++;
        }
        assertThat(count).isPositive();
        assertThat(index.body()).doesNotContainPattern("\\son[a-z]+=").doesNotContain("style=");
    }

    @Test
    void filesComeWithTheirTypeAndAnEntityTag() throws Exception {
        HttpResponse<String> main = get("/js/main.js");
        assertThat(main.statusCode()).isEqualTo(200);
        assertThat(main.headers().firstValue("Content-Type").orElse("")).startsWith("text/javascript");
        String tag = main.headers().firstValue("ETag").orElseThrow();
        HttpResponse<String> again = rest.send(rest.request("/js/main.js", null).header("If-None-Match", tag).GET());
        assertThat(again.statusCode()).isEqualTo(304);
        assertThat(get("/console.css").headers().firstValue("Content-Type").orElse("")).startsWith("text/css");
        // The chart library, from its WebJar in the jar: served locally, never from a CDN.
        HttpResponse<String> chart = get("/lib/uPlot.iife.min.js");
        assertThat(chart.statusCode()).isEqualTo(200);
        assertThat(chart.body()).contains("uPlot");
        assertThat(get("/lib/uPlot.min.css").statusCode()).isEqualTo(200);
    }

    @Test
    void filesGoOutGzippedToClientsThatAcceptIt() throws Exception {
        for (String path : List.of("/", "/js/main.js", "/console.css", "/favicon.svg", "/lib/uPlot.iife.min.js", "/lib/uPlot.min.css")) {
            HttpResponse<byte[]> plain = getBytes(path, null);
            assertThat(plain.statusCode()).as(path).isEqualTo(200);
            assertThat(plain.headers().firstValue("Content-Encoding")).as(path).isEmpty();
            assertThat(plain.headers().firstValue("Vary")).as(path).hasValue("Accept-Encoding");

            HttpResponse<byte[]> gzipped = getBytes(path, "gzip, deflate, br");
            assertThat(gzipped.statusCode()).as(path).isEqualTo(200);
            assertThat(gzipped.headers().firstValue("Content-Encoding")).as(path).hasValue("gzip");
            assertThat(gzipped.headers().firstValue("Vary")).as(path).hasValue("Accept-Encoding");
            assertThat(gzipped.headers().firstValue("Content-Security-Policy")).as(path).isPresent();
            assertThat(gzipped.body().length).as(path).isLessThan(plain.body().length);
            try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(gzipped.body()))) {
                assertThat(in.readAllBytes()).as(path).isEqualTo(plain.body());
            }
            // Each encoding is its own representation, with its own validator.
            String gzippedTag = gzipped.headers().firstValue("ETag").orElseThrow();
            assertThat(gzippedTag).as(path).isNotEqualTo(plain.headers().firstValue("ETag").orElseThrow());
            HttpResponse<byte[]> again = rest.http().send(rest.request(path, null).header("Accept-Encoding", "gzip")
                    .header("If-None-Match", gzippedTag).GET().build(), HttpResponse.BodyHandlers.ofByteArray());
            assertThat(again.statusCode()).as(path).isEqualTo(304);
            assertThat(again.headers().firstValue("Vary")).as(path).hasValue("Accept-Encoding");
        }
        // gzip refused (q=0), or not offered: the file as it is.
        for (String refused : List.of("gzip;q=0", "identity", "br", "*;q=0", "gzip; q=0.0, *")) {
            assertThat(getBytes("/js/main.js", refused).headers().firstValue("Content-Encoding")).as(refused).isEmpty();
        }
        for (String accepted : List.of("*", "GZIP", "x-gzip", "br;q=1, gzip;q=0.5", "gzip;Q=0.1")) {
            assertThat(getBytes("/js/main.js", accepted).headers().firstValue("Content-Encoding")).as(accepted).hasValue("gzip");
        }
    }

    private HttpResponse<byte[]> getBytes(String path, String acceptEncoding) throws Exception {
        HttpRequest.Builder b = rest.request(path, null).GET();
        if (acceptEncoding != null) b.header("Accept-Encoding", acceptEncoding);
        return rest.http().send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    @Test
    void nothingButTheConsolesFilesIsServed() throws Exception {
        assertThat(get("/nope.js").statusCode()).isEqualTo(404);
        assertThat(get("/js/..%2Findex.html").statusCode()).isEqualTo(404);
        assertThat(get("/js/../../logback.xml").statusCode()).isEqualTo(404);
        assertThat(get("/logback.xml").statusCode()).isEqualTo(404);
        assertThat(get("/lib/uPlot.esm.js").statusCode()).isEqualTo(404);
        assertThat(get("/io/vrouter/api/console/index.html").statusCode()).isEqualTo(404);
    }

    @Test
    void theSessionSaysWhoTheCallerIsAndWhatTheDriverOffers() throws Exception {
        JsonNode viewer = json.readTree(rest.get("/api/v1/session", VIEWER, "application/json").body());
        assertThat(viewer.get("user").asText()).isEqualTo("viewer");
        assertThat(viewer.get("role").asText()).isEqualTo("viewer");
        assertThat(viewer.get("driver").asText()).isEqualTo("sim");
        assertThat(viewer.get("adminStates").toString()).contains("\"running\"", "\"shutdown\"", "\"suspended\"", "\"paused\"");
        assertThat(viewer.get("templates").get(0).asText()).isEqualTo("vyos");
        JsonNode admin = json.readTree(rest.get("/api/v1/session", ADMIN, "application/json").body());
        assertThat(admin.get("role").asText()).isEqualTo("operator");
        assertThat(rest.get("/api/v1/session", null, "application/json").statusCode()).isEqualTo(401);
        assertThat(rest.get("/api/v1/session", ADMIN, "application/xml").body()).contains("<role>operator</role>");
    }

    private int createRunning(String name) throws Exception {
        HttpResponse<String> r = rest.post("/api/v1/routers?wait=10s", ADMIN, "application/json", "{\"vmName\":\"" + name + "\"}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        return json.readTree(r.body()).get("vmIndex").asInt();
    }

    private HttpResponse<String> stop(int vmIndex, String auth, String... headers) throws Exception {
        HttpRequest.Builder b = rest.request("/api/v1/routers/" + vmIndex + "/stop?wait=10s", auth)
                .header("Accept", "application/json").POST(HttpRequest.BodyPublishers.noBody());
        for (int i = 0; i < headers.length; i += 2) b.header(headers[i], headers[i + 1]);
        return rest.send(b);
    }

    private String operState(int vmIndex) throws Exception {
        return json.readTree(rest.get("/api/v1/routers/" + vmIndex, VIEWER, "application/json").body())
                .at("/vmEntry/vmOperState").asText();
    }

    @Test
    void aBrowsersWriteFromAnotherOriginIsRefusedAndChangesNothing() throws Exception {
        int i = createRunning("csrf-target");
        String[][] forged = {
            {"Origin", "http://evil.example"},
            {"Origin", "http://evil.example", "X-Requested-By", "x"},
            {"Origin", "null", "X-Requested-By", "x"},
            {"Sec-Fetch-Site", "cross-site"},
            {"Sec-Fetch-Site", "same-site", "X-Requested-By", "x"},
            // From this origin but without the console's header: a form or a no-cors fetch of ours would look so.
            {"Origin", "http://" + host, "Sec-Fetch-Site", "same-origin"},
            {"Origin", "http://" + host.replace("127.0.0.1", "localhost"), "X-Requested-By", "x"},
        };
        for (String[] headers : forged) {
            HttpResponse<String> r = stop(i, ADMIN, headers);
            assertThat(r.statusCode()).as(String.join(" ", headers) + ": " + r.body()).isEqualTo(403);
            assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("application/problem+json");
            assertThat(operState(i)).isEqualTo("running");
        }
        // Refused before authentication: no credentials prompt for a forged request.
        HttpResponse<String> anonymous = stop(i, null, "Origin", "http://evil.example");
        assertThat(anonymous.statusCode()).isEqualTo(403);
        assertThat(anonymous.headers().firstValue("WWW-Authenticate")).isEmpty();
        // The same DELETE from another site is refused too.
        HttpResponse<String> delete = rest.send(rest.request("/api/v1/routers/" + i, ADMIN)
                .header("Sec-Fetch-Site", "cross-site").DELETE());
        assertThat(delete.statusCode()).isEqualTo(403);
        assertThat(operState(i)).isEqualTo("running");
    }

    /** A request with a Host header of the test's choosing (the JDK's client sets Host itself): status and body. */
    private String[] withHost(String method, String path, String hostHeader, String... headers) throws Exception {
        return withHost(server.port(), method, path, hostHeader, headers);
    }

    private static String[] withHost(int port, String method, String path, String hostHeader, String... headers)
            throws Exception {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.setSoTimeout(30_000);
            StringBuilder request = new StringBuilder(method + " " + path + " HTTP/1.1\r\nHost: " + hostHeader
                    + "\r\nAuthorization: " + ADMIN + "\r\nContent-Length: 0\r\nConnection: close\r\n");
            for (int i = 0; i < headers.length; i += 2) request.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
            socket.getOutputStream().write((request + "\r\n").getBytes(StandardCharsets.US_ASCII));
            String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return new String[] {answer.substring(9, 12), answer.substring(answer.indexOf("\r\n\r\n") + 4)};
        }
    }

    /** DNS rebinding (issue 23 item 11): evil.example resolved to 127.0.0.1 is not a name this server answers to. */
    @Test
    void aRequestToANameTheServerDoesNotAnswerToIsMisdirected() throws Exception {
        int i = createRunning("rebinding-target");
        int port = server.port();
        String[] write = withHost("POST", "/api/v1/routers/" + i + "/stop", "evil.example:" + port,
                "Origin", "http://evil.example:" + port, "X-Requested-By", "x");
        assertThat(write[0]).as(write[1]).isEqualTo("421");
        assertThat(write[1]).contains("\"status\":421", "evil.example", "rest.host-names").doesNotContain("Exception");
        assertThat(operState(i)).isEqualTo("running");
        // Reads are refused too: the page would read them as its own origin's.
        assertThat(withHost("GET", "/api/v1/routers", "evil.example:" + port)[0]).isEqualTo("421");
        assertThat(withHost("GET", "/restconf/data", "EVIL.example.")[0]).isEqualTo("421");
        // Loopback names and any address are the server's own; the console's write by them is accepted.
        for (String own : List.of("localhost", "LOCALHOST.", "vrouter.localhost", "127.0.0.1", "[::1]", "192.0.2.7")) {
            assertThat(withHost("GET", "/api/v1/routers/" + i, own + ":" + port)[0]).as(own).isEqualTo("200");
        }
        String[] console = withHost("POST", "/api/v1/routers/" + i + "/stop", "localhost:" + port,
                "Origin", "http://localhost:" + port, "X-Requested-By", "vrouter-console");
        assertThat(console[0]).as(console[1]).isEqualTo("202");
    }

    @Test
    void theNamesAnsweredToAreASetting() throws Exception {
        RestServer named = RestServer.start("vrouter-host-names", Map.of("rest.host-names", "vrouter.example.net, Other.example"));
        try {
            int port = named.port();
            for (String name : List.of("vrouter.example.net", "other.example", "localhost", "127.0.0.1")) {
                assertThat(withHost(port, "GET", "/health/live", name)[0]).as(name).isEqualTo("200");
            }
            assertThat(withHost(port, "GET", "/health/live", "evil.example")[0]).isEqualTo("421");
        } finally {
            named.close();
        }
    }

    @Test
    void theConsolesOwnWritesAndProgramsWritesAreAccepted() throws Exception {
        int i = createRunning("csrf-allowed");
        HttpResponse<String> console = stop(i, ADMIN, "Origin", "http://" + host, "Sec-Fetch-Site", "same-origin",
                "X-Requested-By", "vrouter-console");
        assertThat(console.statusCode()).as(console.body()).isEqualTo(200);
        assertThat(operState(i)).isEqualTo("shutdown");
        // A program (curl, a generated client) sends none of the browser's headers: as before.
        HttpResponse<String> program = rest.send(rest.request("/api/v1/routers/" + i + "/start?wait=10s", ADMIN)
                .POST(HttpRequest.BodyPublishers.noBody()));
        assertThat(program.statusCode()).as(program.body()).isEqualTo(200);
        assertThat(operState(i)).isEqualTo("running");
        // Reads are not writes: a browser's GET from anywhere is answered (the same-origin policy keeps
        // its answer from another page).
        assertThat(rest.send(rest.request("/api/v1/routers/" + i, VIEWER).header("Sec-Fetch-Site", "cross-site").GET())
                .statusCode()).isEqualTo(200);
    }

    @Test
    void originsCompareByHostAndPortWithDefaultPorts() {
        assertThat(CsrfFilter.sameOrigin("http://example.net", "example.net")).isTrue();
        assertThat(CsrfFilter.sameOrigin("http://example.net", "example.net:80")).isTrue();
        assertThat(CsrfFilter.sameOrigin("https://example.net", "example.net:443")).isTrue();
        assertThat(CsrfFilter.sameOrigin("https://example.net", "example.net:80")).isFalse();
        assertThat(CsrfFilter.sameOrigin("http://[::1]:8080", "[::1]:8080")).isTrue();
        assertThat(CsrfFilter.sameOrigin("http://EXAMPLE.net:8080", "example.net:8080")).isTrue();
        assertThat(CsrfFilter.sameOrigin("http://example.net:8081", "example.net:8080")).isFalse();
        assertThat(CsrfFilter.sameOrigin("http://example.net.evil:8080", "example.net:8080")).isFalse();
        assertThat(CsrfFilter.sameOrigin("null", "example.net")).isFalse();
        assertThat(CsrfFilter.sameOrigin("http://example.net", null)).isFalse();
        assertThat(CsrfFilter.sameOrigin("not a uri", "example.net")).isFalse();
    }
}
