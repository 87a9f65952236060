package io.vrouter.core.persistence;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vrouter.core.model.Commit;
import io.vrouter.core.model.ModelJson;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.spi.StorageUnavailableException;
import java.io.ByteArrayOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps what the operator asked for (the vmConfigTable rows) in the data directory, so that no
 * acknowledged request is lost, even to {@code kill -9}, and a damaged file never silently costs
 * the records around it.
 *
 * <p>Every change is one <em>record</em>, a line of {@code config.journal}: a CRC-32C of the rest of
 * the line, then {@code {"seq":N,"ops":[...]}}, where the operations (rows written, rows marked as
 * being removed, rows forgotten) are made durable together, all or none, with one write and one
 * fsync before the call returns. Records written while a fsync is under way are made durable
 * together by the next one (group commit), so that writers on several threads share the disk's
 * flushes instead of queueing one flush each. Sequence numbers run on without a gap across
 * compactions.
 *
 * <p>When the journal has grown well past the number of rows, every row is written to a new
 * {@code config.snapshot.json} (beside the old one, then renamed over it atomically) that names the
 * last record it holds and carries its own checksum, and the journal starts again. The snapshot and
 * journal being replaced are kept as {@code config.snapshot.prev.json} and {@code config.journal.prev}:
 * together they rebuild a damaged snapshot.
 *
 * <p>The history of commits ({@link #history}, docs/adr/0021-history-and-rollback.md) travels in the
 * same records: a change set's record carries its commit ({@code "commit":{...}}) and a record that puts
 * sets back carries their marks ({@code "undone":[...]}), so that the history costs no write or fsync
 * of its own; the snapshot carries the commits kept and the last number given. In a data directory of
 * the releases before, whose history is in {@code commits.log}, the history starts from that file
 * until the next compaction writes it into the snapshot and deletes the file.
 *
 * <p>On start-up, a bad <em>last</em> record is a write cut short by a crash (never acknowledged)
 * and is dropped. Anything else (a bad record with intact ones after it, a missing record, a damaged
 * snapshot) is corruption: start-up stops with a {@link DamagedConfigurationException} naming the
 * file, the place and the remedy, and changes nothing on disk, unless the store was opened to
 * <em>recover</em>: then every intact record is kept, the damaged files are set aside as
 * {@code NAME.damaged-TIME}, and a fresh snapshot is written.
 */
public final class ConfigStore implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ConfigStore.class);
    /** What the write probe writes: more than a change's record, so that a probe that fits means a record fits. */
    private static final int PROBE_BYTES = 64 * 1024;
    static final String SNAPSHOT = "config.snapshot.json";
    static final String PREVIOUS_SNAPSHOT = "config.snapshot.prev.json";
    static final String JOURNAL = "config.journal";
    static final String PREVIOUS_JOURNAL = "config.journal.prev";
    /**
     * The format of the journal's records and the snapshot, which state it first ({@code "format":3});
     * format 3 carries the history (records their commit, the snapshot the commits kept), format 2 did
     * not, format 1 stated none, and the format before it (records without checksums, a snapshot that
     * is a bare array) is read too.
     */
    static final int FORMAT = 3;
    /** How the remedy is named to the operator: the server's option (setting {@code recover=true}). */
    public static final String RECOVER_OPTION = "--recover";
    private static final int COMPACT_AFTER_OPS = 1000;
    /** The snapshot ends with this field and the 8 hex digits of the CRC-32C of every byte before it. */
    private static final byte[] SNAPSHOT_CRC = ",\"crc32c\":\"".getBytes(StandardCharsets.US_ASCII);

    /** One stored row: the configuration and whether its removal was asked for and not yet done. */
    public record StoredVr(VmConfigEntry config, boolean removing) {
    }

    /** One operation of a record: a row written, or a row forgotten. */
    record Op(StoredVr put, Integer remove) {
    }

    /** A commit undone after its record was written, with why: carried by the record that puts it back. */
    record Undone(long number, String reason) {
    }

    /** One journal record, as its line holds it after the checksum; commit and undone are absent when none. */
    record JournalRecord(Integer format, long seq, List<Op> ops, Commit commit, List<Undone> undone) {
    }

    /**
     * The snapshot file: the rows and the sequence number of the last record they hold, and the
     * history's commits kept and last number (absent before format 3).
     */
    record SnapshotFile(Integer format, long seq, Long lastCommit, List<Commit> commits, List<StoredVr> rows,
                        String crc32c) {
    }

    private final Path dir;
    private final boolean recover;
    private final ObjectMapper json = ModelJson.mapper();
    private final Map<Integer, StoredVr> rows = new TreeMap<>();
    private final CommitLog history;
    /** commits.log is there though the snapshot holds the history: deleted once opened. */
    private boolean historyFileLeftOver;
    /**
     * Written with RandomAccessFile, not a FileChannel: a channel closes for good when the thread
     * writing to it is interrupted (an SSH session ending, a pool shutting down), and every later
     * change would fail.
     */
    private RandomAccessFile journal;
    /**
     * The journal's length, where its file pointer is: the next record goes there. Kept here, so that
     * a record costs its write alone (asking the file for its length and seeking there were two more
     * system calls per record); an undone record leaves both at its start (setLength moves the pointer).
     */
    private long journalEnd;
    /** The sequence number of the last record written. */
    private long seq;
    /** The sequence number of the last record made durable (fsync, or a snapshot that holds it). */
    private long durable;
    /** Whether a thread is making the journal durable (outside the lock); others wait for it. */
    private boolean syncing;
    private int opsSinceSnapshot;
    /** Set when a failed write could not be undone: the journal's end is unknown, so no more writes. */
    private IOException broken;
    /** The last write's failure, until a write (or {@link #writeProblem}'s probe) succeeds again. */
    private volatile IOException writeFailure;

    public ConfigStore(Path dir) {
        this(dir, false);
    }

    /**
     * @param recover start from every intact record of a damaged journal or snapshot, setting the
     *     damaged files aside, instead of refusing to start
     */
    public ConfigStore(Path dir, boolean recover) {
        this(dir, recover, CommitLog.DEFAULT_DEPTH);
    }

    /** @param historyDepth how many commits the history keeps (setting {@code history.depth}) */
    public ConfigStore(Path dir, boolean recover, int historyDepth) {
        this.dir = dir;
        this.recover = recover;
        this.history = new CommitLog(historyDepth);
    }

    /** The history of commits, kept durable in this store's records and snapshot. */
    public CommitLog history() {
        return history;
    }

    // ---------------------------------------------------------------- start-up

    /**
     * Reads the snapshot and replays the journal; returns the rows in vmIndex order.
     *
     * @throws DamagedConfigurationException when the files are damaged and the store was not opened
     *     to recover; nothing has been changed on disk then
     */
    public synchronized List<StoredVr> open() {
        try {
            Files.createDirectories(dir);
            boolean rewrite;
            try {
                rewrite = load();
            } catch (DamagedConfigurationException e) {
                if (!recover) throw e;
                log.warn("recovering: {}", e.getMessage());
                rows.clear();
                history.restore(0, List.of());
                rewrite = recoverFrom(e);
            }
            if (rewrite || !Files.exists(dir.resolve(SNAPSHOT))) {
                compact();
            } else {
                openJournal(dir.resolve(JOURNAL));
                syncDirectory();
            }
            if (historyFileLeftOver) deletePreviousHistoryFile();
            return new ArrayList<>(rows.values());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the configuration in " + dir + ": " + e, e);
        }
    }

    /** Loads the snapshot and the journal, tolerating only a torn last record; true when they need rewriting. */
    private boolean load() throws IOException {
        Path snapshotFile = dir.resolve(SNAPSHOT);
        Snapshot base;
        try {
            base = readSnapshot(snapshotFile);
        } catch (DamagedConfigurationException e) {
            throw new DamagedConfigurationException(e.file(), e.getMessage() + " " + snapshotRemedy());
        }
        Scan scan = scan(currentJournal());
        for (Damage d : scan.damaged()) {
            if (d.line() < scan.lastLine()) throw corruption(d, scan);
        }
        replay(base, List.of(scan), true);
        Damage torn = scan.damaged().isEmpty() ? null : scan.damaged().get(0);
        if (torn != null) {
            log.warn("{}: the last record is incomplete or damaged ({}), a write cut short by a crash and never "
                    + "acknowledged: dropped; the journal as it was is kept as {}", torn.where(), torn.reason(),
                    PREVIOUS_JOURNAL);
        }
        // A torn tail must not stay where the next record is appended; an old format is rewritten.
        return torn != null || scan.legacy() || base.legacy();
    }

    /** The journal to read: the previous one when a compaction was cut short before starting a new one. */
    private Path currentJournal() {
        Path journalFile = dir.resolve(JOURNAL);
        return Files.exists(journalFile) ? journalFile : dir.resolve(PREVIOUS_JOURNAL);
    }

    /** Starts from every intact record, sets the damaged files aside and says what was lost. */
    private boolean recoverFrom(DamagedConfigurationException damage) throws IOException {
        List<Path> damaged = new ArrayList<>();
        List<Scan> journals = new ArrayList<>();
        Snapshot base;
        Path snapshotFile = dir.resolve(SNAPSHOT);
        try {
            base = readSnapshot(snapshotFile);
        } catch (DamagedConfigurationException e) {
            damaged.add(snapshotFile);
            // The previous snapshot and the journal written after it hold what the damaged one held.
            Path previous = dir.resolve(PREVIOUS_SNAPSHOT);
            try {
                base = readSnapshot(previous);
                log.warn("recovering: rebuilding {} from {} (record {}) and {}", SNAPSHOT, PREVIOUS_SNAPSHOT,
                        base.seq(), PREVIOUS_JOURNAL);
            } catch (DamagedConfigurationException alsoDamaged) {
                // No snapshot to trust: the journals' intact records are all there is; their rows are kept.
                damaged.add(previous);
                base = new Snapshot(0, List.of(), false);
                log.warn("recovering: {}", alsoDamaged.getMessage());
                log.warn("recovering: both snapshots are damaged: starting from the intact records of {} and {} "
                        + "alone; the rows only the snapshots held are lost (both are set aside as NAME.damaged-TIME; "
                        + "a backup of the data directory has them)", PREVIOUS_JOURNAL, JOURNAL);
            }
            journals.add(scan(dir.resolve(PREVIOUS_JOURNAL)));
        }
        Path currentJournal = currentJournal();
        if (journals.isEmpty() || !journals.get(0).file().equals(currentJournal)) journals.add(scan(currentJournal));
        Scan current = journals.get(journals.size() - 1);
        for (Scan s : journals) {
            for (Damage d : s.damaged()) log.warn("recovering: {} is damaged ({}): its record is lost", d.where(), d.reason());
        }
        if (!current.damaged().isEmpty() || damage.file().equals(current.file())) damaged.add(current.file());
        int lost = replay(base, journals, false);
        String stamp = ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'"));
        for (Path file : damaged) {
            if (!Files.exists(file)) continue;
            Path aside = file.resolveSibling(file.getFileName() + ".damaged-" + stamp);
            Files.move(file, aside, StandardCopyOption.ATOMIC_MOVE);
            log.warn("recovering: {} set aside as {}", file, aside.getFileName());
        }
        log.warn("recovered {} rows up to record {}; {} records lost; check /health's unresolvedVms for VMs "
                + "whose configuration was lost", rows.size(), seq, lost);
        return true;
    }

    /**
     * Applies the journals' records after the snapshot's, in order. Strict: a missing or repeated
     * record is corruption. Otherwise every intact record is applied; returns how many were missing.
     */
    private int replay(Snapshot base, List<Scan> journals, boolean strict) throws IOException {
        for (StoredVr vr : base.rows()) rows.put(vr.config().vmIndex, vr);
        Path previousHistory = dir.resolve(CommitLog.FILE);
        if (base.commits() != null) {
            history.restore(base.lastCommit(), base.commits());
            // (a compaction that migrated it was cut short before deleting it)
            historyFileLeftOver = Files.exists(previousHistory);
        } else if (Files.exists(previousHistory)) {
            // Until the next compaction puts it in the snapshot, the history starts from the file.
            history.readPrevious(previousHistory, json);
        }
        long last = base.seq();
        int missing = 0;
        for (Scan scan : journals) {
            boolean appliedFromThisFile = false;
            for (Rec rec : scan.records()) {
                long s = rec.seq() < 0 ? last + 1 : rec.seq(); // the old format had no sequence numbers
                if (s <= last) {
                    // Records the snapshot holds: a compaction was cut short before the journal was replaced.
                    if (appliedFromThisFile && strict) {
                        throw corruption(new Damage(scan.file(), rec.line(), rec.offset(),
                                "record " + s + " comes after record " + last + ": records out of order"), scan);
                    }
                    continue;
                }
                if (s != last + 1) {
                    String gap = last + 1 == s - 1 ? "record " + (last + 1) + " is" : "records " + (last + 1)
                            + " to " + (s - 1) + " are";
                    if (strict) {
                        throw corruption(new Damage(scan.file(), rec.line(), rec.offset(), "record " + s
                                + " follows record " + last + ": " + gap + " missing"), scan);
                    }
                    log.warn("recovering: {} line {}: {} missing", scan.file(), rec.line(), gap);
                    missing += (int) (s - last - 1);
                }
                apply(rec.ops());
                applyHistory(rec.commit(), rec.undone());
                last = s;
                appliedFromThisFile = true;
            }
        }
        seq = last;
        durable = last;
        return missing;
    }

    private void apply(List<Op> ops) {
        for (Op op : ops) {
            if (op.put() != null) {
                rows.put(op.put().config().vmIndex, op.put());
            } else {
                rows.remove(op.remove());
            }
        }
    }

    /**
     * Deletes the history file of the releases before format 3 once a snapshot holds its commits (a
     * compaction migrates it, as it rewrites the snapshot in the newest format: ADR 0010).
     */
    private void deletePreviousHistoryFile() throws IOException {
        if (Files.deleteIfExists(dir.resolve(CommitLog.FILE))) {
            log.info("the history of {} is in {} now: {} deleted", dir, SNAPSHOT, CommitLog.FILE);
        }
        historyFileLeftOver = false;
    }

    private void applyHistory(Commit commit, List<Undone> undone) {
        if (commit != null) history.add(commit);
        if (undone != null) for (Undone u : undone) history.undone(u.number(), u.reason());
    }

    private DamagedConfigurationException corruption(Damage d, Scan scan) {
        long after = scan.records().stream().filter(r -> r.line() > d.line()).count();
        return new DamagedConfigurationException(d.file(), d.where() + " is damaged: " + d.reason() + ". " + after
                + " intact records follow it, so this is corruption, not a write cut short by a crash. Nothing has "
                + "been changed. Restore the data directory from a backup, or start once with " + RECOVER_OPTION
                + " to keep every intact record and set the damaged file aside as "
                + d.file().getFileName() + ".damaged-TIME.");
    }

    // ---------------------------------------------------------------- the journal's lines

    /** Where a file is damaged and why. */
    private record Damage(Path file, int line, long offset, String reason) {
        String where() {
            return file + " line " + line + " (byte " + offset + ")";
        }
    }

    /** One intact record: its sequence number (-1 in the old format), operations, history and place. */
    private record Rec(long seq, List<Op> ops, Commit commit, List<Undone> undone, int line, long offset) {
    }

    /** What one journal file holds: its intact records and its damaged lines, in file order. */
    private record Scan(Path file, List<Rec> records, List<Damage> damaged, int lastLine, boolean legacy) {
    }

    private static final class BadRecord extends Exception {
        BadRecord(String reason) {
            super(reason, null, false, false);
        }
    }

    private Scan scan(Path file) throws IOException {
        byte[] b;
        try {
            b = FileBytes.read(file);
        } catch (NoSuchFileException e) {
            return new Scan(file, List.of(), List.of(), 0, false);
        }
        List<Rec> records = new ArrayList<>();
        List<Damage> damaged = new ArrayList<>();
        boolean legacy = false;
        int line = 0;
        int lastLine = 0;
        for (int start = 0; start < b.length; ) {
            int end = indexOf(b, (byte) '\n', start);
            if (end < 0) end = b.length;
            line++;
            if (!blank(b, start, end)) {
                lastLine = line;
                try {
                    Rec rec = decode(file, b, start, end, line);
                    legacy |= rec.seq() < 0;
                    records.add(rec);
                } catch (BadRecord e) {
                    damaged.add(new Damage(file, line, start, e.getMessage()));
                }
            }
            start = end + 1;
        }
        return new Scan(file, records, damaged, lastLine, legacy);
    }

    private Rec decode(Path file, byte[] b, int start, int end, int line) throws BadRecord {
        try {
            if (b[start] == '{') {
                // The format before records carried a checksum: one operation per line.
                return new Rec(-1, List.of(json.readValue(b, start, end - start, Op.class)), null, null, line, start);
            }
            if (end - start < 10 || b[start + 8] != ' ') throw new BadRecord("it does not start with a checksum");
            long expected;
            try {
                expected = Long.parseLong(new String(b, start, 8, StandardCharsets.US_ASCII), 16);
            } catch (NumberFormatException e) {
                throw new BadRecord("it does not start with a checksum");
            }
            CRC32C crc = new CRC32C();
            crc.update(b, start + 9, end - start - 9);
            if (crc.getValue() != expected) throw new BadRecord("checksum mismatch (altered or cut short)");
            FileFormat.readable(file, " line " + line, FileFormat.leadingVersion(b, start + 9, end - start - 9), FORMAT);
            JournalRecord r = json.readValue(b, start + 9, end - start - 9, JournalRecord.class);
            if (r.seq() <= 0 || r.ops() == null) throw new BadRecord("no sequence number or operations");
            return new Rec(r.seq(), r.ops(), r.commit(), r.undone(), line, start);
        } catch (IOException e) {
            String why = e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.toString();
            throw new BadRecord("not a journal record: " + why);
        }
    }

    /** A record's line: its CRC-32C in hex, a space, its JSON and a newline, encoded once into the bytes written. */
    private static byte[] line(long seq, List<Op> ops, Commit commit, List<Undone> undone, ObjectMapper json)
            throws JsonProcessingException {
        byte[] body = json.writeValueAsBytes(new JournalRecord(FORMAT, seq, ops, commit, undone.isEmpty() ? null : undone));
        CRC32C crc = new CRC32C();
        crc.update(body);
        byte[] line = new byte[9 + body.length + 1];
        byte[] hex = HexFormat.of().toHexDigits((int) crc.getValue()).getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(hex, 0, line, 0, hex.length);
        line[8] = ' ';
        System.arraycopy(body, 0, line, 9, body.length);
        line[line.length - 1] = '\n';
        return line;
    }

    private static boolean blank(byte[] b, int start, int end) {
        for (int i = start; i < end; i++) if (b[i] != ' ' && b[i] != '\r' && b[i] != '\t') return false;
        return true;
    }

    private static int indexOf(byte[] b, byte v, int from) {
        for (int i = from; i < b.length; i++) if (b[i] == v) return i;
        return -1;
    }

    // ---------------------------------------------------------------- the snapshot

    /** What a snapshot holds; commits null when it carries no history (before format 3). */
    private record Snapshot(long seq, List<StoredVr> rows, long lastCommit, List<Commit> commits, boolean legacy) {
        Snapshot(long seq, List<StoredVr> rows, boolean legacy) {
            this(seq, rows, 0, null, legacy);
        }
    }

    private Snapshot readSnapshot(Path file) throws IOException {
        byte[] b;
        try {
            b = FileBytes.read(file);
        } catch (NoSuchFileException e) {
            return new Snapshot(0, List.of(), false);
        }
        try {
            if (b.length > 0 && b[0] == '[') {
                // The format before snapshots named their last record and carried a checksum.
                return new Snapshot(0, List.of(json.readValue(b, StoredVr[].class)), true);
            }
            FileFormat.readable(file, "", FileFormat.leadingVersion(b, 0, b.length), FORMAT);
            SnapshotFile s = json.readValue(b, SnapshotFile.class);
            int crcAt = lastIndexOf(b, SNAPSHOT_CRC);
            if (s.crc32c() == null || crcAt < 0) throw snapshotDamaged(file, b.length, "it has no checksum");
            CRC32C crc = new CRC32C();
            crc.update(b, 0, crcAt);
            if (!String.format("%08x", crc.getValue()).equals(s.crc32c())) {
                throw snapshotDamaged(file, b.length, "checksum mismatch: it was altered after it was written");
            }
            return new Snapshot(s.seq(), s.rows() == null ? List.of() : s.rows(),
                    s.lastCommit() == null ? 0 : s.lastCommit(), s.lastCommit() == null ? null : s.commits() == null
                    ? List.of() : s.commits(), false);
        } catch (JsonProcessingException e) {
            JsonLocation at = e.getLocation();
            String where = at == null ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr()
                    + " (byte " + at.getByteOffset() + " of " + b.length + ")";
            String cut = at != null && at.getByteOffset() >= b.length ? " (the file ends there: it was cut short)" : "";
            throw new DamagedConfigurationException(file, file + " is damaged" + where + ": " + e.getOriginalMessage()
                    + cut + ".");
        }
    }

    private DamagedConfigurationException snapshotDamaged(Path file, int length, String reason) {
        return new DamagedConfigurationException(file, file + " is damaged (" + length + " bytes): " + reason + ".");
    }

    /** What the operator can do about a damaged snapshot: what {@code --recover} would rebuild it from, if anything. */
    private String snapshotRemedy() throws IOException {
        Path previous = dir.resolve(PREVIOUS_SNAPSHOT);
        String previousDamage = null;
        try {
            readSnapshot(previous);
        } catch (DamagedConfigurationException e) {
            previousDamage = e.getMessage();
        }
        if (previousDamage == null && Files.exists(previous)) {
            return "Nothing has been changed. Start once with " + RECOVER_OPTION + " to rebuild it from "
                    + PREVIOUS_SNAPSHOT + " and " + PREVIOUS_JOURNAL + " (the damaged file is set aside), or restore "
                    + "the data directory from a backup.";
        }
        return "Nothing has been changed. " + (previousDamage != null ? "The previous snapshot is damaged as well: "
                + previousDamage : "There is no previous snapshot (" + previous + ").") + " Restore the data directory "
                + "from a backup to keep every row, or start once with " + RECOVER_OPTION + " to start from the intact "
                + "records of " + PREVIOUS_JOURNAL + " and " + JOURNAL + " alone: the rows that only the snapshots "
                + "held are lost (their VMs, where they exist, are reported in /health's unresolvedVms and never "
                + "deleted) and the damaged snapshots are set aside as NAME.damaged-TIME.";
    }

    private byte[] snapshotBytes() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256 + rows.size() * 256);
        out.write(("{\"" + FileFormat.FIELD + "\":" + FORMAT + ",\"seq\":" + seq + ",\"lastCommit\":"
                + history.lastNumber() + ",\"commits\":[").getBytes(StandardCharsets.US_ASCII));
        boolean first = true;
        for (Commit c : history.all()) {
            if (!first) out.write(',');
            out.write('\n');
            out.write(json.writeValueAsBytes(c));
            first = false;
        }
        out.write("],\"rows\":[".getBytes(StandardCharsets.US_ASCII));
        first = true;
        for (StoredVr vr : rows.values()) {
            if (!first) out.write(',');
            out.write('\n');
            out.write(json.writeValueAsBytes(vr));
            first = false;
        }
        out.write(']');
        CRC32C crc = new CRC32C();
        crc.update(out.toByteArray());
        out.write(SNAPSHOT_CRC);
        out.write(String.format("%08x\"}\n", crc.getValue()).getBytes(StandardCharsets.US_ASCII));
        return out.toByteArray();
    }

    private static int lastIndexOf(byte[] b, byte[] what) {
        outer:
        for (int i = b.length - what.length; i >= 0; i--) {
            for (int k = 0; k < what.length; k++) if (b[i + k] != what[k]) continue outer;
            return i;
        }
        return -1;
    }

    // ---------------------------------------------------------------- writes

    /**
     * A change to several rows made durable as one journal record: all of it or none of it, with one
     * write and one fsync. Build it, then {@link #commit()}.
     */
    public final class Change {
        private final List<Op> ops = new ArrayList<>();
        private Commit commit;
        private final List<Undone> undone = new ArrayList<>();

        private Change() {
        }

        /** Writes a row (new or changed). */
        public Change put(VmConfigEntry config) {
            ops.add(new Op(new StoredVr(config, false), null));
            return this;
        }

        /** Writes a row marked as being removed: its removal was asked for and is not done yet. */
        public Change markRemoving(VmConfigEntry config) {
            ops.add(new Op(new StoredVr(config, true), null));
            return this;
        }

        /** Forgets a row. */
        public Change remove(int vmIndex) {
            ops.add(new Op(null, vmIndex));
            return this;
        }

        /**
         * Records the set's commit in the history with this record: numbered (one more than the last)
         * when the record is written, and kept once it is.
         */
        public Change recording(Commit c) {
            commit = c;
            return this;
        }

        /** Marks a commit of the history undone, with why, with this record. */
        public Change undone(long number, String reason) {
            undone.add(new Undone(number, reason));
            return this;
        }

        public boolean isEmpty() {
            return ops.isEmpty() && commit == null && undone.isEmpty();
        }

        /** Makes the change durable; when this returns normally it survives a crash. */
        public void commit() {
            sync(write());
        }

        /**
         * Writes the change's record and returns its number: it is durable once {@link #sync} of that
         * number returns, so that a caller can let go of its own locks while the disk flushes.
         */
        public long write() {
            return ConfigStore.this.write(List.copyOf(ops), commit, List.copyOf(undone));
        }
    }

    /** A new change to several rows, durable as one record once committed. */
    public Change change() {
        return new Change();
    }

    /** Records a row (new or changed); durable when this returns. */
    public void put(VmConfigEntry config, boolean removing) {
        Change c = change();
        if (removing) {
            c.markRemoving(config);
        } else {
            c.put(config);
        }
        c.commit();
    }

    /** Records several rows as one record, all or none. */
    public void putAll(Collection<VmConfigEntry> configs) {
        Change c = change();
        configs.forEach(c::put);
        c.commit();
    }

    /** Forgets a row; durable when this returns. */
    public void remove(int vmIndex) {
        change().remove(vmIndex).commit();
    }

    private synchronized long write(List<Op> ops, Commit commit, List<Undone> undone) {
        if (ops.isEmpty() && commit == null && undone.isEmpty()) return seq;
        if (journal == null) throw new IllegalStateException("the configuration store is not open");
        if (broken != null) throw new StorageUnavailableException(broken);
        long end = -1;
        try {
            if (commit != null) commit.number = history.nextNumber();
            byte[] bytes = line(seq + 1, ops, commit, undone, json);
            end = journalEnd;
            journal.write(bytes);
            journalEnd = end + bytes.length;
        } catch (IOException e) {
            undo(end, e);
            throw unavailable("cannot write the configuration journal in " + dir, e);
        }
        writeFailure = null;
        seq++;
        apply(ops);
        applyHistory(commit, undone);
        opsSinceSnapshot += ops.size();
        if (opsSinceSnapshot > COMPACT_AFTER_OPS && opsSinceSnapshot > 2 * rows.size()) {
            try {
                compact();
            } catch (IOException e) {
                // The record is in the journal; compaction is tried again after the next change.
                log.warn("writing the configuration snapshot in {} failed: {}", dir, e.toString());
            }
        }
        return seq;
    }

    /**
     * Returns once every record up to {@code upTo} is durable: one thread flushes the journal for
     * every record written so far while the others wait for it, and find their own record flushed.
     */
    public void sync(long upTo) {
        RandomAccessFile file;
        long target;
        synchronized (this) {
            // Not cut short by an interrupt (an SSH session ending): the record is written and its
            // writer must not answer before it is durable; the interrupt is left for its owner.
            boolean interrupted = false;
            while (durable < upTo && syncing) {
                try {
                    wait();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) Thread.currentThread().interrupt();
            if (durable >= upTo) return;
            if (broken != null) throw new StorageUnavailableException(broken);
            syncing = true;
            file = journal;
            target = seq;
        }
        IOException failed = null;
        try {
            file.getFD().sync();
        } catch (IOException e) {
            failed = e;
        }
        synchronized (this) {
            syncing = false;
            notifyAll();
            if (failed == null) {
                durable = Math.max(durable, target);
            } else if (durable < upTo && file == journal) {
                // Records may be written and not durable, and later ones after them: no undo is
                // possible, so nothing more is written until a restart reads what the disk holds.
                broken = failed;
            }
            // (a compaction that replaced the journal meanwhile made every record durable in its snapshot)
            if (durable < upTo) throw unavailable("cannot flush the configuration journal in " + dir, failed);
        }
    }

    /** Logs what the file system said (clients are told only that the directory is not writable). */
    private StorageUnavailableException unavailable(String what, IOException cause) {
        writeFailure = cause;
        log.error("{}: {}", what, cause.toString());
        return new StorageUnavailableException(cause);
    }

    /**
     * Why changes cannot be recorded now, or empty when they can. After a failed write it probes the
     * data directory (a small file written, forced to disk and deleted, as a record would be), so that
     * readiness comes back once space is freed or the directory is writable again, without waiting for
     * a client's write. A journal whose failed write could not be undone stays unavailable until a
     * restart reads what the disk holds.
     */
    public Optional<String> writeProblem() {
        if (broken != null) {
            return Optional.of("the configuration journal could not be written and repaired: restart the server once"
                    + " its data directory is writable");
        }
        if (writeFailure == null) return Optional.empty();
        Path probe = dir.resolve(".write-probe");
        try (FileChannel f = FileChannel.open(probe, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            f.write(java.nio.ByteBuffer.allocate(PROBE_BYTES));
            f.force(true);
        } catch (IOException stillFailing) {
            return Optional.of("the data directory is not writable (read-only or full)");
        } finally {
            try {
                Files.deleteIfExists(probe);
            } catch (IOException ignored) {
                // a read-only directory: the probe was never made
            }
        }
        writeFailure = null;
        return Optional.empty();
    }

    /** Cuts a record that was not written whole, so that the next one does not follow a torn line. */
    private void undo(long end, IOException cause) {
        if (end < 0) return;
        try {
            journal.setLength(end);
            journal.getFD().sync();
        } catch (IOException e) {
            cause.addSuppressed(e);
            broken = cause;
        }
    }

    /**
     * Writes every row to a new snapshot beside the old one and renames it over it, keeping the old
     * snapshot and journal as the previous pair, then starts an empty journal. A crash at any point
     * leaves files that start-up reads whole: records the snapshot already holds are skipped by their
     * sequence numbers.
     */
    synchronized void compact() throws IOException {
        Path tmp = dir.resolve(SNAPSHOT + ".tmp");
        try (FileOutputStream out = new FileOutputStream(tmp.toFile())) {
            out.write(snapshotBytes());
            out.getFD().sync();
        }
        Path snapshot = dir.resolve(SNAPSHOT);
        Path journalFile = dir.resolve(JOURNAL);
        keep(snapshot, dir.resolve(PREVIOUS_SNAPSHOT));
        keep(journalFile, dir.resolve(PREVIOUS_JOURNAL));
        Files.move(tmp, snapshot, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        Path fresh = dir.resolve(JOURNAL + ".tmp");
        try (FileOutputStream empty = new FileOutputStream(fresh.toFile())) {
            empty.getFD().sync();
        }
        if (journal != null) journal.close();
        Files.move(fresh, journalFile, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        openJournal(journalFile);
        syncDirectory();
        deletePreviousHistoryFile();
        opsSinceSnapshot = 0;
        durable = seq;
    }

    /** Opens the journal for appending: its file pointer at its end. */
    private void openJournal(Path file) throws IOException {
        journal = new RandomAccessFile(file.toFile(), "rw");
        journalEnd = journal.length();
        journal.seek(journalEnd);
    }

    /** Keeps a file under another name without copying it (a second link), replacing what that name held. */
    private static void keep(Path current, Path previous) throws IOException {
        if (!Files.exists(current)) return;
        Files.deleteIfExists(previous);
        try {
            Files.createLink(previous, current);
        } catch (UnsupportedOperationException | IOException e) {
            Files.copy(current, previous, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /** Makes renames and new files in the directory durable (where the platform allows it). */
    private void syncDirectory() {
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        } catch (IOException e) {
            log.debug("cannot sync the directory {}: {}", dir, e.toString());
        }
    }

    @Override
    public synchronized void close() {
        try {
            if (journal != null) journal.close();
        } catch (IOException e) {
            log.warn("closing the journal failed", e);
        }
    }
}
