package io.vrouter.core.persistence;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The moves of VRs between this router and its peers that are under way (ADR 0023, decision 10), kept
 * in the data directory's {@code migrations.json} so that a kill -9 in the middle of one is finished at
 * the restart. <em>Leaving</em>: a VR of this router being sent to a peer, written before the peer is
 * called and forgotten once this router has removed its copy or kept it. <em>Arriving</em>: a VR a peer
 * sends here, written before its creation is journaled and forgotten when the source says it has
 * settled the move. A few records at most: the file is rewritten whole on every change (forced to disk,
 * then renamed over the old one), and states its format as every file of the data directory does.
 * Format 2 adds each record's {@code kind}: {@link #LIVE} for a move by the hypervisor (decision 17), none
 * for a VR made anew there; a format-1 file (the previous release's, without it) is read as the latter, and
 * is what is written while no live move is recorded.
 */
public final class MoveJournal {
    static final String FILE = "migrations.json";
    static final int FORMAT = 2;
    /** The kind of a move whose machine the hypervisor moves (ADR 0023, decisions 13 and 17). */
    public static final String LIVE = "live";

    /** A VR of this router on its way to a peer, by the move's id; {@code kind} {@link #LIVE} or null. */
    public record Leaving(String move, int vmIndex, String vmName, String vmUuid, String peer, String since, String kind) {
        public boolean live() {
            return LIVE.equals(kind);
        }
    }

    /** A VR a peer sends here, made under {@code vmIndex}, by the move's id; {@code kind} {@link #LIVE} or null. */
    public record Arriving(String move, int vmIndex, String vmName, String vmUuid, String since, String kind) {
        public boolean live() {
            return LIVE.equals(kind);
        }
    }

    /** The file as written: its format first. */
    record Contents(Integer format, List<Leaving> leaving, List<Arriving> arriving) {
    }

    private final ObjectMapper json = new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
    /** Where it is kept; null, in memory only. */
    private final Path file;
    private final List<Leaving> leaving = new ArrayList<>();
    private final List<Arriving> arriving = new ArrayList<>();

    private MoveJournal(Path file) {
        this.file = file;
    }

    /** A journal kept in memory only: for a module started without a data directory (its tests). */
    public static MoveJournal inMemory() {
        return new MoveJournal(null);
    }

    /**
     * Reads the moves under way in the data directory (none when it has no such file); writes nothing.
     *
     * @throws IllegalStateException naming the file when it is damaged or in a later release's format
     */
    public static MoveJournal open(Path dataDir) {
        MoveJournal j = new MoveJournal(dataDir.resolve(FILE));
        if (!Files.exists(j.file)) return j;
        try {
            byte[] b = FileBytes.read(j.file);
            FileFormat.readable(j.file, "", FileFormat.leadingVersion(b, 0, b.length), FORMAT);
            Contents c = j.json.readValue(b, Contents.class);
            if (c.leaving() != null) j.leaving.addAll(c.leaving());
            if (c.arriving() != null) j.arriving.addAll(c.arriving());
        } catch (IOException e) {
            throw new IllegalStateException(j.file + " is damaged (" + e.getMessage() + "): it lists the moves of VRs"
                    + " to and from peers that were under way. Nothing has been changed. Restore it from a backup, or"
                    + " remove it after checking that each VR moved runs on exactly one router", e);
        }
        return j;
    }

    public synchronized List<Leaving> leaving() {
        return List.copyOf(leaving);
    }

    public synchronized List<Arriving> arriving() {
        return List.copyOf(arriving);
    }

    public synchronized Optional<Arriving> arriving(String move) {
        return arriving.stream().filter(a -> a.move().equals(move)).findFirst();
    }

    /** Records a VR leaving, on disk before it returns. */
    public synchronized void add(Leaving l) {
        leaving.add(l);
        write();
    }

    /** Records a VR arriving, on disk before it returns. */
    public synchronized void add(Arriving a) {
        arriving.add(a);
        write();
    }

    /** Forgets the move, either way it went; true when it was recorded. */
    public synchronized boolean forget(String move) {
        boolean had = leaving.removeIf(l -> l.move().equals(move)) | arriving.removeIf(a -> a.move().equals(move));
        if (had) write();
        return had;
    }

    private void write() {
        if (file == null) return;
        try {
            // format 1 while no live move is recorded: the previous release reads it (a downgrade with none under way)
            boolean live = leaving.stream().anyMatch(Leaving::live) || arriving.stream().anyMatch(Arriving::live);
            FileFormat.replaceDurably(file, json.writeValueAsBytes(new Contents(live ? FORMAT : 1, leaving, arriving)));
        } catch (IOException e) {
            // The caller's move does not go on without its record: a restart could not finish it.
            throw new UncheckedIOException("cannot record the move in " + file + ": " + e.getMessage(), e);
        }
    }
}
