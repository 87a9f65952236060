package io.vrouter.core.service;

import io.vrouter.core.config.Caller;
import io.vrouter.core.config.Tenants;
import io.vrouter.core.driver.ConfigRefusedException;
import io.vrouter.core.driver.CpuWeights;
import io.vrouter.core.driver.HypervisorDriver;
import io.vrouter.core.driver.Interfaces;
import io.vrouter.core.driver.Links;
import io.vrouter.core.driver.PowerStates;
import io.vrouter.core.driver.RateLimits;
import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.Column;
import io.vrouter.core.model.Commitment;
import io.vrouter.core.model.ConfigColumn;
import io.vrouter.core.model.Hypervisor;
import io.vrouter.core.model.LinkType;
import io.vrouter.core.model.NetworkColumn;
import io.vrouter.core.model.Schema;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import io.vrouter.core.spi.AccessDeniedException;
import io.vrouter.core.spi.ChangeSet;
import io.vrouter.core.spi.ConflictException;
import io.vrouter.core.spi.NotFoundException;
import io.vrouter.core.spi.NotSupportedException;
import io.vrouter.core.spi.QuotaExceededException;
import io.vrouter.core.spi.ValidationException;
import io.vrouter.core.spi.VrException.Reason;
import io.vrouter.core.spi.VrException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.IntPredicate;

/**
 * Every rule about changing VRs, checked once for a whole {@link ChangeSet} against the VRs as they
 * are: the rows completed with their defaults, each column within bounds, the template fixed and
 * offered by the driver, CPUs and memory changed only while shut down, the admin state reachable by
 * the driver and from the VR's, names unique across the VRs as they will be (a name that a VR of the
 * same set gives up, by a rename or a removal, is free for the others), MACs likewise, indices free,
 * and what the driver refuses of the rows ({@link HypervisorDriver#check}). The first
 * broken rule is thrown, naming its VR and column; nothing is changed either way. Runs under the
 * service's write lock.
 */
final class ChangeCheck {
    /** What a set does to one VR: its row before (null: created) and after (null: removed). */
    record Target(Kind kind, int vmIndex, VrRecord record, VmConfigEntry before, VmConfigEntry after) {
    }

    enum Kind {
        CREATE, CHANGE, REMOVE,
        /** A removal of a VR whose removal is under way already: this set waits for it. */
        JOIN
    }

    private final Map<Integer, VrRecord> routers;
    /** vmName to vmIndex of every VR (a VR being removed keeps its name until it is gone). */
    private final Map<String, Integer> names;
    private final HypervisorDriver driver;
    /** Tells an index that is free now; the check adds the indices this set takes. */
    private final IntPredicate indexFree;
    private final int firstFreeGuess;
    private final Tenants tenants;
    /** Who asks for the set being checked. */
    private Caller caller = Caller.SYSTEM;

    ChangeCheck(Map<Integer, VrRecord> routers, Map<String, Integer> names, HypervisorDriver driver,
                IntPredicate indexFree, int firstFreeGuess, Tenants tenants) {
        this.routers = routers;
        this.names = names;
        this.driver = driver;
        this.indexFree = indexFree;
        this.firstFreeGuess = firstFreeGuess;
        this.tenants = tenants;
    }

    /** The set's targets, in its order, every row complete; or the first broken rule. */
    List<Target> check(ChangeSet set) {
        caller = set.caller();
        if (!caller.mayChange()) {
            throw new AccessDeniedException(null, "user '" + caller.user() + "' may read, not change (role viewer)", false);
        }
        List<Target> targets = new ArrayList<>(set.changes().size());
        Set<Integer> seen = new HashSet<>();
        List<VmConfigEntry> unindexed = new ArrayList<>();
        for (ChangeSet.Change change : set.changes()) {
            Target t;
            if (change instanceof ChangeSet.Create c) {
                t = create(c.row(), seen);
            } else if (change instanceof ChangeSet.Edit e) {
                t = edit(e.vmIndex(), e.edit());
            } else {
                ChangeSet.Remove r = (ChangeSet.Remove) change;
                if (!r.mustExist() && !routers.containsKey(r.vmIndex())) continue;
                t = remove(r.vmIndex());
            }
            if (t.kind() == Kind.CREATE && t.after().vmIndex == null) {
                unindexed.add(t.after());
            } else if (!seen.add(t.vmIndex())) {
                throw new ValidationException("vmIndex", "VR " + t.vmIndex() + " is named twice in one change")
                        .at(t.vmIndex(), null);
            }
            targets.add(t);
        }
        int next = firstFreeGuess;
        for (VmConfigEntry c : unindexed) {
            while (!indexFree.test(next) || seen.contains(next)) next = next == Validator.MAX_VM_INDEX ? 1 : next + 1;
            c.vmIndex = next;
            seen.add(next);
        }
        List<Target> indexed = new ArrayList<>(targets.size());
        for (Target t : targets) {
            indexed.add(t.vmIndex() == 0 ? new Target(t.kind(), t.after().vmIndex, null, null, t.after()) : t);
        }
        names(indexed);
        macs(indexed);
        for (Target t : indexed) {
            if (t.after() != null) behaviours(t.before(), t.after());
        }
        links(indexed);
        for (Target t : indexed) {
            if (t.after() != null) driverCheck(t.after(), t.before());
        }
        quotas(indexed);
        return indexed;
    }

