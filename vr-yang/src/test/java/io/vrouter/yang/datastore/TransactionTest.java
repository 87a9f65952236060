package io.vrouter.yang.datastore;

import static io.vrouter.yang.datastore.DatastoreTest.catchEdit;
import static io.vrouter.yang.datastore.DatastoreTest.session;
import static io.vrouter.yang.datastore.DatastoreTest.vr;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vrouter.core.config.Caller;
import io.vrouter.core.config.Credentials.Role;
import io.vrouter.core.driver.sim.LatencyProfile;
import io.vrouter.core.driver.sim.SimulatedDriver;
import io.vrouter.core.metrics.VrMetrics;
import io.vrouter.core.persistence.ConfigStore;
import io.vrouter.core.service.SingleVr;
import io.vrouter.core.service.VirtualRouterService;
import io.vrouter.core.spi.LockDeniedException;
import io.vrouter.core.spi.VrException;
import io.vrouter.yang.Ns;
import io.vrouter.yang.datastore.Datastore.Name;
import io.vrouter.yang.edit.EditError.Kind;
import io.vrouter.yang.edit.EditNode;
import io.vrouter.yang.edit.Operation;
import io.vrouter.yang.edit.Target;
import io.vrouter.yang.nacm.Nacm;
import io.vrouter.yang.nacm.NacmConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The transaction every YANG interface changes configuration through, on a real service (simulated
 * driver) under real access control (NACM): edit, validate, commit all or nothing or without the
 * refused VRs, the candidate, the locks, and /nacm.
 */
class TransactionTest {
    /** A request of RESTCONF or gNMI: no session. */
    static final Caller REQUEST = new Caller("admin", null, Role.OPERATOR, "restconf", null);

    @TempDir
    Path dir;
    VirtualRouterService service;
    Nacm nacm;
    Datastores datastores;

    @BeforeEach
    void start() throws Exception {
        service = new VirtualRouterService(new SimulatedDriver(LatencyProfile.NONE), new ConfigStore(dir), VrMetrics.inMemory());
        service.start();
        SingleVr.create(service, vr(1, "one", 256));
        nacm = new Nacm(dir, true);
        datastores = new Datastores(service, nacm);
    }

    @AfterEach
    void stop() {
        service.close();
    }

    record N(String name, String value, List<N> children, String ns) implements EditNode {
        @Override
        public boolean isLeaf() {
            return value != null;
        }
    }

    static N leaf(String name, Object value) {
        return new N(name, String.valueOf(value), List.of(), Ns.VMM);
    }

    /** vmConfigEntry {@code vmIndex} with these leaves. */
    static N entry(int vmIndex, N... leaves) {
        List<N> all = new ArrayList<>(List.of(leaf("vmIndex", vmIndex)));
        all.addAll(List.of(leaves));
        return new N("vmConfigEntry", null, all, Ns.VMM);
    }

    /** Renames VR {@code vmIndex} (creating it if missing) in the transaction. */
    static void name(Transaction tx, int vmIndex, String name) {
        assertThat(tx.edit(Target.configEntry(vmIndex), Operation.MERGE, entry(vmIndex, leaf("vmName", name)))).isEmpty();
    }

    String nameOf(int vmIndex) {
        return service.getConfig(vmIndex).map(c -> c.vmName).orElse(null);
    }

    @Test
    void aCommitOfRunningIsOneChangeSetDurableOnceClosed() {
        Transaction.Result r;
        try (Transaction tx = datastores.begin(REQUEST, Name.RUNNING)) {
            name(tx, 1, "uno");
            name(tx, 2, "two");
            assertThat(tx.changes()).isTrue();
            r = tx.commit(false);
        }
        r.awaitDurable();
        assertThat(r.denied()).isNull();
        assertThat(r.refused()).isEmpty();
        assertThat(r.changed()).isTrue();
        assertThat(r.applied().routers()).hasSize(2);
        assertThat(nameOf(1)).isEqualTo("uno");
        assertThat(nameOf(2)).isEqualTo("two");
    }

    @Test
    void anEditErrorIsTheEnginesAndChangesNothing() {
        try (Transaction tx = datastores.begin(REQUEST, Name.RUNNING)) {
            assertThat(tx.edit(Target.configEntry(9), Operation.DELETE, null)).singleElement()
                    .satisfies(e -> assertThat(e.kind()).isEqualTo(Kind.DATA_MISSING));
            assertThat(tx.changes()).isFalse();
        }
    }

