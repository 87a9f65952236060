package io.vrouter.yang.datastore;

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
import io.vrouter.yang.DataGuard;
import io.vrouter.yang.WithDefaults;
import io.vrouter.yang.datastore.Datastore.Name;
import io.vrouter.yang.edit.ConfigData;
import io.vrouter.yang.edit.EditError;
import io.vrouter.yang.edit.EditError.Kind;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A scope's datastores on a real service (simulated driver): locks, the candidate, check. */
class DatastoreTest {
    @TempDir
    Path dir;
    VirtualRouterService service;
    Datastore ds;

    @BeforeEach
    void start() throws Exception {
        service = new VirtualRouterService(new SimulatedDriver(LatencyProfile.NONE), new ConfigStore(dir), VrMetrics.inMemory());
        service.start();
        SingleVr.create(service, vr(1, "one", 256));
        ds = new Datastores(service, DataGuard.NONE).of(null);
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

    static VmConfigEntry vr(int vmIndex, String name, int memory) {
        VmConfigEntry c = named(vmIndex, name);
        c.vmConfigMemory = memory;
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
        assertThat(Datastore.check(service, cb[1], cb[0], false)).isEmpty();
        // the service completed the row with its defaults, those with-defaults reports
        assertThat(String.valueOf(cb[0].get(2).vmConfigMemory)).isEqualTo(WithDefaults.CONFIG_DEFAULTS.get("vmConfigMemory"));
        ds.storeCandidate(cb[0], cb[1]);
        assertThat(ds.candidateModified()).isTrue();
        assertThat(ds.read(Name.CANDIDATE).get(2).vmName).isEqualTo("two");
        assertThat(ds.read(Name.RUNNING).get(2)).isNull();
        assertThat(service.getConfig(2)).isEmpty();
        // a candidate with changes cannot be locked
        assertThat(catchEdit(() -> ds.lock(Name.CANDIDATE, session(3))).kind()).isEqualTo(Kind.LOCK_DENIED);
        ds.discardCandidate(3);
        ds.lock(Name.CANDIDATE, session(3));
        assertThat(catchEdit(() -> ds.discardCandidate(4)).kind()).isEqualTo(Kind.IN_USE);
        ds.storeCandidate(cb[0], cb[1]);
        ds.release(3);
        assertThat(ds.candidateModified()).isFalse();
        assertThat(ds.lockHolder(Name.CANDIDATE)).isZero();
    }

    @Test
    void checkChangesNothing() {
        ConfigData base = ConfigData.of(service);
        ConfigData edited = base.copy();
        edited.remove(1);
        assertThat(Datastore.check(service, base, edited, false)).isEmpty();
        assertThat(service.indices()).containsExactly(1);
    }

    static EditError catchEdit(Runnable r) {
        try {
            r.run();
        } catch (EditError e) {
            return e;
        }
        throw new AssertionError("no EditError");
    }
}
