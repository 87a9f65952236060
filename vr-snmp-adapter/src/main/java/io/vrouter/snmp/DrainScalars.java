package io.vrouter.snmp;

import io.vrouter.core.migration.Drain;
import io.vrouter.core.spi.ConflictException;
import io.vrouter.core.spi.ValidationException;
import io.vrouter.core.spi.VirtualRouters;
import io.vrouter.core.spi.VrException;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Optional;
import java.util.function.Function;
import org.snmp4j.PDU;
import org.snmp4j.agent.MOScope;
import org.snmp4j.agent.request.SubRequest;
import org.snmp4j.smi.Gauge32;
import org.snmp4j.smi.Integer32;
import org.snmp4j.smi.Null;
import org.snmp4j.smi.OID;
import org.snmp4j.smi.OctetString;
import org.snmp4j.smi.Variable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * NEW-VMM-MIB's vmDrain scalars (vmObjects 22, ADR 0023 decision 16): writing {@code vmDrainState}
 * drained(2) starts the server's one {@link Drain} to every peer, open(1) opens the router; the other
 * scalars read the drain's report. As {@link MigrationTable}: answered at once (the drain runs on its
 * own thread), asked alone in its PDU (a drain cannot be undone), the provider's only (a tenant's user
 * reads no instance, and VACM keeps vmDrain out of a tenant's write view).
 */
final class DrainScalars extends ProviderOperation {
    private static final Logger log = LoggerFactory.getLogger(DrainScalars.class);
    /** vmDrain OBJECT IDENTIFIER ::= { vmObjects 22 }. */
    static final OID DRAIN = VmmMib.sub(VmmMib.OBJECTS, 22);
    static final int STATE = 1, TOTAL = 2, MOVED = 3, NOT_MOVED = 4, RESULT = 5;
    /** vmDrainState's values. */
    static final int OPEN = 1, DRAINED = 2, DRAINING = 3;

    private final Drain drain;

    DrainScalars(VirtualRouters service, Principals principals, Drain drain) {
        super(service, principals, DRAIN);
        this.drain = drain;
    }

    /** The instance of a vmDrain scalar: vmDrain.object.0. */
    static OID instance(int object) {
        return VmmMib.scalar(VmmMib.sub(DRAIN, object));
    }

    /** The object an instance OID names (vmDrain.N.0), or -1. */
    private static int objectOf(OID oid) {
        return oid.size() == DRAIN.size() + 2 && oid.startsWith(DRAIN) && oid.get(DRAIN.size() + 1) == 0
                ? oid.get(DRAIN.size()) : -1;
    }

    private Variable value(VirtualRouters view, int object) {
        Drain.Report r = drain.report(view);
        return switch (object) {
            case STATE -> new Integer32(r.draining() ? DRAINING : r.drained() ? DRAINED : OPEN);
            case TOTAL -> new Gauge32(r.total());
            case MOVED -> new Gauge32(r.moved());
            case NOT_MOVED -> new Gauge32(r.notMoved());
            case RESULT -> new OctetString(MigrationTable.fit(result(r)).getBytes(StandardCharsets.UTF_8));
            default -> null;
        };
    }

    /** The last drain in words: empty for none; else its state, its counts, then each VR's outcome. */
    static String result(Drain.Report r) {
        if (r.started() == null) return "";
        StringBuilder s = new StringBuilder(r.draining() ? "draining to " : "drained to ").append(String.join(", ", r.peers()))
                .append(": ").append(r.moved()).append(" of ").append(r.total()).append(" VRs moved");
        if (r.notMoved() > 0) s.append(", ").append(r.notMoved()).append(" not");
        for (Drain.VrOutcome o : r.routers()) {
            s.append("; ").append(o.vmIndex()).append(o.vmName() == null ? "" : " " + o.vmName());
            s.append(o.problem() == null ? " to " + o.peer() + " as " + o.peerIndex() : ": " + o.problem());
        }
        return s.toString();
    }

