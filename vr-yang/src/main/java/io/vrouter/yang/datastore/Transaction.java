package io.vrouter.yang.datastore;

import io.vrouter.core.config.Caller;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.spi.Applied;
import io.vrouter.core.spi.ChangeSet;
import io.vrouter.core.spi.Version;
import io.vrouter.core.spi.VirtualRouters;
import io.vrouter.core.spi.VrException;
import io.vrouter.yang.DataGuard;
import io.vrouter.yang.datastore.Datastore.Name;
import io.vrouter.yang.edit.ConfigData;
import io.vrouter.yang.edit.EditError;
import io.vrouter.yang.edit.EditNode;
import io.vrouter.yang.edit.Operation;
import io.vrouter.yang.edit.Target;
import io.vrouter.yang.edit.TreeEdit;
import io.vrouter.yang.nacm.Nacm;
import io.vrouter.yang.nacm.NacmConfig;
import io.vrouter.yang.nacm.NacmEdit;
import io.vrouter.yang.nacm.NacmPath;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/**
 * One change of a configuration datastore by one caller, whatever the interface (NETCONF's
 * edit-config, commit and copy-config, RESTCONF's writes, gNMI's Set): begun on the caller's scope
 * ({@link Datastore#begin}), edited on a copy by the edit engine ({@link #edit}), then validated
 * (changing nothing) or committed: access control's write check of the whole change, then running's
 * change accepted by the service as ONE change set through the caller's view (all or nothing, or with
 * the refused VRs left out), or the candidate stored. The interfaces parse their requests into edits
 * and map the results into their errors; every rule is here or in the core. The datastore is held
 * from begin to {@link #close}; the caller makes what was accepted durable once it has closed it
 * ({@link Result#awaitDurable}), so that transactions at once share one flush of the journal.
 */
public final class Transaction implements AutoCloseable {
    /** The instance identifier of access control's configuration, what a denied edit of it names. */
    public static final String NACM_PATH = "/" + NacmConfig.MODULE + ":nacm";

    /** Where an edit goes: {@link Transaction#edit}, or a bare engine ({@link TreeEdit#apply}) that no datastore holds. */
    @FunctionalInterface
    public interface Editor {
        /** Applies {@code op} at {@code target} with {@code node}; the errors so far. */
        List<EditError> apply(Target target, Operation op, EditNode node);
    }

    /**
     * What a validate or a commit did: the node access control denied (null: none, and then nothing
     * else was tried), the service's refusals, what it accepted (null: nothing, or not running), and
     * why a change of access control's configuration could not be kept (null: kept, or none).
     */
    public record Result(String denied, List<VrException> refused, Applied applied, String notKept) {
        static Result denied(String target) {
            return new Result(target, List.of(), null, null);
        }

        /** Whether running changed. */
        public boolean changed() {
            return applied != null;
        }

        /** When the hypervisor work of what was accepted is over. */
        public CompletableFuture<?> work() {
            return applied == null ? CompletableFuture.completedFuture(null) : applied.completion();
        }

        /** Returns once what was accepted is durable; called after the transaction is closed. */
        public void awaitDurable() {
            if (applied != null) applied.awaitDurable();
        }
    }

    private final Datastore ds;
    private final Caller caller;
    private final VirtualRouters via;
    private final DataGuard.Access access;
    private final Name target;
    private ConfigData base;
    private final TreeEdit edit;
    /** The candidate {@link #commitCandidate} committed, or null. */
    private ConfigData candidate;
    private final List<ChangeSet.Condition> conditions = new ArrayList<>();
    /** The running rows, before, of the VRs a commit of the candidate changed (null: created). */
    private final Map<Integer, VmConfigEntry> before = new HashMap<>();
    /** An edit of access control's configuration, made when the rest is committed. */
    private EditNode nacmEdit;
    private Operation nacmOp;
    private NacmConfig nacmFrom;
    private NacmConfig nacmNext;
    private boolean closed;

    Transaction(Datastore ds, Caller caller, VirtualRouters via, DataGuard.Access access, Name target, ConfigData base,
                ConfigData start, boolean continueOnError) {
        this.ds = ds;
        this.caller = caller;
        this.via = via;
        this.access = access;
        this.target = target;
        this.base = base;
        this.edit = new TreeEdit(start, continueOnError);
    }

    public Caller caller() {
        return caller;
    }

    public Name target() {
        return target;
    }

    /** The configuration edited from (after {@link #commitCandidate}: the running configuration the candidate started from). */
    public ConfigData base() {
        return base;
    }

    /** The configuration as edited so far (after {@link #commitCandidate}: the candidate committed). */
    public ConfigData data() {
        return candidate != null ? candidate : edit.data();
    }

    // ------------------------------------------------------------------ edits

    /** Applies {@code op} at {@code target} with {@code node} (null for delete and remove); returns the errors so far. */
    public List<EditError> edit(Target at, Operation op, EditNode node) {
        return edit.apply(at, op, node);
    }

    /** A new VR whose index the service picks (RESTCONF's POST without vmIndex); returns the errors so far. */
    public List<EditError> createNew(EditNode entry) {
        return edit.createNew(entry);
    }

    public boolean exists(Target t) {
        return edit.exists(t);
    }