    // ---------------------------------------------------------------- one VR

    private Target create(VmConfigEntry request, Set<Integer> seen) {
        if (request == null) throw new ValidationException("body", "a VR description is required");
        VmConfigEntry c = request.copy();
        try {
            defaults(c, null);
            Validator.row(c);
            if (c.vmAdminState != AdminState.RUNNING && c.vmAdminState != AdminState.SHUTDOWN) {
                throw new ValidationException("vmAdminState", "a VR is created running or shutdown, not "
                        + c.vmAdminState.label());
            }
            List<String> offered = driver.templates();
            if (!offered.contains(c.vmConfigTemplate)) {
                throw new ValidationException("vmConfigTemplate", "driver '" + driver.name() + "' has no template '"
                        + c.vmConfigTemplate + "'; it offers " + String.join(", ", offered));
            }
            interfaces(c, null);
            c.vmConfigTenant = owner(request.vmConfigTenant, null);
            if (c.vmIndex != null && !caller.provider() && routers.containsKey(c.vmIndex)
                    && !caller.sees(routers.get(c.vmIndex).config.vmConfigTenant)) {
                throw new AccessDeniedException("vmIndex", "vmIndex " + c.vmIndex + " cannot be used", false);
            }
            if (c.vmIndex != null && (!indexFree.test(c.vmIndex) || seen.contains(c.vmIndex))) {
                throw new ConflictException(Reason.EXISTS, "vmIndex", "vmIndex " + c.vmIndex + " is in use");
            }
        } catch (VrException e) {
            throw e.at(c.vmIndex, null);
        }
        return new Target(Kind.CREATE, c.vmIndex == null ? 0 : c.vmIndex, null, null, c);
    }

    private Target edit(int vmIndex, ChangeSet.RowEdit edit) {
        VrRecord r = routers.get(vmIndex);
        try {
            if (r == null) throw new NotFoundException("no VR with vmIndex " + vmIndex);
            if (!caller.sees(r.config.vmConfigTenant)) throw AccessDeniedException.hiddenVr(vmIndex);
            if (r.removing) throw new ConflictException(null, "VR " + vmIndex + " is being removed");
            refuseWhileMigrating(r);
            VmConfigEntry before = r.config;
            VmConfigEntry after = before.copy();
            edit.apply(after);
            if (!Objects.equals(after.vmIndex, vmIndex)) {
                throw new ValidationException("vmIndex", "cannot change: it names the VR");
            }
            String asked = after.vmConfigTenant;
            defaults(after, before);
            after.vmConfigTenant = owner(asked, before);
            Validator.row(after);
            changes(before, after);
            interfaces(after, before);
            return new Target(Kind.CHANGE, vmIndex, r, before, after);
        } catch (VrException e) {
            throw e.at(vmIndex, null);
        }
    }

    /** A VR on its way to a peer is moved as it is: changing it here would be lost, or half moved. */
    static void refuseWhileMigrating(VrRecord r) {
        String peer = r.migratingTo;
        if (peer != null) {
            throw new ConflictException(Reason.IN_USE, null, "VR " + r.vmIndex + " is migrating to peer " + peer
                    + "; change it there once it has moved, or here if the move fails").at(r.vmIndex, null);
        }
    }

    private Target remove(int vmIndex) {
        VrRecord r = routers.get(vmIndex);
        if (r == null) throw new NotFoundException("no VR with vmIndex " + vmIndex).at(vmIndex, null);
        if (!caller.sees(r.config.vmConfigTenant)) throw AccessDeniedException.hiddenVr(vmIndex).at(vmIndex, null);
        refuseWhileMigrating(r);
        return new Target(r.removing ? Kind.JOIN : Kind.REMOVE, vmIndex, r, r.config, null);
    }

