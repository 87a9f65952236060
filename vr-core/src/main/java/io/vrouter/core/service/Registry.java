package io.vrouter.core.service;

import io.micrometer.core.instrument.Gauge;
import io.vrouter.core.config.Caller;
import io.vrouter.core.config.Tenants;
import io.vrouter.core.driver.DriverListener;
import io.vrouter.core.driver.HypervisorDriver;
import io.vrouter.core.driver.PowerState;
import io.vrouter.core.driver.VmRuntime;
import io.vrouter.core.metrics.VrMetrics;
import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.Commitment;
import io.vrouter.core.model.Hypervisor;
import io.vrouter.core.model.InetAddressType;
import io.vrouter.core.model.LeafChanges;
import io.vrouter.core.model.LinkStatus;
import io.vrouter.core.model.OperState;
import io.vrouter.core.model.Schema;
import io.vrouter.core.model.VirtualRouter;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import io.vrouter.core.model.VmNetworkEntry;
import io.vrouter.core.model.VrEvent;
import io.vrouter.core.model.Commit;
import io.vrouter.core.persistence.CommitLog;
import io.vrouter.core.persistence.ConfigStore;
import io.vrouter.core.service.ChangeCheck.Kind;
import io.vrouter.core.service.ChangeCheck.Target;
import io.vrouter.core.spi.ChangeSet;
import io.vrouter.core.spi.PreconditionFailedException;
import io.vrouter.core.spi.Version;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What exists and what was asked for: the VRs by vmIndex and name, each with its row (durable in the
 * journal) and its state, their versions, and the events that tell every change of them. The
 * scheduler and the executor change it only through its methods; it calls neither.
 */
final class Registry {
    private static final Logger log = LoggerFactory.getLogger(Registry.class);
    /** A MAC a driver reports that the row can take (a host may report none, or an empty one). */
    private static final Pattern MAC = Pattern.compile(VmNetworkConfigEntry.MAC_PATTERN);

    private final HypervisorDriver driver;
    private final ConfigStore store;
    private final EventBus events = new EventBus();
    private final ConcurrentSkipListMap<Integer, VrRecord> routers = new ConcurrentSkipListMap<>();
    /** vmName to vmIndex, as the rows have it; a removed VR keeps its name until its VM is gone. */
    private final ConcurrentHashMap<String, Integer> names = new ConcurrentHashMap<>();
    /**
     * Taken to check, record and schedule a change set (and to put one back), so that sets are
     * checked against each other in the order they are accepted. Reads never take it.
     */
    private final Object lock = new Object();
    /** Where the search for a free vmIndex starts: one past the last index created. */
    private final AtomicInteger nextIndex = new AtomicInteger(1);
    private final Map<OperState, AtomicInteger> stateCounts = new EnumMap<>(OperState.class);
    private final long startNanos = System.nanoTime();
    private volatile long tableLastChangeNanos = startNanos;
    private volatile boolean perVmNotifications = true;
    private volatile boolean bulkNotifications = true;
    /** Names this run of the service in every version's tag, so that tags never repeat across restarts. */
    private final String epoch = Long.toString(System.currentTimeMillis(), 36);
    /** Guards the version count; taken inside a VR's lock, never the other way round. */
    private final Object versionLock = new Object();
    private long versionCount;
    private volatile Version storeVersion = nextVersion();

    /**
     * The lock that orders change sets: held to check, record and schedule one, to put one back, and
     * to end a run's claims on its VRs, so that sets are checked against each other in the order they
     * are accepted. Reads never take it; the registry's own methods that need it take it themselves.
     */
    Object changeLock() {
        return lock;
    }

    /** Every VR's record, in vmIndex order: a live view that a concurrent change may change as it is read. */
    Collection<VrRecord> records() {
        return Collections.unmodifiableCollection(routers.values());
    }

    /** The vmIndex of every VR, ascending: a live view, as {@link #records}. */
    NavigableSet<Integer> indices() {
        return Collections.unmodifiableNavigableSet(routers.keySet());
    }

