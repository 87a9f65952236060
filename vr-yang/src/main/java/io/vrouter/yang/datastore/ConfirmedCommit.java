package io.vrouter.yang.datastore;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vrouter.core.model.ModelJson;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.config.Caller;
import io.vrouter.core.config.Credentials;
import io.vrouter.core.spi.ChangeSet;
import io.vrouter.core.spi.VrException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The confirmed commit (RFC 6241 section 8.4, NETCONF's {@code :confirmed-commit:1.1}) of one
 * datastore's scope: its one pending confirmed commit, which the commit's transaction starts, extends
 * or confirms ({@link #committed}). The interface parses the parameters, maps the refusals
 * ({@link Refused}) and tells the events ({@link Events}) in its own terms. Until it is confirmed, the VRs its commits touched can go back to what they
 * were before the first of them: on the confirm timeout, on cancel-commit, when the session that
 * issued it without {@code persist} ends, and when the server starts again after it stopped with one
 * pending. Going back is one change set of the service, so it happens whole or not at all: VRs the
 * commits created are removed, changed ones get their rows back, removed ones are created again.
 * VRs no commit of it touched (changed over REST meanwhile, say) are left as they are.
 *
 * <p>What to go back to is also kept in {@code netconf-confirmed-commit.json} in the data directory,
 * so that a restart restores it (RFC 6241: "If the device reboots for any reason before the confirm
 * timeout expires, the server MUST restore the configuration").
 */
public final class ConfirmedCommit {
    private static final Logger log = LoggerFactory.getLogger(ConfirmedCommit.class);
    public static final String FILE = "netconf-confirmed-commit.json";

    /** A commit's confirmed-commit parameters: confirmed, its timeout in seconds, persist and persist-id (null: none). */
    public record Params(boolean confirmed, long timeout, String persist, String persistId) {
    }

    /** Why a commit or cancel-commit may not act on the pending confirmed commit (RFC 6241 8.4.5.1). */
    public static final class Refused extends RuntimeException {
        public enum Why { PERSIST_ID_MISSING, NO_SUCH_PERSIST_ID, NOT_THE_OWNER, NONE_PENDING }

        public final Why why;
        /** The session that issued the pending commit, for {@link Why#NOT_THE_OWNER}. */
        public final int owner;

        Refused(Why why, int owner, String message) {
            super(message);
            this.why = why;
            this.owner = owner;
        }
    }

    /** What the interface tells its subscribers (RFC 6470). */
    public interface Events {
        /** netconf-confirmed-commit: start, extend (with the timeout), complete, cancel, timeout (no caller). */
        void confirmedCommit(Caller by, String event, Long timeout);

        /** The server put running back: the touched VRs' rows from {@code now} to {@code back} (absent: none). */
        void restored(Map<Integer, VmConfigEntry> now, Map<Integer, VmConfigEntry> back);

        Events NONE = new Events() {
            @Override
            public void confirmedCommit(Caller by, String event, Long timeout) {
            }

            @Override
            public void restored(Map<Integer, VmConfigEntry> now, Map<Integer, VmConfigEntry> back) {
            }
        };
    }

    private final ScheduledExecutorService timer;
    private volatile Events events = Events.NONE;
    /** The service as the server sees it for the tenant: what is put back, and through what. */
    private final io.vrouter.core.spi.VirtualRouters service;
    private final String tenant;
    private final Path file;
    private final ObjectMapper json = ModelJson.mapper();
    /** The rows before the first confirmed commit, by vmIndex; null values for VRs that did not exist. Null: none pending. */
    private Map<Integer, VmConfigEntry> before;
    private int owner;
    private String persist;
    private ScheduledFuture<?> pendingTimeout;
    /** When the hypervisor work of the pending commits is over (a removal must be done before it is undone). */
    private CompletableFuture<?> work = CompletableFuture.completedFuture(null);

    /**
     * @param service the view of the tenant (of the provider, null) whose commits these are
     * @param dataDir where the pending commit is kept across restarts; null keeps it in memory only
     * @param timer   runs the confirm timeouts
     */
    ConfirmedCommit(io.vrouter.core.spi.VirtualRouters service, Path dataDir, String tenant, ScheduledExecutorService timer) {
        this.timer = timer;
        this.service = service;
        this.tenant = tenant;
        this.file = dataDir == null ? null : dataDir.resolve(fileName(tenant));
    }

    /** Where the events go (the NETCONF server's subscribers); none until told. */
    public void tellTo(Events events) {
        this.events = events;
    }

    /** The provider's file is the one it always was; a tenant's is named after it (tenant names are file-name safe). */
    private static String fileName(String tenant) {
        return tenant == null ? FILE : FILE.replace(".json", "@" + tenant + ".json");
    }

    /** The tenants (null: the provider) whose confirmed commit a previous run left pending in the directory. */
    public static java.util.List<String> pendingTenants(Path dataDir) {
        java.util.List<String> out = new java.util.ArrayList<>();
        if (dataDir == null || !Files.isDirectory(dataDir)) return out;
        if (Files.exists(dataDir.resolve(FILE))) out.add(null);
        String prefix = FILE.replace(".json", "@");
        try (var files = Files.list(dataDir)) {
            files.map(f -> f.getFileName().toString()).filter(n -> n.startsWith(prefix) && n.endsWith(".json"))
                    .map(n -> n.substring(prefix.length(), n.length() - ".json".length()))
                    .filter(t -> io.vrouter.core.config.Tenants.NAME.matcher(t).matches()).sorted().forEach(out::add);
        } catch (IOException e) {
            log.error("cannot list {} for pending confirmed commits: {}", dataDir, e.toString());
        }
        return out;
    }

    public synchronized boolean pending() {
        return before != null;
    }

    /**
     * Refuses a commit that may not follow the pending confirmed commit (RFC 6241 8.4.5.1): without
     * persist only its own session commits; with it, only a commit naming its persist-id.
     */
    public synchronized void checkCommit(Caller s, Params p) {
        if (before == null) {
            if (p.persistId() != null) throw noSuchPersistId(p.persistId());
            return;
        }
        checkOwner(s, p.persistId(), "commit");
    }

    private void checkOwner(Caller s, String persistId, String op) {
        if (persist != null) {
            if (persistId == null) {
                throw new Refused(Refused.Why.PERSIST_ID_MISSING, owner, "a persistent confirmed commit is pending: "
                        + op + " needs its persist-id");
            }
            if (!persistId.equals(persist)) throw noSuchPersistId(persistId);
        } else {
            if (persistId != null) throw noSuchPersistId(persistId);
            if (s.session() != owner) {
                throw new Refused(Refused.Why.NOT_THE_OWNER, owner, "session " + owner
                        + " has a confirmed commit pending: only it can " + op);
            }
        }
    }

    private Refused noSuchPersistId(String id) {
        return new Refused(Refused.Why.NO_SUCH_PERSIST_ID, owner, "no pending confirmed commit has persist-id '" + id + "'");
    }

    /**
     * A commit went through: a confirmed one starts the procedure or extends it (the rows of the VRs
     * it touched for the first time are added to what to go back to), a plain one confirms it.
     *
     * @param touchedBefore the rows, before this commit, of the VRs it changed (null for VRs it created)
     * @param work          when this commit's hypervisor work is over
     */
    public synchronized void committed(Caller s, Params p, Map<Integer, VmConfigEntry> touchedBefore, CompletableFuture<?> work) {
        if (!p.confirmed()) {
            if (before == null) return;
            end();
            forget();
            notify(s, "complete", null);
            return;
        }
        boolean extend = before != null;
        if (!extend) {
            before = new HashMap<>();
            owner = s.session();
        }
        touchedBefore.forEach(before::putIfAbsent);
        if (p.persist() != null) persist = p.persist();
        this.work = CompletableFuture.allOf(this.work, work.exceptionally(e -> null));
        if (pendingTimeout != null) pendingTimeout.cancel(false);
        pendingTimeout = timer.schedule(this::timeout, p.timeout(), TimeUnit.SECONDS);
        save(Instant.now().plusSeconds(p.timeout()));
        notify(s, extend ? "extend" : "start", p.timeout());
    }

    /** cancel-commit: goes back now. */
    public synchronized void cancel(Caller s, String persistId) {
        if (before == null) throw new Refused(Refused.Why.NONE_PENDING, 0, "no confirmed commit is pending");
        checkOwner(s, persistId, "cancel-commit");
        restore("cancel-commit by session " + s.session());
        notify(s, "cancel", null);
    }

    /** A session ended: a confirmed commit it issued without persist goes back. */
    public synchronized void sessionEnded(Caller s) {
        if (before == null || persist != null || owner != s.session()) return;
        restore("session " + s.session() + " ended");
        notify(s, "cancel", null);
    }

    private synchronized void timeout() {
        if (before == null) return;
        restore("confirm timeout");
        notify(null, "timeout", null);
    }

    /**
     * Puts the touched VRs back as one change set, once the pending commits' hypervisor work is over,
     * and ends the procedure.
     */
    private void restore(String why) {
        Map<Integer, VmConfigEntry> back = new TreeMap<>();
        before.forEach((i, row) -> {
            if (row != null) back.put(i, row);
        });
        java.util.Set<Integer> touched = new java.util.TreeSet<>(before.keySet());
        CompletableFuture<?> pendingWork = work;
        end();
        pendingWork.whenComplete((r, e) -> restore(why, touched, back));
    }

    /**
     * Restores the rows {@code back} of the VRs {@code touched} (absent from it: to be removed). The
     * file that a restart restores from goes once the service has taken the set (or refused it: it
     * would refuse it again), not before: a server stopping meanwhile restores it when it starts.
     */
    private void restore(String why, java.util.Set<Integer> touched, Map<Integer, VmConfigEntry> back) {
        Map<Integer, VmConfigEntry> now = new TreeMap<>();
        for (int i : touched) service.getConfig(i).ifPresent(c -> now.put(i, c));
        ChangeSet set = ChangeSet.between(now, back);
        log.info("confirmed commit not confirmed ({}): restoring VRs {}", why, touched);
        try {
            // the server's own act (RFC 6241 8.4), whoever holds running's lock now
            if (!set.isEmpty()) service.as(new Caller("vrouter", tenant, Credentials.Role.OPERATOR, "netconf", null, Caller.RESTORING)).apply(set);
            events.restored(now, back);
        } catch (VrException e) {
            log.error("confirmed commit ({}): the service refused to restore VRs {}: {}", why, touched, e.getMessage());
        } catch (RuntimeException e) {
            log.error("confirmed commit ({}): VRs {} not restored, the next start will: {}", why, touched, e.toString());
            return;
        }
        synchronized (this) {
            // A confirmed commit started since keeps its own file.
            if (before == null) forget();
        }
    }

    private void end() {
        if (pendingTimeout != null) pendingTimeout.cancel(false);
        pendingTimeout = null;
        before = null;
        persist = null;
        owner = 0;
        work = CompletableFuture.completedFuture(null);
    }

    /** Deletes what a restart would restore. */
    private void forget() {
        if (file == null) return;
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            log.warn("cannot delete {}: {}", file, e.toString());
        }
    }

    /** RFC 6470 netconf-confirmed-commit; no session for a timeout. */
    private void notify(Caller s, String event, Long timeout) {
        events.confirmedCommit(s, event, timeout);
    }

    // ------------------------------------------------------------------ across restarts

    private void save(Instant deadline) {
        if (file == null) return;
        ObjectNode doc = json.createObjectNode();
        doc.put("deadline", deadline.toString());
        ObjectNode rows = doc.putObject("before");
        before.forEach((i, row) -> rows.set(String.valueOf(i), json.valueToTree(row)));
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try {
            Files.write(tmp, json.writeValueAsBytes(doc));
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            log.warn("cannot keep the pending confirmed commit in {} (a restart will not restore it): {}", file, e.toString());
        }
    }

    /** At start-up: a confirmed commit left pending by the previous run is restored now. */
    public synchronized void recover() {
        if (file == null || !Files.exists(file)) return;
        try {
            var doc = json.readTree(file.toFile());
            Map<Integer, VmConfigEntry> back = new TreeMap<>();
            java.util.Set<Integer> touched = new java.util.TreeSet<>();
            var rows = doc.path("before");
            rows.fieldNames().forEachRemaining(k -> {
                int i = Integer.parseInt(k);
                touched.add(i);
                if (!rows.get(k).isNull()) back.put(i, json.convertValue(rows.get(k), VmConfigEntry.class));
            });
            restore("the server stopped before it was confirmed", touched, back);
            notify(null, "timeout", null);
        } catch (IOException | RuntimeException e) {
            log.error("cannot read the pending confirmed commit {}: {}", file, e.toString());
        }
    }
}
