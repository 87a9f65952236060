package io.vrouter.core.model;

import java.util.List;
import java.util.function.Function;

/**
 * NEW-VMM-MIB's scalars, declared once beside the tables ({@link Schema.Table}): their group (the
 * YANG container they are leaves of), their name, their number in the MIB, their syntax and where a
 * {@link Hypervisor} holds their value. SNMP's agent and the YANG tree are built from this list.
 */
public enum Scalar {
    HV_SOFTWARE(Group.HYPERVISOR, "vmHvSoftware", 1, Syntax.TEXT, h -> h.vmHvSoftware),
    HV_VERSION(Group.HYPERVISOR, "vmHvVersion", 2, Syntax.TEXT, h -> h.vmHvVersion),
    HV_OBJECT_ID(Group.HYPERVISOR, "vmHvObjectID", 3, Syntax.OBJECT_ID, h -> h.vmHvObjectID),
    HV_UP_TIME(Group.HYPERVISOR, "vmHvUpTime", 4, Syntax.TIME_TICKS, h -> h.vmHvUpTime),
    NUMBER(Group.OBJECTS, "vmNumber", 2, Syntax.INTEGER32, h -> h.vmNumber),
    TABLE_LAST_CHANGE(Group.OBJECTS, "vmTableLastChange", 3, Syntax.TIME_TICKS, h -> h.vmTableLastChange),
    PER_VM_NOTIFICATIONS_ENABLED(Group.OBJECTS, "vmPerVMNotificationsEnabled", 9, Syntax.TRUTH,
            h -> h.vmPerVMNotificationsEnabled),
    BULK_NOTIFICATIONS_ENABLED(Group.OBJECTS, "vmBulkNotificationsEnabled", 10, Syntax.TRUTH,
            h -> h.vmBulkNotificationsEnabled),
    CONFIG_NEXT_AVAILABLE_VM_INDEX(Group.OBJECTS, "vmConfigNextAvailableVmIndex", 14, Syntax.INTEGER32,
            h -> h.vmConfigNextAvailableVmIndex),
    CONFIGURED_VMS(Group.OBJECTS, "vmConfiguredVMs", 15, Syntax.GAUGE32, h -> h.vmConfiguredVMs),
    ACTIVE_VMS(Group.OBJECTS, "vmActiveVMs", 16, Syntax.GAUGE32, h -> h.vmActiveVMs),
    // A host that reports no CPUs or memory sets no limit; the MIB says 0.
    HV_CPUS(Group.OBJECTS, "vmHvCpus", 17, Syntax.INTEGER32, h -> h.vmHvCpus == null ? 0 : h.vmHvCpus),
    HV_MEMORY(Group.OBJECTS, "vmHvMemory", 18, Syntax.INTEGER32, h -> h.vmHvMemory == null ? 0 : h.vmHvMemory),
    COMMITTED_CPUS(Group.OBJECTS, "vmCommittedCpus", 19, Syntax.GAUGE32, h -> h.vmCommittedCpus),
    COMMITTED_MEMORY(Group.OBJECTS, "vmCommittedMemory", 20, Syntax.GAUGE32, h -> h.vmCommittedMemory);

    /**
     * The YANG container a scalar is a leaf of, and where it sits in the MIB: vmHypervisor's under
     * vmObjects.1, the others straight under vmObjects.
     */
    public enum Group {
        HYPERVISOR("vmHypervisor", 1),
        OBJECTS("vmObjects", 0);

        private final String name;
        private final int snmpArc;

        Group(String name, int snmpArc) {
            this.name = name;
            this.snmpArc = snmpArc;
        }

        /** The YANG container, for example vmHypervisor. */
        public String yangName() {
            return name;
        }

        /** The group's child number under vmObjects, 0 for vmObjects itself. */
        public int snmpArc() {
            return snmpArc;
        }

        /** The group's scalars, in MIB order. */
        public List<Scalar> scalars() {
            return java.util.Arrays.stream(Scalar.values()).filter(s -> s.group == this).toList();
        }
    }

    /** A scalar's SNMP syntax; YANG takes its value as it is (a Long as an unsigned 32-bit number). */
    public enum Syntax {
        TEXT, OBJECT_ID, TIME_TICKS, INTEGER32, TRUTH, GAUGE32
    }

    private final Group group;
    private final String name;
    private final int snmpArc;
    private final Syntax syntax;
    private final Function<Hypervisor, Object> value;

    Scalar(Group group, String name, int snmpArc, Syntax syntax, Function<Hypervisor, Object> value) {
        this.group = group;
        this.name = name;
        this.snmpArc = snmpArc;
        this.syntax = syntax;
        this.value = value;
    }

    public Group group() {
        return group;
    }

    /** The leaf's name, the MIB object's descriptor. */
    public String leafName() {
        return name;
    }

    /** The scalar's number under its group's OID. */
    public int snmpArc() {
        return snmpArc;
    }

    public Syntax syntax() {
        return syntax;
    }

    /** The scalar's value in the host's {@link Hypervisor} group. */
    public Object get(Hypervisor h) {
        return value.apply(h);
    }
}
