package io.vrouter.core.persistence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vrouter.core.model.Commit;
import io.vrouter.core.model.ModelJson;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The history in the configuration store: each commit in its change set's journal record (no file of
 * its own), kept to its depth across compactions and restarts, a record torn by a crash losing its
 * commit alone, and the {@code commits.log} of the releases before migrated.
 */
class CommitLogTest {
    @TempDir
    Path dir;

    private static Commit commit() {
        return new Commit();
    }

    private Path journal() {
        return dir.resolve(ConfigStore.JOURNAL);
    }

    /** One change set: a row written and its commit, in one record. */
    private static long changed(ConfigStore store, int vmIndex) {
        Commit c = commit();
        store.change().put(ConfigStoreTest.row(vmIndex)).recording(c).commit();
        return c.number;
    }

    @Test
    void aCommitTravelsInItsChangeSetsRecordAndNoFileOfItsOwn() throws Exception {
        try (ConfigStore store = new ConfigStore(dir)) {
            store.open();
            assertThat(changed(store, 1)).isEqualTo(1);
        }
        assertThat(Files.readAllLines(journal())).singleElement().asString()
                .contains("\"ops\":[{\"put\"").contains("\"commit\":{\"number\":1,");
        assertThat(Files.exists(dir.resolve(CommitLog.FILE))).isFalse();
    }

    @Test
    void keepsTheLastCommitsAcrossCompactionsAndRestarts() throws Exception {
        try (ConfigStore store = new ConfigStore(dir, false, 5)) {
            store.open();
            for (int k = 1; k <= 20; k++) changed(store, k % 3 + 1);
            store.compact();
            for (int k = 21; k <= 25; k++) changed(store, k % 3 + 1);
            // the record that puts a set back marks its commit undone
            store.change().put(ConfigStoreTest.row(1)).undone(24, "the host refused").commit();
        }
        String snapshot = Files.readString(dir.resolve(ConfigStore.SNAPSHOT));
        assertThat(snapshot).contains("\"lastCommit\":20,").doesNotContain("\"number\":15,").contains("\"number\":16,");
        try (ConfigStore store = new ConfigStore(dir, false, 5)) {
            store.open();
            assertThat(store.history().all()).extracting(c -> c.number).containsExactly(21L, 22L, 23L, 24L, 25L);
            assertThat(store.history().get(24).orElseThrow().undone).isEqualTo("the host refused");
            assertThat(changed(store, 1)).isEqualTo(26);
            store.compact();
        }
        try (ConfigStore store = new ConfigStore(dir, false, 5)) {
            store.open();
            assertThat(store.history().all()).extracting(c -> c.number).containsExactly(22L, 23L, 24L, 25L, 26L);
            assertThat(store.history().get(24).orElseThrow().undone).isEqualTo("the host refused");
        }
    }

    @Test
    void aRecordTornByACrashLosesItsCommitAlone() throws Exception {
        try (ConfigStore store = new ConfigStore(dir)) {
            store.open();
            for (int k = 1; k <= 3; k++) changed(store, k);
        }
        try (RandomAccessFile f = new RandomAccessFile(journal().toFile(), "rw")) {
            f.setLength(f.length() - 20);
        }
        try (ConfigStore store = new ConfigStore(dir)) {
            store.open();
            assertThat(store.history().all()).extracting(c -> c.number).containsExactly(1L, 2L);
            assertThat(changed(store, 3)).as("the number of the record never acknowledged is given again").isEqualTo(3);
        }
        try (ConfigStore store = new ConfigStore(dir)) {
            store.open();
            assertThat(store.history().all()).extracting(c -> c.number).containsExactly(1L, 2L, 3L);
        }
    }

    /** What the release before wrote: a format 2 record (no commit in it) beside commits.log. */
    private void previousRelease(String commitsLog) throws Exception {
        Files.writeString(journal(), previousRecord(1, 1));
        Files.writeString(dir.resolve(CommitLog.FILE), commitsLog);
    }

    private static String previousRecord(long seq, int vmIndex) throws Exception {
        byte[] body = ModelJson.mapper().writeValueAsBytes(new ConfigStore.JournalRecord(2, seq,
                List.of(new ConfigStore.Op(new ConfigStore.StoredVr(ConfigStoreTest.row(vmIndex), false), null)), null, null));
        CRC32C crc = new CRC32C();
        crc.update(body);
        return String.format("%08x %s%n", crc.getValue(), new String(body, StandardCharsets.UTF_8));
    }

