package io.vrouter.core.persistence;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vrouter.core.model.Commit;
import io.vrouter.core.model.ModelJson;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The history of committed change sets (docs/adr/0021-history-and-rollback.md), the last
 * {@code depth} of them, kept in {@code commits.log} in the data directory across restarts.
 *
 * <p>The file is a header line (its format and the last number given, so that numbers never go
 * back) and one JSON line per commit, or per commit undone later ({@code {"undone":N,"reason":...}}).
 * A line is written at once, not forced to disk, as the replay log's events are: the operating system
 * has it when the process dies, {@code kill -9} included; a power failure may cost the last few. A
 * line that cannot be read (torn by a crash) is dropped with a warning at opening, and the file
 * written without it at the next commit (opening writes nothing, so that a start refused for another
 * file leaves the data directory as it was). When the lines
 * reach twice the depth (at least depth + 16), the file is rewritten with the last {@code depth} commits
 * beside it, forced to disk, and renamed over it, so that a crash leaves the old file or the new.
 * Without a directory ({@link #inMemory}) it keeps the same history in memory only.
 */
public final class CommitLog implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(CommitLog.class);
    public static final String FILE = "commits.log";
    private static final String HEADER = "vrouterCommitLog";
    static final int FORMAT = 1;

    private final Path file;
    private final int depth;
    private final ObjectMapper json = ModelJson.mapper();
    private final Deque<Commit> kept = new ArrayDeque<>();
    private long lastNumber;
    private int lines;
    /** The file is to be written anew (it is missing, or has lines to drop) at the first write, not at opening. */
    private boolean rewriteFirst;
    private FileOutputStream out;

    private CommitLog(Path file, int depth) {
        if (depth < 1) throw new IllegalArgumentException("setting 'history.depth' must be at least 1, not " + depth);
        this.file = file;
        this.depth = depth;
    }

    /** Opens (or creates) the history in the data directory, keeping the last {@code depth} commits. */
    public static CommitLog open(Path dataDir, int depth) {
        CommitLog l = new CommitLog(dataDir.resolve(FILE), depth);
        try {
            Files.createDirectories(dataDir);
            l.load();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the commit history " + l.file, e);
        }
        return l;
    }

    /** A history of the last {@code depth} commits kept in memory only (tests, and a core without a data directory). */
    public static CommitLog inMemory(int depth) {
        return new CommitLog(null, depth);
    }

    public int depth() {
        return depth;
    }

    /** Numbers the commit (one more than the last), keeps it, and appends it to the file. */
    public synchronized Commit append(Commit c) {
        c.number = ++lastNumber;
        kept.addLast(c);
        while (kept.size() > depth) kept.removeFirst();
        write(c);
        return c;
    }

    /** Marks a kept commit undone, with why. */
    public synchronized void undone(long number, String reason) {
        for (Commit c : kept) {
            if (c.number == number) c.undone = reason;
        }
        ObjectNode line = json.createObjectNode();
        line.put("undone", number);
        line.put("reason", reason);
        write(line);
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

    private void write(Object line) {
        if (file == null) return;
        try {
            // The rewrite is forced to disk on the accepting thread: once every depth commits (at least
            // 16), not every few, keeps its cost per change small.
            if (++lines > depth + Math.max(16, depth) || rewriteFirst) {
                rewrite();
                return;
            }
            if (out == null) out = new FileOutputStream(file.toFile(), true);
            ByteArrayOutputStream b = new ByteArrayOutputStream(512);
            b.write(json.writeValueAsBytes(line));
            b.write('\n');
            b.writeTo(out);
        } catch (IOException e) {
            // The history must not stop the VRs' lifecycle: the change is in the journal either way.
            log.warn("cannot write the commit history {}: {}", file, e.toString());
        }
    }

    /** Writes the header and the commits kept beside the file, forced to disk, and renames it over the file. */
    private void rewrite() throws IOException {
        if (out != null) {
            out.close();
            out = null;
        }
        Path tmp = file.resolveSibling(FILE + ".tmp");
        try (FileOutputStream ch = new FileOutputStream(tmp.toFile())) {
            ByteArrayOutputStream b = new ByteArrayOutputStream(4096);
            ObjectNode header = json.createObjectNode();
            header.putObject(HEADER).put(FileFormat.FIELD, FORMAT).put("lastNumber", lastNumber);
            b.write(json.writeValueAsBytes(header));
            b.write('\n');
            for (Commit c : kept) {
                b.write(json.writeValueAsBytes(c));
                b.write('\n');
            }
            b.writeTo(ch);
            ch.getFD().sync();
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        lines = kept.size();
        rewriteFirst = false;
    }

    private void load() throws IOException {
        // Written at the first commit, not now: a start refused later (a damaged journal) writes nothing.
        if (!Files.exists(file)) {
            rewriteFirst = true;
            return;
        }
        int unreadable = 0;
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
                        FileFormat.readable(file, " line " + n, stated == null ? null : stated.asInt(), FORMAT);
                        lastNumber = Math.max(lastNumber, node.get(HEADER).path("lastNumber").asLong(0));
                    } else if (node.has("undone")) {
                        long number = node.get("undone").asLong();
                        for (Commit c : kept) {
                            if (c.number == number) c.undone = node.path("reason").asText();
                        }
                    } else {
                        Commit c = json.treeToValue(node, Commit.class);
                        if (!kept.isEmpty() && c.number <= kept.peekLast().number) {
                            throw new IOException("commit " + c.number + " out of order");
                        }
                        kept.addLast(c);
                        lastNumber = Math.max(lastNumber, c.number);
                        while (kept.size() > depth) kept.removeFirst();
                    }
                } catch (IOException | RuntimeException bad) {
                    if (bad instanceof IllegalStateException) throw bad; // a format this release does not read
                    unreadable++;
                    log.warn("{} line {} is not a commit ({}): dropped", file, n, bad.getMessage());
                }
            }
            lines = n;
        }
        // A torn line would spoil the next append's line: written without it at the first write.
        rewriteFirst = unreadable > 0;
    }

    @Override
    public synchronized void close() {
        try {
            if (out != null) out.close();
        } catch (IOException e) {
            log.warn("closing the commit history failed", e);
        }
    }

    /** The commits as lines, for tests that look at the file. */
    static List<String> linesOf(Path dataDir) throws IOException {
        return new ArrayList<>(Files.readAllLines(dataDir.resolve(FILE)));
    }
}