    /**
     * The VR's owner as the change leaves it. Asked for as null (absent, or a whole row written
     * without it): the VR keeps its owner, and a new one gets the caller's tenant. The empty string
     * is the provider's. Only the provider's users may give a VR to a tenant, and only to a declared one.
     */
    private String owner(String asked, VmConfigEntry before) {
        String had = before == null ? caller.tenant() : before.vmConfigTenant;
        String owner = asked == null ? had : asked.isEmpty() ? null : asked;
        if (Objects.equals(owner, had)) return owner;
        if (!caller.provider()) {
            throw new AccessDeniedException("vmConfigTenant", "only the infrastructure provider's users can give a VR"
                    + " to a tenant; user '" + caller.user() + "' is of tenant '" + caller.tenant() + "'", false);
        }
        if (owner != null && tenants.get(owner).isEmpty()) {
            throw new ValidationException("vmConfigTenant", "no tenant '" + owner + "' is declared"
                    + (tenants.isEmpty() ? "" : " (declared: " + String.join(", ",
                    tenants.all().stream().map(Tenants.Tenant::name).toList()) + ")"));
        }
        return owner;
    }

    // ---------------------------------------------------------------- quotas and the host's capacity

    /**
     * Refuses a set that takes a tenant past a quota, or the VRs together past the host's CPUs or
     * memory times the overcommit. Only what the set makes grow is checked, so that a tenant over a
     * quota lowered since (or a host that shrank) can still shrink and remove. The VRs are summed
     * only when something grows: most sets (states, names, interfaces) cost nothing here.
     */
    private void quotas(List<Target> targets) {
        boolean perTenant = !tenants.isEmpty();
        Map<String, Commitment> delta = perTenant ? new HashMap<>() : Map.of();
        Commitment total = new Commitment();
        for (Target t : targets) {
            if (t.kind() == Kind.JOIN) continue;
            if (t.before() != null) {
                if (perTenant) delta.computeIfAbsent(key(t.before().vmConfigTenant), k -> new Commitment()).add(t.before(), -1);
                total.add(t.before(), -1);
            }
            if (t.after() != null) {
                if (perTenant) delta.computeIfAbsent(key(t.after().vmConfigTenant), k -> new Commitment()).add(t.after(), 1);
                total.add(t.after(), 1);
            }
        }
        List<Tenants.Tenant> limited = new ArrayList<>();
        for (Map.Entry<String, Commitment> d : delta.entrySet()) {
            if (d.getValue().grows()) tenants.get(d.getKey()).ifPresent(limited::add);
        }
        Hypervisor host = total.cpus() > 0 || total.memory() > 0 ? driver.hypervisor() : null;
        boolean hostLimits = host != null && (host.vmHvCpus != null || host.vmHvMemory != null);
        if (limited.isEmpty() && !hostLimits) return;
        Map<String, Commitment> now = new HashMap<>();
        Commitment all = new Commitment();
        for (VrRecord r : routers.values()) {
            now.computeIfAbsent(key(r.config.vmConfigTenant), k -> new Commitment()).add(r.config, 1);
            all.add(r.config, 1);
        }
        for (Tenants.Tenant tenant : limited) {
            Commitment d = delta.get(tenant.name());
            Commitment u = now.getOrDefault(tenant.name(), new Commitment());
            String quota = "tenant." + tenant.name();
            if (d.vrs() > 0 && tenant.vrs() != null && u.vrs() + d.vrs() > tenant.vrs()) {
                throw new QuotaExceededException(null, "tenant '" + tenant.name() + "' may have " + tenant.vrs()
                        + " VRs (" + quota + " vrs): this change would make it " + (u.vrs() + d.vrs()));
            }
            if (d.cpus() > 0 && tenant.vcpus() != null && u.cpus() + d.cpus() > tenant.vcpus()) {
                throw new QuotaExceededException("vmConfigCpuNumber", "tenant '" + tenant.name() + "' may have "
                        + tenant.vcpus() + " vCPUs (" + quota + " vcpus): this change would make it " + (u.cpus() + d.cpus()));
            }
            if (d.memory() > 0 && tenant.memoryMib() != null && u.memory() + d.memory() > tenant.memoryMib()) {
                throw new QuotaExceededException("vmConfigMemory", "tenant '" + tenant.name() + "' may have "
                        + tenant.memoryMib() + " MiB of memory (" + quota + " memory): this change would make it "
                        + (u.memory() + d.memory()) + " MiB");
            }
        }
        if (!hostLimits) return;
        if (total.cpus() > 0 && host.vmHvCpus != null) {
            long limit = (long) Math.floor(host.vmHvCpus * tenants.cpuOvercommit());
            if (all.cpus() + total.cpus() > limit) {
                throw new QuotaExceededException("vmConfigCpuNumber", "the host has " + host.vmHvCpus + " CPUs, and"
                        + " the VRs may commit " + limit + " vCPUs (capacity.cpu-overcommit " + ratio(tenants.cpuOvercommit())
                        + "): this change would commit " + (all.cpus() + total.cpus()));
            }
        }
        if (total.memory() > 0 && host.vmHvMemory != null) {
            long limit = (long) Math.floor(host.vmHvMemory * tenants.memoryOvercommit());
            if (all.memory() + total.memory() > limit) {
                throw new QuotaExceededException("vmConfigMemory", "the host has " + host.vmHvMemory + " MiB of memory,"
                        + " and the VRs may commit " + limit + " MiB (capacity.memory-overcommit "
                        + ratio(tenants.memoryOvercommit()) + "): this change would commit " + (all.memory() + total.memory()) + " MiB");
            }
        }
    }

