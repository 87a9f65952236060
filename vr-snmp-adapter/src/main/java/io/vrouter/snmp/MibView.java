package io.vrouter.snmp;

import static io.vrouter.snmp.VmmMib.*;

import io.vrouter.core.model.Hypervisor;
import io.vrouter.core.model.VirtualRouter;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmCpuEntry;
import io.vrouter.core.model.VmEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import io.vrouter.core.model.VmNetworkEntry;
import io.vrouter.core.model.VmStorageEntry;
import io.vrouter.core.service.VirtualRouterService;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import org.snmp4j.agent.MOScope;
import org.snmp4j.smi.Counter64;
import org.snmp4j.smi.Gauge32;
import org.snmp4j.smi.Integer32;
import org.snmp4j.smi.OID;
import org.snmp4j.smi.TimeTicks;
import org.snmp4j.smi.UnsignedInteger32;
import org.snmp4j.smi.Variable;

/**
 * The instances of NEW-VMM-MIB with their values, taken from the service and held in lexicographic
 * order. One view serves one request, so that GET, GETNEXT and GETBULK of a request see one picture;
 * it is filled section by section (a section is one child of vmObjects) as the request reaches it, so
 * that a walk of vmConfigTable never asks the hypervisor about the VRs, and a GET reads only the VR
 * it names ({@code only}).
 */
final class MibView {
    private static final int FIRST = 1;
    private static final int LAST = 16;
    private static final int[] SCALAR_SECTIONS = {1, 2, 3, 10, 11, 14, 15, 16};

    private final VirtualRouterService service;
    private final PendingRows pending;
    private final Integer only;
    private final TreeMap<OID, Variable> m = new TreeMap<>();
    private final boolean[] built = new boolean[LAST + 1];
    private List<VirtualRouter> routers;

    MibView(VirtualRouterService service, PendingRows pending, Integer only) {
        this.service = service;
        this.pending = pending;
        this.only = only;
    }

    /** Every instance, of every VR. */
    static TreeMap<OID, Variable> snapshot(VirtualRouterService service, PendingRows pending) {
        return new MibView(service, pending, null).all();
    }

    /** The scalars and the rows of one VR, or of every VR when {@code only} is null. */
    static TreeMap<OID, Variable> snapshot(VirtualRouterService service, PendingRows pending, Integer only) {
        return new MibView(service, pending, only).all();
    }

    TreeMap<OID, Variable> all() {
        for (int c = FIRST; c <= LAST; c++) build(c);
        return m;
    }

    /** The value of one instance, or null when there is no such instance. */
    Variable get(OID oid) {
        int c = section(oid);
        if (c < FIRST || c > LAST) return null;
        build(c);
        return m.get(oid);
    }

    /** The first instance in the range that passes the filter (null: none). */
    OID first(MOScope range, Function<OID, Boolean> filter) {
        OID lower = range.getLowerBound();
        for (int c = Math.max(FIRST, section(lower)); c <= LAST; c++) {
            build(c);
            Map.Entry<OID, Variable> e = range.isLowerIncluded() ? m.ceilingEntry(lower) : m.higherEntry(lower);
            while (e != null && section(e.getKey()) <= c) {
                if (!range.covers(e.getKey())) return null;
                if (filter == null || filter.apply(e.getKey())) return e.getKey();
                e = m.higherEntry(e.getKey());
            }
        }
        return null;
    }

    /** The child of vmObjects an OID falls in: 0 before the first, LAST + 1 after the last. */
    private static int section(OID oid) {
        if (!oid.startsWith(OBJECTS)) return oid.compareTo(OBJECTS) < 0 ? 0 : LAST + 1;
        return oid.size() == OBJECTS.size() ? 0 : Math.min(oid.get(OBJECTS.size()), LAST + 1);
    }

    private List<Integer> indices() {
        return only == null ? List.copyOf(service.indices()) : List.of(only);
    }

    /** The VRs as the hypervisor reports them: asked once per view, and only for the state tables. */
    private List<VirtualRouter> routers() {
        if (routers == null) {
            routers = new ArrayList<>();
            for (Integer i : indices()) service.get(i).ifPresent(routers::add);
        }
        return routers;
    }

