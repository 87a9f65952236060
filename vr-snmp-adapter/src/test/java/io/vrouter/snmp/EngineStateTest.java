package io.vrouter.snmp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** snmp/engine.properties across releases: it states its format, and the format before is read. */
class EngineStateTest {
    @TempDir
    Path dir;

    @Test
    void aFormat1FileIsReadAndTheNextBootWrittenInTheCurrentFormat() throws Exception {
        Path file = dir.resolve("engine.properties");
        // As the releases before format versions wrote it.
        Files.writeString(file, "#snmpEngineID and snmpEngineBoots of the vrouter SNMP agent; do not edit\n"
                + "engineBoots=2\nengineID=800013700483a9893f7f0f95fe\n");
        VrSnmpAgent.EngineState booted = VrSnmpAgent.EngineState.loadAndBoot(dir);
        assertThat(booted.engineId().toHexString().replace(":", "")).isEqualTo("800013700483a9893f7f0f95fe");
        assertThat(booted.boots()).isEqualTo(3);
        assertThat(Files.readAllLines(file)).contains("format=2", "engineBoots=3", "engineID=800013700483a9893f7f0f95fe");
    }

    @Test
    void aNewerFormatIsRefusedNamingTheFileAndVersion() throws Exception {
        Path file = dir.resolve("engine.properties");
        String newer = "format=3\nengineBoots=2\nengineID=800013700483a9893f7f0f95fe\n";
        Files.writeString(file, newer);
        assertThatThrownBy(() -> VrSnmpAgent.EngineState.loadAndBoot(dir))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith(file + " is in format 3, which this release of vrouter does not read");
        assertThat(Files.readString(file)).isEqualTo(newer);
    }
}