    /** The provider's VRs are summed under the empty name, which no tenant has. */
    private static String key(String tenant) {
        return tenant == null ? "" : tenant;
    }

    private static String ratio(double r) {
        return r == Math.rint(r) ? Long.toString((long) r) : Double.toString(r);
    }

    /** Absent columns take their defaults; the template is the VR's own, or the driver's first for a new one. */
    private void defaults(VmConfigEntry c, VmConfigEntry before) {
        for (ConfigColumn col : ConfigColumn.values()) {
            if (col.get(c) == null && col.defaultValue() != null) col.set(c, col.defaultValue());
            // Optional text given empty is absent: one way to say "none" on every interface.
            if (col.kind() == Column.Kind.TEXT && col.min() == 0 && "".equals(col.get(c))) col.set(c, null);
        }
        if (c.vmConfigTemplate == null) c.vmConfigTemplate = before != null ? before.vmConfigTemplate : driver.templates().get(0);
    }

    /** What may change on an existing VR, and when. */
    private void changes(VmConfigEntry before, VmConfigEntry after) {
        int i = before.vmIndex;
        boolean shutDown = before.vmAdminState == AdminState.SHUTDOWN || after.vmAdminState == AdminState.SHUTDOWN;
        // Memory before CPUs: the column a client most often gets wrong is named first.
        for (ConfigColumn col : List.of(ConfigColumn.VM_CONFIG_TEMPLATE, ConfigColumn.VM_CONFIG_MEMORY,
                ConfigColumn.VM_CONFIG_CPU_NUMBER)) {
            if (Objects.equals(col.get(before), col.get(after))) continue;
            if (col.change() == ConfigColumn.Change.NEVER) {
                throw new ConflictException(Reason.FIXED, col.field(), "VR " + i + " has " + col.field() + " '"
                        + col.get(before) + "', which cannot change: remove the VR and create it again to change it");
            }
            if (col.change() == ConfigColumn.Change.WHILE_SHUT_DOWN && !shutDown) {
                throw new ConflictException(Reason.NOT_SHUT_DOWN, col.field(), "VR " + i + " is "
                        + before.vmAdminState.label() + ": stop it (vmAdminState shutdown, before or in the same change)"
                        + " to change its CPUs or memory");
            }
        }
        AdminState from = before.vmAdminState;
        AdminState to = after.vmAdminState;
        if (from != to) {
            if (!PowerStates.of(driver).contains(to)) {
                throw new NotSupportedException("vmAdminState", "driver '" + driver.name() + "' cannot make a VR "
                        + to.label());
            }
            if ((to == AdminState.SUSPENDED || to == AdminState.PAUSED) && from == AdminState.SHUTDOWN) {
                throw new ConflictException("vmAdminState", "VR " + i + " is shut down: it cannot be " + to.label());
            }
        }
    }

