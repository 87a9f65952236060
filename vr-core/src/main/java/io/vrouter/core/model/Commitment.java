package io.vrouter.core.model;

/**
 * What some VRs commit of the host: how many, their vCPUs (vmConfigCpuNumber) and memory in MiB
 * (vmConfigMemory), whatever their state. The one count behind vmHypervisor's vmCommittedCpus and
 * vmCommittedMemory, the quotas and the host's capacity the core checks, and the tenants' usage.
 */
public final class Commitment {
    private long vrs;
    private long cpus;
    private long memory;

    /** Counts a row in ({@code sign} 1) or out (-1). */
    public Commitment add(VmConfigEntry row, int sign) {
        vrs += sign;
        cpus += sign * (long) (row.vmConfigCpuNumber == null ? 0 : row.vmConfigCpuNumber);
        memory += sign * (long) (row.vmConfigMemory == null ? 0 : row.vmConfigMemory);
        return this;
    }

    public long vrs() {
        return vrs;
    }

    public long cpus() {
        return cpus;
    }

    public long memory() {
        return memory;
    }

    /** Whether any of the three is above zero (a change that commits more). */
    public boolean grows() {
        return vrs > 0 || cpus > 0 || memory > 0;
    }
}