    /** The first vmIndex above this one that has a VR. */
    Optional<Integer> indexAfter(int vmIndex) {
        return Optional.ofNullable(routers.higherKey(vmIndex));
    }

    /** How many VRs there are. */
    int size() {
        return routers.size();
    }

    Registry(HypervisorDriver driver, ConfigStore store, VrMetrics metrics) {
        this.driver = driver;
        this.store = store;
        for (OperState s : OperState.values()) {
            AtomicInteger count = new AtomicInteger();
            stateCounts.put(s, count);
            Gauge.builder(VrMetrics.ROUTERS, count, AtomicInteger::get)
                    .description("VRs by vmOperState").tag("state", s.label()).register(metrics.registry());
        }
    }

    EventBus events() {
        return events;
    }

    /** The committed sets, numbered (docs/adr/0021-history-and-rollback.md), durable in the journal's records. */
    CommitLog history() {
        return store.history();
    }

    ConfigStore store() {
        return store;
    }

    // ---------------------------------------------------------------- start-up

    /** Registers a VR loaded from the journal, in the state the host has it in. */
    VrRecord load(VmConfigEntry config, OperState state) {
        VrRecord r = new VrRecord(config, state);
        touch(r);
        routers.put(r.vmIndex, r);
        names.put(config.vmName, r.vmIndex);
        count(null, r.operState);
        return r;
    }

    void startIndicesAfter(int maxIndex) {
        nextIndex.set(maxIndex + 1);
    }

    // ---------------------------------------------------------------- reads

    VrRecord get(int vmIndex) {
        return routers.get(vmIndex);
    }

    Optional<Integer> findByName(String vmName) {
        return Optional.ofNullable(names.get(vmName)).filter(routers::containsKey);
    }

    Version version() {
        return storeVersion;
    }

    /** vmConfigNextAvailableVmIndex: an index no VR has, to be used for the next row created. */
    int nextAvailableVmIndex() {
        int i = nextIndex.get();
        while (routers.containsKey(i)) i = i == Validator.MAX_VM_INDEX ? 1 : i + 1;
        return i;
    }

    Hypervisor hypervisor() {
        Hypervisor h = driver.hypervisor();
        h.vmNumber = routers.size();
        h.vmTableLastChange = (tableLastChangeNanos - startNanos) / 10_000_000L;
        h.vmPerVMNotificationsEnabled = perVmNotifications;
        h.vmBulkNotificationsEnabled = bulkNotifications;
        h.vmConfigNextAvailableVmIndex = nextAvailableVmIndex();
        h.vmConfiguredVMs = routers.size();
        h.vmActiveVMs = stateCounts.get(OperState.RUNNING).get();
        Commitment committed = new Commitment();
        for (VrRecord r : routers.values()) committed.add(r.config, 1);
        h.vmCommittedCpus = committed.cpus();
        h.vmCommittedMemory = committed.memory();
        return h;
    }

    void setNotificationsEnabled(boolean perVm, boolean bulk) {
        this.perVmNotifications = perVm;
        this.bulkNotifications = bulk;
    }

    boolean perVmNotificationsEnabled() {
        return perVmNotifications;
    }

    boolean bulkNotificationsEnabled() {
        return bulkNotifications;
    }

    /** The VR as interfaces show it: the configured row plus what the host reports now. */
    VirtualRouter view(VrRecord r) {
        VirtualRouter v = new VirtualRouter();
        r.config.copyColumnsTo(v);
        Optional<VmRuntime> vm = driver.inspect(r.vmIndex);
        v.vmEntry = vm.map(VmRuntime::entry).orElseGet(VmEntry::new);
        v.vmEntry.vmOperState = r.operState;
        // Its vmAdminState may have come to ask for the state it is in since (a stop of a VR shut down outside vrouter).
        v.vmEntry.vmOperStateReason = asAsked(r) ? null : r.reason;
        // No router address (a VR without IPv4, or none the host knows): RFC 4001's unknown type, empty address.
        if (v.vmEntry.vmRouterAddr == null || v.vmEntry.vmRouterAddr.isEmpty()) {
            v.vmEntry.vmRouterAddrType = InetAddressType.UNKNOWN;
            v.vmEntry.vmRouterAddr = "";
        }
        vm.ifPresent(rt -> {
            v.vmCpuTable = rt.cpus();
            v.vmStorageTable = rt.storage();
            v.vmNetworkTable = rt.networks();
        });
        return v;
    }