    /**
     * Checks the interfaces that are new or changed (those the VR has unchanged are valid already),
     * numbers the new ones without an index, and orders them by index.
     */
    private static void interfaces(VmConfigEntry c, VmConfigEntry before) {
        Set<Integer> used = new HashSet<>();
        for (VmNetworkConfigEntry n : c.interfaces()) {
            if (n == null) throw new ValidationException(Schema.Table.NETWORK_CONFIG.tableName(), "an interface entry is empty");
            if (n.vmNetworkConfigIndex != null && !used.add(n.vmNetworkConfigIndex)) {
                throw new ValidationException(Schema.Table.NETWORK_CONFIG.rowKey(), "interface " + n.vmNetworkConfigIndex
                        + " is given twice").at(c.vmIndex, n.vmNetworkConfigIndex);
            }
        }
        Map<Integer, VmNetworkConfigEntry> had = new HashMap<>();
        if (before != null) for (VmNetworkConfigEntry n : before.interfaces()) had.put(n.vmNetworkConfigIndex, n);
        List<VmNetworkConfigEntry> out = new ArrayList<>();
        for (VmNetworkConfigEntry n : c.interfaces()) {
            VmNetworkConfigEntry old = n.vmNetworkConfigIndex == null ? null : had.get(n.vmNetworkConfigIndex);
            // Written without a MAC, an interface keeps the one it has (given, or the host's, recorded):
            // a row read before the host chose it, or a client that leaves it out, does not re-plug it.
            if (old != null && n.vmNetworkConfigPhysAddress == null && old.vmNetworkConfigPhysAddress != null) {
                n = n.copy();
                n.vmNetworkConfigPhysAddress = old.vmNetworkConfigPhysAddress;
            }
            if (old != null && ChangeSet.sameInterface(old, n)) {
                out.add(old);
                continue;
            }
            try {
                out.add(Validator.iface(n, used));
            } catch (VrException e) {
                throw e.at(c.vmIndex, n.vmNetworkConfigIndex);
            }
        }
        out.sort((a, b) -> Integer.compare(a.vmNetworkConfigIndex, b.vmNetworkConfigIndex));
        c.vmNetworkConfigTable = out.isEmpty() ? null : List.copyOf(out);
    }

    /** What the driver refuses of the row, as the service's refusal at that column. */
    /**
     * The driver's check of a row as the change leaves it. A value it refuses that the VR had before
     * the change (accepted by an earlier release: an upgrade made the driver stricter) locks no change
     * that keeps it: the interface it is on is left out and the rest checked again, so that only a
     * change that sets a refused value is refused. VirtualRouterService warns of such values at start-up.
     */
    private void driverCheck(VmConfigEntry row, VmConfigEntry before) {
        VmConfigEntry asked = row;
        while (true) {
            try {
                driver.check(asked);
                return;
            } catch (ConfigRefusedException e) {
                if (before == null || !kept(before, asked, e)) {
                    throw new ValidationException(e.field(), e.getMessage()).at(row.vmIndex, e.networkIndex());
                }
                // A column of the VR's own row it had: the driver says no more of this row.
                if (e.networkIndex() == null) return;
                asked = asked.copy();
                asked.vmNetworkConfigTable = new ArrayList<>(asked.interfaces());
                asked.vmNetworkConfigTable.removeIf(n -> n.vmNetworkConfigIndex.equals(e.networkIndex()));
            }
        }
    }

    /** Whether the value the driver refused is the one the VR (or that interface of it) had before the change. */
    private static boolean kept(VmConfigEntry before, VmConfigEntry after, ConfigRefusedException e) {
        Integer k = e.networkIndex();
        if (k == null) {
            ConfigColumn column = ConfigColumn.ofField(e.field());
            return column != null && Objects.equals(column.get(before), column.get(after));
        }
        Optional<VmNetworkConfigEntry> was = before.interfaces().stream().filter(n -> n.vmNetworkConfigIndex.equals(k)).findFirst();
        Optional<VmNetworkConfigEntry> now = after.interfaces().stream().filter(n -> n.vmNetworkConfigIndex.equals(k)).findFirst();
        if (was.isEmpty() || now.isEmpty()) return false;
        if (Schema.Table.NETWORK_CONFIG.rowKey().equals(e.field())) return true; // the interface itself, which it had
        NetworkColumn column = NetworkColumn.ofField(e.field());
        return column != null && Objects.equals(column.get(was.get()), column.get(now.get()));
    }

