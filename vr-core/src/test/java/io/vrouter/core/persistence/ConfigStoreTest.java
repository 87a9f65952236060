package io.vrouter.core.persistence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.VmConfigEntry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The journal and the snapshot: what a crash, a damaged file and a recovery leave. */
class ConfigStoreTest {
    @TempDir
    Path dir;

    static VmConfigEntry row(int i) {
        VmConfigEntry c = new VmConfigEntry();
        c.vmIndex = i;
        c.vmName = "vr" + i;
        c.vmAdminState = AdminState.RUNNING;
        c.vmConfigTemplate = "vyos";
        c.vmConfigCpuNumber = 1;
        c.vmConfigMemory = 512;
        return c;
    }

    private void storeRows(int from, int to) {
        try (ConfigStore store = new ConfigStore(dir)) {
            store.open();
            for (int i = from; i <= to; i++) store.put(row(i), false);
        }
    }

    private void compact() throws Exception {
        try (ConfigStore store = new ConfigStore(dir)) {
            store.open();
            store.compact();
        }
    }

    private List<Integer> indices(ConfigStore store) {
        return store.open().stream().map(vr -> vr.config().vmIndex).toList();
    }

    private List<Integer> reopened() {
        try (ConfigStore store = new ConfigStore(dir)) {
            return indices(store);
        }
    }

    private static List<Integer> range(int from, int to) {
        return IntStream.rangeClosed(from, to).boxed().toList();
    }

    private Path journal() {
        return dir.resolve("config.journal");
    }

    /** Overwrites a few bytes in the middle of line n (1-based) of the file, so that it is no longer JSON. */
    private static byte[] garble(Path file, int n) throws Exception {
        byte[] b = Files.readAllBytes(file);
        int start = lineStart(b, n);
        int mid = (start + indexOf(b, (byte) '\n', start)) / 2;
        byte[] junk = {0, 1, 'x', '"', '}', 2};
        System.arraycopy(junk, 0, b, mid, junk.length);
        Files.write(file, b);
        return b;
    }

    private static int lineStart(byte[] b, int n) {
        int start = 0;
        for (int line = 1; line < n; line++) start = indexOf(b, (byte) '\n', start) + 1;
        return start;
    }

    private static int indexOf(byte[] b, byte v, int from) {
        for (int i = from; i < b.length; i++) if (b[i] == v) return i;
        return -1;
    }

