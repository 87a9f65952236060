package io.vrouter.netns;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vrouter.core.driver.DriverException;
import io.vrouter.core.driver.DriverListener;
import io.vrouter.core.driver.PowerState;
import io.vrouter.netns.Vr.Observed;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The netns driver's VRs ({@link Vr}) and what it knows of them kept current without a process per
 * read: a namespace is read again (one {@code ip -batch} that also carries an operation's changes)
 * after an operation and, at most once per netns.refresh-delay, after {@link HostMonitor}'s netlink
 * events about it; host-side links are read from sysfs; bounded polls catch what sends no event (a
 * routing daemon that died) or an event missed. A change it sees while no operation of the driver's
 * is under way is told to the {@link DriverListener} as a change made outside vrouter.
 */
final class NetnsCache {
    private static final Logger log = LoggerFactory.getLogger(NetnsCache.class);

    private final NetnsSettings settings;
    private final Names names;
    private final Commands commands;
    private final Cgroups cgroups;
    private final Bird bird;
    private final ObjectMapper json = new ObjectMapper();
    /** Reads namespaces one at a time: events never turn into a burst of processes. */
    private final ScheduledExecutorService refresher;
    private final Map<Integer, Vr> vrs = new ConcurrentHashMap<>();
    /** nsid to vmIndex of the VRs whose namespace could not have its own nsid (NSID_BASE + vmIndex). */
    private final Map<Integer, Integer> nsids = new ConcurrentHashMap<>();
    /** nsids of namespaces that are not ours. */
    private final Set<Integer> foreign = ConcurrentHashMap.newKeySet();
    private volatile long nsidsReadAt;
    private volatile DriverListener listener;
    private volatile String problem;

    NetnsCache(NetnsSettings settings, Names names, Commands commands, Cgroups cgroups, Bird bird,
            ScheduledExecutorService refresher) {
        this.settings = settings;
        this.names = names;
        this.commands = commands;
        this.cgroups = cgroups;
        this.bird = bird;
        this.refresher = refresher;
    }

    /** The VR of this vmIndex, known from now on (its record null until provisioned or found). */
    Vr vr(int vmIndex) {
        return vrs.computeIfAbsent(vmIndex, i -> new Vr(i, names.netns(i), settings.runDir().resolve(names.netns(i))));
    }

    /** The VR of this vmIndex if the driver knows it. */
    Optional<Vr> get(int vmIndex) {
        return Optional.ofNullable(vrs.get(vmIndex));
    }

    /** Forgets a VR that is gone from the host, and its namespace's nsid. */
    void forget(Vr v) {
        vrs.remove(v.vmIndex, v);
        nsids.values().removeIf(i -> i == v.vmIndex);
    }

    /** The listener told of changes made outside vrouter, or null. */
    DriverListener listener() {
        return listener;
    }

    void setListener(DriverListener listener) {
        this.listener = listener;
    }

    /** What keeps the driver from following the host (the monitor's netlink socket lost), or empty. */
    Optional<String> problem() {
        return Optional.ofNullable(problem);
    }

    /**
     * Runs the batch in the namespace followed by the view's queries: the changes and the reading of
     * their result are one process.
     */
    void read(Vr v, List<String> changes) throws DriverException {
        read(v, changes, false);
    }

    /**
     * Runs the changes in the namespace followed by the view's queries (the changes and the reading
     * of their result are one process) and shows what it read. {@code force}: every line tried, the
     * ones that fail logged.
     */
    void read(Vr v, List<String> changes, boolean force) throws DriverException {
        List<String> lines = new ArrayList<>(changes);
        lines.addAll(NsView.QUERY);
        long started = System.nanoTime();
        String out = force ? commands.batchForce(v.netns, lines) : commands.batch(v.netns, true, lines);
        try {
            show(v, NsView.parse(json, out).withRib(v.view.rib()), started);
        } catch (IOException e) {
            throw new DriverException(Commands.FAILED, "reading namespace " + v.netns + ": " + e.getMessage(), e);
        }
    }

    /**
     * Shows a reading of the namespace unless a later one is shown already; while the VR runs with every interface up, the routes added
     * by hand in it are remembered (file {@code static-routes}), to be put back when it starts again.
     */
    private void show(Vr v, NsView view, long started) {
        synchronized (v) {
            // A reading that started before the one shown (a slow refresh beside an operation) is stale.
            if (started < v.viewAt) return;
            v.viewAt = started;
            v.view = view;
        }
        HostRecord r = v.record;
        if (r == null || !r.power().equals(HostRecord.RUNNING) || !view.interfacesUp() || view.staticRoutes().equals(v.staticRoutes)) {
            return;
        }
        v.staticRoutes = view.staticRoutes();
        try {
            Files.write(v.dir.resolve(NetnsDriver.STATIC_ROUTES), v.staticRoutes);
        } catch (IOException e) {
            log.warn("VR {}: cannot keep its static routes: {}", v.vmIndex, e.getMessage());
        }
    }

    static List<String> readStaticRoutes(Path dir) {
        try {
            List<String> lines = new ArrayList<>();
            for (String line : Files.readAllLines(dir.resolve(NetnsDriver.STATIC_ROUTES))) {
                // Only what show() wrote: lines NsView made from the kernel's own JSON.
                if (line.startsWith("route replace ") && line.matches("[a-z0-9A-F.:/ ]+")) lines.add(line);
            }
            return List.copyOf(lines);
        } catch (IOException none) {
            return List.of();
        }
    }

    void refreshRib(Vr v) {
        if (!v.record.template().equals(Bird.TEMPLATE) || cgroups.frozen(v.netns)) return;
        v.view = v.view.withRib(bird.rib(v.dir));
    }

    /** The VR's host-side interfaces, read from sysfs now. */
    private Map<Integer, HostLinks.Link> readLinks(Vr v) {
        HostRecord r = v.record;
        if (r == null) return Map.of();
        Map<Integer, HostLinks.Link> links = new HashMap<>();
        for (Map.Entry<Integer, String> i : r.interfaces().entrySet()) {
            if (NetnsDriver.hostless(i.getValue())) continue;
            HostLinks.read(names.hostVeth(v.vmIndex, i.getKey())).ifPresent(l -> links.put(i.getKey(), l));
        }
        return Map.copyOf(links);
    }

    /** One look at the VR on the host: its links and what they and the rest show. */
    record Look(Map<Integer, HostLinks.Link> links, Observed observed) {
    }

    Look look(Vr v) {
        Map<Integer, HostLinks.Link> links = readLinks(v);
        return new Look(links, observe(v, links));
    }

    /** What the host shows of the VR (its host-side interfaces as given), against what the driver last made of it. */
    private Observed observe(Vr v, Map<Integer, HostLinks.Link> links) {
        HostRecord r = v.record;
        if (r == null || !Files.exists(HostMonitor.NETNS_DIR.resolve(v.netns))) return Observed.GONE;
        if (r.provisioning()) return new Observed(PowerState.HALTED, null);
        if (cgroups.frozen(v.netns)) {
            return new Observed(PowerState.PAUSED, r.power().equals(HostRecord.PAUSED) ? null : "its processes were frozen");
        }
        switch (r.power()) {
            case HostRecord.HALTED:
                return new Observed(PowerState.HALTED, null);
            case HostRecord.PAUSED:
                return new Observed(PowerState.CRASHED, "its processes were thawed while it was paused");
            default:
                for (Map.Entry<Integer, String> i : r.interfaces().entrySet()) {
                    int n = i.getKey();
                    // A link going down is the link's health (vmNetworkLinkStatus), not the VR's.
                    if (NetnsDriver.hostless(i.getValue())) continue;
                    HostLinks.Link l = links.get(n);
                    String h = names.hostVeth(v.vmIndex, n);
                    if (l == null) return new Observed(PowerState.CRASHED, "interface " + n + " (" + h + ") was deleted");
                    if (!l.up()) return new Observed(PowerState.CRASHED, "interface " + n + " was set down on the host (" + h + ")");
                    if (!l.carrier()) return new Observed(PowerState.CRASHED, "interface " + n + " was set down in the VR ("
                            + Names.vrSide(n) + ")");
                    if (!i.getValue().equals(l.master())) return new Observed(PowerState.CRASHED, "interface " + n + " ("
                            + h + ") was taken off bridge " + i.getValue());
                }
                if (r.template().equals(Bird.TEMPLATE) && Bird.pid(v.dir).isEmpty()) {
                    return new Observed(PowerState.CRASHED, "its routing daemon (bird) is not running");
                }
                return new Observed(PowerState.RUNNING, null);
        }
    }

    /**
     * Looks at the VR again and tells the listener when it changed while no operation of ours was
     * under way. A look that an operation of ours began or ended during is dropped: it may show half
     * of the operation's work (an interface not up yet), and the operation's own look at its end
     * has the say; kept, it made our own changes look like outside ones (a crash, then a recovery).
     */
    private void reobserve(Vr v) {
        if (v.record == null) return;
        long operations;
        synchronized (v) {
            if (v.busy.get() > 0) return;
            operations = v.operations;
        }
        Look look = look(v);
        Observed now = look.observed();
        Observed before;
        synchronized (v) {
            if (v.operations != operations) return;
            v.links = look.links();
            before = v.reported;
            v.reported = now;
        }
        DriverListener l = listener;
        if (l == null || now.equals(before) || v.record == null) return;
        if (now.gone()) {
            log.warn("VR {}: namespace {} was deleted outside vrouter", v.vmIndex, v.netns);
            l.vmVanished(v.vmIndex);
        } else {
            log.info("VR {} is now {} on the host{}", v.vmIndex, now.power(), now.what() == null ? "" : ": " + now.what());
            l.powerStateChanged(v.vmIndex, now.power(), now.what());
        }
    }

    /** Queues a reading of the VR's namespace, at most one at a time per VR and netns.refresh-delay after the event. */
    private void queueRefresh(Vr v) {
        v.eventAt = System.nanoTime();
        if (!v.refreshQueued.compareAndSet(false, true)) return;
        refresher.schedule(() -> {
            v.refreshQueued.set(false);
            // An operation of ours reads the namespace when it is done: the event is looked at after it.
            if (v.busy.get() > 0) {
                queueRefresh(v);
                return;
            }
            // A reading started after the event: nothing new to read.
            if (v.record == null || v.viewAt > v.eventAt) return;
            try {
                read(v, List.of());
                refreshRib(v);
            } catch (DriverException e) {
                log.debug("VR {}: reading its namespace failed: {}", v.vmIndex, e.getMessage());
            }
            reobserve(v);
        }, settings.refreshDelay().toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Learns the nsids of the VRs whose namespaces got another than their own, and of the host's other namespaces. */
    void readNsids() {
        nsidsReadAt = System.nanoTime();
        try {
            Map<Integer, Integer> ours = new ConcurrentHashMap<>();
            Set<Integer> others = ConcurrentHashMap.newKeySet();
            for (JsonNode n : json.readTree(commands.ip("-j", "netns", "list-id"))) {
                int nsid = n.path("nsid").asInt();
                OptionalInt i = names.vmIndexOfNetns(n.path("name").asText(""));
                if (i.isPresent()) ours.put(nsid, i.getAsInt());
                else others.add(nsid);
            }
            nsids.keySet().retainAll(ours.keySet());
            nsids.putAll(ours);
            foreign.retainAll(others);
            foreign.addAll(others);
        } catch (DriverException | IOException e) {
            log.debug("reading the host's nsids failed: {}", e.getMessage());
        }
    }

    /** Bounded poll: the routing daemons of running VRs (they die without a netlink event). */
    void checkDaemons() {
        try {
            for (Vr v : vrs.values()) {
                HostRecord r = v.record;
                if (r != null && r.template().equals(Bird.TEMPLATE) && r.power().equals(HostRecord.RUNNING)) reobserve(v);
            }
        } catch (RuntimeException e) {
            log.error("checking the routing daemons failed", e);
        }
    }

    /** Bounded poll: every VR read again from sysfs, in case an event was missed. */
    void resync() {
        try {
            for (Vr v : vrs.values()) reobserve(v);
        } catch (RuntimeException e) {
            log.error("resynchronising with the host failed", e);
        }
    }

    /** The monitor's events. */
    final class Events implements HostMonitor.Sink {
        @Override
        public void hostLinkChanged(String name) {
            OptionalInt index = names.vmIndexOfHostVeth(name);
            if (index.isEmpty()) return;
            Vr v = vrs.get(index.getAsInt());
            if (v == null) return;
            reobserve(v);
        }

        @Override
        public void netnsChanged(int nsid) {
            Integer index = nsid >= NetnsDriver.NSID_BASE ? Integer.valueOf(nsid - NetnsDriver.NSID_BASE) : nsids.get(nsid);
            // Another namespace of the host (a container's, another server's) is looked up once, not per event.
            if (index == null && !foreign.contains(nsid) && System.nanoTime() - nsidsReadAt > 200_000_000L) {
                readNsids();
                index = nsids.get(nsid);
            }
            Vr v = index == null ? null : vrs.get(index);
            if (v != null) queueRefresh(v);
        }

        @Override
        public void netnsRemoved(String name) {
            OptionalInt index = names.vmIndexOfNetns(name);
            Vr v = index.isEmpty() ? null : vrs.get(index.getAsInt());
            if (v != null) reobserve(v);
        }

        @Override
        public void resync() {
            readNsids();
            NetnsCache.this.resync();
            vrs.values().forEach(NetnsCache.this::queueRefresh);
        }

        @Override
        public void problem(String why) {
            if (why != null) log.warn("{}", why);
            problem = why;
        }
    }

    void close() {
        refresher.shutdownNow();
    }
}
