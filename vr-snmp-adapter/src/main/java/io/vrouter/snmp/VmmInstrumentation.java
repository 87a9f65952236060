package io.vrouter.snmp;

import static io.vrouter.snmp.VmmMib.*;

import io.vrouter.core.config.Caller;
import io.vrouter.core.model.Scalar;
import io.vrouter.core.model.Schema;
import io.vrouter.core.spi.VirtualRouters;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.snmp4j.CommandResponderEvent;
import org.snmp4j.PDU;
import org.snmp4j.agent.DefaultMOScope;
import org.snmp4j.agent.MOQuery;
import org.snmp4j.agent.MOQueryWithSource;
import org.snmp4j.agent.MOScope;
import org.snmp4j.agent.mo.GenericManagedObject;
import org.snmp4j.agent.request.Request;
import org.snmp4j.agent.request.SubRequest;
import org.snmp4j.smi.Null;
import org.snmp4j.smi.OID;
import org.snmp4j.smi.Variable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * NEW-VMM-MIB as one managed object over the whole {@code vmObjects} subtree. Reads come from a
 * {@link MibView} of the request, which reads only the VRs the request reaches; a SET PDU is one
 * change set ({@link SetTransaction}), checked and applied as a whole by one call of the service in
 * the prepare phase, so a PDU that fails leaves nothing behind. Nothing here waits for hypervisor work.
 */
final class VmmInstrumentation implements GenericManagedObject {
    private static final Logger log = LoggerFactory.getLogger(VmmInstrumentation.class);
    private static final String VIEW = "vrouter.snmp.view";
    private static final String TRANSACTION = "vrouter.snmp.transaction";

    /** The port itself: each request reads and writes through the view of its caller ({@link VirtualRouters#as}). */
    private final VirtualRouters service;
    private final Principals principals;
    /**
     * Rows waiting after createAndWait, per tenant ("" the provider's): SNMP state the core does not
     * hold, so the adapter keeps each tenant's to itself, as the core keeps its VRs.
     */
    private final Map<String, PendingRows> pending = new ConcurrentHashMap<>();
    /** vmObjects up to vmMigrationTable, which is {@link MigrationTable}'s. */
    private final MOScope scope = new DefaultMOScope(OBJECTS, true, MigrationTable.TABLE, false);
    /** The view that the passes of one GETBULK share, on the thread answering it (see {@link #inOneView}). */
    private final ThreadLocal<MibView> passesView = new ThreadLocal<>();

    VmmInstrumentation(VirtualRouters service, Principals principals) {
        this.service = service;
        this.principals = principals;
    }

    @Override
    public MOScope getScope() {
        return scope;
    }

    private PendingRows pending(Caller caller) {
        return pending.computeIfAbsent(caller.tenant() == null ? "" : caller.tenant(), t -> new PendingRows());
    }

    private Caller caller(Request<?, ?, ?> request) {
        return principals.of(request);
    }

    /**
     * The instances as the caller may see them: a tenant's user its tenant's rows only, the counts of
     * its VRs; the provider every VR and every tenant's rows waiting after createAndWait.
     */
    private MibView viewOf(Caller caller) {
        PendingRows everyTenants = PendingRows.union(pending);
        return new MibView(service.as(caller), service, caller.tenant() == null ? everyTenants : pending(caller),
                everyTenants);
    }

    /** The view of the request's caller, made at its first use; the server's own when there is no request. */
    MibView view(Request<?, ?, ?> request) {
        if (request == null) return viewOf(Caller.SYSTEM);
        MibView cached = (MibView) request.getProcessingUserObject(VIEW);
        if (cached == null) {
            cached = passesView.get() != null ? passesView.get() : viewOf(caller(request));
            request.setProcessingUserObject(VIEW, cached);
        }
        return cached;
    }

    /**
     * Runs the requests that answer one GETBULK in several passes (see VrSnmpAgent) with one view, so
     * that they see one picture of each VR, as one request would.
     */
    void inOneView(CommandResponderEvent<?> event, Runnable passes) {
        passesView.set(viewOf(principals.of(event.getSecurityModel(), event.getSecurityName(), event.getPeerAddress())));
        try {
            passes.run();
        } finally {
            passesView.remove();
        }
    }

    private static OID oidOf(MibView.Cell cell) {
        return cell == null ? null : cell.oid();
    }

    @Override
    public OID find(MOScope range) {
        return oidOf(viewOf(Caller.SYSTEM).first(range, null));
    }

    /**
     * Called by the agent for every GETNEXT/GETBULK lookup (with the VACM filter): it uses the view of
     * the request, so a GETBULK reads the service once, not once per repetition.
     */
    @Override
    public OID find(MOQuery query, Function<OID, Boolean> filter) {
        return oidOf(view(requestOf(query)).first(query.getScope(), filter));
    }

