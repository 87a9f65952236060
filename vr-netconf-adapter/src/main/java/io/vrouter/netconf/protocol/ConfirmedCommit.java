package io.vrouter.netconf.protocol;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vrouter.core.model.ModelJson;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.config.Caller;
import io.vrouter.core.config.Credentials;
import io.vrouter.core.spi.ChangeSet;
import io.vrouter.core.spi.VrException;
import io.vrouter.yang.Ns;
import io.vrouter.yang.DataNode;
import io.vrouter.netconf.protocol.RpcError.Type;
import io.vrouter.netconf.xml.SecureXml;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.w3c.dom.Element;

/**
 * The {@code :confirmed-commit:1.1} capability (RFC 6241 section 8.4): the server's one pending
 * confirmed commit. Until it is confirmed, the VRs its commits touched can go back to what they
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
    static final String FILE = "netconf-confirmed-commit.json";
    static final long DEFAULT_TIMEOUT = 600;

    /** A commit's confirmed-commit parameters. */
    record Params(boolean confirmed, long timeout, String persist, String persistId) {
        static Params of(Element commit) throws RpcError {
            boolean confirmed = SecureXml.child(commit, Ns.BASE, "confirmed") != null;
            long timeout = DEFAULT_TIMEOUT;
            Element t = SecureXml.child(commit, Ns.BASE, "confirm-timeout");
            if (t != null) {
                try {
                    timeout = Long.parseLong(SecureXml.text(t).trim());
                } catch (NumberFormatException e) {
                    timeout = -1;
                }
                if (timeout < 1 || timeout > 0xFFFFFFFFL) {
                    throw RpcError.invalidValue(null, "confirm-timeout must be 1 to 4294967295 seconds")
                            .info("bad-element", "confirm-timeout");
                }
            }
            Element p = SecureXml.child(commit, Ns.BASE, "persist");
            Element pid = SecureXml.child(commit, Ns.BASE, "persist-id");
            return new Params(confirmed, timeout, p == null ? null : SecureXml.text(p), pid == null ? null : SecureXml.text(pid));
        }
    }

    private final NetconfServerContext ctx;
    /** The service as the server sees it for the tenant: what is put back, and through what. */
    private final io.vrouter.core.spi.VirtualRouters service;
    private final String tenant;
    private final Path file;
    private final ObjectMapper json = ModelJson.mapper();
    /** The rows before the first confirmed commit, by vmIndex; null values for VRs that did not exist. Null: none pending. */
    private Map<Integer, VmConfigEntry> before;
    private int owner;
    private String persist;
    private ScheduledFuture<?> timer;
    /** When the hypervisor work of the pending commits is over (a removal must be done before it is undone). */
    private CompletableFuture<?> work = CompletableFuture.completedFuture(null);

    /**
     * @param service the view of the tenant (of the provider, null) whose commits these are
     * @param dataDir where the pending commit is kept across restarts; null keeps it in memory only
     */
    ConfirmedCommit(NetconfServerContext ctx, io.vrouter.core.spi.VirtualRouters service, Path dataDir, String tenant) {
        this.ctx = ctx;
        this.service = service;
        this.tenant = tenant;
        this.file = dataDir == null ? null : dataDir.resolve(fileName(tenant));
    }

    /** The provider's file is the one it always was; a tenant's is named after it (tenant names are file-name safe). */
    private static String fileName(String tenant) {
        return tenant == null ? FILE : FILE.replace(".json", "@" + tenant + ".json");
    }

    /** The tenants (null: the provider) whose confirmed commit a previous run left pending in the directory. */
    static java.util.List<String> pendingTenants(Path dataDir) {
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
    synchronized void checkCommit(Requester s, Params p) throws RpcError {
        if (before == null) {
            if (p.persistId() != null) throw noSuchPersistId(p.persistId());
            return;
        }
        checkOwner(s, p.persistId(), "commit");
    }

    private void checkOwner(Requester s, String persistId, String op) throws RpcError {
        if (persist != null) {
            if (persistId == null) {
                throw RpcError.missingElement(Type.PROTOCOL, null, "persist-id", "a persistent confirmed commit is pending: "
                        + op + " needs its persist-id");
            }
            if (!persistId.equals(persist)) throw noSuchPersistId(persistId);
        } else {
            if (persistId != null) throw noSuchPersistId(persistId);
            if (s.sessionId() != owner) {
                throw new RpcError(Type.PROTOCOL, "in-use", null, null, "session " + owner
                        + " has a confirmed commit pending: only it can " + op).info("session-id", String.valueOf(owner));
            }
        }
    }

    private static RpcError noSuchPersistId(String id) {
        return RpcError.invalidValue(null, "no pending confirmed commit has persist-id '" + id + "'").info("bad-element", "persist-id");
    }

    /**
     * A commit went through: a confirmed one starts the procedure or extends it (the rows of the VRs
     * it touched for the first time are added to what to go back to), a plain one confirms it.
     *
     * @param touchedBefore the rows, before this commit, of the VRs it changed (null for VRs it created)
     * @param work          when this commit's hypervisor work is over
     */
    synchronized void committed(Requester s, Params p, Map<Integer, VmConfigEntry> touchedBefore, CompletableFuture<?> work) {
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
            owner = s.sessionId();
        }
        touchedBefore.forEach(before::putIfAbsent);
        if (p.persist() != null) persist = p.persist();
        this.work = CompletableFuture.allOf(this.work, work.exceptionally(e -> null));
        if (timer != null) timer.cancel(false);
        timer = ctx.timer().schedule(this::timeout, p.timeout(), TimeUnit.SECONDS);
        save(Instant.now().plusSeconds(p.timeout()));
        notify(s, extend ? "extend" : "start", p.timeout());
    }

    /** cancel-commit: goes back now. */
    synchronized void cancel(Requester s, String persistId) throws RpcError {
        if (before == null) {
            throw new RpcError(Type.APPLICATION, "operation-failed", "no confirmed commit is pending");
        }
        checkOwner(s, persistId, "cancel-commit");
        restore("cancel-commit by session " + s.sessionId());
        notify(s, "cancel", null);
    }

    /** A session ended: a confirmed commit it issued without persist goes back. */
    synchronized void sessionEnded(Requester s) {
        if (before == null || persist != null || owner != s.sessionId()) return;
        restore("session " + s.sessionId() + " ended");
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
        log.info("NETCONF confirmed commit not confirmed ({}): restoring VRs {}", why, touched);
        try {
            // the server's own act (RFC 6241 8.4), whoever holds running's lock now
            if (!set.isEmpty()) service.as(new Caller("vrouter", tenant, Credentials.Role.OPERATOR, "netconf", null, Caller.RESTORING)).apply(set);
            ConfigChange.between(null, now, back).ifPresent(n -> ctx.publish(n, tenant));
        } catch (VrException e) {
            log.error("NETCONF confirmed commit ({}): the service refused to restore VRs {}: {}", why, touched, e.getMessage());
        } catch (RuntimeException e) {
            log.error("NETCONF confirmed commit ({}): VRs {} not restored, the next start will: {}", why, touched, e.toString());
            return;
        }
        synchronized (this) {
            // A confirmed commit started since keeps its own file.
            if (before == null) forget();
        }
    }

    private void end() {
        if (timer != null) timer.cancel(false);
        timer = null;
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
    private void notify(Requester s, String event, Long timeout) {
        DataNode.Inner n = DataNode.inner(Ns.NETCONF_NOTIFICATIONS, "netconf-confirmed-commit");
        if (s != null) n.add("username", s.user()).add("session-id", s.sessionId()).add("source-host", s.sourceHost());
        n.add("confirm-event", event).add("timeout", timeout);
        ctx.publish(n, tenant);
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
