package io.vrouter.snmp;

import io.vrouter.core.model.Scalar;
import io.vrouter.core.model.Schema;
import org.snmp4j.smi.OID;

/**
 * The object identifiers of NEW-VMM-MIB ({@code src/main/resources/mibs/NEW-VMM-MIB}), under the
 * experimental arc 1.3.6.1.3.7666 so that they never collide with RFC 7666's vmMIB (mib-2.236).
 */
public final class VmmMib {
    /** newVmmMIB MODULE-IDENTITY ::= { experimental 7666 }. */
    public static final OID ROOT = new OID("1.3.6.1.3.7666");
    public static final OID NOTIFICATIONS = sub(ROOT, 0);
    public static final OID OBJECTS = sub(ROOT, 1);
    /** vmVrouterAgent (vmAgentIdentities 1): the agent's sysObjectID. */
    public static final OID VROUTER_AGENT = sub(ROOT, 3, 1);

    public static final OID HYPERVISOR = sub(OBJECTS, 1);
    public static final OID VM_HV_SOFTWARE = sub(HYPERVISOR, 1);
    public static final OID VM_HV_VERSION = sub(HYPERVISOR, 2);
    public static final OID VM_HV_OBJECT_ID = sub(HYPERVISOR, 3);
    public static final OID VM_HV_UP_TIME = sub(HYPERVISOR, 4);
    public static final OID VM_NUMBER = sub(OBJECTS, 2);
    public static final OID VM_TABLE_LAST_CHANGE = sub(OBJECTS, 3);
    /** vmEntry: vmTable.1. */
    public static final OID VM_ENTRY = sub(OBJECTS, 4, 1);
    public static final OID VM_CPU_ENTRY = sub(OBJECTS, 5, 1);
    public static final OID VM_CPU_AFFINITY_ENTRY = sub(OBJECTS, 6, 1);
    public static final OID VM_STORAGE_ENTRY = sub(OBJECTS, 7, 1);
    public static final OID VM_NETWORK_ENTRY = sub(OBJECTS, 8, 1);
    public static final OID VM_PER_VM_NOTIFICATIONS_ENABLED = sub(OBJECTS, 9);
    public static final OID VM_BULK_NOTIFICATIONS_ENABLED = sub(OBJECTS, 10);
    public static final OID VM_AFFECTED_VMS = sub(OBJECTS, 11);
    public static final OID VM_CONFIG_ENTRY = sub(OBJECTS, 12, 1);
    public static final OID VM_NETWORK_CONFIG_ENTRY = sub(OBJECTS, 13, 1);
    public static final OID VM_CONFIG_NEXT_AVAILABLE_VM_INDEX = sub(OBJECTS, 14);
    public static final OID VM_CONFIGURED_VMS = sub(OBJECTS, 15);
    public static final OID VM_ACTIVE_VMS = sub(OBJECTS, 16);
    public static final OID VM_HV_CPUS = sub(OBJECTS, 17);
    public static final OID VM_HV_MEMORY = sub(OBJECTS, 18);
    public static final OID VM_COMMITTED_CPUS = sub(OBJECTS, 19);
    public static final OID VM_COMMITTED_MEMORY = sub(OBJECTS, 20);

    /** A scalar's OID (without the instance's .0), from the schema's declaration. */
    public static OID scalar(Scalar s) {
        return s.group().snmpArc() == 0 ? sub(OBJECTS, s.snmpArc()) : sub(OBJECTS, s.group().snmpArc(), s.snmpArc());
    }

    /** vmEntry columns (RFC 7666 numbering; 2 and 5, vmName and vmAdminState, moved to vmConfigEntry): the schema's. */
    public static final int VM_UUID = Schema.Vm.UUID.snmpColumn(), VM_OPER_STATE = Schema.Vm.OPER_STATE.snmpColumn(),
            VM_PERSISTENT = Schema.Vm.PERSISTENT.snmpColumn(), VM_CUR_MEM = Schema.Vm.CUR_MEM.snmpColumn(),
            VM_OPER_STATE_REASON = Schema.Vm.OPER_STATE_REASON.snmpColumn();

    /** vmConfigEntry columns. */
    public static final int VM_NAME = 1, VM_ADMIN_STATE = 2, VM_CONFIG_TEMPLATE = 3, VM_CONFIG_CPU_NUMBER = 4,
            VM_CONFIG_MEMORY = 5, VM_CONFIG_AUTO_START = 6, VM_CONFIG_ROW_STATUS = 7;

