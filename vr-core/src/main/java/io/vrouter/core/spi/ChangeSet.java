package io.vrouter.core.spi;

import io.vrouter.core.config.Caller;
import io.vrouter.core.model.ConfigColumn;
import io.vrouter.core.model.LeafChanges;
import io.vrouter.core.model.NetworkColumn;
import io.vrouter.core.model.Schema;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import io.vrouter.core.model.VrEvent.LeafChange;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.IntFunction;
import java.util.function.Predicate;

/**
 * What a request wants of any number of VRs, in one transaction: VRs to create, VRs to change (their
 * columns, admin state and interfaces: the row they should have) and VRs to remove. Interfaces build
 * one from their protocol and hand it to {@link VirtualRouters#apply}, which checks all of it
 * against the VRs as they are, then carries it out whole or not at all; or to
 * {@link VirtualRouters#validate}, which only checks.
 *
 * <p>A change of an existing VR is an {@link RowEdit} of a copy of its current row, made by the
 * service under its lock, so that two requests never work from a stale row: a merge of columns (REST
 * PATCH, SNMP SET), a whole desired row ({@link Builder#replace}: NETCONF, RESTCONF PUT), or anything
 * in between. The order of the changes is the order errors are looked for in, so that an interface
 * can point at the part of its request that is at fault; it is not the order of the hypervisor work,
 * which the service decides.
 */
public final class ChangeSet {
    /** What to do with one VR. */
    public sealed interface Change permits Create, Edit, Remove {
    }

    /** A new VR: the row asked for (vmIndex null: the service chooses one). */
    public record Create(VmConfigEntry row) implements Change {
    }

    /** A change of an existing VR: the edit turns a copy of its current row into the row wanted. */
    public record Edit(int vmIndex, RowEdit edit) implements Change {
    }

    /** The removal of a VR; one that is gone already is none of the set's business unless it must exist. */
    public record Remove(int vmIndex, boolean mustExist) implements Change {
    }

    /**
     * Turns a copy of a VR's current row into the row wanted. Columns left null take their default
     * (the template stays what it is); it may throw a {@link VrException} (an interface to remove
     * that is not there, say).
     */
    @FunctionalInterface
    public interface RowEdit {
        void apply(VmConfigEntry row);
    }

    /**
     * A condition the set is applied under, on the {@link Version} of a VR (vmIndex) or of the
     * datastore (vmIndex null): the If-Match of REST and RESTCONF. Checked under the service's lock,
     * after the VR is found to exist and before every rule; when it does not hold, the set is refused
     * with {@link VrException.Reason#CHANGED}.
     */
    public record Condition(Integer vmIndex, Predicate<Version> holds) {
    }

    private final List<Change> changes;
    private final List<Condition> conditions;
    private final Caller caller;
    /** The commit of the history this set rolls back to, or null (docs/adr/0021-history-and-rollback.md). */
    private final Long rollbackTo;

    private ChangeSet(List<Change> changes, List<Condition> conditions, Caller caller, Long rollbackTo) {
        this.changes = List.copyOf(changes);
        this.conditions = List.copyOf(conditions);
        this.caller = Objects.requireNonNull(caller, "caller");
        this.rollbackTo = rollbackTo;
    }

    /**
     * Who asks for the set: the core checks against it what the caller may see and change and its
     * tenant's quotas, and records it with the set's events. {@link Caller#SYSTEM} unless the set
     * came through a caller's view ({@code VirtualRouters.as}), which stamps it.
     */
    public Caller caller() {
        return caller;
    }

    /** The same set asked for by the caller. */
    public ChangeSet by(Caller caller) {
        return caller == this.caller ? this : new ChangeSet(changes, conditions, caller, rollbackTo);
    }

    /** The same set, recorded in the history as rolling back to that commit. */
    public ChangeSet rollingBackTo(long commit) {
        return new ChangeSet(changes, conditions, caller, commit);
    }

    /** The commit this set rolls back to, or null. */
    public Long rollbackTo() {
        return rollbackTo;
    }

    public List<Change> changes() {
        return changes;
    }

    public List<Condition> conditions() {
        return conditions;
    }