    /** Whether the edits so far change anything. */
    public boolean changes() {
        return !changeSet().isEmpty();
    }

    /** A condition the commit's change set holds only when met (a VR's version, or the datastore's: null). */
    public void require(Integer vmIndex, Predicate<Version> holds) {
        conditions.add(new ChangeSet.Condition(vmIndex, holds));
    }

    /**
     * An edit of access control's configuration ({@code /nacm}, the server's, not a datastore's),
     * kept when the rest of the transaction is committed. Returns what access control denies
     * ({@link #NACM_PATH}), or null. Refused while a session other than the caller's holds running's
     * lock ({@link io.vrouter.core.spi.LockDeniedException}), as a change of VRs would be, and with
     * {@link NacmEdit.Refused} when the edit is not a valid one.
     */
    public String editNacm(EditNode node, Operation op) throws NacmEdit.Refused {
        Nacm nacm = nacm();
        if (!nacm.access(caller).mayWrite(NacmConfig.MODULE, NacmPath.ROOT.child("nacm"), Nacm.Op.UPDATE)) return NACM_PATH;
        ds.checkServerWritable(caller);
        synchronized (nacm) {
            nacmFrom = nacm.config();
            nacmNext = NacmEdit.apply(nacmFrom, node, op);
        }
        nacmEdit = node;
        nacmOp = op;
        return null;
    }

    private Nacm nacm() {
        if (!(ds.guard() instanceof Nacm nacm)) throw new IllegalStateException("this server has no access control configuration");
        return nacm;
    }

    // ------------------------------------------------------------------ validate, commit

    /** Access control's write check, then the service's check of the change, changing nothing. */
    public Result validate(boolean dropRefused) {
        String denied = access.deniedWrite(base, data());
        if (denied != null) return Result.denied(denied);
        return new Result(null, Datastore.check(via, base, data(), dropRefused), null, null);
    }

    /**
     * Commits the edits: access control's write check of the whole change (denied: nothing done), then
     * for running the service's accept of one change set (with {@code dropRefused}, the VRs it refuses
     * are left out and the rest accepted), for the candidate the service's check and the candidate
     * stored (without what was refused, or not at all when all or nothing). An edit of {@code /nacm} is
     * kept once running's part is accepted whole.
     */
    public Result commit(boolean dropRefused) {
        String denied = access.deniedWrite(base, data());
        if (denied != null) return Result.denied(denied);
        if (target == Name.CANDIDATE) {
            List<VrException> refused = Datastore.check(via, base, data(), dropRefused);
            if (refused.isEmpty() || dropRefused) ds.storeCandidate(data(), base);
            return new Result(null, refused, null, null);
        }
        if (nacmEdit == null) return accepted(Datastore.accept(via, base, data(), dropRefused, this::changeSet), null);
        Nacm nacm = nacm();
        synchronized (nacm) {
            Datastore.Accepted a = Datastore.accept(via, base, data(), false, this::changeSet);
            return accepted(a, a.refused().isEmpty() ? keepNacm(nacm) : null);
        }
    }

    /**
     * Commits the candidate into running (NETCONF's commit, and copy-config from candidate to
     * running), all or nothing, after access control's write check of its change; the candidate is
     * clean again once it is accepted. {@link #before} then holds the running rows it changed.
     */
    public Result commitCandidate() {
        if (target != Name.RUNNING) throw new IllegalStateException("the candidate is committed into running");
        ConfigData[] cb = ds.candidateAndBase();
        if (!ds.candidateModified()) return new Result(null, List.of(), null, null);
        String denied = access.deniedWrite(cb[1], cb[0]);
        if (denied != null) return Result.denied(denied);
        base = cb[1];
        candidate = cb[0];
        return accepted(ds.commitCandidate(via, candidate, base, before), null);
    }

    /** The running rows, before, of the VRs the candidate's commit changed (null for those it created). */
    public Map<Integer, VmConfigEntry> before() {
        return before;
    }

    private static Result accepted(Datastore.Accepted a, String notKept) {
        return new Result(null, a.refused(), a.applied(), notKept);
    }

    /** The edited /nacm in force, durable first (edited again if another change came in meanwhile); why not, or null. */
    private String keepNacm(Nacm nacm) {
        try {
            if (nacm.config() != nacmFrom) nacmNext = NacmEdit.apply(nacm.config(), nacmEdit, nacmOp);
            nacm.replace(nacmNext);
            return null;
        } catch (NacmEdit.Refused e) {
            return "the access control configuration changed meanwhile: " + e.getMessage();
        } catch (IOException e) {
            org.slf4j.LoggerFactory.getLogger(Transaction.class).error("{}: cannot keep the access control configuration: {}",
                    caller.user(), e.toString());
            return "the access control configuration cannot be kept (the server's log says why); it is unchanged";
        }
    }

    /** The change set of the edits, new VRs without vmIndex and the conditions included. */
    private ChangeSet changeSet() {
        ChangeSet.Builder b = edit.changesFrom(base);
        for (ChangeSet.Condition c : conditions) {
            if (c.vmIndex() == null) b.provided(c.holds()); else b.provided(c.vmIndex(), c.holds());
        }
        return b.build();
    }

    /** Lets go of the datastore. */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
        ds.end();
    }
}
