package io.vrouter.core.driver;

/**
 * A driver's behaviour: its {@link HypervisorDriver#provision} and {@link HypervisorDriver#reconfigure}
 * give the VR its vmConfigCpuWeight (its share of the CPUs under contention), on a running VR too.
 * Without it, the service refuses a weight before anything changes.
 */
public interface CpuWeights {

    /** The weight a VR that names none gets. */
    int DEFAULT = io.vrouter.core.model.VmConfigEntry.Defaults.CPU_WEIGHT;
}
