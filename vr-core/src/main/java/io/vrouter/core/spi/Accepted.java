package io.vrouter.core.spi;

import io.vrouter.core.model.VirtualRouter;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A request the service accepted: the VR as it was when the request was accepted, its {@link Version}
 * then (read before it, so that the VR is of that version or newer), and the completion of the
 * hypervisor work, which yields the VR as it ended (empty once a VR was removed).
 */
public record Accepted(VirtualRouter accepted, Version version, CompletableFuture<Optional<VirtualRouter>> completion) {

    /**
     * Waits up to the given time for the work to finish; returns the final VR, or empty when the time
     * ran out (the work goes on). A change that failed on the hypervisor (and was undone) throws its
     * {@link VrException}.
     */
    public Optional<Optional<VirtualRouter>> await(Duration timeout) throws InterruptedException {
        try {
            return Optional.of(completion.get(timeout.toMillis(), TimeUnit.MILLISECONDS));
        } catch (TimeoutException e) {
            return Optional.empty();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof VrException failed) throw failed;
            throw new IllegalStateException("VR operation failed unexpectedly", e.getCause());
        }
    }
}
