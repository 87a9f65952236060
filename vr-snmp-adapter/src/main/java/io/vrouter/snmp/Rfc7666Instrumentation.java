package io.vrouter.snmp;

import io.vrouter.core.model.Column;
import io.vrouter.core.model.ConfigColumn;
import io.vrouter.core.model.Schema;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.snmp4j.PDU;
import org.snmp4j.agent.DefaultMOScope;
import org.snmp4j.agent.MOQuery;
import org.snmp4j.agent.MOScope;
import org.snmp4j.agent.mo.GenericManagedObject;
import org.snmp4j.agent.request.SubRequest;
import org.snmp4j.smi.Integer32;
import org.snmp4j.smi.Null;
import org.snmp4j.smi.OID;
import org.snmp4j.smi.Variable;

/**
 * RFC 7666's VM-MIB itself ({@code vmMIB}, mib-2.236), read-only (its vmReadOnlyCompliances), for
 * the NMSs that know RFC 7666 and not NEW-VMM-MIB. It holds no table of its own: each of its objects
 * is one of NEW-VMM-MIB's (the schema says which, {@link Schema.Rfc7666}), so an instance here is
 * read through the same {@link MibView} of the request as the NEW-VMM-MIB instance it names, and
 * both arcs answer a VR with the same values. A walk here is a walk there, column by column, with
 * the OIDs rewritten; the one column of another syntax, vmNetworkParent, is converted. Every SET is
 * notWritable, whether or not the instance exists, so that no SET tells a row from a missing one.
 */
final class Rfc7666Instrumentation implements GenericManagedObject {
    /** vmMIB MODULE-IDENTITY ::= { mib-2 236 }. */
    static final OID ROOT = new OID("1.3.6.1.2.1.236");
    static final OID NOTIFICATIONS = VmmMib.sub(ROOT, 0);
    static final OID OBJECTS = VmmMib.sub(ROOT, 1);

    /**
     * A subtree of RFC 7666 and the NEW-VMM-MIB subtree that holds its instances, with the same index
     * below them; {@code readable} false for vmAffectedVMs (accessible-for-notify).
     */
    record Arc(OID rfc, OID ours, boolean readable, UnaryOperator<Variable> convert) {
        OID toOurs(OID oid) {
            return swap(oid, rfc, ours);
        }

        OID toRfc(OID oid) {
            return swap(oid, ours, rfc);
        }

        private static OID swap(OID oid, OID from, OID to) {
            OID o = new OID(to);
            for (int i = from.size(); i < oid.size(); i++) o.append(oid.get(i));
            return o;
        }
    }

    /** Every object of RFC 7666 this agent serves, in RFC 7666's order, from the schema. */
    static final List<Arc> ARCS = arcs();

    private static List<Arc> arcs() {
        List<Arc> arcs = new ArrayList<>();
        // The scalars: vmHypervisor's four, vmNumber, vmTableLastChange, the notification switches (read-only here).
        for (int scalar : new int[]{1, 2, 3, 9, 10}) {
            arcs.add(new Arc(VmmMib.sub(OBJECTS, scalar), VmmMib.sub(VmmMib.OBJECTS, scalar), true, null));
        }
        arcs.add(new Arc(VmmMib.sub(OBJECTS, 11), VmmMib.VM_AFFECTED_VMS, false, null));
        for (Schema.Table t : Schema.STATE_TABLES) {
            OID rfcEntry = VmmMib.sub(OBJECTS, t.snmpTable(), 1);
            OID ourEntry = VmmMib.sub(VmmMib.OBJECTS, t.snmpTable(), 1);
            for (int column : t.snmpColumns()) {
                if (column > Schema.Rfc7666.lastColumn(t)) continue;
                Column<?> c = t.bySnmpColumn(column);
                arcs.add(new Arc(VmmMib.sub(rfcEntry, column), VmmMib.sub(ourEntry, column), true,
                        c == Schema.Rfc7666.OTHER_SYNTAX ? Rfc7666Instrumentation::ifIndexOf : null));
            }
            if (t == Schema.Table.VM) {
                for (Map.Entry<Integer, ConfigColumn> e : Schema.Rfc7666.VM_COLUMNS_FROM_CONFIG.entrySet()) {
                    arcs.add(new Arc(VmmMib.sub(rfcEntry, e.getKey()), VmmMib.sub(VmmMib.VM_CONFIG_ENTRY,
                            e.getValue().snmpColumn()), true, null));
                }
            }
        }
        arcs.sort(Comparator.comparing(Arc::rfc));
        return List.copyOf(arcs);
    }

    /**
     * vmNetworkParent as RFC 7666 has it: the ifIndex of the host interface the VR's interface hangs
     * off (the bridge of that name on this host), 0 when the host has no interface of that name.
     */
    private static Variable ifIndexOf(Variable name) {
        try {
            NetworkInterface parent = NetworkInterface.getByName(name.toString());
            return new Integer32(parent == null || parent.getIndex() < 0 ? 0 : parent.getIndex());
        } catch (SocketException | RuntimeException e) {
            return new Integer32(0);
        }
    }

