package io.vrouter.core.service;

import io.vrouter.core.model.ConfigColumn;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import java.util.ArrayList;
import java.util.List;

/**
 * What a request wants of any number of VRs, in one transaction: VRs to create, VRs to change (their
 * columns, admin state and interfaces: the row they should have) and VRs to remove. Interfaces build
 * one from their protocol and hand it to {@link VirtualRouterService#apply}, which checks all of it
 * against the VRs as they are, then carries it out whole or not at all; or to
 * {@link VirtualRouterService#validate}, which only checks.
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

    /** The removal of a VR. */
    public record Remove(int vmIndex) implements Change {
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

    private final List<Change> changes;

    private ChangeSet(List<Change> changes) {
        this.changes = List.copyOf(changes);
    }

    public List<Change> changes() {
        return changes;
    }

    public boolean isEmpty() {
        return changes.isEmpty();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A set of one change. */
    public static ChangeSet of(Change change) {
        return new ChangeSet(List.of(change));
    }

    @Override
    public String toString() {
        return "ChangeSet" + changes;
    }

    /** Collects the changes of one set. */
    public static final class Builder {
        private final List<Change> changes = new ArrayList<>();

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

        public Builder remove(int vmIndex) {
            changes.add(new Remove(vmIndex));
            return this;
        }

        public Builder add(Change change) {
            changes.add(change);
            return this;
        }

        public boolean isEmpty() {
            return changes.isEmpty();
        }

        public ChangeSet build() {
            return new ChangeSet(changes);
        }
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
