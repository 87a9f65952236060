package io.vrouter.core.persistence;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vrouter.core.model.ModelJson;
import io.vrouter.core.model.VrEvent;
import io.vrouter.core.spi.ReplayLog;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replay log: the VR events of this server, kept in the data directory across restarts, so that a
 * client that was away (a NETCONF subscription with a startTime, a REST event stream with
 * Last-Event-ID) can be told what it missed. Bounded by count and by age; older events are dropped when
 * the file is compacted, and the time of that is kept ({@link #agedAt()}).
 *
 * <p>{@code events.log} holds a header line (when the log was created) and then one JSON line per event.
 * An event is written at once but not forced to disk: the operating system has it when the process
 * dies, {@code kill -9} included; a power failure may cost the last few, which a log of notifications
 * can afford (the configuration of record is the journal, which is forced). A line that cannot be read
 * (a torn last line, say) is dropped with a warning when the log is opened: nothing in it is a request
 * that was acknowledged. The file is rewritten without it (and without events over the limits) at
 * the first append, not at opening, so that a start refused for another file writes nothing.
 */
public final class EventLog implements ReplayLog, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(EventLog.class);
    public static final String FILE = "events.log";
    private static final String HEADER = "vrouterEventLog";
    /** The format the header states (format 1 stated none). */
    static final int FORMAT = 2;
    /** How the header line starts, as {@link #writeFile} writes it. */
    private static final byte[] HEADER_START = ("{\"" + HEADER + "\"").getBytes(StandardCharsets.US_ASCII);

    private final Path file;
    private final int maxEvents;
    private final Duration maxAge;
    /** The age at which the oldest event makes the log compact: a tenth more than the limit. */
    private final Duration maxAgeWithSlack;
    private final Clock clock;
    private final ObjectMapper json = ModelJson.mapper();
    /** A stream, not a FileChannel: a channel closes for good when a writing thread is interrupted. */
    private FileOutputStream out;
    /** The events kept when the log was opened, while the file still holds lines to drop (see {@link #load}). */
    private List<VrEvent> rewriteBeforeAppend;
    private Instant created;
    private Instant agedAt;
    private long lastSequence;
    private long oldestSequence;
    private Instant oldestTime;
    private int count;

    private EventLog(Path file, int maxEvents, Duration maxAge, Clock clock) {
        if (maxEvents < 1) throw new IllegalArgumentException("the event log must keep at least one event");
        this.file = file;
        this.maxEvents = maxEvents;
        this.maxAge = maxAge;
        this.maxAgeWithSlack = maxAge.plus(maxAge.dividedBy(10));
        this.clock = clock;
    }

    /** Opens (or creates) the log in the data directory, keeping at most maxEvents events no older than maxAge. */
    public static EventLog open(Path dataDir, int maxEvents, Duration maxAge) {
        return open(dataDir, maxEvents, maxAge, Clock.systemUTC());
    }

    static EventLog open(Path dataDir, int maxEvents, Duration maxAge, Clock clock) {
        EventLog l = new EventLog(dataDir.resolve(FILE), maxEvents, maxAge, clock);
        try {
            Files.createDirectories(dataDir);
            l.load();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the event log " + l.file, e);
        }
        return l;
    }

    private void load() throws IOException {
        Contents c = readFile();
        created = c.created == null ? clock.instant() : c.created;
        agedAt = c.aged;
        lastSequence = c.lastSequence;
        boolean rewrite = c.created == null || c.unreadable > 0;
        List<VrEvent> kept = withinLimits(c.events);
        if (kept.size() < c.events.size()) {
            agedAt = clock.instant();
            rewrite = true;
        }
        remember(kept);
        if (!Files.exists(file)) {
            write(kept);
        } else if (rewrite) {
            // Rewritten at the first append, not now: a start refused later (a damaged file elsewhere)
            // leaves the log as it was.
            rewriteBeforeAppend = List.copyOf(kept);
            return;
        }
        out = new FileOutputStream(file.toFile(), true);
    }

    /** Opens the log for appending, first writing it as loaded if it was read with lines to drop. */
    private void openForAppend() throws IOException {
        if (rewriteBeforeAppend != null) {
            write(rewriteBeforeAppend);
            rewriteBeforeAppend = null;
        }
        out = new FileOutputStream(file.toFile(), true);
    }

    /** Appends one event. */
    public void append(VrEvent e) {
        append(List.of(e));
    }

    /**
     * Appends events, oldest first, with one write: a batch of the events published together (a
     * commit of a thousand VRs publishes a thousand) costs one system call, not one each.
     */
    public synchronized void append(List<VrEvent> events) {
        if (events.isEmpty()) return;
        try {
            if (out == null) openForAppend();
            ByteArrayOutputStream lines = new ByteArrayOutputStream(256 * events.size());
            for (VrEvent e : events) {
                lines.write(json.writeValueAsBytes(e));
                lines.write('\n');
            }
            lines.writeTo(out);
        } catch (IOException ex) {
            // A notification log that cannot be written must not stop the VRs' lifecycle.
            log.warn("cannot append events {} to {} to {}: {}", events.get(0).sequence,
                    events.get(events.size() - 1).sequence, file, ex.toString());
            return;
        }
        lastSequence = events.get(events.size() - 1).sequence;
        if (count == 0) {
            oldestSequence = events.get(0).sequence;
            oldestTime = Instant.parse(events.get(0).timestamp);
        }
        count += events.size();
        boolean tooMany = count > maxEvents + Math.max(64, maxEvents / 4);
        boolean tooOld = oldestTime.isBefore(clock.instant().minus(maxAgeWithSlack));
        if (tooMany || tooOld) compact();
    }

    /** Every event still kept, oldest first. */
    public List<VrEvent> read() {
        synchronized (this) {
            if (rewriteBeforeAppend != null) return rewriteBeforeAppend;
        }
        try {
            return readFile().events;
        } catch (NoSuchFileException gone) {
            return List.of();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the event log " + file, e);
        }
    }

    /** The sequence number of the newest event ever appended, 0 when none was. */
    public synchronized long lastSequence() {
        return lastSequence;
    }

    /** The sequence number of the oldest event kept, or empty when the log is empty. */
    public synchronized Optional<Long> oldestSequence() {
        return count == 0 ? Optional.empty() : Optional.of(oldestSequence);
    }

    /** The time of the oldest event kept, or empty when the log is empty. */
    public synchronized Optional<Instant> oldestTime() {
        return Optional.ofNullable(count == 0 ? null : oldestTime);
    }

    /** When the log was created (RFC 5277's replayLogCreationTime). */
    @Override
    public synchronized Instant created() {
        return created;
    }

    /** When events were last dropped for the limits (RFC 8639's replay-log-aged-time), or empty. */
    public synchronized Optional<Instant> agedAt() {
        return Optional.ofNullable(agedAt);
    }

    /**
     * Drops what is over the limits: rewrites the file beside itself and renames it into place. It
     * runs under the publishers' lock every few thousand events, so it copies the kept lines as they
     * are and reads only the events it needs (the oldest ones, for their age), instead of decoding
     * and encoding every event kept.
     */
    private void compact() {
        try {
            byte[] b = FileBytes.read(file);
            List<int[]> lines = eventLines(b);
            int from = Math.max(0, lines.size() - maxEvents);
            Instant horizon = clock.instant().minus(maxAge);
            Instant oldest = null;
            for (; from < lines.size(); from++) {
                oldest = time(b, lines.get(from));
                if (oldest != null && !oldest.isBefore(horizon)) break;
            }
            if (from > 0) agedAt = clock.instant();
            List<int[]> kept = lines.subList(from, lines.size());
            out.close();
            try {
                writeFile(sink -> {
                    for (int[] line : kept) {
                        sink.write(b, line[0], line[1] - line[0]);
                        sink.write('\n');
                    }
                });
            } finally {
                // the log as it is now, rewritten or (the rewrite failed) as it was
                out = new FileOutputStream(file.toFile(), true);
            }
            count = kept.size();
            if (count > 0) {
                oldestSequence = event(b, kept.get(0)).sequence;
                oldestTime = oldest;
            }
        } catch (IOException | RuntimeException e) {
            log.warn("cannot compact the event log {}: {}", file, e.toString());
        }
    }

    /** Where each event's line is in the file's bytes: [start, end) of every line but blank ones and the header. */
    private static List<int[]> eventLines(byte[] b) {
        List<int[]> lines = new ArrayList<>();
        for (int start = 0; start < b.length; ) {
            int end = start;
            while (end < b.length && b[end] != '\n') end++;
            if (end > start && !startsWith(b, start, HEADER_START)) lines.add(new int[] {start, end});
            start = end + 1;
        }
        return lines;
    }

    private static boolean startsWith(byte[] b, int at, byte[] prefix) {
        if (b.length - at < prefix.length) return false;
        for (int i = 0; i < prefix.length; i++) if (b[at + i] != prefix[i]) return false;
        return true;
    }

    private VrEvent event(byte[] b, int[] line) throws IOException {
        return json.readValue(b, line[0], line[1] - line[0], VrEvent.class);
    }

    /** When the event on a line happened; null for a line that is no event (a write cut short): compaction drops it. */
    private Instant time(byte[] b, int[] line) {
        try {
            return Instant.parse(event(b, line).timestamp);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private List<VrEvent> withinLimits(List<VrEvent> events) {
        Instant horizon = clock.instant().minus(maxAge);
        int from = Math.max(0, events.size() - maxEvents);
        while (from < events.size() && Instant.parse(events.get(from).timestamp).isBefore(horizon)) from++;
        return events.subList(from, events.size());
    }

    private void write(List<VrEvent> events) throws IOException {
        writeFile(sink -> {
            for (VrEvent e : events) {
                sink.write(json.writeValueAsBytes(e));
                sink.write('\n');
            }
        });
        remember(events);
    }

    /** What {@link #writeFile} writes after the header. */
    private interface Lines {
        void writeTo(java.io.OutputStream sink) throws IOException;
    }

    /** Writes the header and the lines to a file beside the log, forced to disk, and renames it over the log. */
    private void writeFile(Lines lines) throws IOException {
        Path tmp = file.resolveSibling(FILE + ".tmp");
        try (FileOutputStream ch = new FileOutputStream(tmp.toFile());
             java.io.BufferedOutputStream sink = new java.io.BufferedOutputStream(ch, 65536)) {
            ObjectNode header = json.createObjectNode();
            ObjectNode h = header.putObject(HEADER);
            h.put(FileFormat.FIELD, FORMAT);
            h.put("created", created.toString());
            if (agedAt != null) h.put("aged", agedAt.toString());
            // Kept even when every event has aged out, so that sequence numbers never go back.
            h.put("lastSequence", lastSequence);
            sink.write(json.writeValueAsBytes(header));
            sink.write('\n');
            lines.writeTo(sink);
            sink.flush();
            ch.getFD().sync();
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    private void remember(List<VrEvent> events) {
        count = events.size();
        if (count > 0) {
            oldestSequence = events.get(0).sequence;
            oldestTime = Instant.parse(events.get(0).timestamp);
            lastSequence = Math.max(lastSequence, events.get(count - 1).sequence);
        }
    }

    private record Contents(Instant created, Instant aged, long lastSequence, List<VrEvent> events, int unreadable) {
    }

    private Contents readFile() throws IOException {
        Instant c = null;
        Instant aged = null;
        long last = 0;
        List<VrEvent> events = new ArrayList<>();
        int unreadable = 0;
        if (!Files.exists(file)) return new Contents(null, null, 0, events, 0);
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line;
            int n = 0;
            while ((line = in.readLine()) != null) {
                n++;
                if (line.isBlank()) continue;
                if (line.startsWith("{\"" + HEADER + "\"")) requireReadableFormat(line, n);
                try {
                    JsonNode node = json.readTree(line);
                    if (node.has(HEADER)) {
                        c = Instant.parse(node.get(HEADER).path("created").asText());
                        if (node.get(HEADER).hasNonNull("aged")) aged = Instant.parse(node.get(HEADER).get("aged").asText());
                        last = node.get(HEADER).path("lastSequence").asLong(0);
                        continue;
                    }
                    VrEvent e = json.treeToValue(node, VrEvent.class);
                    Instant.parse(e.timestamp);
                    if (!events.isEmpty() && e.sequence <= events.get(events.size() - 1).sequence) {
                        throw new IOException("sequence " + e.sequence + " out of order");
                    }
                    events.add(e);
                    last = Math.max(last, e.sequence);
                } catch (IOException | RuntimeException bad) {
                    // Read while an append is half written, or a line torn by a crash: not an event.
                    unreadable++;
                    if (out == null) log.warn("{} line {} is not an event ({}): dropped", file, n, bad.getMessage());
                }
            }
        }
        return new Contents(c, aged, last, events, unreadable);
    }

    /** Refuses a log whose header states a format this release does not read (not dropped as a bad line). */
    private void requireReadableFormat(String headerLine, int n) {
        JsonNode stated;
        try {
            stated = json.readTree(headerLine).path(HEADER).get(FileFormat.FIELD);
        } catch (IOException unreadable) {
            return; // a damaged header is dropped like any bad line
        }
        FileFormat.readable(file, " line " + n, stated == null || !stated.canConvertToInt() ? null : stated.asInt(), FORMAT);
    }

    @Override
    public synchronized void close() {
        try {
            if (out != null) out.close();
        } catch (IOException e) {
            log.warn("closing the event log failed", e);
        }
    }
}
