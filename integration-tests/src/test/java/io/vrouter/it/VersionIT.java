package io.vrouter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vrouter.it.snmp.NewVmmOids;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged server knows its version: the build stamps the project's version and the git commit
 * into the jar's manifest, and the server reports them in {@code vrouter --version}, /health and
 * vmHvVersion (the simulated hypervisor is vrouter's own).
 */
class VersionIT {
    @TempDir
    Path dir;

    @Test
    void theServerReportsTheVersionAndCommitItWasBuiltFrom() throws Exception {
        String version = System.getProperty("vrouter.version");
        assertThat(version).as("failsafe passes the project's version").isNotBlank();
        ServerProcess.Result head = ServerProcess.run(List.of("git", "rev-parse", "--short=12", "HEAD"));
        assertThat(head.exit()).as(head.err()).isZero();
        String described = version + " (commit " + head.out().trim() + ")";

        Path launcher = Path.of("..", "bin", "vrouter").toAbsolutePath().normalize();
        ServerProcess.Result cli = ServerProcess.run(List.of("env", "VROUTER_JAR=" + System.getProperty("vrouter.jar"),
                launcher.toString(), "--version"));
        assertThat(cli.out().trim()).as(cli.err()).isEqualTo("vrouter " + described);

        try (ServerProcess server = ServerProcess.start(dir)) {
            JsonNode health = new ObjectMapper().readTree(server.get("/health").body());
            assertThat(health.path("version").asText()).isEqualTo(version);
            assertThat(health.path("commit").asText()).isEqualTo(head.out().trim());
            // vmHvVersion.0, once the agent answers (/health/ready may come first)
            List<String> snmpget = List.of("snmpget", "-v2c", "-c", "public", "-t", "1", "-r", "0", "-Oqv",
                    "udp:127.0.0.1:" + server.snmpPort, NewVmmOids.MIB + ".1.1.2.0");
            ServerProcess.Result hv = ServerProcess.run(snmpget);
            for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30); hv.exit() != 0 && System.nanoTime() < end; ) {
                hv = ServerProcess.run(snmpget);
            }
            assertThat(hv.out().trim()).as(hv.toString()).isEqualTo('"' + described + '"');
        }
    }
}
