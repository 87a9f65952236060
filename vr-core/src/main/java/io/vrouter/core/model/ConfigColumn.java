package io.vrouter.core.model;

import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * The writable columns of vmConfigTable, one declaration each: REST reads the model's fields, SNMP
 * the column numbers and kinds, NETCONF the leaf names and kinds, and the service the bounds, the
 * defaults and when a column may change. A new column of the VR is a field of
 * {@link VmConfigEntry}, a constant here, an object in the MIB and a leaf in the YANG module
 * (docs/adr/0007-one-change-set.md).
 */
public enum ConfigColumn implements Column<VmConfigEntry> {
    VM_NAME("vmName", 1, Kind.TEXT, 1, 64, Change.ANY, true, null,
            c -> c.vmName, (c, v) -> c.vmName = (String) v),
    VM_ADMIN_STATE("vmAdminState", 2, Kind.ADMIN_STATE, 0, 0, Change.ANY, false, AdminState.RUNNING,
            c -> c.vmAdminState, (c, v) -> c.vmAdminState = (AdminState) v),
    /** No default here: a VR without one gets its driver's first template. */
    VM_CONFIG_TEMPLATE("vmConfigTemplate", 3, Kind.TEXT, 1, 64, Change.NEVER, false, null,
            c -> c.vmConfigTemplate, (c, v) -> c.vmConfigTemplate = (String) v),
    VM_CONFIG_CPU_NUMBER("vmConfigCpuNumber", 4, Kind.INTEGER, 1, 64, Change.WHILE_SHUT_DOWN, true, VmConfigEntry.Defaults.CPU_NUMBER,
            c -> c.vmConfigCpuNumber, (c, v) -> c.vmConfigCpuNumber = (Integer) v),
    VM_CONFIG_MEMORY("vmConfigMemory", 5, Kind.INTEGER, 64, 1_048_576, Change.WHILE_SHUT_DOWN, true,
            VmConfigEntry.Defaults.MEMORY_MIB,
            c -> c.vmConfigMemory, (c, v) -> c.vmConfigMemory = (Integer) v),
    VM_CONFIG_AUTO_START("vmConfigAutoStart", 6, Kind.TRUTH, 0, 0, Change.ANY, true, Boolean.FALSE,
            c -> c.vmConfigAutoStart, (c, v) -> c.vmConfigAutoStart = (Boolean) v),
    // SNMP column 7 is vmConfigRowStatus, SNMP's own.
    VM_CONFIG_DESCRIPTION("vmConfigDescription", 8, Kind.TEXT, 0, 255, Change.ANY, false, null,
            c -> c.vmConfigDescription, (c, v) -> c.vmConfigDescription = (String) v),
    /** The owning tenant: the core sets it from the creating user's, and lets only the provider change it. */
    VM_CONFIG_TENANT("vmConfigTenant", 9, Kind.TEXT, 0, 32, Change.ANY, false, null,
            c -> c.vmConfigTenant, (c, v) -> c.vmConfigTenant = (String) v),
    /** The VR's share of the CPUs under contention, relative to other VRs' (100 when absent); set live. */
    VM_CONFIG_CPU_WEIGHT("vmConfigCpuWeight", 10, Kind.INTEGER, 1, 10_000, Change.ANY, true, null,
            c -> c.vmConfigCpuWeight, (c, v) -> c.vmConfigCpuWeight = (Integer) v);

    /** When a column of an existing VR may change. */
    public enum Change {
        ANY,
        /** Only while the VR is shut down, or in a change that also shuts it down: a cold resize. */
        WHILE_SHUT_DOWN,
        /** Never: the VM was made with it. Remove the VR and create it again. */
        NEVER
    }

    private final Spec<VmConfigEntry> spec;
    private final Change change;
    private final boolean reconfigures;
    private final Object defaultValue;

    ConfigColumn(String field, int snmpColumn, Kind kind, long min, long max, Change change, boolean reconfigures,
                 Object defaultValue, Function<VmConfigEntry, Object> getter, BiConsumer<VmConfigEntry, Object> setter) {
        this.spec = new Spec<>(field, snmpColumn, kind, min, max, getter, setter);
        this.change = change;
        this.reconfigures = reconfigures;
        this.defaultValue = defaultValue;
    }

    public Change change() {
        return change;
    }

    /** Whether the driver applies this column to an existing VM ({@code HypervisorDriver.reconfigure}). */
    public boolean reconfigures() {
        return reconfigures;
    }

    /** The value a row gets when the column is absent, or null when it has none (or the driver decides). */
    public Object defaultValue() {
        return defaultValue;
    }

    @Override
    public Spec<VmConfigEntry> spec() {
        return spec;
    }

    /** The column with this field name, or null. */
    public static ConfigColumn ofField(String field) {
        return Column.find(ConfigColumn.class, field, -1);
    }

    /** The column with this SNMP column number, or null. */
    public static ConfigColumn ofSnmpColumn(int column) {
        // the schema's table by number: SNMP asks for every varbind, and find() walks a copy of values()
        return (ConfigColumn) Schema.Table.CONFIG.bySnmpColumn(column);
    }
}
