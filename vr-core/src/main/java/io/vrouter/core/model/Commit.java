package io.vrouter.core.model;

import java.util.List;

/**
 * One committed change set in the history (docs/adr/0021-history-and-rollback.md): its number (one
 * more than the last, across restarts), when it was accepted, who asked from which interface, the
 * VRs it touched and its diff, the leaf changes of the set with their values in text form (enumerations
 * by label), as {@link VrEvent.LeafChange} carries them. A row made or gone has its key leaf
 * ({@code vmIndex}, {@code vmNetworkConfigIndex}) among the changes, so that a rollback knows it.
 */
public class Commit {
    public long number;
    /** When the set was accepted, RFC 3339 UTC. */
    public String time;
    public VrEvent.ChangedBy changedBy;
    /** The commit this one rolled back to, or null. */
    public Long rollbackTo;
    /**
     * Why the set was undone (its host work failed, or it depended on a set that did), or null: an
     * undone commit changed nothing in the end, and a rollback skips it.
     */
    public String undone;
    public List<Vr> vrs = List.of();
    public List<VrEvent.LeafChange> changes = List.of();

    /** A VR the commit touched: its index, name and owning tenant (null: the provider's) after it, or before when it removed the VR. */
    public record Vr(int vmIndex, String vmName, String tenant) {
    }

    /** The same commit with only the VRs (and their changes) that {@code keep} accepts. */
    public Commit only(java.util.function.Predicate<Vr> keep) {
        Commit c = new Commit();
        c.number = number;
        c.time = time;
        c.changedBy = changedBy;
        c.rollbackTo = rollbackTo;
        c.undone = undone;
        c.vrs = vrs.stream().filter(keep).toList();
        java.util.Set<Integer> kept = new java.util.HashSet<>();
        for (Vr v : c.vrs) kept.add(v.vmIndex());
        c.changes = changes.stream().filter(l -> kept.contains(l.vmIndex())).toList();
        return c;
    }
}
