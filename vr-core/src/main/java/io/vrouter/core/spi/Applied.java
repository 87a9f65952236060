package io.vrouter.core.spi;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What {@link VirtualRouters#apply} accepted: each VR as accepted (in the set's order), the
 * set's outcome, what makes its journal record durable ({@link #awaitDurable}), and its number in the
 * history (docs/adr/0021-history-and-rollback.md).
 */
public record Applied(List<Accepted> routers, CompletableFuture<Void> completion, Runnable durable, long commit) {
    /** A set the history has no number for. */
    public Applied(List<Accepted> routers, CompletableFuture<Void> completion, Runnable durable) {
        this(routers, completion, durable, 0);
    }

    /** The one VR of a set of one. */
    public Accepted only() {
        return routers.get(0);
    }

    /** Returns once the set's journal record is durable: at once after {@code apply}; after {@code accept}, a flush. */
    public void awaitDurable() {
        durable.run();
    }
}
