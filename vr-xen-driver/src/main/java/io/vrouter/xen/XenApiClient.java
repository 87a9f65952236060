package io.vrouter.xen;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A small XenAPI client for the JSON-RPC 2.0 endpoint ({@code POST /jsonrpc}) that XenServer and
 * XCP-ng serve since 7.3: one request object {@code {"jsonrpc":"2.0","method":...,"params":[...],"id":n}},
 * one reply carrying {@code result} or {@code error: {code, message: XENAPI_ERROR_CODE, data: [params]}}.
 *
 * <p>It keeps one session: logs in on first use, logs in again when a call answers
 * {@code SESSION_INVALID}, and retries transient failures (no connection, a timeout,
 * {@code HOST_STILL_BOOTING}, {@code OTHER_OPERATION_IN_PROGRESS}) with exponential backoff, but only
 * for calls that are safe to repeat. Every call has a timeout. Thread-safe.
 */
public final class XenApiClient implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(XenApiClient.class);
    /** XenAPI version string sent at login; the API accepts any. */
    static final String API_VERSION = "2.0";
    static final String ORIGINATOR = "vrouter";

    private final URI endpoint;
    private final String username;
    private final String password;
    private final Duration callTimeout;
    private final int retries;
    private final Duration backoff;
    private final HttpClient http;
    private final ObjectMapper json = new ObjectMapper();
    private final AtomicLong ids = new AtomicLong();
    private final Object loginLock = new Object();
    private volatile String session;
    private volatile boolean closed;
    private volatile int logins;

    /**
     * @param tls the TLS context for an {@code https} URL (the host's certificate or its CA trusted),
     *            or null for the JDK's default trust store
     */
    public XenApiClient(URI url, String username, String password, Duration callTimeout, int retries, Duration backoff,
                        SSLContext tls) {
        String base = url.toString();
        this.endpoint = URI.create(base.endsWith("/jsonrpc") ? base : (base.endsWith("/") ? base : base + "/") + "jsonrpc");
        this.username = username;
        this.password = password;
        this.callTimeout = callTimeout;
        this.retries = retries;
        this.backoff = backoff;
        HttpClient.Builder b = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(callTimeout);
        if (tls != null) b.sslContext(tls);
        this.http = b.build();
    }

    public ObjectMapper json() {
        return json;
    }

    public URI endpoint() {
        return endpoint;
    }

    /** How many times the client has logged in; a second login means a session expired. */
    public int logins() {
        return logins;
    }

    /** Logs in now, so that bad credentials or a wrong URL show at start-up. */
    public void login() throws XenApiException {
        synchronized (loginLock) {
            JsonNode ref = withRetries("session.login_with_password", true, () ->
                    rpc("session.login_with_password", List.of(username, password, API_VERSION, ORIGINATOR), callTimeout));
            session = ref.asText();
            logins++;
        }
    }

    /** Calls a method that takes the session as its first parameter. */
    public JsonNode call(String method, Object... args) throws XenApiException {
        return call(callTimeout, method, args);
    }

    /** {@link #call(String, Object...)} with a timeout of its own (for {@code event.from}). */
    public JsonNode call(Duration timeout, String method, Object... args) throws XenApiException {
        boolean repeatable = isRepeatable(method);
        return withRetries(method, repeatable, () -> {
            String s = currentSession();
            List<Object> params = new ArrayList<>(args.length + 1);
            params.add(s);
            params.addAll(List.of(args));
            try {
                return rpc(method, params, timeout);
            } catch (XenApiException e) {
                if (!"SESSION_INVALID".equals(e.code())) throw e;
                log.info("XenAPI session expired; logging in again");
                renewSession(s);
                params.set(0, session);
                return rpc(method, params, timeout);
            }
        });
    }

    /** Reads, field getters, event and task calls can be sent again; a clone or a create cannot. */
    static boolean isRepeatable(String method) {
        String op = method.substring(method.lastIndexOf('.') + 1);
        return op.startsWith("get_") || method.startsWith("event.") || method.startsWith("task.")
                || method.startsWith("session.");
    }

    private String currentSession() throws XenApiException {
        if (closed) throw new XenApiException(XenApiException.TRANSPORT, "the client is closed", null);
        String s = session;
        if (s == null) {
            login();
            s = session;
        }
        return s;
    }

    private void renewSession(String expired) throws XenApiException {
        synchronized (loginLock) {
            if (expired.equals(session) || session == null) login();
        }
    }

    private interface Attempt {
        JsonNode run() throws XenApiException;
    }

    private JsonNode withRetries(String method, boolean repeatable, Attempt attempt) throws XenApiException {
        long pause = backoff.toMillis();
        for (int i = 0; ; i++) {
            try {
                return attempt.run();
            } catch (XenApiException e) {
                // A request that never reached the host can always be sent again.
                boolean notSent = e.getCause() instanceof java.net.ConnectException;
                boolean retry = e.isTransient() && (repeatable || notSent || !isTransportLevel(e));
                if (!retry || i >= retries) throw e;
                log.debug("XenAPI {} failed ({}), retrying in {} ms", method, e.code(), pause);
                try {
                    Thread.sleep(pause);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new XenApiException(XenApiException.TRANSPORT, "interrupted", ie);
                }
                pause = Math.min(pause * 2, 5_000);
            }
        }
    }

    private static boolean isTransportLevel(XenApiException e) {
        return XenApiException.TRANSPORT.equals(e.code()) || XenApiException.TIMEOUT.equals(e.code());
    }

    private JsonNode rpc(String method, List<Object> params, Duration timeout) throws XenApiException {
        ObjectNode req = json.createObjectNode();
        req.put("jsonrpc", "2.0");
        req.put("method", method);
        ArrayNode p = req.putArray("params");
        for (Object o : params) p.add(json.valueToTree(o));
        long id = ids.incrementAndGet();
        req.put("id", id);
        HttpRequest request = HttpRequest.newBuilder(endpoint).timeout(timeout)
                .header("Content-Type", "application/json").header("Accept", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(req.toString())).build();
        HttpResponse<String> resp;
        long t0 = System.nanoTime();
        try {
            resp = http.send(request, HttpResponse.BodyHandlers.ofString());
            if (log.isDebugEnabled()) log.debug("{} took {} ms", method, (System.nanoTime() - t0) / 1_000_000);
        } catch (HttpTimeoutException e) {
            throw new XenApiException(XenApiException.TIMEOUT, method + " had no reply in " + timeout.toMillis() + " ms", e);
        } catch (IOException e) {
            log.debug("{} failed after {} ms: {}", method, (System.nanoTime() - t0) / 1_000_000, e.toString());
            throw new XenApiException(XenApiException.TRANSPORT, method + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new XenApiException(XenApiException.TRANSPORT, method + " interrupted", e);
        }
        if (resp.statusCode() != 200) {
            throw new XenApiException(XenApiException.TRANSPORT, method + ": HTTP " + resp.statusCode(), null);
        }
        JsonNode reply;
        try {
            reply = json.readTree(resp.body());
        } catch (IOException e) {
            throw new XenApiException(XenApiException.TRANSPORT, method + ": malformed reply", e);
        }
        if (reply.hasNonNull("error")) {
            JsonNode err = reply.get("error");
            List<String> data = new ArrayList<>();
            if (err.isArray()) {
                // JSON-RPC 1.0 form: [CODE, params...]
                for (JsonNode d : err) data.add(d.asText());
                String code = data.isEmpty() ? "INTERNAL_ERROR" : data.remove(0);
                throw new XenApiException(code, data);
            }
            err.path("data").forEach(d -> data.add(d.asText()));
            throw new XenApiException(err.path("message").asText("INTERNAL_ERROR"), data);
        }
        if (!reply.has("result")) {
            throw new XenApiException(XenApiException.TRANSPORT, method + ": reply without result", null);
        }
        return reply.get("result");
    }

    /** Logs out, best effort. */
    @Override
    public void close() {
        closed = true;
        String s = session;
        session = null;
        if (s == null) return;
        try {
            rpc("session.logout", List.of(s), Duration.ofSeconds(2));
        } catch (XenApiException e) {
            log.debug("logout failed: {}", e.getMessage());
        }
    }

    /** A {@code (string -> string) map} parameter. */
    public static Map<String, String> map(String... kv) {
        Map<String, String> m = new java.util.LinkedHashMap<>();
        for (int i = 0; i + 1 < kv.length; i += 2) m.put(kv[i], kv[i + 1]);
        return m;
    }
}