    @Test
    void validateIsTestOnlyAndChangesNothing() {
        try (Transaction tx = datastores.begin(REQUEST, Name.RUNNING)) {
            name(tx, 2, "two");
            assertThat(tx.validate(false).refused()).isEmpty();
            name(tx, 3, "one"); // the name VR 1 has
            Transaction.Result r = tx.validate(false);
            assertThat(r.refused()).singleElement().satisfies(e -> assertThat(e.vmIndex()).isEqualTo(3));
            assertThat(r.changed()).isFalse();
        }
        assertThat(service.indices()).containsExactly(1);
    }

    @Test
    void aCommitIsAllOrNothingUnlessTheRefusedVrsAreLeftOut() {
        try (Transaction tx = datastores.begin(REQUEST, Name.RUNNING)) {
            name(tx, 2, "two");
            name(tx, 3, "one"); // the name VR 1 has: refused
            Transaction.Result none = tx.commit(false);
            assertThat(none.refused()).singleElement().satisfies(e -> assertThat(e.reason()).isEqualTo(VrException.Reason.NOT_UNIQUE));
            assertThat(none.changed()).isFalse();
        }
        assertThat(service.indices()).containsExactly(1);
        Transaction.Result rest;
        try (Transaction tx = datastores.begin(REQUEST, Name.RUNNING)) {
            name(tx, 2, "two");
            name(tx, 3, "one");
            rest = tx.commit(true);
            // what was accepted, as the service made it; the refused VR left out
            assertThat(tx.data().get(2).vmConfigTemplate).isNotNull();
            assertThat(tx.data().get(3)).isNull();
        }
        rest.awaitDurable();
        assertThat(rest.refused()).singleElement().satisfies(e -> assertThat(e.vmIndex()).isEqualTo(3));
        assertThat(service.indices()).containsExactly(1, 2);
    }

    @Test
    void theCandidateIsStoredThenCommittedIntoRunningWithTheRowsBefore() {
        Caller s = session(5);
        try (Transaction tx = datastores.begin(s, Name.CANDIDATE)) {
            name(tx, 1, "uno");
            name(tx, 2, "two");
            assertThat(tx.commit(false).refused()).isEmpty();
        }
        Datastore ds = datastores.of(null);
        assertThat(ds.candidateModified()).isTrue();
        assertThat(ds.read(Name.CANDIDATE).get(2).vmName).isEqualTo("two");
        assertThat(nameOf(1)).isEqualTo("one");
        // a second transaction on the candidate edits what the first left
        try (Transaction tx = datastores.begin(s, Name.CANDIDATE)) {
            assertThat(tx.data().get(1).vmName).isEqualTo("uno");
            name(tx, 3, "two"); // the name VR 2 has in the candidate: refused, the candidate kept as it was
            assertThat(tx.commit(false).refused()).hasSize(1);
        }
        assertThat(ds.read(Name.CANDIDATE).get(3)).isNull();
        Transaction.Result r;
        Transaction committed;
        try (Transaction tx = datastores.begin(s, Name.RUNNING)) {
            r = tx.commitCandidate();
            committed = tx;
        }
        r.awaitDurable();
        assertThat(r.refused()).isEmpty();
        assertThat(ds.candidateModified()).isFalse();
        assertThat(nameOf(1)).isEqualTo("uno");
        assertThat(nameOf(2)).isEqualTo("two");
        // what a confirmed commit puts back: VR 1 as it was, VR 2 absent
        assertThat(committed.before().get(1).vmName).isEqualTo("one");
        assertThat(committed.before()).containsEntry(2, null);
        try (Transaction tx = datastores.begin(s, Name.RUNNING)) {
            assertThat(tx.commitCandidate().changed()).isFalse();
        }
    }

    @Test
    void anotherSessionsLockRefusesASessionAtBeginAndARequestAtCommit() {
        datastores.of(null).lock(Name.RUNNING, session(7));
        assertThat(catchEdit(() -> datastores.begin(session(8), Name.RUNNING)).kind()).isEqualTo(Kind.IN_USE);
        try (Transaction tx = datastores.begin(REQUEST, Name.RUNNING)) {
            name(tx, 1, "uno");
            Transaction.Result r = tx.commit(false);
            assertThat(r.refused()).singleElement().isInstanceOf(LockDeniedException.class);
            assertThat(r.changed()).isFalse();
        }
        assertThat(nameOf(1)).isEqualTo("one");
        Transaction.Result mine;
        try (Transaction tx = datastores.begin(session(7), Name.RUNNING)) {
            name(tx, 1, "uno");
            mine = tx.commit(false);
        }
        mine.awaitDurable();
        assertThat(nameOf(1)).isEqualTo("uno");
    }