    // ------------------------------------------------------------------ GET, GETNEXT

    @Override
    public void get(SubRequest<?> sr) {
        int object = objectOf(sr.getVariableBinding().getOid());
        Optional<VirtualRouters> view = viewOf(sr.getRequest());
        Variable v = view.isPresent() && object >= STATE && object <= RESULT ? value(view.get(), object) : null;
        sr.getVariableBinding().setVariable(v != null ? v : Null.noSuchInstance);
        sr.completed();
    }

    /** The first instance in the range that the filter lets through, or null. */
    @Override
    MibView.Cell first(Optional<VirtualRouters> view, MOScope range, Function<OID, Boolean> filter) {
        if (view.isEmpty()) return null;
        for (int object = STATE; object <= RESULT; object++) {
            OID oid = instance(object);
            if (range.covers(oid) && (filter == null || filter.apply(oid))) return new MibView.Cell(oid, value(view.get(), object));
        }
        return null;
    }

    // ------------------------------------------------------------------ SET

    /** The SET's error status in SNMP's terms (the MIB's vmDrainState says which), or noError. */
    @Override
    int refusal(SubRequest<?> sr) {
        int object = objectOf(sr.getVariableBinding().getOid());
        if (object >= TOTAL && object <= RESULT) return PDU.notWritable;
        if (object != STATE) return PDU.noCreation;
        Iterator<?> all = sr.getRequest().iterator();
        while (all.hasNext()) {
            // a drain cannot be undone: nothing else of the PDU may fail after it started
            if (((SubRequest<?>) all.next()).getTargetMO() != this) return PDU.inconsistentValue;
        }
        if (!(sr.getVariableBinding().getVariable() instanceof Integer32 asked)) return PDU.wrongType;
        if (asked.getValue() != OPEN && asked.getValue() != DRAINED) return PDU.wrongValue; // draining(3) is read only
        Optional<VirtualRouters> view = viewOf(sr.getRequest());
        if (view.isEmpty()) return PDU.noAccess;
        // Drain's own refusals, told before anything changes (commit asks again: another interface may drain meanwhile)
        if (drain.report(view.get()).draining()) return PDU.resourceUnavailable;
        if (asked.getValue() == DRAINED) {
            try {
                drain.check(view.get(), null);
            } catch (VrException e) {
                return errorStatus(e);
            }
        }
        return PDU.noError;
    }

    /** Drains or opens; a refusal here (another interface began a drain since prepare) is commitFailed (RFC 3416), nothing changed. */
    @Override
    public void commit(SubRequest<?> sr) {
        VirtualRouters view = service.as(principals.of(sr.getRequest()));
        int asked = ((Integer32) sr.getVariableBinding().getVariable()).getValue();
        try {
            if (asked == DRAINED) {
                Drain.Report started = drain.start(view, null);
                log.info("SNMP drain: {} VRs to peers {}", started.total(), started.peers());
            } else {
                drain.open(view);
            }
            sr.getStatus().setPhaseComplete(true);
        } catch (VrException e) {
            log.info("SNMP {} refused: {}", asked == DRAINED ? "drain" : "open", e.getMessage());
            sr.getStatus().setErrorStatus(PDU.commitFailed);
        }
    }

    /**
     * A refusal of {@link Drain} in RFC 3416's terms: resourceUnavailable while a drain runs (the one
     * drain is busy; the same SET succeeds once it ends), inconsistentValue when this router's settings
     * or state rule it out (no peers; drained already with no VR left: no retry helps until they change).
     */
    static int errorStatus(VrException e) {
        if (e instanceof ConflictException && e.reason() == VrException.Reason.IN_USE) return PDU.resourceUnavailable;
        if (e instanceof ConflictException || e instanceof ValidationException) return PDU.inconsistentValue;
        return PDU.genErr;
    }

}