    public boolean isEmpty() {
        return changes.isEmpty();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A set of one change. */
    public static ChangeSet of(Change change) {
        return new ChangeSet(List.of(change), List.of(), Caller.SYSTEM, null);
    }

    @Override
    public String toString() {
        return "ChangeSet" + changes;
    }

    /** Collects the changes of one set. */
    public static final class Builder {
        private final List<Change> changes = new ArrayList<>();
        private final List<Condition> conditions = new ArrayList<>();

        public Builder create(VmConfigEntry row) {
            changes.add(new Create(row));
            return this;
        }

        public Builder edit(int vmIndex, RowEdit edit) {
            changes.add(new Edit(vmIndex, edit));
            return this;
        }

        /** The whole row the VR should have (vmIndex names it): absent columns take their defaults. */
        public Builder replace(VmConfigEntry desired) {
            return edit(desired.vmIndex, replacing(desired));
        }

        /** Removes a VR; a {@link NotFoundException} when there is none. */
        public Builder remove(int vmIndex) {
            changes.add(new Remove(vmIndex, true));
            return this;
        }

        public Builder add(Change change) {
            changes.add(change);
            return this;
        }

        /** Applies the set only if the VR's version, when the set is applied, is one {@code holds} accepts. */
        public Builder provided(int vmIndex, Predicate<Version> holds) {
            conditions.add(new Condition(vmIndex, holds));
            return this;
        }

        /** Applies the set only if the datastore's version, when the set is applied, is one {@code holds} accepts. */
        public Builder provided(Predicate<Version> holds) {
            conditions.add(new Condition(null, holds));
            return this;
        }

        public boolean isEmpty() {
            return changes.isEmpty();
        }

        public ChangeSet build() {
            return new ChangeSet(changes, conditions, Caller.SYSTEM, null);
        }
    }

    /**
     * The set that takes the VRs from one configuration to another (two maps of rows by vmIndex, such
     * as a NETCONF candidate and the running configuration it started from): VRs only in {@code to}
     * are created, VRs only in {@code from} removed (unless gone already), and of the others the
     * columns and interfaces that differ are changed on the VR as it is when the set is applied, so
     * that changes made meanwhile to anything else are kept. An interface to remove that is gone
     * already is a {@link NotFoundException}.
     */
    public static ChangeSet between(Map<Integer, VmConfigEntry> from, Map<Integer, VmConfigEntry> to) {
        return between(to.keySet(), from.keySet(), from::get, to::get);
    }

    /**
     * The same among the given VRs only, in their order, with the rows of both configurations read
     * by vmIndex (null: no row): for a configuration that knows which rows an edit touched, so that
     * the set costs the edit and not the number of VRs. VRs not given are left alone.
     */
    public static ChangeSet between(Iterable<Integer> indices, IntFunction<VmConfigEntry> from,
                                    IntFunction<VmConfigEntry> to) {
        return between(indices, indices, from, to);
    }

    private static ChangeSet between(Iterable<Integer> inTo, Iterable<Integer> inFrom, IntFunction<VmConfigEntry> from,
                                     IntFunction<VmConfigEntry> to) {
        Builder b = builder();
        for (Integer i : inTo) {
            VmConfigEntry row = to.apply(i);
            if (row == null) continue;
            VmConfigEntry was = from.apply(i);
            if (was == null) {
                b.create(row);
            } else if (was != row) {
                List<LeafChange> changed = LeafChanges.withKeys(i, was, row);
                if (!changed.isEmpty()) b.edit(row.vmIndex, difference(changed, row));
            }
        }
        for (Integer i : inFrom) {
            if (from.apply(i) != null && to.apply(i) == null) b.add(new Remove(i, false));
        }
        return b.build();
    }

    /**
     * The leaf changes to {@code now} made on a VR's current row: its columns that changed take their
     * new value, interfaces gone are removed and each interface made or changed is put whole.
     */
    private static RowEdit difference(List<LeafChange> changed, VmConfigEntry now) {
        VmConfigEntry n = now.copy();
        Set<Integer> gone = new LinkedHashSet<>();
        Set<Integer> touched = new HashSet<>();
        List<ConfigColumn> columns = new ArrayList<>();
        for (LeafChange c : changed) {
            if (c.networkIndex() == null) {
                columns.add(ConfigColumn.ofField(c.leaf()));
            } else if (LeafChanges.isKey(c) && c.after() == null) {
                gone.add(c.networkIndex());
            } else {
                touched.add(c.networkIndex());
            }
        }
        return row -> {
            for (ConfigColumn c : columns) c.set(row, c.get(n));
            for (Integer i : gone) removeInterface(i).apply(row);
            for (VmNetworkConfigEntry i : n.interfaces()) {
                if (touched.contains(i.vmNetworkConfigIndex)) putInterface(i).apply(row);
            }
        };
    }

    private static VmNetworkConfigEntry find(List<VmNetworkConfigEntry> list, Integer index) {
        for (VmNetworkConfigEntry n : list) {
            if (Objects.equals(n.vmNetworkConfigIndex, index)) return n;
        }
        return null;
    }

    /** Whether two interfaces have the same index and columns. */
    public static boolean sameInterface(VmNetworkConfigEntry a, VmNetworkConfigEntry b) {
        return sameAttachment(a, b) && sameLive(a, b);
    }

    /** Whether two interfaces have the same index and the same columns but those a driver changes live (rates). */
    public static boolean sameAttachment(VmNetworkConfigEntry a, VmNetworkConfigEntry b) {
        if (!Objects.equals(a.vmNetworkConfigIndex, b.vmNetworkConfigIndex)) return false;
        for (NetworkColumn c : NetworkColumn.values()) {
            if (!c.live() && !Objects.equals(c.get(a), c.get(b))) return false;
        }
        return true;
    }

    private static boolean sameLive(VmNetworkConfigEntry a, VmNetworkConfigEntry b) {
        for (NetworkColumn c : NetworkColumn.values()) {
            if (c.live() && !Objects.equals(c.get(a), c.get(b))) return false;
        }
        return true;
    }

    // ---------------------------------------------------------------- the usual edits

    /**
     * Sets the columns that {@code values} has (non-null), as a merge patch does; a non-empty
     * interface list replaces the VR's interfaces (an empty one is taken as absent, as generated
     * clients send it for "not set"). vmIndex, if given, must name the VR.
     */
    public static RowEdit columns(VmConfigEntry values) {
        VmConfigEntry v = values.copy();
        return row -> {
            if (v.vmIndex != null) row.vmIndex = v.vmIndex;
            for (ConfigColumn c : ConfigColumn.values()) {
                if (c.get(v) != null) c.set(row, c.get(v));
            }
            if (v.vmNetworkConfigTable != null && !v.vmNetworkConfigTable.isEmpty()) {
                row.vmNetworkConfigTable = v.vmNetworkConfigTable;
            }
        };
    }

    /** Makes the row {@code desired}, absent columns included (the service gives them their defaults). */
    public static RowEdit replacing(VmConfigEntry desired) {
        VmConfigEntry d = desired.copy();
        return row -> {
            d.copyColumnsTo(row);
            row.vmNetworkConfigTable = d.vmNetworkConfigTable;
        };
    }

    /** Adds an interface, or replaces the one with its vmNetworkConfigIndex. */
    public static RowEdit putInterface(VmNetworkConfigEntry iface) {
        VmNetworkConfigEntry n = iface.copy();
        return row -> {
            List<VmNetworkConfigEntry> list = new ArrayList<>(row.interfaces());
            if (n.vmNetworkConfigIndex != null) list.removeIf(x -> n.vmNetworkConfigIndex.equals(x.vmNetworkConfigIndex));
            list.add(n);
            row.vmNetworkConfigTable = list;
        };
    }

    /**
     * Adds an interface that must be new: without a vmNetworkConfigIndex it gets the lowest free one
     * (set on {@code request}, so that the caller can name it); one already taken is {@link VrException.Reason#EXISTS}.
     */
    public static RowEdit addInterface(VmNetworkConfigEntry request) {
        return row -> {
            Set<Integer> used = new HashSet<>();
            for (VmNetworkConfigEntry n : row.interfaces()) used.add(n.vmNetworkConfigIndex);
            if (request.vmNetworkConfigIndex == null) {
                int i = 1;
                while (used.contains(i)) i++;
                request.vmNetworkConfigIndex = i;
            } else if (used.contains(request.vmNetworkConfigIndex)) {
                throw new ConflictException(VrException.Reason.EXISTS, Schema.Table.NETWORK_CONFIG.rowKey(), "VR " + row.vmIndex
                        + " already has interface " + request.vmNetworkConfigIndex).at(row.vmIndex, request.vmNetworkConfigIndex);
            }
            putInterface(request).apply(row);
        };
    }

    /**
     * Sets the columns of an existing interface that {@code values} has (non-null), as a merge patch
     * does; a {@link NotFoundException} when the VR has no interface with that index.
     */
    public static RowEdit changeInterface(int networkIndex, VmNetworkConfigEntry values) {
        VmNetworkConfigEntry v = values.copy();
        return row -> {
            VmNetworkConfigEntry old = find(row.interfaces(), networkIndex);
            if (old == null) {
                throw new NotFoundException("VR " + row.vmIndex + " has no interface " + networkIndex)
                        .at(row.vmIndex, networkIndex);
            }
            VmNetworkConfigEntry changed = old.copy();
            for (NetworkColumn c : NetworkColumn.values()) {
                if (c.get(v) != null) c.set(changed, c.get(v));
            }
            // A new address without its type or prefix length: they follow it, as for a new interface.
            if (v.vmNetworkConfigAddress != null && v.vmNetworkConfigAddressType == null) {
                changed.vmNetworkConfigAddressType = null;
                boolean sameFamily = old.vmNetworkConfigAddress != null
                        && old.vmNetworkConfigAddress.contains(":") == v.vmNetworkConfigAddress.contains(":");
                if (v.vmNetworkConfigPrefixLength == null && !sameFamily) changed.vmNetworkConfigPrefixLength = null;
            }
            putInterface(changed).apply(row);
        };
    }

    /** Removes an interface; a {@link NotFoundException} when the VR has none with that index. */
    public static RowEdit removeInterface(int networkIndex) {
        return row -> {
            List<VmNetworkConfigEntry> list = new ArrayList<>(row.interfaces());
            if (!list.removeIf(x -> x.vmNetworkConfigIndex == networkIndex)) {
                throw new NotFoundException("VR " + row.vmIndex + " has no interface " + networkIndex)
                        .at(row.vmIndex, networkIndex);
            }
            row.vmNetworkConfigTable = list.isEmpty() ? null : list;
        };
    }

    /** Both edits, one after the other. */
    public static RowEdit both(RowEdit first, RowEdit second) {
        return row -> {
            first.apply(row);
            second.apply(row);
        };
    }
}