    // ---------------------------------------------------------------- what was asked for

    /**
     * The set's conditions on versions; a VR that is not there, or that the set's caller may not see
     * (another tenant's), is left to the rules: a 404 before a 412, so that a precondition never tells
     * another tenant's VR from a missing one.
     */
    void conditions(ChangeSet set) {
        for (ChangeSet.Condition c : set.conditions()) {
            if (c.vmIndex() == null) {
                if (!c.holds().test(storeVersion)) {
                    throw new PreconditionFailedException("the VRs have changed since the version the request names");
                }
                continue;
            }
            VrRecord r = routers.get(c.vmIndex());
            if (r != null && set.caller().sees(r.config.vmConfigTenant) && !c.holds().test(r.version)) {
                throw new PreconditionFailedException("VR " + c.vmIndex() + " has changed since the version the request"
                        + " names").at(c.vmIndex(), null);
            }
        }
    }

    /** The tenants and their quotas, and the host's overcommit: replaced whole (a reload). */
    private volatile Tenants tenants = Tenants.none();

    void useTenants(Tenants tenants) {
        this.tenants = tenants;
    }

    Tenants tenants() {
        return tenants;
    }

    ChangeCheck checker() {
        return new ChangeCheck(routers, names, driver, i -> !routers.containsKey(i), nextAvailableVmIndex(), tenants);
    }

    /**
     * Writes the set's one journal record (the rows it writes, the VRs it marks as being removed, and
     * its commit, numbered as it is written, when it has one) and returns its number, for
     * {@link ConfigStore#sync}.
     */
    long journal(List<Target> targets, Commit commit) {
        ConfigStore.Change record = store.change().recording(commit);
        for (Target t : targets) {
            if (t.kind() == Kind.REMOVE) {
                record.markRemoving(t.before());
            } else if (t.kind() != Kind.JOIN) {
                record.put(t.after());
            }
        }
        return record.write();
    }

    /** Puts the accepted rows in the registry; returns the targets with the records of the new VRs. */
    List<Target> register(List<Target> targets, Caller by) {
        List<Target> out = new ArrayList<>(targets.size());
        VrEvent.ChangedBy author = new VrEvent.ChangedBy(by.user(), by.tenant(), by.iface(), by.source());
        for (Target t : targets) {
            if (t.kind() == Kind.CHANGE) names.remove(t.before().vmName, t.vmIndex());
        }
        for (Target t : targets) {
            switch (t.kind()) {
                case CREATE -> {
                    VrRecord r = new VrRecord(t.after(), OperState.PREPARING);
                    r.changedBy = author;
                    routers.put(r.vmIndex, r);
                    names.put(t.after().vmName, r.vmIndex);
                    nextIndex.set(r.vmIndex == Validator.MAX_VM_INDEX ? 1 : r.vmIndex + 1);
                    tableLastChangeNanos = System.nanoTime();
                    count(null, OperState.PREPARING);
                    r.untold(LeafChanges.between(r.vmIndex, null, t.after()));
                    publish(r, VrEvent.Type.CREATED, null);
                    out.add(new Target(t.kind(), t.vmIndex(), r, null, t.after()));
                    continue;
                }
                case CHANGE -> {
                    t.record().changedBy = author;
                    t.record().config = t.after();
                    t.record().untold(LeafChanges.between(t.vmIndex(), t.before(), t.after()));
                    names.put(t.after().vmName, t.vmIndex());
                    touch(t.record());
                }
                case REMOVE -> {
                    t.record().changedBy = author;
                    t.record().removing = true;
                    touch(t.record());
                }
                default -> {
                    // JOIN: the removal under way answers
                }
            }
            out.add(t);
        }
        return out;
    }

