package io.vrouter.core.persistence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** drained.json: absent is open (a data directory of an earlier release), present is drained since when it says. */
class DrainStateTest {
    @TempDir
    Path dir;

    @Test
    void drainedIsKeptUntilOpened() {
        assertThat(DrainState.read(dir)).isEmpty();
        Instant since = Instant.parse("2026-12-02T04:00:00Z");
        DrainState.write(dir, since);
        assertThat(DrainState.read(dir)).hasValue(since);
        assertThat(dir.resolve(DrainState.FILE + ".tmp")).doesNotExist();
        DrainState.write(dir, null);
        assertThat(DrainState.read(dir)).isEmpty();
        assertThat(dir.resolve(DrainState.FILE)).doesNotExist();
    }

    @Test
    void aLaterFormatOrADamagedFileIsRefusedByName() throws Exception {
        Files.writeString(dir.resolve(DrainState.FILE), "{\"format\":2,\"since\":\"2026-12-02T04:00:00Z\"}");
        assertThatThrownBy(() -> DrainState.read(dir)).hasMessageContaining("drained.json is in format 2");
        Files.writeString(dir.resolve(DrainState.FILE), "{\"format\":1,\"since\":\"yesterday\"}");
        assertThatThrownBy(() -> DrainState.read(dir)).hasMessageContaining("drained.json is damaged")
                .hasMessageContaining("delete it to open the router");
    }
}
