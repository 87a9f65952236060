package io.vrouter.api.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The kept Idempotency-Keys across releases: every line states its format. */
class IdempotencyKeysTest {
    private static final String FORMAT_1_LINE = "{\"user\":\"admin\",\"key\":\"k1\",\"fingerprint\":\"9efd\","
            + "\"at\":\"2026-11-25T20:24:50Z\",\"status\":201,\"location\":null,\"preferenceApplied\":null,"
            + "\"type\":\"router\",\"body\":{\"vmIndex\":1,\"vmName\":\"edge\"}}";

    @TempDir
    Path dir;

    @Test
    void aFormat1LineIsReadAndKeptInTheCurrentFormat() throws Exception {
        Path file = dir.resolve(IdempotencyKeys.FILE);
        Files.writeString(file, FORMAT_1_LINE + "\n");
        new IdempotencyKeys(dir, Duration.ofDays(36500), 100).close();
        assertThat(Files.readString(file)).startsWith("{\"format\":2,\"user\":\"admin\",\"key\":\"k1\",")
                .contains("\"body\":{\"vmIndex\":1,\"vmName\":\"edge\"}");
    }

    @Test
    void aLineInANewerFormatIsRefusedNamingTheFileLineAndVersion() throws Exception {
        Path file = dir.resolve(IdempotencyKeys.FILE);
        String newer = FORMAT_1_LINE.replace("{\"user\"", "{\"format\":3,\"user\"");
        Files.writeString(file, FORMAT_1_LINE + "\n" + newer + "\n");
        assertThatThrownBy(() -> new IdempotencyKeys(dir, Duration.ofDays(36500), 100))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith(file + " line 2 is in format 3, which this release of vrouter does not read");
        assertThat(Files.readString(file)).isEqualTo(FORMAT_1_LINE + "\n" + newer + "\n");
    }
}