    private void build(int c) {
        if (built[c]) return;
        built[c] = true;
        switch (c) {
            case 1, 2, 3, 10, 11, 14, 15, 16 -> {
                for (int s : SCALAR_SECTIONS) built[s] = true;
                putScalars();
            }
            case 4 -> routers().forEach(v -> putVmEntry(m, v.vmIndex, v.vmEntry));
            case 5, 6 -> {
                built[5] = built[6] = true;
                for (VirtualRouter v : routers()) {
                    if (v.vmCpuTable == null) continue;
                    for (VmCpuEntry e : v.vmCpuTable) {
                        m.put(cell(VM_CPU_ENTRY, CPU_CORE_TIME, v.vmIndex, e.vmCpuIndex), new Counter64(nn(e.vmCpuCoreTime)));
                        m.put(cell(VM_CPU_AFFINITY_ENTRY, CPU_AFFINITY, v.vmIndex, e.vmCpuIndex, orZero(e.vmCpuPhysIndex)),
                                new Integer32(orZero(e.vmCpuAffinity)));
                    }
                }
            }
            case 7 -> {
                for (VirtualRouter v : routers()) {
                    if (v.vmStorageTable != null) for (VmStorageEntry e : v.vmStorageTable) putStorage(m, v.vmIndex, e);
                }
            }
            case 8 -> {
                for (VirtualRouter v : routers()) {
                    if (v.vmNetworkTable == null) continue;
                    for (VmNetworkEntry n : v.vmNetworkTable) {
                        int i = v.vmIndex;
                        int k = n.vmNetworkIndex;
                        m.put(cell(VM_NETWORK_ENTRY, NETWORK_IF_INDEX, i, k), new Integer32(orZero(n.vmNetworkIfIndex)));
                        m.put(cell(VM_NETWORK_ENTRY, NETWORK_PARENT, i, k), Codec.text(n.vmNetworkParent));
                        m.put(cell(VM_NETWORK_ENTRY, NETWORK_MODEL, i, k), Codec.text(n.vmNetworkModel));
                        m.put(cell(VM_NETWORK_ENTRY, NETWORK_PHYS_ADDRESS, i, k), Codec.mac(n.vmNetworkPhysAddress));
                    }
                }
            }
            case 12 -> {
                for (Integer i : indices()) service.getConfig(i).ifPresent(cfg -> putConfig(m, cfg, ACTIVE));
                for (PendingRows.ConfigRow r : pending.configs().values()) {
                    int i = r.entry().vmIndex;
                    if ((only == null || only == i) && service.getConfig(i).isEmpty()) {
                        putConfig(m, r.entry(), r.ready() ? NOT_IN_SERVICE : NOT_READY);
                    }
                }
            }
            case 13 -> {
                for (Integer i : indices()) {
                    service.getConfig(i).ifPresent(cfg -> cfg.interfaces().forEach(n -> putNetConfig(m, i, n, ACTIVE)));
                }
                for (PendingRows.NetRow r : pending.nets().values()) {
                    if (only == null || only == r.vmIndex()) {
                        putNetConfig(m, r.vmIndex(), r.entry(), r.ready() ? NOT_IN_SERVICE : NOT_READY);
                    }
                }
            }
            default -> {
                // vmAffectedVMs (9) is accessible-for-notify only
            }
        }
    }

    private void putScalars() {
        Hypervisor h = service.hypervisor();
        m.put(scalar(VM_HV_SOFTWARE), Codec.text(h.vmHvSoftware));
        m.put(scalar(VM_HV_VERSION), Codec.text(h.vmHvVersion));
        m.put(scalar(VM_HV_OBJECT_ID), objectId(h.vmHvObjectID));
        m.put(scalar(VM_HV_UP_TIME), new TimeTicks(nonNegative(h.vmHvUpTime)));
        m.put(scalar(VM_NUMBER), new Integer32(h.vmNumber));
        m.put(scalar(VM_TABLE_LAST_CHANGE), new TimeTicks(nonNegative(h.vmTableLastChange)));
        m.put(scalar(VM_PER_VM_NOTIFICATIONS_ENABLED), Codec.truth(h.vmPerVMNotificationsEnabled));
        m.put(scalar(VM_BULK_NOTIFICATIONS_ENABLED), Codec.truth(h.vmBulkNotificationsEnabled));
        m.put(scalar(VM_CONFIG_NEXT_AVAILABLE_VM_INDEX), new Integer32(nextFree(service, pending)));
        m.put(scalar(VM_CONFIGURED_VMS), new Gauge32(h.vmConfiguredVMs));
        m.put(scalar(VM_ACTIVE_VMS), new Gauge32(h.vmActiveVMs));
    }

    /** The next available index, skipping the indices that createAndWait rows hold. */
    static int nextFree(VirtualRouterService service, PendingRows pending) {
        int i = service.nextAvailableVmIndex();
        while (pending.configs().containsKey(i) || service.getConfig(i).isPresent()) {
            i = i == Integer.MAX_VALUE ? 1 : i + 1;
        }
        return i;
    }

