package io.vrouter.xen;

import com.fasterxml.jackson.databind.JsonNode;
import io.vrouter.core.driver.DriverListener;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The host's objects kept current: loads every object of the classes followed into the
 * {@link XenCache}, then follows XenAPI's {@code event.from} on a thread of its own, resynchronising
 * after a lost feed, and tells the {@link DriverListener} of the changes made outside vrouter. Reads
 * ({@link XenReads}) never wait for the host; an operation of the driver waits here ({@link #settle})
 * until the feed shows what it did.
 */
final class XenEventFeed implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(XenEventFeed.class);
    static final List<String> EVENT_CLASSES = List.of("VM", "VM_metrics", "VIF", "VBD", "VDI", "network", "host");

    private final XenSettings settings;
    private final XenApiClient api;
    private final XenCache cache;
    private volatile DriverListener listener;
    private volatile boolean closed;
    /** Why the event feed is not current, or null while it is. */
    private volatile String feedProblem;
    private Thread events;

    XenEventFeed(XenSettings settings, XenApiClient api, XenCache cache) {
        this.settings = settings;
        this.api = api;
        this.cache = cache;
    }

    /** Loads the host's objects and starts following their events. */
    void start() throws XenApiException {
        String token = sync();
        events = new Thread(() -> follow(token), "xen-events");
        events.setDaemon(true);
        events.start();
    }

    /** Loads every object of the classes followed, with {@code event.from} and an empty token. */
    private String sync() throws XenApiException {
        JsonNode batch = api.call(settings.callTimeout(), "event.from", EVENT_CLASSES, "", 0.0);
        List<Runnable> notes = cache.replaceAll(batch.path("events"), listener);
        notes.forEach(Runnable::run);
        return batch.path("token").asText();
    }

    private void follow(String token) {
        long pause = settings.retryBackoff().toMillis();
        double wait = settings.eventTimeout().toMillis() / 1000.0;
        Duration httpTimeout = settings.eventTimeout().plus(settings.callTimeout());
        while (!closed) {
            try {
                JsonNode batch = api.call(httpTimeout, "event.from", EVENT_CLASSES, token, wait);
                for (Runnable note : cache.apply(batch.path("events"), listener)) note.run();
                token = batch.path("token").asText(token);
                pause = settings.retryBackoff().toMillis();
                feedProblem = null;
            } catch (XenApiException e) {
                if (closed) return;
                feedProblem = "XenAPI event feed from " + api.endpoint() + " lost: " + e.getMessage();
                log.warn("following XenAPI events failed: {}; resynchronising in {} ms", e.getMessage(), pause);
                try {
                    Thread.sleep(pause);
                    pause = Math.min(pause * 2, 10_000);
                    token = sync();
                } catch (InterruptedException ie) {
                    return;
                } catch (XenApiException again) {
                    log.debug("resynchronisation failed: {}", again.getMessage());
                }
            } catch (RuntimeException e) {
                if (closed) return;
                log.error("unexpected failure following XenAPI events", e);
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException ie) {
                    return;
                }
            }
        }
    }

    /** Why the feed is not current (so what is read may be stale), or empty while it is. */
    Optional<String> problem() {
        return Optional.ofNullable(feedProblem);
    }

    void setListener(DriverListener listener) {
        this.listener = listener;
    }

    /**
     * Waits until the event feed shows the VM as the operation left it, so that a read agrees with
     * what was just done; reads the VM directly when the feed is late.
     */
    void settle(int vmIndex, String vm, Predicate<JsonNode> done) {
        if (cache.await(vm, done, settings.callTimeout().toMillis())) return;
        log.debug("event feed late for VR {}; reading {} directly", vmIndex, vm);
        try {
            JsonNode rec = api.call("VM.get_record", vm);
            cache.put("vm_metrics", rec.path("metrics").asText(), api.call("VM_metrics.get_record", rec.path("metrics").asText()));
            for (JsonNode vif : rec.path("VIFs")) cache.put("vif", vif.asText(), api.call("VIF.get_record", vif.asText()));
            for (JsonNode vbd : rec.path("VBDs")) {
                JsonNode b = api.call("VBD.get_record", vbd.asText());
                cache.put("vbd", vbd.asText(), b);
                String vdi = b.path("VDI").asText("");
                if (vdi.startsWith("OpaqueRef:") && !vdi.equals("OpaqueRef:NULL")) cache.put("vdi", vdi, api.call("VDI.get_record", vdi));
            }
            cache.put("vm", vm, rec);
        } catch (XenApiException e) {
            log.debug("reading {} failed: {}", vm, e.getMessage());
        }
    }

    /** Stops following; the client is the driver's to close. */
    @Override
    public void close() {
        closed = true;
        if (events != null) events.interrupt();
    }
}