    /** Puts one set's rows back as they were before it. */
    void putBack(ChangeRun run, String reason, Map<Integer, VmConfigEntry> puts, Set<Integer> removes) {
        for (Target t : run.targets) {
            if (t.kind() == Kind.CHANGE) names.remove(t.after().vmName, t.vmIndex());
        }
        for (Target t : run.targets) {
            VrRecord r = t.record();
            switch (t.kind()) {
                case CREATE -> {
                    forget(r, reason);
                    removes.add(r.vmIndex);
                }
                case CHANGE -> {
                    r.untold(LeafChanges.between(r.vmIndex, r.config, t.before()));
                    r.config = t.before();
                    names.put(t.before().vmName, t.vmIndex());
                    puts.put(r.vmIndex, t.before());
                    touch(r);
                }
                case REMOVE -> {
                    if (!run.destroyed.contains(r)) {
                        r.removing = false;
                        puts.put(r.vmIndex, t.before());
                        touch(r);
                    }
                }
                default -> {
                    // JOIN: not this set's to put back
                }
            }
        }
    }

    /**
     * A VM destroyed: its row goes at once, as a destroy cannot be undone. The record that forgets it
     * is written and not flushed: its removal was made durable when it was accepted (the row marked
     * as being removed), so a crash that loses this record leaves a removal that the restart finishes
     * on a host without the VM; and a later record that takes its vmIndex or name is flushed with it,
     * being later in the same journal. One fsync fewer per removal.
     */
    void gone(VrRecord r) {
        synchronized (lock) {
            store.change().remove(r.vmIndex).write();
            forget(r, r.goneReason);
        }
        events.deliver();
    }

    /** Drops a VR from the registry (its VM is gone) and says so. */
    void forget(VrRecord r, String reason) {
        if (!routers.remove(r.vmIndex, r)) return;
        names.remove(r.config.vmName, r.vmIndex);
        tableLastChangeNanos = System.nanoTime();
        count(r.operState, null);
        r.reason = reason;
        r.untold(LeafChanges.between(r.vmIndex, r.config, null));
        publish(r, VrEvent.Type.DELETED, r.operState);
    }

    /** Whether the host may have generated a MAC the row does not hold yet. */
    static boolean lacksMac(VmConfigEntry row) {
        return row.interfaces().stream().anyMatch(n -> n.vmNetworkConfigPhysAddress == null);
    }

    /**
     * Records in the VRs' rows the MACs the hypervisor generated for their interfaces given without
     * one, with one journal record: every interface then reads the row and shows the MAC the VM has,
     * none asks the driver for it, and a VM made again from the row keeps it. An interface changed or
     * removed meanwhile is left as it is.
     */
    void recordGeneratedMacs(Map<VrRecord, VmRuntime> vms) {
        if (vms.isEmpty()) return;
        long record;
        synchronized (lock) {
            ConfigStore.Change change = store.change();
            for (Map.Entry<VrRecord, VmRuntime> e : vms.entrySet()) {
                VrRecord r = e.getKey();
                if (routers.get(r.vmIndex) != r || r.removing) continue;
                VmConfigEntry row = withGeneratedMacs(r.config, e.getValue());
                if (row == null) continue;
                change.put(row);
                r.untold(LeafChanges.between(r.vmIndex, r.config, row));
                r.config = row;
                touch(r);
            }
            if (change.isEmpty()) return;
            record = change.write();
        }
        store.sync(record);
    }

