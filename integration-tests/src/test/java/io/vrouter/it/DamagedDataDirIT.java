package io.vrouter.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.HexFormat;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A damaged file in the data directory stops the packaged server's start-up with one message that
 * names the file, what is wrong and what the operator can do, and the refused start writes nothing.
 */
class DamagedDataDirIT {
    @TempDir
    Path dir;
    private Path data;

    /** A data directory as a server leaves it: two running VRs, every side file written. */
    @BeforeEach
    void aServerRanOnIt() throws Exception {
        try (ServerProcess server = ServerProcess.start(dir)) {
            for (String name : new String[] {"calm", "steady"}) {
                assertThat(server.post("/api/v1/routers?wait=10s", "{\"vmName\":\"" + name + "\"}").statusCode())
                        .isEqualTo(201);
            }
            data = server.dataDir;
        }
    }

    /** Every file's bytes and modification time. */
    private record FileState(String bytes, FileTime modified) {
    }

    private Map<Path, FileState> files() throws Exception {
        Map<Path, FileState> all = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(data)) {
            for (Path f : walk.filter(Files::isRegularFile).toList()) {
                all.put(data.relativize(f), new FileState(HexFormat.of().formatHex(Files.readAllBytes(f)),
                        Files.getLastModifiedTime(f)));
            }
        }
        return all;
    }

    /** Starts the server, which must refuse; returns what it printed. Nothing in the data directory may change. */
    private String refusedStart(String... args) throws Exception {
        Map<Path, FileState> before = files();
        Throwable refused = catchThrowable(() -> ServerProcess.start(dir, args).close());
        assertThat(refused).as("the start must be refused").isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("server exited with 1:");
        Map<Path, FileState> after = files();
        Set<Path> changed = new TreeSet<>(before.keySet());
        changed.addAll(after.keySet());
        changed.removeIf(f -> Objects.equals(before.get(f), after.get(f)));
        assertThat(changed).as("files written, created or removed by a refused start").isEmpty();
        return refused.getMessage();
    }

    @Test
    void aDamagedJournalRecordRefusesTheStartAndNoFileIsWritten() throws Exception {
        Path journal = data.resolve("config.journal");
        String records = Files.readString(journal);
        assertThat(records.lines().count()).as(records).isGreaterThan(1);
        Files.writeString(journal, "0000dead" + records.substring(8));
        assertThat(refusedStart()).contains(journal + " line 1").contains("Nothing has been changed");
    }

    @Test
    void aDamagedSnmpEngineStateRefusesTheStartNamingTheFileAndNoFileIsWritten() throws Exception {
        Path engine = data.resolve("snmp/engine.properties");
        byte[] good = Files.readAllBytes(engine);
        String text = new String(good, java.nio.charset.StandardCharsets.UTF_8);
        Map<String, byte[]> damage = new TreeMap<>(Map.of(
                "engineID is not an even number of hexadecimal digits",
                text.replaceFirst("engineID=..", "engineID=zz").getBytes(java.nio.charset.StandardCharsets.UTF_8),
                "it is not a properties file in UTF-8", new byte[] {'e', 'n', 'g', (byte) 0xff, '\n'},
                "it is empty", new byte[0],
                "it has no engineBoots", text.replaceFirst("engineBoots=\\d+", "").getBytes(
                        java.nio.charset.StandardCharsets.UTF_8)));
        for (Map.Entry<String, byte[]> d : damage.entrySet()) {
            Files.write(engine, d.getValue());
            assertThat(refusedStart()).as(d.getKey())
                    .contains("vrouter: " + engine + " is damaged: " + d.getKey() + ".")
                    .contains("Nothing has been changed")
                    .contains("Restore it from a backup")
                    .contains("delete it to start as a new SNMP engine");
        }
        // Put back, the engine goes on where it was: the same engineID, the next boot.
        Files.write(engine, good);
        try (ServerProcess server = ServerProcess.start(dir)) {
            assertThat(server.log()).containsPattern("boots 2\\b");
            assertThat(Files.readString(engine)).contains(text.lines().filter(l -> l.startsWith("engineID="))
                    .findFirst().orElseThrow());
        }
    }

    @Test
    void keptIdempotencyKeysInANewerFormatRefuseTheStartBeforeAnythingIsWritten() throws Exception {
        Path keys = data.resolve("idempotency-keys.log");
        Files.writeString(keys, "{\"format\":3,\"user\":\"admin\",\"key\":\"k\"}\n");
        assertThat(refusedStart()).contains("vrouter: " + keys + " line 1 is in format 3, which this release of "
                + "vrouter does not read");
    }

    @Test
    void anEngineStateThatIsMissingIsANewEngine() throws Exception {
        Files.delete(data.resolve("snmp/engine.properties"));
        try (ServerProcess server = ServerProcess.start(dir)) {
            assertThat(server.log()).containsPattern("boots 1\\b");
        }
        assertThatThrownBy(() -> Files.readString(data.resolve("snmp/engine.properties.tmp")))
                .isInstanceOf(java.nio.file.NoSuchFileException.class);
    }
}