    /** The same with the release before's snapshot (format 2: no history in it) holding record 1. */
    private void previousReleaseWithSnapshot(String commitsLog) throws Exception {
        String rows = "{\"format\":2,\"seq\":1,\"rows\":[\n" + ModelJson.mapper().writeValueAsString(
                new ConfigStore.StoredVr(ConfigStoreTest.row(1), false)) + "]";
        CRC32C crc = new CRC32C();
        crc.update(rows.getBytes(StandardCharsets.UTF_8));
        Files.writeString(dir.resolve(ConfigStore.SNAPSHOT), rows + String.format(",\"crc32c\":\"%08x\"}%n", crc.getValue()));
        Files.writeString(journal(), previousRecord(2, 2));
        Files.writeString(dir.resolve(CommitLog.FILE), commitsLog);
    }

    private static final String PREVIOUS_LOG = "{\"vrouterCommitLog\":{\"format\":1,\"lastNumber\":7}}\n"
            + "{\"number\":6,\"time\":\"2026-12-01T10:00:00Z\",\"vrs\":[],\"changes\":[]}\n"
            + "{\"number\":7,\"time\":\"2026-12-01T10:01:00Z\",\"vrs\":[],\"changes\":[]}\n"
            + "{\"undone\":6,\"reason\":\"the host refused\"}\n";

    @Test
    void theCommitsLogOfTheReleaseBeforeIsReadUntilTheNextCompactionMovesItIntoTheSnapshot() throws Exception {
        previousReleaseWithSnapshot(PREVIOUS_LOG);
        byte[] snapshot = Files.readAllBytes(dir.resolve(ConfigStore.SNAPSHOT));
        try (ConfigStore store = new ConfigStore(dir)) {
            assertThat(store.open()).extracting(vr -> vr.config().vmIndex).containsExactly(1, 2);
            assertThat(Files.readAllBytes(dir.resolve(ConfigStore.SNAPSHOT))).as("not rewritten just to convert it")
                    .isEqualTo(snapshot);
            assertThat(changed(store, 3)).isEqualTo(8);
        }
        assertThat(Files.exists(dir.resolve(CommitLog.FILE))).isTrue();
        try (ConfigStore store = new ConfigStore(dir)) {
            store.open();
            assertThat(store.history().all()).extracting(c -> c.number).containsExactly(6L, 7L, 8L);
            store.compact();
        }
        assertThat(Files.exists(dir.resolve(CommitLog.FILE))).as("in the snapshot now").isFalse();
        try (ConfigStore store = new ConfigStore(dir)) {
            store.open();
            assertThat(store.history().all()).extracting(c -> c.number).containsExactly(6L, 7L, 8L);
            assertThat(store.history().get(6).orElseThrow().undone).isEqualTo("the host refused");
        }
    }

    @Test
    void withoutASnapshotTheCommitsLogOfTheReleaseBeforeGoesIntoTheFirstOne() throws Exception {
        // (no snapshot: the first opening writes one, with the history; a line torn by a crash is dropped)
        previousRelease(PREVIOUS_LOG + "{\"number\":8,\"ti");
        try (ConfigStore store = new ConfigStore(dir)) {
            assertThat(store.open()).extracting(vr -> vr.config().vmIndex).containsExactly(1);
            assertThat(store.history().all()).extracting(c -> c.number).containsExactly(6L, 7L);
        }
        assertThat(Files.exists(dir.resolve(CommitLog.FILE))).as("migrated, then deleted").isFalse();
        assertThat(Files.readString(dir.resolve(ConfigStore.SNAPSHOT))).startsWith("{\"format\":3,\"seq\":1,\"lastCommit\":7,");
        try (ConfigStore store = new ConfigStore(dir)) {
            store.open();
            assertThat(store.history().all()).extracting(c -> c.number).containsExactly(6L, 7L);
            assertThat(store.history().get(6).orElseThrow().undone).isEqualTo("the host refused");
            assertThat(store.history().get(7).orElseThrow().time).isEqualTo("2026-12-01T10:01:00Z");
            assertThat(changed(store, 2)).isEqualTo(8);
        }
    }

    @Test
    void aCommitsLogInALaterFormatIsRefusedAndNothingChanged() throws Exception {
        previousRelease("{\"vrouterCommitLog\":{\"format\":2,\"lastNumber\":7}}\n");
        byte[] journal = Files.readAllBytes(journal());
        assertThatThrownBy(() -> new ConfigStore(dir).open()).isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith(dir.resolve(CommitLog.FILE) + " line 1 is in format 2, which this release");
        assertThat(Files.readAllBytes(journal())).isEqualTo(journal);
        assertThat(Files.exists(dir.resolve(CommitLog.FILE))).isTrue();
        assertThat(Files.exists(dir.resolve(ConfigStore.SNAPSHOT))).isFalse();
    }
}