    /** The row with the host's MAC on each interface it has without one (the host's as the row says), or null: none. */
    private static VmConfigEntry withGeneratedMacs(VmConfigEntry row, VmRuntime vm) {
        List<VmNetworkEntry> nets = vm.networks() == null ? List.of() : vm.networks();
        List<VmNetworkConfigEntry> out = new ArrayList<>(row.interfaces().size());
        boolean found = false;
        for (VmNetworkConfigEntry n : row.interfaces()) {
            String mac = n.vmNetworkConfigPhysAddress != null ? null : nets.stream().filter(h -> sameOnHost(n, h))
                    .map(h -> h.vmNetworkPhysAddress).filter(m -> m != null && MAC.matcher(m).matches())
                    .findFirst().orElse(null);
            if (mac == null) {
                out.add(n);
                continue;
            }
            VmNetworkConfigEntry withMac = n.copy();
            withMac.vmNetworkConfigPhysAddress = mac.toLowerCase(Locale.ROOT);
            out.add(withMac);
            found = true;
        }
        if (!found) return null;
        VmConfigEntry c = row.copy();
        c.vmNetworkConfigTable = List.copyOf(out);
        return c;
    }

    /** Whether the host's interface is the row's: its index and parent, and its MAC when the row gives one. */
    static boolean sameOnHost(VmNetworkConfigEntry n, VmNetworkEntry h) {
        return Objects.equals(h.vmNetworkIndex, n.vmNetworkConfigIndex)
                && Objects.equals(h.vmNetworkParent, n.vmNetworkConfigParent)
                && (n.vmNetworkConfigPhysAddress == null || n.vmNetworkConfigPhysAddress.equals(h.vmNetworkPhysAddress));
    }

    // ---------------------------------------------------------------- states, events, versions

    void configChanged(VrRecord r) {
        publish(r, VrEvent.Type.CONFIG_CHANGED, r.operState);
    }

    /** Publishes the leaf changes of the VR's row not told yet, on an event of their own. */
    void tellUntold(VrRecord r) {
        if (r.hasUntold() && routers.get(r.vmIndex) == r) configChanged(r);
    }

    /**
     * Moves a VR to a state, with why (null: as asked). The event says why; vmOperStateReason keeps it
     * only while the VR is not in the state its vmAdminState asks for (crashed, or changed outside
     * vrouter): a change that failed and was undone leaves a VR as it was, with nothing to explain.
     */
    void transition(VrRecord r, OperState to, String reason) {
        OperState from;
        synchronized (r) {
            from = r.operState;
            r.operState = to;
            r.reason = asAsked(r) ? null : reason;
        }
        count(from, to);
        if (from != to || reason != null) publish(r, VrEvent.Type.STATE_CHANGED, from, reason);
    }

    /** Whether the VR is in the state its vmAdminState asks for. */
    private static boolean asAsked(VrRecord r) {
        return r.operState == stableStateFor(r.config.vmAdminState);
    }

    private void count(OperState from, OperState to) {
        if (from != null) stateCounts.get(from).decrementAndGet();
        if (to != null) stateCounts.get(to).incrementAndGet();
    }

    private void publish(VrRecord r, VrEvent.Type type, OperState previous) {
        publish(r, type, previous, r.reason);
    }

    /** An event of the VR as it is now: what every event says of its VR. */
    private VrEvent event(VrRecord r, VrEvent.Type type, OperState previous, String reason) {
        VrEvent e = new VrEvent();
        e.timestamp = Instant.now().toString();
        e.type = type;
        e.vmIndex = r.vmIndex;
        e.vmName = r.config.vmName;
        e.vmUUID = uuid(r, type);
        e.vmAdminState = r.config.vmAdminState;
        e.vmOperState = type == VrEvent.Type.DELETED ? null : r.operState;
        e.previousOperState = previous;
        e.reason = reason;
        e.vmConfigTenant = r.config.vmConfigTenant;
        return e;
    }

    private void publish(VrRecord r, VrEvent.Type type, OperState previous, String reason) {
        touch(r);
        VrEvent e = event(r, type, previous, reason);
        // A change of state tells its author when it is the first event of the author's set (it tells the set's leaves).
        if (type != VrEvent.Type.STATE_CHANGED || r.hasUntold()) e.changedBy = r.changedBy;
        e.changes = LeafChanges.withState(r.takeUntold(), r.vmIndex, previous, e.vmOperState);
        for (VrEvent.LeafChange c : e.changes) {
            if (c.leaf().equals("vmConfigTenant") && c.table().equals(LeafChanges.CONFIG_TABLE) && type != VrEvent.Type.CREATED) {
                e.previousTenant = c.before() == null ? "" : (String) c.before();
            }
        }
        // Under the registry's lock the event is only numbered: whoever holds it delivers once it lets go.
        if (Thread.holdsLock(lock)) {
            events.post(e);
        } else {
            events.publish(e);
        }
    }

