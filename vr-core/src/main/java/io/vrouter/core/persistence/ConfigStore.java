package io.vrouter.core.persistence;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vrouter.core.model.ModelJson;
import io.vrouter.core.model.VmConfigEntry;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps what the operator asked for (the vmConfigTable rows) in the data directory, so that no
 * acknowledged request is lost, even to {@code kill -9}.
 *
 * <p>Each change is one JSON line appended to {@code config.journal} and forced to disk before the
 * call returns; the service acknowledges a request only after that. When the journal has grown well
 * past the number of rows, the rows are written to {@code config.snapshot.json} (via a temporary file
 * and an atomic rename) and the journal starts again. A torn last line, from a crash in the middle of
 * an append, belongs to a request that was never acknowledged and is dropped.
 */
public final class ConfigStore implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ConfigStore.class);
    private static final String SNAPSHOT = "config.snapshot.json";
    private static final String JOURNAL = "config.journal";

    /** One stored row: the configuration and whether its removal was asked for and not yet done. */
    public record StoredVr(VmConfigEntry config, boolean removing) {
    }

    private final Path dir;
    private final ObjectMapper json = ModelJson.mapper();
    private final Map<Integer, StoredVr> rows = new TreeMap<>();
    private FileChannel journal;
    private int journalLines;

    public ConfigStore(Path dir) {
        this.dir = dir;
    }

    /** Reads the snapshot and replays the journal; returns the rows in vmIndex order. */
    public synchronized List<StoredVr> open() {
        try {
            Files.createDirectories(dir);
            Path snapshot = dir.resolve(SNAPSHOT);
            if (Files.exists(snapshot)) {
                for (StoredVr vr : json.readValue(snapshot.toFile(), StoredVr[].class)) {
                    rows.put(vr.config().vmIndex, vr);
                }
            }
            Path journalFile = dir.resolve(JOURNAL);
            if (Files.exists(journalFile)) replay(journalFile);
            compact();
            return new ArrayList<>(rows.values());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the configuration in " + dir, e);
        }
    }

    private void replay(Path journalFile) throws IOException {
        try (BufferedReader in = Files.newBufferedReader(journalFile, StandardCharsets.UTF_8)) {
            String line;
            int n = 0;
            while ((line = in.readLine()) != null) {
                n++;
                if (line.isBlank()) continue;
                ObjectNode entry;
                try {
                    entry = (ObjectNode) json.readTree(line);
                } catch (JsonProcessingException e) {
                    log.warn("{} line {} is torn (a write cut short by a crash, never acknowledged); dropped",
                            journalFile, n);
                    break;
                }
                if (entry.has("remove")) {
                    rows.remove(entry.get("remove").asInt());
                } else {
                    StoredVr vr = json.treeToValue(entry.get("put"), StoredVr.class);
                    rows.put(vr.config().vmIndex, vr);
                }
            }
        }
    }

    /** Records a row (new or changed); durable when this returns. */
    public synchronized void put(VmConfigEntry config, boolean removing) {
        StoredVr vr = new StoredVr(config, removing);
        ObjectNode line = json.createObjectNode();
        line.set("put", json.valueToTree(vr));
        append(line);
        rows.put(config.vmIndex, vr);
    }

    /** Records several rows with one write and one flush, all or none. */
    public synchronized void putAll(Collection<VmConfigEntry> configs) {
        StringBuilder lines = new StringBuilder();
        for (VmConfigEntry c : configs) {
            ObjectNode line = json.createObjectNode();
            line.set("put", json.valueToTree(new StoredVr(c, false)));
            lines.append(line).append('\n');
        }
        write(lines.toString(), configs.size());
        for (VmConfigEntry c : configs) rows.put(c.vmIndex, new StoredVr(c, false));
    }

    /** Forgets a row; durable when this returns. */
    public synchronized void remove(int vmIndex) {
        ObjectNode line = json.createObjectNode();
        line.put("remove", vmIndex);
        append(line);
        rows.remove(vmIndex);
    }

    private void append(ObjectNode line) {
        write(line + "\n", 1);
    }

    private void write(String text, int lines) {
        try {
            ByteBuffer bytes = ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
            while (bytes.hasRemaining()) journal.write(bytes);
            journal.force(false);
            journalLines += lines;
            if (journalLines > 1000 && journalLines > 2 * rows.size()) compact();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the configuration journal in " + dir, e);
        }
    }

    /** Writes every row to a fresh snapshot and starts an empty journal. */
    private void compact() throws IOException {
        Path tmp = dir.resolve(SNAPSHOT + ".tmp");
        try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            out.write(ByteBuffer.wrap(json.writeValueAsBytes(rows.values())));
            out.force(true);
        }
        Files.move(tmp, dir.resolve(SNAPSHOT), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        if (journal != null) journal.close();
        journal = FileChannel.open(dir.resolve(JOURNAL), StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING);
        journal.force(true);
        journalLines = 0;
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
