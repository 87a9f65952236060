package io.vrouter.core.persistence;

import static org.assertj.core.api.Assertions.assertThat;

import io.vrouter.core.model.Commit;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The history's file: kept to its depth across restarts, compacted, and a line torn by a crash dropped. */
class CommitLogTest {
    @TempDir
    Path dir;

    private static Commit commit() {
        return new Commit();
    }

    @Test
    void keepsTheLastCommitsAcrossCompactionsAndRestarts() throws Exception {
        try (CommitLog log = CommitLog.open(dir, 5)) {
            for (int k = 0; k < 25; k++) log.append(commit());
            log.undone(24, "the host refused");
        }
        assertThat(CommitLog.linesOf(dir).size()).as("compacted: not one line per commit ever made").isLessThan(25);
        try (CommitLog log = CommitLog.open(dir, 5)) {
            assertThat(log.all()).extracting(c -> c.number).containsExactly(21L, 22L, 23L, 24L, 25L);
            assertThat(log.get(24).orElseThrow().undone).isEqualTo("the host refused");
            assertThat(log.append(commit()).number).isEqualTo(26);
        }
    }

    @Test
    void openingAMissingLogCreatesNoFileUntilTheFirstCommit() throws Exception {
        try (CommitLog log = CommitLog.open(dir, 50)) {
            assertThat(Files.exists(dir.resolve(CommitLog.FILE))).isFalse();
            log.append(commit());
        }
        try (CommitLog log = CommitLog.open(dir, 50)) {
            assertThat(log.all()).extracting(c -> c.number).containsExactly(1L);
        }
    }

    @Test
    void aLineTornByACrashIsDroppedAndTheRestKept() throws Exception {
        try (CommitLog log = CommitLog.open(dir, 50)) {
            log.append(commit());
            log.append(commit());
        }
        Files.writeString(dir.resolve(CommitLog.FILE), "{\"number\":3,\"ti", StandardOpenOption.APPEND);
        byte[] torn = Files.readAllBytes(dir.resolve(CommitLog.FILE));
        try (CommitLog log = CommitLog.open(dir, 50)) {
            assertThat(log.all()).extracting(c -> c.number).containsExactly(1L, 2L);
            assertThat(Files.readAllBytes(dir.resolve(CommitLog.FILE))).as("opening writes nothing").isEqualTo(torn);
            assertThat(log.append(commit()).number).isEqualTo(3);
        }
        try (CommitLog log = CommitLog.open(dir, 50)) {
            assertThat(log.all()).extracting(c -> c.number).containsExactly(1L, 2L, 3L);
        }
    }
}