    private static void putVmEntry(TreeMap<OID, Variable> m, int i, VmEntry e) {
        if (e == null) e = new VmEntry();
        m.put(cell(VM_ENTRY, VM_UUID, i), Codec.uuid(e.vmUUID));
        m.put(cell(VM_ENTRY, VM_OS_TYPE, i), Codec.text(e.vmOSType));
        m.put(cell(VM_ENTRY, VM_OPER_STATE, i), new Integer32(e.vmOperState == null ? 1 : e.vmOperState.code()));
        m.put(cell(VM_ENTRY, VM_AUTO_START, i), new Integer32(e.vmAutoStart == null ? 1 : e.vmAutoStart.code()));
        m.put(cell(VM_ENTRY, VM_PERSISTENT, i), new Integer32(e.vmPersistent == null ? 1 : e.vmPersistent.code()));
        m.put(cell(VM_ENTRY, VM_CUR_CPU_NUMBER, i), new Integer32(orZero(e.vmCurCpuNumber)));
        m.put(cell(VM_ENTRY, VM_MIN_CPU_NUMBER, i), new Integer32(e.vmMinCpuNumber == null ? -1 : e.vmMinCpuNumber));
        m.put(cell(VM_ENTRY, VM_MAX_CPU_NUMBER, i), new Integer32(e.vmMaxCpuNumber == null ? -1 : e.vmMaxCpuNumber));
        m.put(cell(VM_ENTRY, VM_MEM_UNIT, i), new Integer32(e.vmMemUnit == null ? 1 : e.vmMemUnit));
        m.put(cell(VM_ENTRY, VM_CUR_MEM, i), new Integer32(Codec.clampInt(e.vmCurMem)));
        m.put(cell(VM_ENTRY, VM_MIN_MEM, i), new Integer32(e.vmMinMem == null ? -1 : Codec.clampInt(e.vmMinMem)));
        m.put(cell(VM_ENTRY, VM_MAX_MEM, i), new Integer32(e.vmMaxMem == null ? -1 : Codec.clampInt(e.vmMaxMem)));
        m.put(cell(VM_ENTRY, VM_UP_TIME, i), new TimeTicks(Codec.unsigned32(e.vmUpTime)));
        m.put(cell(VM_ENTRY, VM_CPU_TIME, i), new Counter64(nn(e.vmCpuTime)));
        m.put(cell(VM_ENTRY, VM_ROUTE_ENTRIES, i), new Gauge32(Codec.unsigned32(e.vmRouteEntries)));
        m.put(cell(VM_ENTRY, VM_FIB_ENTRIES, i), new Gauge32(Codec.unsigned32(e.vmFibEntries)));
        m.put(cell(VM_ENTRY, VM_ROUTING_PROTOCOLS, i), Codec.text(e.vmRoutingProtocols));
        m.put(cell(VM_ENTRY, VM_ROUTER_ADDR_TYPE, i),
                new Integer32(e.vmRouterAddrType == null ? 0 : e.vmRouterAddrType.code()));
        m.put(cell(VM_ENTRY, VM_ROUTER_ADDR, i), Codec.inet(e.vmRouterAddr));
        m.put(cell(VM_ENTRY, VM_OPER_STATE_REASON, i), Codec.text(e.vmOperStateReason));
    }

    private static void putConfig(TreeMap<OID, Variable> m, VmConfigEntry c, int rowStatus) {
        int i = c.vmIndex;
        if (c.vmName != null) m.put(cell(VM_CONFIG_ENTRY, VM_NAME, i), Codec.text(c.vmName));
        if (c.vmAdminState != null) m.put(cell(VM_CONFIG_ENTRY, VM_ADMIN_STATE, i), new Integer32(c.vmAdminState.code()));
        if (c.vmConfigTemplate != null) m.put(cell(VM_CONFIG_ENTRY, VM_CONFIG_TEMPLATE, i), Codec.text(c.vmConfigTemplate));
        if (c.vmConfigCpuNumber != null) {
            m.put(cell(VM_CONFIG_ENTRY, VM_CONFIG_CPU_NUMBER, i), new Integer32(c.vmConfigCpuNumber));
        }
        if (c.vmConfigMemory != null) m.put(cell(VM_CONFIG_ENTRY, VM_CONFIG_MEMORY, i), new Integer32(c.vmConfigMemory));
        if (c.vmConfigAutoStart != null) {
            m.put(cell(VM_CONFIG_ENTRY, VM_CONFIG_AUTO_START, i), Codec.truth(c.vmConfigAutoStart));
        }
        m.put(cell(VM_CONFIG_ENTRY, VM_CONFIG_ROW_STATUS, i), new Integer32(rowStatus));
    }

