package io.vrouter.snmp;

import io.vrouter.core.config.Caller;
import io.vrouter.core.spi.VirtualRouters;
import java.util.Optional;
import java.util.function.Function;
import org.snmp4j.PDU;
import org.snmp4j.agent.DefaultMOScope;
import org.snmp4j.agent.MOQuery;
import org.snmp4j.agent.MOScope;
import org.snmp4j.agent.mo.GenericManagedObject;
import org.snmp4j.agent.request.Request;
import org.snmp4j.agent.request.SubRequest;
import org.snmp4j.smi.OID;

/**
 * The snmp4j plumbing of an object group whose SET starts an operation of the provider's (vmMigrationTable,
 * vmDrain; ADR 0023 decisions 11 and 16): a tenant's user reads no instance, a walk and a GETNEXT find
 * the first instance after a point through {@link #first}, and a SET is checked whole in prepare
 * ({@link #refusal}) so that commit, which starts what cannot be undone, never fails for a reason known before.
 */
abstract class ProviderOperation implements GenericManagedObject {
    final VirtualRouters service;
    final Principals principals;
    private final MOScope scope;

    ProviderOperation(VirtualRouters service, Principals principals, OID subtree) {
        this.service = service;
        this.principals = principals;
        this.scope = new DefaultMOScope(subtree, true, subtree.nextPeer(), false);
    }

    /** The first instance in {@code range} (that {@code filter}, VACM, lets through) with its value; null: none. */
    abstract MibView.Cell first(Optional<VirtualRouters> view, MOScope range, Function<OID, Boolean> filter);

    /** The SET's error status for this varbind in SNMP's terms, or noError. */
    abstract int refusal(SubRequest<?> sr);

    @Override
    public MOScope getScope() {
        return scope;
    }

    /** The provider's view of the request's caller; empty for a tenant's user, who reads no instance. */
    Optional<VirtualRouters> viewOf(Request<?, ?, ?> request) {
        Caller caller = request == null ? Caller.SYSTEM : principals.of(request);
        return caller.tenant() != null ? Optional.empty() : Optional.of(service.as(caller));
    }

    @Override
    public OID find(MOScope range) {
        MibView.Cell cell = first(viewOf(null), range, null);
        return cell == null ? null : cell.oid();
    }

    @Override
    public OID find(MOQuery query, Function<OID, Boolean> filter) {
        MibView.Cell cell = first(viewOf(VmmInstrumentation.requestOf(query)), query.getScope(), filter);
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
        return MibView.Cell.answer(sr, first(viewOf(sr.getRequest()), sr.getScope(), filter));
    }

    @Override
    public void prepare(SubRequest<?> sr) {
        int status = refusal(sr);
        if (status != PDU.noError) {
            sr.getStatus().setErrorStatus(status);
        } else {
            sr.getStatus().setPhaseComplete(true);
        }
    }

    /** Nothing to undo: commit starts the operation only once every varbind of the PDU passed prepare. */
    @Override
    public void undo(SubRequest<?> sr) {
        sr.getStatus().setPhaseComplete(true);
    }

    @Override
    public void cleanup(SubRequest<?> sr) {
        sr.getStatus().setPhaseComplete(true);
    }
}
