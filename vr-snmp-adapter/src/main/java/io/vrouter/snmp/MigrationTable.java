package io.vrouter.snmp;

import io.vrouter.core.migration.Migration;
import io.vrouter.core.migration.MigrationRefusedException;
import io.vrouter.core.migration.PeerClient;
import io.vrouter.core.model.OperState;
import io.vrouter.core.model.VirtualRouter;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.spi.VrException;
import io.vrouter.core.spi.VirtualRouters;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import org.snmp4j.PDU;
import org.snmp4j.agent.MOScope;
import org.snmp4j.agent.request.SubRequest;
import org.snmp4j.smi.Integer32;
import org.snmp4j.smi.Null;
import org.snmp4j.smi.OID;
import org.snmp4j.smi.OctetString;
import org.snmp4j.smi.Variable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * NEW-VMM-MIB's vmMigrationTable (vmObjects 21, docs/adr/0023-backup-restore-and-migration.md):
 * writing {@code vmMigrationPeer.I} moves VR I to that peer with {@link Migration#move}, as REST and
 * NETCONF do, but the SET is answered at once (an SNMP manager retries a request after seconds, and a
 * move lasts until the peer has the VR up): the move runs on a thread of its own and its end is kept
 * here, in memory, for vmMigrationStatus, vmMigrationPeerVmIndex and vmMigrationResult. The provider's
 * only: a tenant's user sees no row, and VACM keeps the table out of a tenant's write view.
 */
final class MigrationTable extends ProviderOperation {
    private static final Logger log = LoggerFactory.getLogger(MigrationTable.class);
    /** vmMigrationTable ::= { vmObjects 21 }. */
    static final OID TABLE = VmmMib.sub(VmmMib.OBJECTS, 21);
    static final OID ENTRY = VmmMib.sub(TABLE, 1);
    static final int PEER = 1, STATUS = 2, PEER_VM_INDEX = 3, RESULT = 4;
    /** The moves kept for reading, at most (beyond, ended ones are forgotten: a router that made this many moves). */
    private static final int KEPT = 4096;

    /** vmMigrationStatus's values. */
    enum Status {
        NONE(1), MIGRATING(2), MOVED(3), REFUSED(4), FAILED(5);

        final int value;

        Status(int value) {
            this.value = value;
        }
    }

    /** A move asked through this table, of the VR of that name at its vmIndex. */
    record Move(String vmName, String peer, Status status, int peerVmIndex, String result) {
        static final Move NONE = new Move(null, "", Status.NONE, 0, "");
    }

    private final Map<String, PeerClient> peers;
    /** By vmIndex, in order: a walk goes from one row to the next without reading them all. */
    private final TreeMap<Integer, Move> moves = new TreeMap<>();
    private final ExecutorService movers = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "snmp-migrate");
        t.setDaemon(true);
        return t;
    });

    MigrationTable(VirtualRouters service, Principals principals, Map<String, PeerClient> peers) {
        super(service, principals, TABLE);
        this.peers = Map.copyOf(peers);
    }

    /** Stops the threads of the moves under way: a move's end is the core's (the VR stays or goes either way). */
    void close() {
        movers.shutdownNow();
    }

    // ------------------------------------------------------------------ rows

    /**
     * The move a row shows: the one asked for the VR at {@code vmIndex} (known by its name, so that a VR
     * made later at the index of a moved one is not taken for it), or none; empty when there is no row.
     */
    private Optional<Move> row(VirtualRouters view, int vmIndex) {
        Optional<VmConfigEntry> vr = view.getConfig(vmIndex);
        Move m;
        synchronized (moves) {
            m = moves.get(vmIndex);
        }
        // A moved VR's row outlives it; so does one whose move the core ended a moment before its thread here
        // recorded the end (the VR already gone): it reads migrating until then, never no instance.
        if (vr.isEmpty()) {
            return m != null && (m.status == Status.MOVED || m.status == Status.MIGRATING) ? Optional.of(m) : Optional.empty();
        }
        return Optional.of(m != null && m.status != Status.MOVED && m.vmName.equals(vr.get().vmName) ? m : Move.NONE);
    }

    /** The first index after {@code after} that has a row (a VR's, or one moved or moving whose VR is gone), or null. */
    private Integer nextRow(VirtualRouters view, int after) {
        Integer vr = view.nextIndexAfter(after).orElse(null);
        synchronized (moves) {
            for (Map.Entry<Integer, Move> m : moves.tailMap(after, false).entrySet()) {
                if (vr != null && m.getKey() >= vr) break;
                if (m.getValue().status == Status.MOVED || m.getValue().status == Status.MIGRATING) return m.getKey();
            }
        }
        return vr;
    }

    private static Variable value(Move m, int column) {
        return switch (column) {
            case PEER -> new OctetString(m.peer);
            case STATUS -> new Integer32(m.status.value);
            case PEER_VM_INDEX -> new Integer32(m.peerVmIndex);
            case RESULT -> new OctetString(m.result.getBytes(StandardCharsets.UTF_8));
            default -> null;
        };
    }

    // ------------------------------------------------------------------ GET, GETNEXT

    @Override
    public void get(SubRequest<?> sr) {
        OID oid = sr.getVariableBinding().getOid();
        int column = VmmInstrumentation.column(oid, ENTRY);
        boolean object = column >= PEER && column <= RESULT;
        Variable v = null;
        if (object && oid.size() == ENTRY.size() + 2 && oid.get(ENTRY.size() + 1) > 0) {
            Optional<VirtualRouters> view = viewOf(sr.getRequest());
            int vmIndex = oid.get(ENTRY.size() + 1);
            v = view.flatMap(vr -> row(vr, vmIndex)).map(m -> value(m, column)).orElse(null);
        }
        sr.getVariableBinding().setVariable(v != null ? v : object ? Null.noSuchInstance : Null.noSuchObject);
        sr.completed();
    }

    /**
     * The first instance in the range that the filter lets through, column by column, row by row, from
     * the row the range starts at (a walk reads one row per step).
     */
    @Override
    MibView.Cell first(Optional<VirtualRouters> view, MOScope range, Function<OID, Boolean> filter) {
        if (view.isEmpty()) return null;
        OID lower = range.getLowerBound() == null ? TABLE : range.getLowerBound();
        boolean inclusive = range.getLowerBound() == null || range.isLowerIncluded();
        for (int column = PEER; column <= RESULT; column++) {
            OID columnOid = VmmMib.sub(ENTRY, column);
            int after; // the rows of this column after this vmIndex
            if (lower.compareTo(columnOid) <= 0) {
                after = 0;
            } else if (lower.startsWith(columnOid)) {
                long i = lower.getUnsigned(columnOid.size());
                if (i > Integer.MAX_VALUE) continue;
                after = lower.size() == columnOid.size() + 1 && inclusive ? (int) i - 1 : (int) i;
            } else {
                continue; // the range starts past this column
            }
            for (Integer vmIndex = nextRow(view.get(), after); vmIndex != null; vmIndex = nextRow(view.get(), vmIndex)) {
                OID oid = VmmMib.cell(ENTRY, column, vmIndex);
                if (!range.covers(oid)) return null;
                Optional<Move> m = row(view.get(), vmIndex);
                if (m.isPresent() && (filter == null || filter.apply(oid))) return new MibView.Cell(oid, value(m.get(), column));
            }
        }
        return null;
    }

    // ------------------------------------------------------------------ SET

    /** The SET's error status in SNMP's terms (the MIB's vmMigrationPeer says which), or noError. */
    @Override
    int refusal(SubRequest<?> sr) {
        OID oid = sr.getVariableBinding().getOid();
        int column = VmmInstrumentation.column(oid, ENTRY);
        if (column >= STATUS && column <= RESULT) return PDU.notWritable;
        if (column != PEER || oid.size() != ENTRY.size() + 2 || oid.get(ENTRY.size() + 1) <= 0) return PDU.noCreation;
        Iterator<?> all = sr.getRequest().iterator();
        while (all.hasNext()) {
            // a move cannot be undone: nothing else of the PDU may fail after it started
            if (((SubRequest<?>) all.next()).getTargetMO() != this) return PDU.inconsistentValue;
        }
        if (!(sr.getVariableBinding().getVariable() instanceof OctetString peer)) return PDU.wrongType;
        if (peer.length() > 64) return PDU.wrongLength;
        Optional<VirtualRouters> view = viewOf(sr.getRequest());
        if (view.isEmpty()) return PDU.noAccess;
        int vmIndex = oid.get(ENTRY.size() + 1);
        Optional<VirtualRouter> vr = view.get().get(vmIndex);
        if (vr.isEmpty()) return PDU.inconsistentName;
        if (!peers.containsKey(peer.toString())) return PDU.wrongValue;
        if (vr.get().operState() == OperState.MIGRATING || row(view.get(), vmIndex).orElse(Move.NONE).status == Status.MIGRATING) {
            return PDU.resourceUnavailable;
        }
        return PDU.noError;
    }

    @Override
    public void commit(SubRequest<?> sr) {
        int vmIndex = sr.getVariableBinding().getOid().get(ENTRY.size() + 1);
        String peer = sr.getVariableBinding().getVariable().toString();
        VirtualRouters view = service.as(principals.of(sr.getRequest()));
        view.getConfig(vmIndex).ifPresent(vr -> start(view, vmIndex, vr.vmName, peer));
        sr.getStatus().setPhaseComplete(true);
    }

    /** Marks the move as migrating (what the next read shows) and runs it on a thread of its own. */
    private void start(VirtualRouters view, int vmIndex, String vmName, String peer) {
        synchronized (moves) {
            Move now = moves.get(vmIndex);
            if (now != null && now.status == Status.MIGRATING) return; // the same row twice in one PDU
            moves.put(vmIndex, new Move(vmName, peer, Status.MIGRATING, 0, "migrating to peer " + peer));
            forgetBeyondKept();
        }
        movers.execute(() -> end(vmIndex, vmName, peer, run(view, vmIndex, vmName, peer)));
    }

    private Move run(VirtualRouters view, int vmIndex, String vmName, String peer) {
        try {
            Migration.Moved moved = Migration.move(view, vmIndex, peers, peer);
            return new Move(vmName, peer, Status.MOVED, moved.peerIndex(), "moved to peer " + peer + " as vmIndex "
                    + moved.peerIndex() + " there");
        } catch (MigrationRefusedException e) {
            return new Move(vmName, peer, e.reason() == VrException.Reason.FAILED ? Status.FAILED : Status.REFUSED, 0,
                    e.getMessage());
        } catch (VrException e) {
            return new Move(vmName, peer, Status.REFUSED, 0, e.getMessage());
        } catch (RuntimeException e) {
            log.warn("moving VR {} to peer {} failed", vmIndex, peer, e);
            return new Move(vmName, peer, Status.FAILED, 0, e.toString());
        }
    }

    private void end(int vmIndex, String vmName, String peer, Move end) {
        log.info("SNMP move of VR {} ({}) to peer {}: {}", vmIndex, vmName, peer, end.result);
        Move kept = new Move(end.vmName, end.peer, end.status, end.peerVmIndex, fit(end.result));
        synchronized (moves) {
            moves.put(vmIndex, kept);
        }
    }

    /** Past {@link #KEPT} moves, ended ones are forgotten, the lowest vmIndex first (their rows read none again). */
    private void forgetBeyondKept() {
        Iterator<Map.Entry<Integer, Move>> it = moves.entrySet().iterator();
        while (moves.size() > KEPT && it.hasNext()) {
            if (it.next().getValue().status != Status.MIGRATING) it.remove();
        }
    }

    /** At most 255 octets of UTF-8 (vmMigrationResult's and vmDrainResult's size), cut at a character. */
    static String fit(String text) {
        String s = text == null ? "" : text;
        while (s.getBytes(StandardCharsets.UTF_8).length > 255) s = s.substring(0, s.length() - 1);
        return s;
    }

}