    /**
     * What the row asks of behaviours the driver may lack (a link type, a rate, a CPU weight), refused
     * before anything changes; and host NICs and underlays, which are the provider's unless it grants a
     * tenant some (tenant.NAME underlays=...), checked on the interfaces the change attaches anew only:
     * a tenant may change the rest of a VR the provider linked for it.
     */
    private void behaviours(VmConfigEntry before, VmConfigEntry row) {
        try {
            if (row.vmConfigCpuWeight != null && driver.behaviour(CpuWeights.class).isEmpty()) {
                throw new NotSupportedException("vmConfigCpuWeight", "driver '" + driver.name() + "' does not set CPU weights");
            }
            if (before != null && driver.behaviour(Interfaces.class).isEmpty() && reattaches(before, row)) {
                throw new NotSupportedException(Schema.Table.NETWORK_CONFIG.tableName(), "driver '" + driver.name() + "' does not attach or"
                        + " detach interfaces of an existing VR: remove the VR and create it again with its new interfaces");
            }
        } catch (VrException e) {
            throw e.at(row.vmIndex, null);
        }
        Set<LinkType> linkTypes = driver.behaviour(Links.class).map(Links::linkTypes).orElse(Set.of());
        Optional<RateLimits> rates = driver.behaviour(RateLimits.class);
        for (VmNetworkConfigEntry n : row.interfaces()) {
            LinkType type = LinkType.of(n);
            try {
                if (type != LinkType.BRIDGE && !linkTypes.contains(type)) {
                    throw new NotSupportedException("vmNetworkConfigLinkType", "driver '" + driver.name() + "' does not make "
                            + type.label() + " links" + (linkTypes.isEmpty() ? "" : "; it makes bridge, "
                            + String.join(", ", linkTypes.stream().map(LinkType::label).sorted().toList())));
                }
                if ((n.vmNetworkConfigRateIn != null || n.vmNetworkConfigRateOut != null) && rates.isEmpty()) {
                    throw new NotSupportedException(n.vmNetworkConfigRateIn != null ? "vmNetworkConfigRateIn" : "vmNetworkConfigRateOut",
                            "driver '" + driver.name() + "' does not limit interface rates");
                }
                if (n.vmNetworkConfigRateIn != null && !rates.get().limitsIngress(type)) {
                    throw new NotSupportedException("vmNetworkConfigRateIn", "driver '" + driver.name() + "' cannot limit what"
                            + " a VR receives on a " + type.label() + " link; limit what the far end sends"
                            + (type == LinkType.PEER ? " (its vmNetworkConfigRateOut)" : ""));
                }
                if (type.usesHostNic() && !caller.provider() && !granted(n.vmNetworkConfigParent)
                        && attachedAnew(before, n)) {
                    throw new AccessDeniedException("vmNetworkConfigParent", "host NICs and underlays are the infrastructure"
                            + " provider's: user '" + caller.user() + "' of tenant '" + caller.tenant() + "' cannot attach a "
                            + type.label() + " interface to '" + n.vmNetworkConfigParent + "', which the provider has not"
                            + " granted the tenant", false);
                }
            } catch (VrException e) {
                throw e.at(row.vmIndex, n.vmNetworkConfigIndex);
            }
        }
    }

    /** Whether the change attaches, detaches or re-attaches an interface of the VR (rates alone are set live). */
    private static boolean reattaches(VmConfigEntry before, VmConfigEntry after) {
        return after.interfaces().stream().anyMatch(n -> attachedAnew(before, n))
                || before.interfaces().stream().anyMatch(n -> attachedAnew(after, n));
    }

    /** Whether the change attaches the interface anew: the row is new, or had no interface attached just so. */
    private static boolean attachedAnew(VmConfigEntry before, VmNetworkConfigEntry n) {
        return before == null || before.interfaces().stream().noneMatch(b -> ChangeSet.sameAttachment(b, n));
    }

    /** Whether the provider granted the caller's tenant this host device as an underlay or NIC. */
    private boolean granted(String device) {
        return caller.tenant() != null && tenants.get(caller.tenant()).map(t -> t.underlays().contains(device)).orElse(false);
    }

    // ---------------------------------------------------------------- across VRs

    /** A peer link's end: an interface of a VR. */
    private record End(int vmIndex, int networkIndex) {
        static End far(VmNetworkConfigEntry n) {
            return new End(n.vmNetworkConfigPeerRouter, n.vmNetworkConfigPeerInterface);
        }
    }

