package io.vrouter.it.docker;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vrouter.it.ServerProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.images.builder.ImageFromDockerfile;

/**
 * The images of docker/, built from the Debian package and the WAR and run with host networking: the
 * REST, SNMP and NETCONF scenarios against each container. Needs a Docker engine and the local base
 * image (docker/base-image.sh); .ci/install-test-deps prepares both.
 */
class ContainerIT {
    private static final Path DOCKER = Path.of("..", "docker");
    private static final Path TARGET = Path.of("..", "vr-server", "target");
    private final ObjectMapper json = new ObjectMapper();
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Test
    void theServerImage() throws Exception {
        int rest = ServerProcess.freeTcpPort();
        int snmp = ServerProcess.freeUdpPort();
        int netconf = ServerProcess.freeTcpPort();
        Path deb;
        try (var files = java.nio.file.Files.list(Path.of("..", "vr-deb", "target"))) {
            deb = files.filter(f -> f.getFileName().toString().matches("vrouter_.*_all\\.deb")).findFirst().orElseThrow();
        }
        // Built from the Debian package, as the README builds it.
        ImageFromDockerfile image = new ImageFromDockerfile("vrouter/server", false)
                .withFileFromPath("Dockerfile", DOCKER.resolve("Dockerfile"))
                .withFileFromPath(deb.getFileName().toString(), deb);
        try (GenericContainer<?> server = new GenericContainer<>(image)
                .withNetworkMode("host")
                .withEnv("VROUTER_REST_PORT", Integer.toString(rest))
                .withEnv("VROUTER_SNMP_PORT", Integer.toString(snmp))
                .withEnv("VROUTER_NETCONF_PORT", Integer.toString(netconf))
                // Host networking: the default 9339 may be another server's on this host.
                .withEnv("VROUTER_GNMI_PORT", Integer.toString(ServerProcess.freeTcpPort()))
                .waitingFor(Wait.forLogMessage(".*vrouter started.*\\n", 1).withStartupTimeout(Duration.ofMinutes(2)))) {
            server.start();
            assertThat(server.execInContainer("id", "-un").getStdout().trim()).isEqualTo("vrouter");
            scenarios("http://127.0.0.1:" + rest, snmp, netconf);
            awaitHealthy(server);
        }
    }

    @Test
    void theTomcatImage() throws Exception {
        int tomcatPort = ServerProcess.freeTcpPort();
        int snmp = ServerProcess.freeUdpPort();
        int netconf = ServerProcess.freeTcpPort();
        ImageFromDockerfile image = new ImageFromDockerfile("vrouter/tomcat", false)
                .withFileFromPath("Dockerfile", DOCKER.resolve("Dockerfile.tomcat"))
                .withFileFromPath("server.xml", DOCKER.resolve("server.xml"))
                .withFileFromPath("vrouter.war", TARGET.resolve("vrouter.war"));
        try (GenericContainer<?> tomcat = new GenericContainer<>(image)
                .withNetworkMode("host")
                .withEnv("TOMCAT_PORT", Integer.toString(tomcatPort))
                .withEnv("VROUTER_SNMP_PORT", Integer.toString(snmp))
                .withEnv("VROUTER_NETCONF_PORT", Integer.toString(netconf))
                .withEnv("VROUTER_GNMI_PORT", Integer.toString(ServerProcess.freeTcpPort()))
                .waitingFor(Wait.forLogMessage(".*Server startup in.*\\n", 1).withStartupTimeout(Duration.ofMinutes(2)))) {
            tomcat.start();
            assertThat(tomcat.execInContainer("id", "-un").getStdout().trim()).isEqualTo("tomcat");
            scenarios("http://127.0.0.1:" + tomcatPort + "/vrouter", snmp, netconf);
            awaitHealthy(tomcat);
        }
    }

    /** REST lifecycle, then the VR seen over SNMP, then a NETCONF lifecycle with ncclient. */
    private void scenarios(String base, int snmpPort, int netconfPort) throws Exception {
        HttpResponse<String> created = call("POST", base + "/api/v1/routers?wait=10s", "{\"vmName\":\"boxed\"}");
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        int i = json.readTree(created.body()).get("vmIndex").asInt();
        assertThat(json.readTree(call("POST", base + "/api/v1/routers/" + i + "/stop?wait=10s", "").body())
                .at("/vmEntry/vmOperState").asText()).isEqualTo("shutdown");
        assertThat(json.readTree(call("POST", base + "/api/v1/routers/" + i + "/start?wait=10s", "").body())
                .at("/vmEntry/vmOperState").asText()).isEqualTo("running");

        ServerProcess.Result walk = ServerProcess.run(List.of("snmpbulkwalk", "-v2c", "-c", "public", "-On",
                "udp:127.0.0.1:" + snmpPort, "1.3.6.1.3.7666.1.12"));
        assertThat(walk.exit()).as(walk.toString()).isZero();
        assertThat(walk.out()).contains("\"boxed\"");

        ServerProcess.Result nc = ServerProcess.run(List.of("python3", "src/test/python/netconf_scenarios.py", "lifecycle",
                "--port", Integer.toString(netconfPort), "--index", "77", "--name", "nc-boxed"));
        assertThat(nc.exit()).as(nc.toString()).isZero();
        String[] lines = nc.out().strip().split("\n");
        JsonNode result = json.readTree(lines[lines.length - 1]);
        assertThat(result.get("gone_after_delete").asBoolean()).as(result.toString()).isTrue();

        assertThat(call("DELETE", base + "/api/v1/routers/" + i + "?wait=10s", null).statusCode()).isEqualTo(204);
        assertThat(json.readTree(call("GET", base + "/api/v1/hypervisor", null).body()).get("vmConfiguredVMs").asInt()).isZero();
    }

    private static void awaitHealthy(GenericContainer<?> c) throws InterruptedException {
        long end = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        String status = null;
        while (System.nanoTime() < end) {
            status = c.getDockerClient().inspectContainerCmd(c.getContainerId()).exec().getState().getHealth().getStatus();
            if ("healthy".equals(status)) return;
            Thread.sleep(1000);
        }
        throw new AssertionError("container health is " + status);
    }

    private HttpResponse<String> call(String method, String url, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString("admin:admin".getBytes(StandardCharsets.UTF_8)))
                .header("Accept", "application/json");
        if (body != null) b.header("Content-Type", "application/json");
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