    @Test
    void accessControlRefusesTheWholeChange() throws Exception {
        NacmConfig c = nacm.config().copy();
        NacmConfig.RuleList list = new NacmConfig.RuleList();
        list.name = "no-names";
        list.groups = List.of("admin");
        NacmConfig.Rule rule = new NacmConfig.Rule();
        rule.name = "vmName";
        rule.moduleName = "NEW-VMM-MIB";
        rule.path = "/new-vmm-mib:NEW-VMM-MIB/new-vmm-mib:vmConfigTable/new-vmm-mib:vmConfigEntry/new-vmm-mib:vmName";
        rule.action = "deny";
        list.rules.add(rule);
        c.ruleLists.add(list);
        nacm.replace(c);
        try (Transaction tx = datastores.begin(REQUEST, Name.RUNNING)) {
            assertThat(tx.edit(Target.configEntry(1), Operation.MERGE, entry(1, leaf("vmName", "uno"),
                    leaf("vmConfigDescription", "allowed")))).isEmpty();
            assertThat(tx.validate(false).denied()).endsWith("vmName");
            Transaction.Result r = tx.commit(false);
            assertThat(r.denied()).endsWith("vmName");
            assertThat(r.changed()).isFalse();
        }
        assertThat(nameOf(1)).isEqualTo("one");
        assertThat(service.getConfig(1).orElseThrow().vmConfigDescription).isNotEqualTo("allowed");
    }

    @Test
    void nacmIsEditedWithTheRestAndRefusedUnderAnotherSessionsLock() throws Exception {
        N writeDefault = new N("nacm", null, List.of(new N("write-default", "deny", List.of(), NacmConfig.NS)), NacmConfig.NS);
        datastores.of(null).lock(Name.RUNNING, session(7));
        try (Transaction tx = datastores.begin(REQUEST, Name.RUNNING)) {
            assertThatThrownBy(() -> tx.editNacm(writeDefault, Operation.MERGE)).isInstanceOf(LockDeniedException.class)
                    .hasMessageContaining("session 7");
        }
        assertThat(nacm.config().writeDefault).isEqualTo("permit");
        Transaction.Result r;
        try (Transaction tx = datastores.begin(session(7), Name.RUNNING)) {
            assertThat(tx.editNacm(writeDefault, Operation.MERGE)).isNull();
            name(tx, 1, "uno");
            r = tx.commit(false);
        }
        r.awaitDurable();
        assertThat(r.notKept()).isNull();
        assertThat(nacm.config().writeDefault).isEqualTo("deny");
        assertThat(nameOf(1)).isEqualTo("uno");
    }

    @Test
    void aConfirmedCommitOfTheCandidateGoesBackWhenCancelledAndOnlyItsSessionMayCancelIt() throws Exception {
        Caller s = session(5);
        ConfirmedCommit cc = datastores.of(null).confirmedCommit();
        List<String> events = new java.util.concurrent.CopyOnWriteArrayList<>();
        cc.tellTo(new ConfirmedCommit.Events() {
            @Override
            public void confirmedCommit(Caller by, String event, Long timeout) {
                events.add(event);
            }

            @Override
            public void restored(java.util.Map<Integer, io.vrouter.core.model.VmConfigEntry> now,
                                 java.util.Map<Integer, io.vrouter.core.model.VmConfigEntry> back) {
                events.add("restored " + back.keySet());
            }
        });
        try (Transaction tx = datastores.begin(s, Name.CANDIDATE)) {
            name(tx, 1, "uno");
            name(tx, 2, "two");
            tx.commit(false);
        }
        ConfirmedCommit.Params confirmed = new ConfirmedCommit.Params(true, 600, null, null);
        Transaction.Result r;
        try (Transaction tx = datastores.begin(s, Name.RUNNING)) {
            cc.checkCommit(s, confirmed);
            r = tx.commitCandidate();
            cc.committed(s, confirmed, tx.before(), r.work());
        }
        r.awaitDurable();
        assertThat(cc.pending()).isTrue();
        assertThat(nameOf(1)).isEqualTo("uno");
        assertThatThrownBy(() -> cc.cancel(session(6), null)).isInstanceOf(ConfirmedCommit.Refused.class)
                .satisfies(e -> assertThat(((ConfirmedCommit.Refused) e).why).isEqualTo(ConfirmedCommit.Refused.Why.NOT_THE_OWNER));
        cc.cancel(s, null);
        assertThat(cc.pending()).isFalse();
        // put back once the commit's hypervisor work is over: VR 1 renamed back, VR 2 removed (it has no row to go back to)
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
        // the removal of VR 2 is accepted with the restore, and its row goes once its hypervisor work ends
        while (!(events.contains("restored [1]") && service.getConfig(2).isEmpty()) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(nameOf(1)).isEqualTo("one");
        assertThat(service.getConfig(2)).isEmpty();
        assertThat(events).startsWith("start").contains("cancel", "restored [1]");
    }
}