    /**
     * Peer links, across the VRs as they will be: an end names another VR of the same owner (one the
     * caller sees: any other is answered as missing), not its own; the far interface, where it is
     * declared already, is a peer link that names this end back; and no two interfaces name the same
     * far end. Only a set that declares or changes a peer link pays for a look at every VR's.
     */
    private void links(List<Target> targets) {
        Map<Integer, VmConfigEntry> after = new HashMap<>();
        Set<Integer> inSet = new HashSet<>();
        List<Target> linking = new ArrayList<>();
        for (Target t : targets) {
            inSet.add(t.vmIndex());
            if (t.after() != null) after.put(t.vmIndex(), t.after());
            if (t.after() != null && t.after().interfaces().stream().anyMatch(n -> LinkType.of(n) == LinkType.PEER
                    && attachedAnew(t.before(), n))) {
                linking.add(t);
            }
        }
        if (linking.isEmpty()) return;
        Map<End, End> namedBy = new HashMap<>();
        for (VrRecord r : routers.values()) {
            if (!inSet.contains(r.vmIndex)) claim(namedBy, r.config);
        }
        for (VmConfigEntry row : after.values()) claim(namedBy, row);
        for (Target t : linking) {
            for (VmNetworkConfigEntry n : t.after().interfaces()) {
                if (LinkType.of(n) != LinkType.PEER) continue;
                // A link declared before is left as it is, even when its far VR has gone since.
                if (!attachedAnew(t.before(), n)) continue;
                End here = new End(t.vmIndex(), n.vmNetworkConfigIndex);
                End far = End.far(n);
                try {
                    if (far.vmIndex() == t.vmIndex()) {
                        throw new ValidationException("vmNetworkConfigPeerRouter", "a VR cannot be linked to itself");
                    }
                    VmConfigEntry farRow = inSet.contains(far.vmIndex()) ? after.get(far.vmIndex())
                            : routers.containsKey(far.vmIndex()) ? routers.get(far.vmIndex()).config : null;
                    if (farRow == null || !caller.sees(farRow.vmConfigTenant)) {
                        throw new ValidationException("vmNetworkConfigPeerRouter", "there is no VR with vmIndex " + far.vmIndex());
                    }
                    if (!Objects.equals(farRow.vmConfigTenant, t.after().vmConfigTenant)) {
                        throw new ValidationException("vmNetworkConfigPeerRouter", "VR " + far.vmIndex()
                                + " belongs to another owner: a link joins VRs of one tenant only");
                    }
                    End other = namedBy.get(far);
                    if (other != null && !other.equals(here)) {
                        throw new ConflictException(Reason.EXISTS, "vmNetworkConfigPeerInterface", "interface " + far.networkIndex()
                                + " of VR " + far.vmIndex() + " is already linked to VR " + other.vmIndex() + "'s interface "
                                + other.networkIndex());
                    }
                    VmNetworkConfigEntry farIface = farRow.interfaces().stream()
                            .filter(f -> f.vmNetworkConfigIndex == far.networkIndex()).findFirst().orElse(null);
                    if (farIface != null && (LinkType.of(farIface) != LinkType.PEER || !End.far(farIface).equals(here))) {
                        throw new ConflictException(Reason.EXISTS, "vmNetworkConfigPeerInterface", "interface " + far.networkIndex()
                                + " of VR " + far.vmIndex() + " is attached otherwise: it must name this interface"
                                + " (vmNetworkConfigPeerRouter " + here.vmIndex() + ", vmNetworkConfigPeerInterface "
                                + here.networkIndex() + ") as its peer");
                    }
                } catch (VrException e) {
                    throw e.at(t.vmIndex(), n.vmNetworkConfigIndex);
                }
            }
        }
    }

    /** Records which end names each far end; the first claim stands, a second is found by {@link #links}. */
    private static void claim(Map<End, End> namedBy, VmConfigEntry row) {
        for (VmNetworkConfigEntry n : row.interfaces()) {
            if (LinkType.of(n) == LinkType.PEER) namedBy.putIfAbsent(End.far(n), new End(row.vmIndex, n.vmNetworkConfigIndex));
        }
    }

    /** An interface that is given a MAC it did not have. */
    private record MacClaim(int vmIndex, int networkIndex, String mac) {
    }