    private static void putNetConfig(TreeMap<OID, Variable> m, int i, VmNetworkConfigEntry n, int rowStatus) {
        int k = n.vmNetworkConfigIndex;
        if (n.vmNetworkConfigParent != null) {
            m.put(cell(VM_NETWORK_CONFIG_ENTRY, NET_PARENT, i, k), Codec.text(n.vmNetworkConfigParent));
        }
        if (n.vmNetworkConfigPhysAddress != null) {
            m.put(cell(VM_NETWORK_CONFIG_ENTRY, NET_PHYS_ADDRESS, i, k), Codec.mac(n.vmNetworkConfigPhysAddress));
        }
        m.put(cell(VM_NETWORK_CONFIG_ENTRY, NET_ADDRESS_TYPE, i, k),
                new Integer32(n.vmNetworkConfigAddressType == null ? 0 : n.vmNetworkConfigAddressType.code()));
        m.put(cell(VM_NETWORK_CONFIG_ENTRY, NET_ADDRESS, i, k), Codec.inet(n.vmNetworkConfigAddress));
        if (n.vmNetworkConfigPrefixLength != null) {
            m.put(cell(VM_NETWORK_CONFIG_ENTRY, NET_PREFIX_LENGTH, i, k),
                    new UnsignedInteger32(n.vmNetworkConfigPrefixLength));
        }
        m.put(cell(VM_NETWORK_CONFIG_ENTRY, NET_ROW_STATUS, i, k), new Integer32(rowStatus));
    }

    private static void putStorage(TreeMap<OID, Variable> m, int i, VmStorageEntry s) {
        int k = s.vmStorageIndex;
        m.put(cell(VM_STORAGE_ENTRY, 2, i, k), new Integer32(orZero(s.vmStorageParent)));
        m.put(cell(VM_STORAGE_ENTRY, 3, i, k), new Integer32(s.vmStorageSourceType == null ? 1 : s.vmStorageSourceType));
        m.put(cell(VM_STORAGE_ENTRY, 4, i, k), Codec.text(s.vmStorageSourceTypeString));
        m.put(cell(VM_STORAGE_ENTRY, 5, i, k), Codec.text(s.vmStorageResourceID));
        m.put(cell(VM_STORAGE_ENTRY, 6, i, k), new Integer32(s.vmStorageAccess == null ? 1 : s.vmStorageAccess));
        m.put(cell(VM_STORAGE_ENTRY, 7, i, k), new Integer32(s.vmStorageMediaType == null ? 1 : s.vmStorageMediaType));
        m.put(cell(VM_STORAGE_ENTRY, 8, i, k), Codec.text(s.vmStorageMediaTypeString));
        m.put(cell(VM_STORAGE_ENTRY, 9, i, k), new Integer32(s.vmStorageSizeUnit == null ? 1 : s.vmStorageSizeUnit));
        m.put(cell(VM_STORAGE_ENTRY, 10, i, k),
                new Integer32(s.vmStorageDefinedSize == null ? -1 : Codec.clampInt(s.vmStorageDefinedSize)));
        m.put(cell(VM_STORAGE_ENTRY, 11, i, k),
                new Integer32(s.vmStorageAllocatedSize == null ? -1 : Codec.clampInt(s.vmStorageAllocatedSize)));
        m.put(cell(VM_STORAGE_ENTRY, 12, i, k), new Counter64(nn(s.vmStorageReadIOs)));
        m.put(cell(VM_STORAGE_ENTRY, 13, i, k), new Counter64(nn(s.vmStorageWriteIOs)));
        m.put(cell(VM_STORAGE_ENTRY, 14, i, k), new Counter64(nn(s.vmStorageReadOctets)));
        m.put(cell(VM_STORAGE_ENTRY, 15, i, k), new Counter64(nn(s.vmStorageWriteOctets)));
        m.put(cell(VM_STORAGE_ENTRY, 16, i, k), new Counter64(nn(s.vmStorageReadLatency)));
        m.put(cell(VM_STORAGE_ENTRY, 17, i, k), new Counter64(nn(s.vmStorageWriteLatency)));
    }

    private static OID objectId(String dotted) {
        try {
            OID o = new OID(dotted == null ? "0.0" : dotted);
            return o.size() < 2 ? new OID("0.0") : o;
        } catch (RuntimeException e) {
            return new OID("0.0");
        }
    }

    private static long nonNegative(Long v) {
        return Codec.unsigned32(v);
    }

    private static long nn(Long v) {
        return v == null ? 0 : Math.max(0, v);
    }

    private static int orZero(Integer v) {
        return v == null ? 0 : v;
    }

}