    /** vmNetworkConfigEntry columns. */
    public static final int NET_PARENT = 2, NET_PHYS_ADDRESS = 3, NET_ADDRESS_TYPE = 4, NET_ADDRESS = 5,
            NET_PREFIX_LENGTH = 6, NET_ROW_STATUS = 7;

    /** The state tables' columns that the tests and the notifications name: the schema's numbers. */
    public static final int CPU_CORE_TIME = Schema.Cpu.CORE_TIME.snmpColumn(), CPU_AFFINITY = Schema.CpuAffinity.AFFINITY.snmpColumn(),
            NETWORK_PARENT = Schema.Network.PARENT.snmpColumn();

    /** vmStorageEntry columns (1 and 2, vmStorageVmIndex and vmStorageIndex, are its index). */
    public static final int STORAGE_PARENT = Schema.Storage.PARENT.snmpColumn(),
            STORAGE_SOURCE_TYPE = Schema.Storage.SOURCE_TYPE.snmpColumn(),
            STORAGE_SOURCE_TYPE_STRING = Schema.Storage.SOURCE_TYPE_STRING.snmpColumn(),
            STORAGE_RESOURCE_ID = Schema.Storage.RESOURCE_ID.snmpColumn(),
            STORAGE_ACCESS = Schema.Storage.ACCESS.snmpColumn(),
            STORAGE_MEDIA_TYPE = Schema.Storage.MEDIA_TYPE.snmpColumn(),
            STORAGE_MEDIA_TYPE_STRING = Schema.Storage.MEDIA_TYPE_STRING.snmpColumn(),
            STORAGE_SIZE_UNIT = Schema.Storage.SIZE_UNIT.snmpColumn(),
            STORAGE_DEFINED_SIZE = Schema.Storage.DEFINED_SIZE.snmpColumn(),
            STORAGE_ALLOCATED_SIZE = Schema.Storage.ALLOCATED_SIZE.snmpColumn(),
            STORAGE_READ_IOS = Schema.Storage.READ_IOS.snmpColumn(),
            STORAGE_WRITE_IOS = Schema.Storage.WRITE_IOS.snmpColumn(),
            STORAGE_READ_OCTETS = Schema.Storage.READ_OCTETS.snmpColumn(),
            STORAGE_WRITE_OCTETS = Schema.Storage.WRITE_OCTETS.snmpColumn(),
            STORAGE_READ_LATENCY = Schema.Storage.READ_LATENCY.snmpColumn(),
            STORAGE_WRITE_LATENCY = Schema.Storage.WRITE_LATENCY.snmpColumn();

    /** Notification OIDs: vmNotifications.N. */
    public static final OID VM_RUNNING = sub(NOTIFICATIONS, 1);
    public static final OID VM_SHUTTINGDOWN = sub(NOTIFICATIONS, 2);
    public static final OID VM_SHUTDOWN = sub(NOTIFICATIONS, 3);
    public static final OID VM_PAUSED = sub(NOTIFICATIONS, 4);
    public static final OID VM_SUSPENDING = sub(NOTIFICATIONS, 5);
    public static final OID VM_SUSPENDED = sub(NOTIFICATIONS, 6);
    public static final OID VM_RESUMING = sub(NOTIFICATIONS, 7);
    public static final OID VM_MIGRATING = sub(NOTIFICATIONS, 8);
    public static final OID VM_CRASHED = sub(NOTIFICATIONS, 9);
    public static final OID VM_DELETED = sub(NOTIFICATIONS, 10);
    public static final OID VM_LINK_STATUS_CHANGED = sub(NOTIFICATIONS, 21);

    /** RowStatus values (RFC 2579). */
    public static final int ACTIVE = 1, NOT_IN_SERVICE = 2, NOT_READY = 3, CREATE_AND_GO = 4, CREATE_AND_WAIT = 5,
            DESTROY = 6;

    private VmmMib() {
    }

    /** A copy of {@code base} with the sub-identifiers appended. */
    public static OID sub(OID base, int... ids) {
        OID o = new OID(base);
        for (int id : ids) o.append(id);
        return o;
    }

    /** The instance OID of a column of a table entry: entry.column.index... */
    public static OID cell(OID entry, int column, int... index) {
        OID o = sub(entry, column);
        for (int i : index) o.append(i);
        return o;
    }

    /** The instance OID of a scalar: object.0. */
    public static OID scalar(OID object) {
        return sub(object, 0);
    }
}
