package io.vrouter.yang.edit;

import static org.assertj.core.api.Assertions.assertThat;

import io.vrouter.core.config.Caller;
import io.vrouter.core.config.Credentials.Role;
import io.vrouter.core.driver.sim.LatencyProfile;
import io.vrouter.core.driver.sim.SimulatedDriver;
import io.vrouter.core.metrics.VrMetrics;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.persistence.ConfigStore;
import io.vrouter.core.service.SingleVr;
import io.vrouter.core.service.VirtualRouterService;
import io.vrouter.yang.WithDefaults;
import io.vrouter.yang.edit.Datastores.Name;
import io.vrouter.yang.edit.EditError.Kind;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shared datastores on a real service (simulated driver): locks, the candidate, check and accept. */
class DatastoresTest {
    @TempDir
    Path dir;
    VirtualRouterService service;
    Datastores ds;

    @BeforeEach
    void start() throws Exception {
        service = new VirtualRouterService(new SimulatedDriver(LatencyProfile.NONE), new ConfigStore(dir), VrMetrics.inMemory());
        service.start();
        SingleVr.create(service, TreeEditTest.vr(1, "one", 256));
        ds = new Datastores(service);
    }

    @AfterEach
    void stop() {
        service.close();
    }

    /** An operator's NETCONF session. */
    static Caller session(int id) {
        return new Caller("admin", null, Role.OPERATOR, "netconf", null).inSession(id);
    }

    static VmConfigEntry named(int vmIndex, String name) {
        VmConfigEntry c = new VmConfigEntry();
        c.vmIndex = vmIndex;
        c.vmName = name;
        return c;
    }

    @Test
    void aLockExcludesOtherSessionsUntilUnlockedOrReleased() {
        ds.lock(Name.RUNNING, session(7));
        assertThat(ds.lockHolder(Name.RUNNING)).isEqualTo(7);
        ds.checkWritable(Name.RUNNING, 7);
        EditError inUse = catchEdit(() -> ds.checkWritable(Name.RUNNING, 8));
        assertThat(inUse.kind()).isEqualTo(Kind.IN_USE);
        assertThat(inUse.holder()).isEqualTo(7);
        EditError denied = catchEdit(() -> ds.lock(Name.RUNNING, session(8)));
        assertThat(denied.kind()).isEqualTo(Kind.LOCK_DENIED);
        assertThat(denied.holder()).isEqualTo(7);
        EditError notHeld = catchEdit(() -> ds.unlock(Name.RUNNING, 8));
        assertThat(notHeld.kind()).isEqualTo(Kind.OPERATION_FAILED);
        assertThat(notHeld.holder()).isEqualTo(7);
        ds.unlock(Name.RUNNING, 7);
        ds.checkWritable(Name.RUNNING, 8);
        assertThat(catchEdit(() -> ds.unlock(Name.RUNNING, 7)).holder()).isZero();
    }

    @Test
    void theCandidateFollowsRunningUntilEditedAndGoesWithItsLockHoldersSession() {
        ConfigData[] cb = ds.candidateAndBase();
        assertThat(ds.candidateModified()).isFalse();
        cb[0].put(named(2, "two"));
        assertThat(ds.check(cb[1], cb[0], false)).isEmpty();
        // the service completed the row with its defaults, those with-defaults reports
        assertThat(String.valueOf(cb[0].get(2).vmConfigMemory)).isEqualTo(WithDefaults.CONFIG_DEFAULTS.get("vmConfigMemory"));
        ds.storeCandidate(cb[0], cb[1]);
        assertThat(ds.candidateModified()).isTrue();
        assertThat(ds.read(Name.CANDIDATE).get(2).vmName).isEqualTo("two");
        assertThat(ds.read(Name.RUNNING).get(2)).isNull();
        assertThat(service.getConfig(2)).isEmpty();
        // a candidate with changes cannot be locked
        assertThat(catchEdit(() -> ds.lock(Name.CANDIDATE, session(3))).kind()).isEqualTo(Kind.LOCK_DENIED);
        ds.discardCandidate();
        ds.lock(Name.CANDIDATE, session(3));
        ds.storeCandidate(cb[0], cb[1]);
        ds.release(3);
        assertThat(ds.candidateModified()).isFalse();
        assertThat(ds.lockHolder(Name.CANDIDATE)).isZero();
    }

    @Test
    void acceptAppliesAllOrNothingOrLeavesOutTheRefusedVrs() {
        ConfigData base = ConfigData.of(service);
        ConfigData edited = base.copy();
        edited.put(named(2, "two"));
        edited.put(named(3, "one")); // the name VR 1 has: refused
        Datastores.Accepted none = ds.accept(base, edited, false);
        assertThat(none.refused()).hasSize(1);
        assertThat(none.applied()).isNull();
        assertThat(service.indices()).containsExactly(1);

        Datastores.Accepted rest = ds.accept(base, edited, true);
        assertThat(rest.refused()).hasSize(1);
        assertThat(rest.refused().get(0).vmIndex()).isEqualTo(3);
        rest.applied().awaitDurable();
        assertThat(service.indices()).containsExactly(1, 2);
        // the VR accepted, as the service made it
        assertThat(edited.get(2).vmConfigTemplate).isEqualTo(WithDefaults.CONFIG_DEFAULTS.get("vmConfigTemplate"));
        assertThat(edited.get(3)).isNull();
    }

    @Test
    void commitAppliesTheCandidateAllOrNothingAndCleansIt() throws Exception {
        assertThat(ds.commit()).isNull();
        ConfigData[] cb = ds.candidateAndBase();
        cb[0].put(named(2, "two"));
        cb[0].put(named(3, "one")); // the name VR 1 has: refused
        ds.storeCandidate(cb[0], cb[1]);
        Datastores.Committed refused = ds.commit();
        assertThat(refused.accepted().refused()).hasSize(1);
        assertThat(ds.candidateModified()).isTrue();
        assertThat(service.indices()).containsExactly(1);

        cb = ds.candidateAndBase();
        cb[0].remove(3);
        VmConfigEntry one = cb[0].get(1).copy();
        one.vmName = "uno";
        cb[0].put(one);
        ds.storeCandidate(cb[0], cb[1]);
        Datastores.Committed done = ds.commit();
        assertThat(done.accepted().refused()).isEmpty();
        done.accepted().applied().awaitDurable();
        assertThat(ds.candidateModified()).isFalse();
        assertThat(service.indices()).containsExactly(1, 2);
        assertThat(service.getConfig(1).orElseThrow().vmName).isEqualTo("uno");
        // the running rows before, which a confirmed commit restores: VR 1 as it was, VR 2 absent
        assertThat(done.before().get(1).vmName).isEqualTo("one");
        assertThat(done.before()).containsEntry(2, null);
    }

    @Test
    void checkChangesNothing() {
        ConfigData base = ConfigData.of(service);
        ConfigData edited = base.copy();
        edited.remove(1);
        assertThat(ds.check(base, edited, false)).isEmpty();
        assertThat(service.indices()).containsExactly(1);
    }

    private static EditError catchEdit(Runnable r) {
        try {
            r.run();
        } catch (EditError e) {
            return e;
        }
        throw new AssertionError("no EditError");
    }
}
