package io.vrouter.core.service;

import io.vrouter.core.model.LeafChanges;
import io.vrouter.core.model.OperState;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VrEvent;
import io.vrouter.core.spi.Version;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One VR in the service's registry. Its row is replaced whole (never changed in place) under the
 * service's write lock; its operational state changes only on its lane, the queue of hypervisor work
 * that carries out the VR's requests in order.
 */
final class VrRecord {
    final int vmIndex;
    volatile VmConfigEntry config;
    volatile OperState operState;
    volatile String reason;
    /** Its VM's vmUUID as last seen, for the events made once the VM is gone. */
    volatile String uuid;
    /** Its removal was accepted and is not done (or failed) yet. */
    volatile boolean removing;
    /** The peer it is moving to, while a move runs (ADR 0023): its changes are refused, the host's reports wait. */
    volatile String migratingTo;
    /** What the VR's deletion event says once its VM is gone (a move's end: where it went); null: nothing. */
    volatile String goneReason;
    /** Its {@link Version}: changed (under this record's lock) after every change of its row or state is visible. */
    volatile Version version;
    /** The tail of this VR's queue of hypervisor work; guarded by this. */
    CompletableFuture<Void> lane = CompletableFuture.completedFuture(null);
    /** Who made the last change set that touched it, for the events that set brings (the audit). */
    volatile VrEvent.ChangedBy changedBy;
    /** The leaves of its row changed since its last event, for its next one; guarded by this. */
    private List<VrEvent.LeafChange> untold = List.of();

    VrRecord(VmConfigEntry config, OperState operState) {
        this.vmIndex = config.vmIndex;
        this.config = config;
        this.operState = operState;
    }

    /** Adds leaf changes of its row to those its next event tells; null forgets them (the VR is gone). */
    synchronized void untold(List<VrEvent.LeafChange> changes) {
        untold = changes == null ? List.of() : LeafChanges.merge(untold, changes);
    }

    synchronized boolean hasUntold() {
        return !untold.isEmpty();
    }

    /** The leaf changes not told yet, which its event about to be published tells. */
    synchronized List<VrEvent.LeafChange> takeUntold() {
        List<VrEvent.LeafChange> out = untold;
        untold = List.of();
        return out;
    }

    /** Whether no hypervisor work of ours is queued or running for it. */
    synchronized boolean idle() {
        return lane.isDone() && !removing && migratingTo == null;
    }
}