    private List<Path> files(String prefix) throws Exception {
        try (var s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().startsWith(prefix)).toList();
        }
    }

    @Test
    void recordsWrittenByManyThreadsAtOnceAreAllKeptWithoutAGap() throws Exception {
        // The writers share flushes of the disk (group commit): each returns once its own record is durable.
        try (ConfigStore store = new ConfigStore(dir)) {
            store.open();
            ExecutorService pool = Executors.newFixedThreadPool(8);
            try {
                List<Future<?>> writers = new ArrayList<>();
                for (int t = 0; t < 8; t++) {
                    int first = t * 50 + 1;
                    writers.add(pool.submit(() -> {
                        for (int i = first; i < first + 50; i++) store.put(row(i), false);
                    }));
                }
                for (Future<?> w : writers) w.get();
            } finally {
                pool.shutdown();
            }
        }
        assertThat(reopened()).containsExactlyInAnyOrderElementsOf(range(1, 400));
        assertThat(Files.readAllLines(journal())).hasSize(400);
    }

    @Test
    void aWriteOnAnInterruptedThreadIsDurableAndTheJournalStaysOpen() {
        try (ConfigStore store = new ConfigStore(dir)) {
            store.open();
            store.put(row(1), false);
            // A thread interrupted by whoever runs it (an SSH session ending, a pool shutting down)
            // must neither lose its write nor close the journal under every later writer.
            Thread.currentThread().interrupt();
            try {
                store.put(row(2), false);
            } finally {
                assertThat(Thread.interrupted()).as("the interrupt is left for its owner").isTrue();
            }
            store.put(row(3), false);
        }
        assertThat(reopened()).containsExactly(1, 2, 3);
    }

    @Test
    void aDamagedRecordInTheMiddleStopsTheStartUpAndChangesNothing() throws Exception {
        storeRows(1, 20);
        byte[] damaged = garble(journal(), 10);
        List<Path> before = files("config.");
        byte[] snapshot = Files.readAllBytes(dir.resolve("config.snapshot.json"));
        assertThatThrownBy(() -> new ConfigStore(dir).open())
                .isInstanceOf(DamagedConfigurationException.class)
                .hasMessageContaining(journal() + " line 10 ")
                .hasMessageContaining("10 intact records follow it")
                .hasMessageContaining("--recover");
        assertThat(Files.readAllBytes(journal())).isEqualTo(damaged);
        assertThat(Files.readAllBytes(dir.resolve("config.snapshot.json"))).isEqualTo(snapshot);
        assertThat(files("config.")).containsExactlyInAnyOrderElementsOf(before);
    }

    @Test
    void aDamagedFirstRecordStopsTheStartUp() throws Exception {
        storeRows(1, 20);
        byte[] damaged = garble(journal(), 1);
        assertThatThrownBy(() -> new ConfigStore(dir).open()).hasMessageContaining(journal() + " line 1 ");
        assertThat(Files.readAllBytes(journal())).isEqualTo(damaged);
    }

    @Test
    void aDamagedLastRecordIsDroppedAndTheJournalAsItWasKept() throws Exception {
        storeRows(1, 20);
        byte[] damaged = garble(journal(), 20);
        assertThat(reopened()).isEqualTo(range(1, 19));
        assertThat(Files.readAllBytes(dir.resolve("config.journal.prev"))).isEqualTo(damaged);
        // The next record does not follow the torn one: the store reads whole again.
        try (ConfigStore store = new ConfigStore(dir)) {
            store.open();
            store.put(row(30), false);
        }
        assertThat(reopened()).containsExactlyElementsOf(append(range(1, 19), 30));
    }

    @Test
    void aRecordCutShortByACrashIsDropped() throws Exception {
        storeRows(1, 3);
        byte[] b = Files.readAllBytes(journal());
        Files.write(journal(), Arrays.copyOf(b, lineStart(b, 3) + 25));
        assertThat(reopened()).isEqualTo(range(1, 2));
    }

    @Test
    void anAlteredRecordThatIsStillJsonIsCaughtByItsChecksum() throws Exception {
        storeRows(1, 5);
        String text = Files.readString(journal()).replace("\"vr2\"", "\"vrX\"");
        Files.writeString(journal(), text);
        assertThatThrownBy(() -> new ConfigStore(dir).open()).hasMessageContaining("line 2 ")
                .hasMessageContaining("checksum mismatch");
    }

    @Test
    void aMissingRecordIsCaughtByTheSequenceNumbers() throws Exception {
        storeRows(1, 5);
        List<String> lines = Files.readAllLines(journal());
        lines.remove(2);
        Files.write(journal(), lines);
        assertThatThrownBy(() -> new ConfigStore(dir).open()).hasMessageContaining("line 3 ")
                .hasMessageContaining("record 3 is missing");
    }

    @Test
    void recoveryKeepsEveryIntactRecordAndSetsTheDamagedJournalAside() throws Exception {
        storeRows(1, 20);
        byte[] damaged = garble(journal(), 10);
        try (ConfigStore store = new ConfigStore(dir, true)) {
            assertThat(indices(store)).isEqualTo(append(range(1, 9), range(11, 20)));
            store.put(row(21), false);
        }
        List<Path> aside = files("config.journal.damaged-");
        assertThat(aside).hasSize(1);
        assertThat(Files.readAllBytes(aside.get(0))).isEqualTo(damaged);
        // Recovered for good: an ordinary start reads everything, the new record included.
        assertThat(reopened()).isEqualTo(append(append(range(1, 9), range(11, 20)), 21));
    }

    @Test
    void oneRecordCarriesSeveralOperationsAllOrNone() throws Exception {
        storeRows(1, 3);
        try (ConfigStore store = new ConfigStore(dir)) {
            store.open();
            store.change().put(row(4)).markRemoving(row(2)).remove(3).commit();
        }
        List<String> lines = Files.readAllLines(journal());
        assertThat(lines).hasSize(4);
        try (ConfigStore store = new ConfigStore(dir)) {
            List<ConfigStore.StoredVr> rows = store.open();
            assertThat(rows).extracting(vr -> vr.config().vmIndex).containsExactly(1, 2, 4);
            assertThat(rows).extracting(ConfigStore.StoredVr::removing).containsExactly(false, true, false);
        }
        // The same record cut short by a crash: none of its operations survive.
        String cut = lines.get(3).substring(0, lines.get(3).length() - 10);
        Files.writeString(journal(), String.join("\n", lines.subList(0, 3)) + "\n" + cut);
        try (ConfigStore store = new ConfigStore(dir)) {
            List<ConfigStore.StoredVr> rows = store.open();
            assertThat(rows).extracting(vr -> vr.config().vmIndex).containsExactly(1, 2, 3);
            assertThat(rows).extracting(ConfigStore.StoredVr::removing).containsOnly(false);
        }
    }

    @Test
    void theFormatWithoutChecksumsIsStillRead() throws Exception {
        // What earlier versions wrote: a snapshot as a bare array, one unnumbered operation per line.
        Files.writeString(dir.resolve("config.snapshot.json"),
                "[{\"config\":{\"vmIndex\":1,\"vmName\":\"old1\",\"vmConfigTemplate\":\"vyos\"},\"removing\":false}]");
        Files.writeString(journal(), "{\"put\":{\"config\":{\"vmIndex\":2,\"vmName\":\"old2\"},\"removing\":false}}\n"
                + "{\"remove\":1}\n{\"put\":{\"config\":{\"vmIndex\":3,\"vmName\":\"old3\"},\"removing\":true}}\n");
        assertThat(reopened()).containsExactly(2, 3);
        assertThat(Files.readString(dir.resolve("config.snapshot.json"))).startsWith("{\"format\":3,\"seq\":3,");
        assertThat(reopened()).containsExactly(2, 3);
    }

    @Test
    void aTruncatedSnapshotIsNamedWithPositionAndReason() throws Exception {
        storeRows(1, 20);
        compact();
        Path snapshot = dir.resolve("config.snapshot.json");
        byte[] whole = Files.readAllBytes(snapshot);
        byte[] half = Arrays.copyOf(whole, whole.length / 2);
        Files.write(snapshot, half);
        assertThatThrownBy(() -> new ConfigStore(dir).open())
                .isInstanceOf(DamagedConfigurationException.class)
                .hasMessageContaining(snapshot.toString())
                .hasMessageContaining("(byte " + half.length + " of " + half.length + ")")
                .hasMessageContaining("cut short")
                .hasMessageContaining("--recover");
        assertThat(Files.readAllBytes(snapshot)).isEqualTo(half);
    }

    @Test
    void anAlteredSnapshotIsCaughtByItsChecksum() throws Exception {
        storeRows(1, 3);
        compact();
        Path snapshot = dir.resolve("config.snapshot.json");
        Files.writeString(snapshot, Files.readString(snapshot).replace("\"vr2\"", "\"vrX\""));
        assertThatThrownBy(() -> new ConfigStore(dir).open()).hasMessageContaining("checksum mismatch");
    }

    @Test
    void aDamagedSnapshotIsRebuiltFromThePreviousOneAndItsJournal() throws Exception {
        storeRows(1, 10);
        compact();
        storeRows(11, 20);
        compact(); // the snapshot of rows 1-10 and the journal of 11-20 are now the previous pair
        storeRows(21, 25);
        assertThat(Files.exists(dir.resolve("config.snapshot.prev.json"))).isTrue();
        Path snapshot = dir.resolve("config.snapshot.json");
        byte[] whole = Files.readAllBytes(snapshot);
        Files.write(snapshot, Arrays.copyOf(whole, 100));
        try (ConfigStore store = new ConfigStore(dir, true)) {
            assertThat(indices(store)).isEqualTo(range(1, 25));
        }
        assertThat(files("config.snapshot.json.damaged-")).hasSize(1);
        assertThat(reopened()).isEqualTo(range(1, 25));
    }

    @Test
    void withBothSnapshotsDamagedTheRefusalSaysSoAndRecoveryStartsFromTheJournalsAlone() throws Exception {
        storeRows(1, 10);
        compact();
        storeRows(11, 20);
        compact(); // the previous pair: the snapshot of rows 1-10 and the journal of rows 11-20
        storeRows(21, 25);
        Path snapshot = dir.resolve("config.snapshot.json");
        Path previous = dir.resolve("config.snapshot.prev.json");
        Files.write(snapshot, Arrays.copyOf(Files.readAllBytes(snapshot), 100));
        Files.write(previous, Arrays.copyOf(Files.readAllBytes(previous), 100));

        assertThatThrownBy(() -> new ConfigStore(dir).open())
                .isInstanceOf(DamagedConfigurationException.class)
                .hasMessageContaining(snapshot + " is damaged")
                .hasMessageContaining("The previous snapshot is damaged as well: " + previous + " is damaged")
                .hasMessageContaining("start once with --recover to start from the intact records of config.journal.prev"
                        + " and config.journal alone")
                .hasMessageNotContaining("to rebuild it from");

        try (ConfigStore store = new ConfigStore(dir, true)) {
            // Rows 1-10 were in the snapshots only; 11-25 are in the journals' intact records.
            assertThat(indices(store)).isEqualTo(range(11, 25));
        }
        assertThat(files("config.snapshot.json.damaged-")).hasSize(1);
        assertThat(files("config.snapshot.prev.json.damaged-")).hasSize(1);
        assertThat(reopened()).isEqualTo(range(11, 25));
    }

    @Test
    void theSnapshotAndEveryRecordStateTheirFormat() throws Exception {
        storeRows(1, 2);
        assertThat(Files.readAllLines(journal())).allSatisfy(l -> assertThat(l).matches("[0-9a-f]{8} \\{\"format\":3,\"seq\":.*"));
        compact();
        assertThat(Files.readString(dir.resolve("config.snapshot.json"))).startsWith("{\"format\":3,\"seq\":2,");
        assertThat(reopened()).isEqualTo(range(1, 2));
    }

    @Test
    void aSnapshotInANewerFormatIsRefusedNamingTheFileAndTheVersion() throws Exception {
        storeRows(1, 2);
        compact();
        Path snapshot = dir.resolve("config.snapshot.json");
        // A later release may add fields: the version is what the refusal names, not the field.
        Files.writeString(snapshot, "{\"format\":4,\"seq\":2,\"tenants\":[],\"rows\":[],\"crc32c\":\"00000000\"}\n");
        for (boolean recover : new boolean[] {false, true}) {
            assertThatThrownBy(() -> new ConfigStore(dir, recover).open())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith(snapshot + " is in format 4, which this release of vrouter does not read "
                            + "(it reads formats 1 to 3;")
                    .hasMessageContaining("Nothing has been changed");
        }
        assertThat(files("config.snapshot.json.damaged-")).isEmpty();
    }

    @Test
    void aRecordInANewerFormatIsRefusedNamingTheFileLineAndVersion() throws Exception {
        storeRows(1, 2);
        String body = "{\"format\":4,\"seq\":3,\"ops\":[],\"tenant\":\"t\"}";
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(body.getBytes(StandardCharsets.UTF_8));
        Files.writeString(journal(), String.format("%08x %s%n", crc.getValue(), body), StandardOpenOption.APPEND);
        assertThatThrownBy(() -> new ConfigStore(dir).open())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith(journal() + " line 3 is in format 4, which this release of vrouter does not read");
    }

    @Test
    void aCompactionCutShortBeforeTheNewJournalLeavesReadableFiles() throws Exception {
        storeRows(1, 5);
        byte[] oldJournal = Files.readAllBytes(journal());
        compact();
        // As if the crash came after the snapshot was renamed and before the journal was replaced.
        Files.write(journal(), oldJournal);
        assertThat(reopened()).isEqualTo(range(1, 5));
        try (ConfigStore store = new ConfigStore(dir)) {
            store.open();
            store.put(row(6), false);
        }
        assertThat(reopened()).isEqualTo(range(1, 6));
    }

    @Test
    void manyChangesAreCompactedIntoOneSnapshotWithSequenceNumbersRunningOn() throws Exception {
        try (ConfigStore store = new ConfigStore(dir)) {
            store.open();
            for (int i = 1; i <= 1100; i++) {
                store.put(row(i % 3 + 1), false);
            }
        }
        String snapshot = Files.readString(dir.resolve("config.snapshot.json"), StandardCharsets.UTF_8);
        assertThat(snapshot).startsWith("{\"format\":3,\"seq\":1001,");
        assertThat(Files.readAllLines(journal())).hasSize(99).first().asString().contains("\"seq\":1002,");
        Files.writeString(journal(), "", StandardOpenOption.APPEND);
        assertThat(reopened()).containsExactly(1, 2, 3);
    }

    @SafeVarargs
    private static List<Integer> append(List<Integer> a, Object... more) {
        List<Integer> out = new java.util.ArrayList<>(a);
        for (Object m : more) {
            if (m instanceof List<?> l) {
                l.forEach(x -> out.add((Integer) x));
            } else {
                out.add((Integer) m);
            }
        }
        return out;
    }
}