    /**
     * A MAC (given, or the host's, recorded) is one interface's, across the VRs as they will be: two
     * interfaces with one MAC on one network break it, and which parents share a network (bridges
     * linked, XenServer networks on one NIC) is the host's to know, not vrouter's. A VR that the set
     * removes gives its MACs up; one being removed keeps them until it is gone. Only a set that gives
     * an interface a new MAC pays for a look at every VR's.
     */
    private void macs(List<Target> targets) {
        List<MacClaim> claims = new ArrayList<>();
        Set<Integer> inSet = new HashSet<>();
        Set<String> claimed = new HashSet<>();
        for (Target t : targets) {
            if (t.kind() != Kind.JOIN) inSet.add(t.vmIndex());
            if (t.after() == null) continue;
            Map<Integer, String> had = new HashMap<>();
            if (t.before() != null) for (VmNetworkConfigEntry n : t.before().interfaces()) had.put(n.vmNetworkConfigIndex, n.vmNetworkConfigPhysAddress);
            for (VmNetworkConfigEntry n : t.after().interfaces()) {
                String mac = n.vmNetworkConfigPhysAddress;
                if (mac != null && !mac.equals(had.get(n.vmNetworkConfigIndex))) {
                    claims.add(new MacClaim(t.vmIndex(), n.vmNetworkConfigIndex, mac));
                    claimed.add(t.vmIndex() + "/" + n.vmNetworkConfigIndex);
                }
            }
        }
        if (claims.isEmpty()) return;
        Map<String, MacClaim> holders = new HashMap<>();
        for (VrRecord r : routers.values()) {
            if (!inSet.contains(r.vmIndex)) hold(holders, r.config, null);
        }
        for (Target t : targets) {
            if (t.after() != null) hold(holders, t.after(), claimed);
        }
        for (MacClaim c : claims) {
            MacClaim other = holders.putIfAbsent(c.mac(), c);
            if (other != null) {
                throw new ConflictException(Reason.NOT_UNIQUE, "vmNetworkConfigPhysAddress", c.mac() + " is already the MAC of "
                        + (other.vmIndex() == c.vmIndex() ? "" : "VR " + other.vmIndex() + "'s ") + "interface "
                        + other.networkIndex()).at(c.vmIndex(), c.networkIndex());
            }
        }
    }

    /** Records the MACs a row's interfaces hold, but for those being claimed ("vmIndex/networkIndex"). */
    private static void hold(Map<String, MacClaim> holders, VmConfigEntry row, Set<String> claimed) {
        for (VmNetworkConfigEntry n : row.interfaces()) {
            String mac = n.vmNetworkConfigPhysAddress;
            if (mac == null || (claimed != null && claimed.contains(row.vmIndex + "/" + n.vmNetworkConfigIndex))) continue;
            holders.putIfAbsent(mac, new MacClaim(row.vmIndex, n.vmNetworkConfigIndex, mac));
        }
    }

    /**
     * vmName is unique across the VRs as they will be: a VR outside the set keeps its name (one
     * being removed too, until it is gone), and so does one of the set that is not renamed; of the
     * VRs that take a new name, the one at fault is the first that wants a name already taken (a VR
     * the set renames or removes gives its name up for the others). The owner of a name outside the
     * set is looked up in the service's index of names, so a set costs its own size, not the
     * number of VRs.
     */
    private void names(List<Target> targets) {
        Set<Integer> inSet = new HashSet<>();
        for (Target t : targets) inSet.add(t.vmIndex());
        Map<String, Integer> taken = new HashMap<>();
        List<Target> named = new ArrayList<>();
        for (Target t : targets) {
            if (t.kind() == Kind.JOIN) {
                taken.put(t.before().vmName, t.vmIndex());
            } else if (t.after() != null && t.before() != null && t.after().vmName.equals(t.before().vmName)) {
                taken.put(t.after().vmName, t.vmIndex());
            } else if (t.after() != null) {
                named.add(t);
            }
        }
        for (Target t : named) {
            String name = t.after().vmName;
            Integer other = taken.putIfAbsent(name, t.vmIndex());
            if (other == null) {
                Integer owner = names.get(name);
                // the index of names may still hold a VR forgotten a moment ago: the registry decides
                if (owner != null && !inSet.contains(owner) && routers.containsKey(owner)) other = owner;
            }
            if (other != null && other != t.vmIndex()) {
                // A VR of another tenant is named, never numbered: the name is the host's, its index is not the caller's to know.
                VrRecord holder = routers.get(other);
                boolean hidden = holder != null && !caller.sees(holder.config.vmConfigTenant);
                throw new ConflictException(Reason.NOT_UNIQUE, "vmName", "a VR named '" + name + "' already exists"
                        + (hidden ? "" : " (vmIndex " + other + ")")).at(t.vmIndex(), null);
            }
        }
    }
}
