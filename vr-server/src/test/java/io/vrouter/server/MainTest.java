package io.vrouter.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vrouter.api.rest.RestInterface;
import io.vrouter.core.config.Settings;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.persistence.ConfigStore;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class MainTest {
    @TempDir
    Path dir;

    @Test
    void commandLineBeatsEnvironmentBeatsConfigFile() throws Exception {
        Path file = dir.resolve("vrouter.properties");
        Files.writeString(file, "rest-port=9000\nsnmp-port=9001\nnetconf-port=9002\nuser.ops=operator:secret\n");
        Settings s = Main.parse(new String[] {"--config", file.toString(), "--rest-port", "9100"},
                Map.of("VROUTER_SNMP_PORT", "9201", "VROUTER_DATA_DIR", "/tmp/x"));
        assertThat(s.getInt("rest-port", 0)).isEqualTo(9100);
        assertThat(s.getInt("snmp-port", 0)).isEqualTo(9201);
        assertThat(s.getInt("netconf-port", 0)).isEqualTo(9002);
        assertThat(s.get("data-dir")).hasValue("/tmp/x");
        assertThat(s.withPrefix("user.")).containsEntry("ops", "operator:secret");
    }

    @Test
    void trapTargetsAccumulate() throws Exception {
        Settings s = Main.parse(new String[] {"--snmp-trap-target", "udp:127.0.0.1:162", "--snmp-trap-target",
                "udp:127.0.0.1:1162"}, Map.of());
        assertThat(s.getList("snmp-trap-target")).containsExactly("udp:127.0.0.1:162", "udp:127.0.0.1:1162");
    }

    @Test
    void unknownOptionsAreAnErrorWithUsage() {
        StringWriter err = new StringWriter();
        CommandLine cli = Main.commandLine();
        cli.setErr(new PrintWriter(err));
        int code = cli.execute("--rest-prot", "8080");
        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("Unknown option").contains("'--rest-prot'").contains("Usage: vrouter");
    }

    @Test
    void interfacesTurnedOffInTheFileTheEnvironmentOrTheCommandLineAreNeverCreated() throws Exception {
        Path file = dir.resolve("vrouter.properties");
        Files.writeString(file, "netconf-port = off\nconsole = off\n");
        Settings s = Main.parse(new String[] {"--config", file.toString(), "--data-dir", dir.resolve("data").toString(),
                "--rest-port", "0", "--gnmi-port", "off"}, Map.of("VROUTER_SNMP_PORT", "off"));
        try (VrouterServer server = VrouterServer.start(s)) {
            assertThat(server.interfaces()).extracting(mi -> mi.name()).containsExactly("rest");
            int port = ((RestInterface) server.interfaces().get(0)).port();
            HttpResponse<String> console = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + port + "/")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(console.statusCode()).as("console=off serves no console").isEqualTo(404);
        }
    }

    @Test
    void aPortIsANumberOrOff() {
        StringWriter err = new StringWriter();
        CommandLine cli = Main.commandLine();
        cli.setErr(new PrintWriter(err));
        assertThat(cli.execute("--snmp-port", "of")).isEqualTo(2);
        assertThat(err.toString()).contains("'of' is neither a port (0 to 65535) nor off");
    }

    @Test
    void aMissingConfigFileIsAnError() {
        assertThatThrownBy(() -> Main.parse(new String[] {"--config", dir.resolve("nope").toString()}, Map.of()))
                .hasMessageContaining("cannot read config file");
    }

    @Test
    void developmentCredentialsRefuseANonLoopbackAddress() {
        Settings s = Settings.of(Map.of("data-dir", dir.toString(), "bind", "0.0.0.0", "rest-port", "0",
                "snmp-port", "0", "netconf-port", "0"));
        assertThatThrownBy(() -> VrouterServer.start(s)).hasMessageContaining("development credentials");
        // Nothing is left holding the data directory.
        assertThat(dir.resolve(".lock")).exists();
    }

    @Test
    void twoServersCannotShareADataDirectory() throws Exception {
        // gNMI has no "any free port": off, so that another server on this host cannot fail the test.
        Settings s = Settings.of(Map.of("data-dir", dir.toString(), "rest-port", "0", "snmp-port", "0", "netconf-port", "0",
                "gnmi-port", "off"));
        try (VrouterServer first = VrouterServer.start(s)) {
            assertThatThrownBy(() -> VrouterServer.start(s)).hasMessageContaining("another vrouter server");
        }
        try (VrouterServer again = VrouterServer.start(s)) {
            assertThat(again.interfaces()).extracting(i -> i.name()).contains("rest");
        }
    }

    @Test
    void theServerPublishesTheMetersOfTheJvmBesideItsOwn() throws Exception {
        Settings s = Settings.of(Map.of("data-dir", dir.toString(), "rest-port", "0", "snmp-port", "0", "netconf-port", "0",
                "gnmi-port", "off"));
        try (VrouterServer server = VrouterServer.start(s)) {
            int port = server.interfaces().stream().filter(i -> i instanceof RestInterface)
                    .mapToInt(i -> ((RestInterface) i).port()).findFirst().orElseThrow();
            String metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + port + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
            assertThat(metrics).contains("jvm_memory_used_bytes").contains("process_uptime_seconds");
        }
    }

    @Test
    void aDamagedJournalStopsTheServerWithTheRemedyAndRecoverStartsIt() throws Exception {
        try (ConfigStore store = new ConfigStore(dir)) {
            store.open();
            for (int i = 1; i <= 3; i++) {
                VmConfigEntry c = new VmConfigEntry();
                c.vmIndex = i;
                c.vmName = "m" + i;
                c.vmConfigTemplate = "vyos";
                store.put(c, false);
            }
        }
        Path journal = dir.resolve("config.journal");
        Files.writeString(journal, Files.readString(journal).replace("\"m2\"", "\"m2"));
        StringWriter err = new StringWriter();
        CommandLine cli = Main.commandLine();
        cli.setErr(new PrintWriter(err));
        int code = cli.execute("--data-dir", dir.toString(), "--rest-port", "0", "--snmp-port", "0", "--netconf-port", "0");
        assertThat(code).isEqualTo(1);
        assertThat(err.toString()).contains("vrouter: " + journal + " line 2 ").contains("start once with --recover");
        Settings recover = Main.parse(new String[] {"--data-dir", dir.toString(), "--rest-port", "0", "--snmp-port", "0",
            "--netconf-port", "0", "--gnmi-port", "off", "--recover"}, Map.of());
        try (VrouterServer server = VrouterServer.start(recover)) {
            assertThat(server.service().findByName("m3")).isPresent();
            assertThat(server.service().findByName("m2")).isEmpty();
        }
    }

    @Test
    void hashPasswordPrintsAFormThatLogsIn() throws Exception {
        var out = new java.io.ByteArrayOutputStream();
        int code = Main.hashPassword(new java.io.ByteArrayInputStream("t0ps3cret\n".getBytes()), new java.io.PrintStream(out));
        assertThat(code).isZero();
        String stored = out.toString().strip();
        assertThat(stored).startsWith("{pbkdf2-sha256}").doesNotContain("t0ps3cret");
        var c = io.vrouter.core.config.Credentials.from(Settings.of(Map.of("user.ops", "operator:" + stored)));
        assertThat(c.authenticate("ops", "t0ps3cret")).isPresent();
    }
}
