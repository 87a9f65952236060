package io.vrouter.api.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vrouter.core.model.ModelJson;
import io.vrouter.core.persistence.FileFormat;
import io.vrouter.core.model.VirtualRouter;
import io.vrouter.core.model.VirtualRouterList;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import java.io.BufferedReader;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Idempotent creation (the IETF's Idempotency-Key header, draft-ietf-httpapi-idempotency-key-header):
 * a client that sends a creation again with the same key, because it never saw the answer, gets the
 * first answer again (the same VR, the same status) instead of a second VR or a 409. The same key
 * with another request is a 422; a key whose request is still running is a 409. Only answers that
 * created something (2xx) are kept: a refused request changed nothing, and may be sent again.
 *
 * <p>Keys are per user, kept for {@code rest.idempotency-window} (default 24 h, as the draft's
 * examples and Stripe), at most {@code rest.idempotency-max-keys} of them (default 10,000; the oldest
 * go first), in {@code idempotency-keys.log} in the data directory so that they survive a restart:
 * one JSON line per key, written and forced to disk before the answer goes out, compacted when the
 * file holds twice as many lines as keys kept.
 *
 * <p>A creation is begun with a line of its own, forced to disk before the creation is carried out,
 * and settled by its answer's line (or, refused, by a line that forgets it). The server killed in
 * between (issue 39: after the creation's journal record, before its answer was kept) leaves the key
 * begun and unsettled: sent again, the creation's VRs are looked for by the names it asked for
 * ({@code madeBefore}), and when they are there the request is answered with them, 202 as accepted,
 * instead of a 409 for names that the request itself took.
 */
final class IdempotencyKeys implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(IdempotencyKeys.class);
    static final String FILE = "idempotency-keys.log";
    /** The format every line states first (format 1 stated none). */
    static final int FORMAT = 2;
    static final String HEADER = "Idempotency-Key";
    /** An sf-string's characters (RFC 8941 §3.3.3), of a sensible length. */
    private static final Pattern KEY = Pattern.compile("[\\x20-\\x7e&&[^\"\\\\]]{1,255}");
    /** RFC 9110 §15.5.21. */
    static final Response.StatusType UNPROCESSABLE = new ProblemException.Status(422, "Unprocessable Content");

    /**
     * The first answer to a key: what it was asked with (a digest) and what it answered, its body as
     * JSON text: as a tree, 10,000 kept answers of batches did not fit the launcher's 64 MB heap.
     */
    private record Answer(String user, String key, String fingerprint, Instant at, int status, String location,
                          String preferenceApplied, String etag, String lastModified, String type, byte[] body) {
    }

    /** A creation begun under a key and never answered (the server stopped in between). */
    private record Begun(String user, String key, String fingerprint, Instant at) {
    }

    private final Path file;
    private final Duration window;
    private final int maxKeys;
    private final Clock clock;
    private final ObjectMapper json = ModelJson.mapper();
    /** By user and key, oldest first. */
    private final LinkedHashMap<String, Answer> answers = new LinkedHashMap<>();
    private final Set<String> running = new HashSet<>();
    /**
     * Creations begun and not settled, by user and key: under way now (their key is running), or when
     * the server last stopped (it died in between). Compaction keeps them.
     */
    private final LinkedHashMap<String, Begun> begun = new LinkedHashMap<>();
    private FileOutputStream out;
    private int lines;

    IdempotencyKeys(Path dataDir, Duration window, int maxKeys) {
        this(dataDir, window, maxKeys, Clock.systemUTC());
    }

    IdempotencyKeys(Path dataDir, Duration window, int maxKeys, Clock clock) {
        this.file = dataDir.resolve(FILE);
        this.window = window;
        this.maxKeys = Math.max(1, maxKeys);
        this.clock = clock;
        try {
            Files.createDirectories(dataDir);
            load();
            compact();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open " + file, e);
        }
    }

    /**
     * Runs a creation under the request's Idempotency-Key (none: just runs it). {@code request} is
     * what identifies the request besides the key: its method, path and body as parsed.
     * {@code madeBefore} is the answer made from the VRs the request names when they all exist (else
     * empty): asked only for a key whose creation was begun and never answered, so that a creation
     * carried out just before the server died answers with its VRs when sent again.
     */
    Response once(String key, String user, String method, String path, Object body, Supplier<Response> creation,
                  Supplier<Optional<Response>> madeBefore) {
        if (key == null) return creation.get();
        if (!KEY.matcher(key).matches()) {
            throw new ProblemException(Response.Status.BAD_REQUEST, HEADER + " must be 1 to 255 visible ASCII"
                    + " characters, without quotes or backslashes", HEADER, null);
        }
        String id = user + "\n" + key;
        String fingerprint = fingerprint(method, path, body);
        synchronized (this) {
            Answer first = answers.get(id);
            if (first != null && expired(first)) {
                answers.remove(id);
                first = null;
            }
            if (first != null) {
                if (!first.fingerprint.equals(fingerprint)) {
                    throw new ProblemException(UNPROCESSABLE, "this " + HEADER + " was used"
                            + " with another request: a key names one request", HEADER, null);
                }
                return replay(first);
            }
            if (!running.add(id)) {
                throw new ProblemException(Response.Status.CONFLICT, "the request with this " + HEADER
                        + " is still being carried out", HEADER, null);
            }
        }
        try {
            if (unsettled(id, fingerprint)) {
                Optional<Response> made = madeBefore.get();
                if (made.isPresent()) {
                    keep(answer(user, key, fingerprint, made.get()));
                    return Response.fromResponse(made.get()).header("Idempotent-Replayed", "true").build();
                }
            }
            begin(new Begun(user, key, fingerprint, clock.instant()));
            Response r;
            try {
                r = creation.get();
            } catch (RuntimeException | Error refused) {
                settle(id, user, key);
                throw refused;
            }
            if (r.getStatusInfo().getFamily() == Response.Status.Family.SUCCESSFUL) {
                keep(answer(user, key, fingerprint, r));
            } else {
                settle(id, user, key);
            }
            return r;
        } finally {
            synchronized (this) {
                running.remove(id);
            }
        }
    }

    private Answer answer(String user, String key, String fingerprint, Response r) {
        return new Answer(user, key, fingerprint, clock.instant(), r.getStatus(),
                r.getLocation() == null ? null : r.getLocation().toString(),
                r.getHeaderString("Preference-Applied"), r.getHeaderString(HttpHeaders.ETAG),
                r.getHeaderString(HttpHeaders.LAST_MODIFIED), type(r.getEntity()), bytes(r.getEntity()));
    }

    private synchronized boolean unsettled(String id, String fingerprint) {
        Begun b = begun.get(id);
        return b != null && b.fingerprint.equals(fingerprint) && !b.at.plus(window).isBefore(clock.instant());
    }

    /** Records, on disk before the creation is carried out, that it is under way. */
    private synchronized void begin(Begun b) {
        String id = b.user + "\n" + b.key;
        begun.remove(id);
        begun.put(id, b);
        write(line(b.user, b.key).put("fingerprint", b.fingerprint).put("at", b.at.toString()).put("begun", true));
    }

    /**
     * Forgets a creation begun and refused (or failed), on disk before the refusal goes out: sent
     * again, its names are not taken for its own (they may be another request's, which refused it).
     */
    private synchronized void settle(String id, String user, String key) {
        begun.remove(id);
        write(line(user, key).put("settled", true));
    }

    private ObjectNode line(String user, String key) {
        return json.createObjectNode().put(FileFormat.FIELD, FORMAT).put("user", user).put("key", key);
    }

    /** Appends a line and forces it to disk; a failure is logged (only a retry after a restart would miss it). */
    private void write(ObjectNode line) {
        try {
            out.write((json.writeValueAsString(line) + "\n").getBytes(StandardCharsets.UTF_8));
            out.getFD().sync();
            if (++lines > 2 * maxKeys) compact();
        } catch (IOException e) {
            log.warn("cannot keep Idempotency-Key in {}: {}", file, e.toString());
        }
    }

    private byte[] bytes(Object body) {
        try {
            return json.writeValueAsBytes(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private JsonNode tree(byte[] body) {
        try {
            return json.readTree(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Response replay(Answer a) {
        Object entity;
        try {
            Class<?> type = a.type.equals("list") ? VirtualRouterList.class : VirtualRouter.class;
            entity = json.readValue(a.body, type);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Response.ResponseBuilder r = Response.status(a.status).entity(entity).header("Idempotent-Replayed", "true");
        if (a.location != null) r.header("Location", a.location);
        if (a.preferenceApplied != null) r.header("Preference-Applied", a.preferenceApplied);
        // The replayed representation's validators, as first sent (a key kept before they were kept has none).
        if (a.etag != null) r.header(HttpHeaders.ETAG, a.etag);
        if (a.lastModified != null) r.header(HttpHeaders.LAST_MODIFIED, a.lastModified);
        return r.build();
    }

    private static String type(Object entity) {
        return entity instanceof VirtualRouterList ? "list" : "router";
    }

    private String fingerprint(String method, String path, Object body) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update((method + " " + path + "\n").getBytes(StandardCharsets.UTF_8));
            sha.update(json.writeValueAsBytes(body));
            return HexFormat.of().formatHex(sha.digest());
        } catch (NoSuchAlgorithmException | IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private boolean expired(Answer a) {
        return a.at.plus(window).isBefore(clock.instant());
    }

    /** Keeps an answer: on disk (forced) and in memory, within the bounds. */
    private synchronized void keep(Answer a) {
        String id = a.user + "\n" + a.key;
        answers.remove(id);
        answers.put(id, a);
        begun.remove(id);
        trim();
        // The VR is created all the same when this fails; only a retry after a restart would not find the key.
        write(line(a));
    }

    private void trim() {
        var it = answers.values().iterator();
        while (it.hasNext()) {
            Answer oldest = it.next();
            if (answers.size() <= maxKeys && !expired(oldest)) break;
            it.remove();
        }
        begun.values().removeIf(b -> b.at.plus(window).isBefore(clock.instant()));
    }

    private ObjectNode line(Answer a) {
        ObjectNode n = line(a.user, a.key);
        n.put("fingerprint", a.fingerprint).put("at", a.at.toString())
                .put("status", a.status).put("location", a.location).put("preferenceApplied", a.preferenceApplied)
                .put("etag", a.etag).put("lastModified", a.lastModified).put("type", a.type).set("body", tree(a.body));
        return n;
    }

    /** Reads the file a line at a time: a file of many kept answers is never held whole (the heap is 64 MB). */
    private void load() throws IOException {
        readLines(file, json, (number, n) -> {
            try {
                String id = n.get("user").asText() + "\n" + n.get("key").asText();
                if (n.has("settled")) {
                    begun.remove(id);
                } else if (n.has("begun")) {
                    begun.remove(id);
                    begun.put(id, new Begun(n.get("user").asText(), n.get("key").asText(), n.get("fingerprint").asText(),
                            Instant.parse(n.get("at").asText())));
                } else {
                    Answer a = new Answer(n.get("user").asText(), n.get("key").asText(), n.get("fingerprint").asText(),
                            Instant.parse(n.get("at").asText()), n.get("status").asInt(), text(n, "location"),
                            text(n, "preferenceApplied"), text(n, "etag"), text(n, "lastModified"),
                            n.get("type").asText(), bytes(n.has(FileFormat.FIELD) ? n.get("body") : format1Body(n.get("body"))));
                    answers.remove(id);
                    answers.put(id, a);
                    begun.remove(id);
                }
            } catch (RuntimeException torn) {
                log.warn("{} line {}: a line that cannot be read is dropped", file, number);
            }
        });
        trim();
    }

    /**
     * A body kept by format 1, in today's words: format 1 spelled vmStorageAccess {@code readWrite}
     * and {@code readOnly}, where RFC 7666 (and so format 2) has {@code readwrite} and {@code readonly}.
     */
    private static JsonNode format1Body(JsonNode body) {
        if (body == null) return null;
        for (JsonNode storage : body.findParents("vmStorageAccess")) {
            String access = storage.get("vmStorageAccess").asText();
            if (access.equals("readWrite") || access.equals("readOnly")) {
                ((ObjectNode) storage).put("vmStorageAccess", access.toLowerCase(java.util.Locale.ROOT));
            }
        }
        return body;
    }

    /**
     * Refuses kept keys in a format this release does not read, writing nothing: the REST
     * interface's check, before the server writes anything at start-up.
     */
    static void check(Path dataDir) throws IOException {
        readLines(dataDir.resolve(FILE), ModelJson.mapper(), (number, line) -> { });
    }

    /**
     * Hands each line of the file, as JSON (null for a line that is not), with its number to {@code each},
     * one at a time; refuses a line in a newer format rather than dropping it.
     */
    private static void readLines(Path file, ObjectMapper json, BiConsumer<Integer, JsonNode> each) throws IOException {
        int number = 0;
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            for (String l; (l = in.readLine()) != null; ) {
                number++;
                JsonNode n;
                try {
                    n = json.readTree(l);
                } catch (IOException torn) {
                    n = null;
                }
                JsonNode stated = n == null ? null : n.get(FileFormat.FIELD);
                if (stated != null) FileFormat.readable(file, " line " + number, stated.asInt(), FORMAT);
                each.accept(number, n);
            }
        } catch (NoSuchFileException none) {
            // No key kept yet.
        }
    }

    private static String text(JsonNode n, String field) {
        JsonNode v = n.get(field);
        return v == null || v.isNull() ? null : v.asText();
    }

    /** Writes the kept answers (and the creations begun and never answered) to a new file that replaces the old one whole. */
    private void compact() throws IOException {
        if (out != null) out.close();
        Path next = file.resolveSibling(FILE + ".new");
        try (FileOutputStream o = new FileOutputStream(next.toFile())) {
            for (Answer a : answers.values()) o.write((json.writeValueAsString(line(a)) + "\n").getBytes(StandardCharsets.UTF_8));
            for (Begun b : begun.values()) {
                ObjectNode n = line(b.user, b.key).put("fingerprint", b.fingerprint).put("at", b.at.toString()).put("begun", true);
                o.write((json.writeValueAsString(n) + "\n").getBytes(StandardCharsets.UTF_8));
            }
            o.getFD().sync();
        }
        Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        lines = answers.size() + begun.size();
        out = new FileOutputStream(file.toFile(), true);
    }

    @Override
    public synchronized void close() {
        try {
            if (out != null) out.close();
        } catch (IOException e) {
            log.warn("closing {}: {}", file, e.toString());
        }
    }
}
