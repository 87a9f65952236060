package io.vrouter.core.persistence;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vrouter.core.model.Commit;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The history of committed change sets (docs/adr/0021-history-and-rollback.md), the last
 * {@code depth} of them, numbered without ever going back.
 *
 * <p>It is kept durable by the configuration store ({@link ConfigStore#history}): each commit, and each
 * mark of a commit undone later, travels in the journal record of its change set (one write, one
 * fsync), and the snapshot carries the commits kept and the last number. This class only holds them;
 * it reads the {@code commits.log} that releases before the journal carried the history wrote, for
 * the store to migrate ({@link #readPrevious}).
 */
public final class CommitLog {
    private static final Logger log = LoggerFactory.getLogger(CommitLog.class);
    /** The file the history was kept in before the journal's records carried it (format 1, read to migrate). */
    public static final String FILE = "commits.log";
    private static final String HEADER = "vrouterCommitLog";
    private static final int PREVIOUS_FORMAT = 1;
    /** How many commits the history keeps when the setting does not say. */
    public static final int DEFAULT_DEPTH = 50;

    private final int depth;
    private final Deque<Commit> kept = new ArrayDeque<>();
    private long lastNumber;

    CommitLog(int depth) {
        if (depth < 1) throw new IllegalArgumentException("setting 'history.depth' must be at least 1, not " + depth);
        this.depth = depth;
    }

    public int depth() {
        return depth;
    }

    /** Keeps a commit the store has made durable (its number given by {@link #nextNumber}). */
    synchronized void add(Commit c) {
        if (!kept.isEmpty() && c.number <= kept.peekLast().number) return; // replayed twice: held already
        kept.addLast(c);
        lastNumber = Math.max(lastNumber, c.number);
        while (kept.size() > depth) kept.removeFirst();
    }

    /** The number the next commit gets. */
    synchronized long nextNumber() {
        return lastNumber + 1;
    }

    /** Marks a kept commit undone, with why. */
    synchronized void undone(long number, String reason) {
        for (Commit c : kept) {
            if (c.number == number) c.undone = reason;
        }
    }

    /** Starts from what a snapshot holds. */
    synchronized void restore(long last, Collection<Commit> commits) {
        kept.clear();
        lastNumber = last;
        for (Commit c : commits) add(c);
    }

    /** The commits kept, oldest first. */
    public synchronized List<Commit> all() {
        return List.copyOf(kept);
    }

    public synchronized Optional<Commit> get(long number) {
        return kept.stream().filter(c -> c.number == number).findFirst();
    }

    /** The number of the newest commit ever made, 0 before the first. */
    public synchronized long lastNumber() {
        return lastNumber;
    }

    /**
     * Reads the history a previous release kept in {@code commits.log} (a header line with its format
     * and the last number, one JSON line per commit or per {@code {"undone":N,"reason":...}}); a line
     * that cannot be read (torn by a crash) is dropped with a warning, as that release did.
     *
     * @throws IllegalStateException when the file states a format this release does not read
     */
    void readPrevious(Path file, ObjectMapper json) throws IOException {
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line;
            int n = 0;
            while ((line = in.readLine()) != null) {
                n++;
                if (line.isBlank()) continue;
                try {
                    JsonNode node = json.readTree(line);
                    if (node.has(HEADER)) {
                        JsonNode stated = node.get(HEADER).get(FileFormat.FIELD);
                        FileFormat.readable(file, " line " + n, stated == null ? null : stated.asInt(), PREVIOUS_FORMAT);
                        synchronized (this) {
                            lastNumber = Math.max(lastNumber, node.get(HEADER).path("lastNumber").asLong(0));
                        }
                    } else if (node.has("undone")) {
                        undone(node.get("undone").asLong(), node.path("reason").asText());
                    } else {
                        Commit c = json.treeToValue(node, Commit.class);
                        if (c.number <= lastNumberKept()) throw new IOException("commit " + c.number + " out of order");
                        add(c);
                    }
                } catch (IOException | RuntimeException bad) {
                    if (bad instanceof IllegalStateException) throw bad; // a format this release does not read
                    log.warn("{} line {} is not a commit ({}): dropped", file, n, bad.getMessage());
                }
            }
        }
    }

    private synchronized long lastNumberKept() {
        return kept.isEmpty() ? 0 : kept.peekLast().number;
    }
}
