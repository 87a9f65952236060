package io.vrouter.core.persistence;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;

/**
 * Whether the router is drained (ADR 0023), in the data directory's {@code drained.json}
 * ({@code {"format":1,"since":"2026-12-02T04:00:00Z"}}): there while drained, absent while open, so that
 * a drained router stays drained across a restart and a data directory of an earlier release is open.
 */
public final class DrainState {
    static final String FILE = "drained.json";
    private static final int NEWEST = 1;
    private static final ObjectMapper JSON = new ObjectMapper();

    private DrainState() {
    }

    /** Since when the router in {@code dataDir} is drained; empty: open. */
    public static Optional<Instant> read(Path dataDir) {
        Path file = dataDir.resolve(FILE);
        byte[] b;
        try {
            b = FileBytes.read(file);
        } catch (NoSuchFileException open) {
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
        FileFormat.readable(file, "", FileFormat.leadingVersion(b, 0, b.length), NEWEST);
        try {
            JsonNode since = JSON.readTree(b).get("since");
            return Optional.of(since == null ? Instant.EPOCH : Instant.parse(since.asText()));
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException(file + " is damaged (" + e.getMessage() + "): delete it to open the router,"
                    + " or write {\"format\":1,\"since\":\"" + Instant.now() + "\"} to keep it drained", e);
        }
    }

    /** Records the router as drained since {@code since}, or open (null), durably before it returns. */
    public static void write(Path dataDir, Instant since) {
        Path file = dataDir.resolve(FILE);
        try {
            if (since == null) {
                Files.deleteIfExists(file);
                return;
            }
            FileFormat.replaceDurably(file, ("{\"" + FileFormat.FIELD + "\":" + NEWEST + ",\"since\":\"" + since + "\"}\n")
                    .getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }
}