    /**
     * The VR's vmUUID for an event: the host's now, remembered for when its VM is gone (a deletion; a
     * creation, before the VM is made, has none yet, and is not worth asking the host about).
     */
    private String uuid(VrRecord r, VrEvent.Type type) {
        if (type == VrEvent.Type.CREATED || type == VrEvent.Type.DELETED) return r.uuid;
        String now = driver.uuid(r.vmIndex).orElse(null);
        if (now == null) return r.uuid;
        r.uuid = now;
        return now;
    }

    /**
     * A new version for a VR whose change is now visible (and so for the datastore), made after the
     * change so that a version is never read before the content it names.
     */
    void touch(VrRecord r) {
        synchronized (r) {
            r.version = nextVersion();
        }
    }

    private Version nextVersion() {
        synchronized (versionLock) {
            Version v = new Version(epoch + "-" + ++versionCount, Instant.now());
            storeVersion = v;
            return v;
        }
    }

    static OperState stableStateFor(AdminState admin) {
        return switch (admin) {
            case RUNNING -> OperState.RUNNING;
            case SUSPENDED -> OperState.SUSPENDED;
            case PAUSED -> OperState.PAUSED;
            default -> OperState.SHUTDOWN;
        };
    }

    /** The admin state whose stable state this is, or null for a transitional or failed state. */
    static AdminState adminStateFor(OperState state) {
        return switch (state) {
            case RUNNING -> AdminState.RUNNING;
            case SUSPENDED -> AdminState.SUSPENDED;
            case PAUSED -> AdminState.PAUSED;
            case SHUTDOWN -> AdminState.SHUTDOWN;
            default -> null;
        };
    }

    /** Follows changes made on the host behind vrouter's back, when no operation of ours is under way. */
    final class HostChanges implements DriverListener {
        @Override
        public void powerStateChanged(int vmIndex, PowerState state) {
            powerStateChanged(vmIndex, state, null);
        }

        @Override
        public void powerStateChanged(int vmIndex, PowerState state, String what) {
            VrRecord r = routers.get(vmIndex);
            if (r != null && r.idle() && r.operState != state.operState()) {
                log.info("VR {} ({}) is now {} on the host{}", vmIndex, r.config.vmName, state, what == null ? "" : ": " + what);
                transition(r, state.operState(), what == null ? "changed outside vrouter" : what + " (changed outside vrouter)");
            }
        }

        @Override
        public void linkChanged(int vmIndex, int networkIndex, LinkStatus now) {
            VrRecord r = routers.get(vmIndex);
            if (r == null) return;
            log.info("VR {} ({}): the link of interface {} is {}", vmIndex, r.config.vmName, networkIndex, now.label());
            VrEvent e = event(r, VrEvent.Type.LINK_CHANGED, r.operState, "the link of interface " + networkIndex + " is " + now.label());
            LinkStatus before = now == LinkStatus.UP ? LinkStatus.DOWN : LinkStatus.UP;
            e.changes = List.of(new VrEvent.LeafChange(Schema.Table.NETWORK.tableName(), vmIndex, networkIndex,
                    Schema.Network.LINK_STATUS.field(), before, now));
            events.publish(e);
        }

        @Override
        public void vmVanished(int vmIndex) {
            VrRecord r = routers.get(vmIndex);
            if (r != null && r.idle()) {
                log.warn("VR {} ({}) was deleted from the host outside vrouter", vmIndex, r.config.vmName);
                transition(r, OperState.CRASHED, "the VM was deleted from the host outside vrouter");
            }
        }
    }
}