    /** The NEW-VMM-MIB notification or varbind OID in RFC 7666's arc, or null when RFC 7666 has none. */
    static OID toRfc(OID ours) {
        if (ours.startsWith(VmmMib.NOTIFICATIONS) && ours.size() == VmmMib.NOTIFICATIONS.size() + 1) {
            return ours.last() <= 20 ? VmmMib.sub(NOTIFICATIONS, ours.last()) : null;
        }
        for (Arc a : ARCS) if (ours.startsWith(a.ours)) return a.toRfc(ours);
        return null;
    }

    private static final OID ROW_STATUS = VmmMib.sub(VmmMib.VM_CONFIG_ENTRY, VmmMib.VM_CONFIG_ROW_STATUS);
    private static final Integer32 ACTIVE = new Integer32(VmmMib.ACTIVE);

    private final VmmInstrumentation vmm;
    private final MOScope scope = new DefaultMOScope(OBJECTS, true, OBJECTS.nextPeer(), false);

    Rfc7666Instrumentation(VmmInstrumentation vmm) {
        this.vmm = vmm;
    }

    @Override
    public MOScope getScope() {
        return scope;
    }

    private static Arc arcOf(OID rfc) {
        for (Arc a : ARCS) if (rfc.startsWith(a.rfc)) return a;
        return null;
    }

    /**
     * An instance of one of vmConfigTable's columns is vmTable's only for a VR: a row waiting after
     * createAndWait is no VR yet, and RFC 7666 has no rows of that kind.
     */
    private static boolean ofAVr(MibView view, Arc a, OID ours) {
        if (!a.ours.startsWith(VmmMib.VM_CONFIG_ENTRY)) return true;
        OID rowStatus = new OID(ROW_STATUS);
        for (int i = a.ours.size(); i < ours.size(); i++) rowStatus.append(ours.get(i));
        return ACTIVE.equals(view.get(rowStatus));
    }

    private static Variable value(Arc a, Variable v) {
        return v == null || a.convert == null ? v : a.convert.apply(v);
    }

    @Override
    public void get(SubRequest<?> sr) {
        OID oid = sr.getVariableBinding().getOid();
        Arc a = arcOf(oid);
        Variable v = null;
        if (a != null && a.readable) {
            MibView view = vmm.view(sr.getRequest());
            OID ours = a.toOurs(oid);
            v = ofAVr(view, a, ours) ? value(a, view.get(ours)) : null;
        }
        if (v != null) {
            sr.getVariableBinding().setVariable(v);
        } else {
            sr.getVariableBinding().setVariable(a != null && a.readable && VmmInstrumentation.isObject(a.toOurs(oid))
                    ? Null.noSuchInstance : Null.noSuchObject);
        }
        sr.completed();
    }

    /** The first instance in the range that passes the filter, in RFC 7666's order, with its value. */
    private MibView.Cell first(MibView view, MOScope range, Function<OID, Boolean> filter) {
        OID lower = range.getLowerBound() == null ? OBJECTS : range.getLowerBound();
        boolean inclusive = range.getLowerBound() == null || range.isLowerIncluded();
        for (Arc a : ARCS) {
            if (!a.readable) continue;
            OID ourLower;
            boolean ourInclusive;
            if (lower.startsWith(a.rfc)) {
                ourLower = a.toOurs(lower);
                ourInclusive = inclusive;
            } else if (lower.compareTo(a.rfc) < 0) {
                ourLower = a.ours;
                ourInclusive = true;
            } else {
                continue;
            }
            MibView.Cell cell = view.first(new DefaultMOScope(ourLower, ourInclusive, a.ours.nextPeer(), false),
                    ours -> ofAVr(view, a, ours) && (filter == null || filter.apply(a.toRfc(ours))));
            if (cell == null) continue;
            OID rfc = a.toRfc(cell.oid());
            return range.covers(rfc) ? new MibView.Cell(rfc, value(a, cell.value())) : null;
        }
        return null;
    }

    @Override
    public OID find(MOScope range) {
        MibView.Cell cell = first(vmm.view(null), range, null);
        return cell == null ? null : cell.oid();
    }

    @Override
    public OID find(MOQuery query, Function<OID, Boolean> filter) {
        MibView.Cell cell = first(vmm.view(VmmInstrumentation.requestOf(query)), query.getScope(), filter);
        return cell == null ? null : cell.oid();
    }

    /** Required by the interface; the agent calls {@link #next(SubRequest, Function)}, which applies VACM. */
    @Deprecated
    @Override
    public boolean next(SubRequest<?> sr) {
        return next(sr, null);
    }

    @Override
    public boolean next(SubRequest<?> sr, Function<OID, Boolean> filter) {
        return MibView.Cell.answer(sr, first(vmm.view(sr.getRequest()), sr.getScope(), filter));
    }

    /** RFC 7666 read-only: configuration is NEW-VMM-MIB's (vmConfigTable) or another interface's. */
    @Override
    public void prepare(SubRequest<?> sr) {
        sr.getStatus().setErrorStatus(PDU.notWritable);
    }

    @Override
    public void commit(SubRequest<?> sr) {
        sr.getStatus().setErrorStatus(PDU.notWritable);
    }

    @Override
    public void undo(SubRequest<?> sr) {
        sr.getStatus().setPhaseComplete(true);
    }

    @Override
    public void cleanup(SubRequest<?> sr) {
        sr.getStatus().setPhaseComplete(true);
    }

}
