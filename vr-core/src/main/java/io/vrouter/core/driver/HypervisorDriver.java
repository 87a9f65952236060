package io.vrouter.core.driver;

import java.util.Optional;

/**
 * What the lifecycle service asks of a hypervisor, as behaviours (ONOS's: a driver offers what it has).
 * Every driver has two: {@link Lifecycle} (make, change, power on and off, remove a VR's VM) and
 * {@link Observation} (what is on the host). The rest are behaviours of their own that a driver offers
 * or not: {@link PowerStates} (pause, suspend), {@link Interfaces} (attach and detach on an existing VM),
 * {@link Links}, {@link RateLimits}, {@link CpuWeights}. The service asks for one with {@link #behaviour}
 * and refuses a change that needs one the driver lacks before anything changes (docs/adr/0022-driver-behaviours.md).
 */
public interface HypervisorDriver extends Lifecycle, Observation, AutoCloseable {

    /** Short name, as chosen with {@code --driver}. */
    String name();

    /**
     * The behaviour of the given type if this driver offers it. By default a driver offers the
     * behaviours it implements; one whose behaviours live in classes of their own returns those.
     */
    default <B> Optional<B> behaviour(Class<B> type) {
        return type.isInstance(this) ? Optional.of(type.cast(this)) : Optional.empty();
    }

    @Override
    default void close() {
    }
}