    /** The request a lookup is made for, or null. */
    static Request<?, ?, ?> requestOf(MOQuery query) {
        return query instanceof MOQueryWithSource q && q.getSource() instanceof Request<?, ?, ?> r ? r : null;
    }

    @Override
    public void get(SubRequest<?> sr) {
        OID oid = sr.getVariableBinding().getOid();
        Variable v = view(sr.getRequest()).get(oid);
        if (v != null) {
            sr.getVariableBinding().setVariable(v);
        } else {
            sr.getVariableBinding().setVariable(isObject(oid) ? Null.noSuchInstance : Null.noSuchObject);
        }
        sr.completed();
    }

    /** Required by the interface; the agent calls {@link #next(SubRequest, Function)}, which applies VACM. */
    @Deprecated
    @Override
    public boolean next(SubRequest<?> sr) {
        return next(sr, null);
    }

    @Override
    public boolean next(SubRequest<?> sr, Function<OID, Boolean> filter) {
        return MibView.Cell.answer(sr, view(sr.getRequest()).first(sr.getScope(), filter));
    }

    private static final List<OID> ENTRIES = java.util.Arrays.stream(Schema.Table.values())
            .map(t -> sub(OBJECTS, t.snmpTable(), 1)).toList();

    /** The vmIndex an instance OID of one of the tables belongs to, or null for the scalars. */
    static Integer vmIndexOf(OID oid) {
        for (OID entry : ENTRIES) {
            if (oid.startsWith(entry) && oid.size() > entry.size() + 1) {
                int i = oid.get(entry.size() + 1);
                return i > 0 ? i : -1;
            }
        }
        return null;
    }

    /** True when the OID names an instance of a defined object (a column or a scalar). */
    static boolean isObject(OID oid) {
        for (Scalar s : Scalar.values()) {
            OID scalar = VmmMib.scalar(s);
            if (oid.startsWith(scalar) && oid.size() > scalar.size()) return true;
        }
        return MibView.isColumnInstance(oid);
    }

    static int column(OID oid, OID entry) {
        return oid.size() > entry.size() && oid.startsWith(entry) ? oid.get(entry.size()) : -1;
    }

    // ------------------------------------------------------------------ SET

    /** The sub-requests of this request that are ours, in PDU order. */
    private List<SubRequest<?>> ours(SubRequest<?> sr) {
        List<SubRequest<?>> out = new ArrayList<>();
        Iterator<?> it = sr.getRequest().iterator();
        while (it.hasNext()) {
            SubRequest<?> s = (SubRequest<?>) it.next();
            if (s.getTargetMO() == this) out.add(s);
        }
        return out;
    }

    @Override
    public void prepare(SubRequest<?> sr) {
        Request<?, ?, ?> request = sr.getRequest();
        if (request.getProcessingUserObject(TRANSACTION) != null) {
            sr.getStatus().setPhaseComplete(true);
            return;
        }
        List<SubRequest<?>> subs = ours(sr);
        Caller caller = caller(request);
        SetTransaction tx = new SetTransaction(service, caller, pending(caller));
        request.setProcessingUserObject(TRANSACTION, tx);
        try {
            // When every varbind is ours nothing can refuse the PDU after this: the set is applied now,
            // checked once. Otherwise (the system group, RFC 7666's VM-MIB, which refuses every SET in
            // its prepare) it is applied in commit, which a refusal elsewhere never reaches.
            tx.prepare(subs, subs.size() == request.size());
            for (SubRequest<?> s : subs) s.getStatus().setPhaseComplete(true);
        } catch (SetTransaction.SetError e) {
            log.debug("SET refused: {} on {}: {}", PDU.toErrorStatusText(e.status),
                    e.subRequest.getVariableBinding().getOid(), e.getMessage());
            e.subRequest.getStatus().setErrorStatus(e.status);
        }
    }

    @Override
    public void commit(SubRequest<?> sr) {
        SetTransaction tx = (SetTransaction) sr.getRequest().getProcessingUserObject(TRANSACTION);
        if (tx == null) {
            sr.getStatus().setErrorStatus(PDU.commitFailed);
            return;
        }
        if (!tx.committed()) {
            try {
                tx.commit();
            } catch (RuntimeException e) {
                log.warn("SET failed in commit: {}", e.toString());
                sr.getStatus().setErrorStatus(PDU.commitFailed);
                return;
            }
            for (SubRequest<?> s : ours(sr)) s.getStatus().setPhaseComplete(true);
        }
        sr.getStatus().setPhaseComplete(true);
    }

    @Override
    public void undo(SubRequest<?> sr) {
        // commit() compensates its own partial work before it reports a failure.
        sr.getStatus().setPhaseComplete(true);
    }

    @Override
    public void cleanup(SubRequest<?> sr) {
        sr.getRequest().setProcessingUserObject(TRANSACTION, null);
        sr.getRequest().setProcessingUserObject(VIEW, null);
        sr.getStatus().setPhaseComplete(true);
    }
}
