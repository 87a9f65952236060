package io.vrouter.it.tomcat;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vrouter.it.ServerProcess;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.zip.GZIPInputStream;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleState;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.scan.StandardJarScanner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** vrouter.war deployed in an embedded Tomcat 10.1, the VR lifecycle over REST, SNMP alive beside it. */
class TomcatWarIT {
    private static final String AUTH = "Basic " + Base64.getEncoder().encodeToString("admin:admin".getBytes());
    private final ObjectMapper json = new ObjectMapper();
    private final HttpClient http = HttpClient.newHttpClient();

    @TempDir
    Path dir;

    private HttpResponse<String> call(String method, String url, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30))
                .header("Authorization", AUTH).header("Accept", "application/json");
        if (body != null) b.header("Content-Type", "application/json");
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theWarRunsTheVrLifecycleInTomcat() throws Exception {
        Path war = Path.of(System.getProperty("vrouter.war"));
        assertThat(war).exists();
        int snmpPort = ServerProcess.freeUdpPort();
        System.setProperty("vrouter.data-dir", dir.resolve("data").toString());
        System.setProperty("vrouter.snmp-port", Integer.toString(snmpPort));
        System.setProperty("vrouter.netconf-port", Integer.toString(ServerProcess.freeTcpPort()));
        System.setProperty("vrouter.gnmi-port", Integer.toString(ServerProcess.freeTcpPort()));
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(dir.resolve("tomcat").toString());
        // Tomcat expands the WAR into its appBase, as a standalone Tomcat does; it must exist.
        Files.createDirectories(dir.resolve("tomcat").resolve("webapps"));
        tomcat.setPort(0);
        tomcat.setAddDefaultWebXmlToWebapp(false);
        tomcat.getConnector();
        Context app = tomcat.addWebapp("/vrouter", war.toAbsolutePath().toString());
        // The test's own class path is not part of the web application: do not scan it for TLDs.
        ((StandardJarScanner) app.getJarScanner()).setScanClassPath(false);
        tomcat.start();
        try {
            assertThat(app.getState()).isEqualTo(LifecycleState.STARTED);
            String base = "http://127.0.0.1:" + tomcat.getConnector().getLocalPort() + "/vrouter";

            HttpResponse<String> created = call("POST", base + "/api/v1/routers?wait=10s", "{\"vmName\":\"in-tomcat\"}");
            assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
            assertThat(created.headers().firstValue("Location").orElseThrow()).startsWith(base + "/api/v1/routers/");
            int i = json.readTree(created.body()).get("vmIndex").asInt();
            JsonNode read = json.readTree(call("GET", base + "/api/v1/routers/" + i, null).body());
            assertThat(read.at("/vmEntry/vmOperState").asText()).isEqualTo("running");
            JsonNode stopped = json.readTree(call("POST", base + "/api/v1/routers/" + i + "/stop?wait=10s", "").body());
            assertThat(stopped.at("/vmEntry/vmOperState").asText()).isEqualTo("shutdown");
            JsonNode started = json.readTree(call("POST", base + "/api/v1/routers/" + i + "/start?wait=10s", "").body());
            assertThat(started.at("/vmEntry/vmOperState").asText()).isEqualTo("running");
            assertThat(call("DELETE", base + "/api/v1/routers/" + i + "?wait=10s", null).statusCode()).isEqualTo(204);
            HttpResponse<String> gone = call("GET", base + "/api/v1/routers/" + i, null);
            assertThat(gone.statusCode()).isEqualTo(404);
            assertThat(gone.headers().firstValue("Content-Type").orElse("")).startsWith("application/problem+json");
            assertThat(call("GET", base + "/api/v1/routers", null).statusCode()).isEqualTo(200);
            assertThat(http.send(HttpRequest.newBuilder(URI.create(base + "/health")).build(),
                    HttpResponse.BodyHandlers.ofString()).body()).contains("\"UP\"");

            // The web console at the context's root, from the WAR's classes, with its policy; its files by relative paths.
            HttpResponse<String> console = http.send(HttpRequest.newBuilder(URI.create(base + "/")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(console.statusCode()).isEqualTo(200);
            assertThat(console.body()).contains("src=\"js/main.js\"");
            assertThat(console.headers().firstValue("Content-Security-Policy").orElse("")).contains("script-src 'self'");
            for (String file : List.of("/js/main.js", "/console.css", "/lib/uPlot.iife.min.js")) {
                HttpResponse<byte[]> plain = http.send(HttpRequest.newBuilder(URI.create(base + file)).build(),
                        HttpResponse.BodyHandlers.ofByteArray());
                assertThat(plain.statusCode()).as(file).isEqualTo(200);
                // Gzipped through Tomcat too, to a client that accepts it, and the same file once unpacked.
                HttpResponse<byte[]> gzipped = http.send(HttpRequest.newBuilder(URI.create(base + file))
                        .header("Accept-Encoding", "gzip").build(), HttpResponse.BodyHandlers.ofByteArray());
                assertThat(gzipped.headers().firstValue("Content-Encoding")).as(file).hasValue("gzip");
                assertThat(gzipped.headers().allValues("Vary")).as(file).contains("Accept-Encoding");
                try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(gzipped.body()))) {
                    assertThat(in.readAllBytes()).as(file).isEqualTo(plain.body());
                }
            }
            // A browser's write from another origin is refused here too.
            HttpResponse<String> forged = http.send(HttpRequest.newBuilder(URI.create(base + "/api/v1/routers"))
                    .header("Authorization", AUTH).header("Content-Type", "application/json").header("Origin", "http://evil.example")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"vmName\":\"forged\"}")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(forged.statusCode()).isEqualTo(403);
            // And a DNS-rebound page's request, addressed to a name this server does not answer to (issue 23 item 11).
            try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), tomcat.getConnector().getLocalPort())) {
                socket.getOutputStream().write(("GET /vrouter/api/v1/routers HTTP/1.1\r\nHost: evil.example\r\nAuthorization: "
                        + AUTH + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                assertThat(new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).startsWith("HTTP/1.1 421");
            }

            // The SNMP agent runs beside REST in the same web application.
            ServerProcess.Result walk = ServerProcess.run(List.of("snmpget", "-v2c", "-c", "public", "-On",
                    "udp:127.0.0.1:" + snmpPort, "1.3.6.1.3.7666.1.15.0"));
            assertThat(walk.exit()).as(walk.toString()).isZero();
            assertThat(walk.out()).contains("Gauge32: 0");
        } finally {
            tomcat.stop();
            tomcat.destroy();
            System.clearProperty("vrouter.data-dir");
            System.clearProperty("vrouter.snmp-port");
            System.clearProperty("vrouter.netconf-port");
            System.clearProperty("vrouter.gnmi-port");
        }
        // The data directory was released: a fresh start would find the journal.
        assertThat(Files.exists(dir.resolve("data").resolve("config.snapshot.json"))).isTrue();
    }
}
