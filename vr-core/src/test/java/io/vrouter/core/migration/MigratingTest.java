package io.vrouter.core.migration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vrouter.core.config.Caller;
import io.vrouter.core.config.Credentials.Role;
import io.vrouter.core.driver.sim.LatencyProfile;
import io.vrouter.core.driver.sim.SimulatedDriver;
import io.vrouter.core.metrics.VrMetrics;
import io.vrouter.core.model.OperState;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.persistence.ConfigStore;
import io.vrouter.core.service.VirtualRouterService;
import io.vrouter.core.spi.Applied;
import io.vrouter.core.spi.ChangeFailedException;
import io.vrouter.core.spi.ChangeSet;
import io.vrouter.core.spi.VirtualRouters;
import io.vrouter.core.spi.VrException;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The core's hold on a VR while it moves (ADR 0023, decision 5): migrating, its changes and a second
 * move refused as IN_USE, and let go either way: removed when it moved, as the host has it when not,
 * and said plainly when its removal here is refused after the peer has it.
 */
class MigratingTest {
    private static final Caller PROVIDER = new Caller("inp", null, Role.OPERATOR, "test", "192.0.2.1");

    @TempDir
    Path dir;
    private VirtualRouterService service;
    private VirtualRouters view;
    private int vm;

    @BeforeEach
    void oneVr() throws Exception {
        service = new VirtualRouterService(new SimulatedDriver(LatencyProfile.NONE), new ConfigStore(dir), VrMetrics.inMemory());
        service.start();
        view = service.as(PROVIDER);
        VmConfigEntry row = new VmConfigEntry();
        row.vmName = "mover";
        Applied made = view.apply(ChangeSet.builder().create(row).build());
        made.completion().join();
        vm = made.only().accepted().vmIndex;
    }

    @AfterEach
    void stop() {
        service.close();
    }

    private OperState state() {
        return view.get(vm).orElseThrow().vmEntry.vmOperState;
    }

    @Test
    void whileMigratingItsChangesAndASecondMoveAreInUseUntilTheMoveFails() {
        view.beginMigration(vm, "b");
        assertThat(state()).isEqualTo(OperState.MIGRATING);
        assertThatThrownBy(() -> view.beginMigration(vm, "c")).isInstanceOfSatisfying(VrException.class,
                e -> assertThat(e.reason()).isEqualTo(VrException.Reason.IN_USE));
        assertThatThrownBy(() -> view.apply(ChangeSet.builder().edit(vm, r -> r.vmConfigDescription = "lost").build()))
                .isInstanceOfSatisfying(VrException.class, e -> {
                    assertThat(e.reason()).isEqualTo(VrException.Reason.IN_USE);
                    assertThat(e.getMessage()).contains("is migrating to peer b");
                });
        assertThatThrownBy(() -> view.apply(ChangeSet.builder().remove(vm).build())).isInstanceOfSatisfying(VrException.class,
                e -> assertThat(e.reason()).isEqualTo(VrException.Reason.IN_USE));
        view.endMigration(vm, false);
        assertThat(state()).isEqualTo(OperState.RUNNING);
        view.apply(ChangeSet.builder().edit(vm, r -> r.vmConfigDescription = "still here").build()).completion().join();
        assertThat(view.getConfig(vm).orElseThrow().vmConfigDescription).isEqualTo("still here");
    }

    @Test
    void aMoveDoneRemovesItHereUnlessRunningIsLockedThenItSaysSo() {
        Caller netconf = new Caller("bob", null, Role.OPERATOR, "netconf", null, 7);
        service.lockRunning(netconf);
        view.beginMigration(vm, "b");
        assertThatThrownBy(() -> view.endMigration(vm, true)).isInstanceOf(ChangeFailedException.class)
                .hasMessageContaining("now runs on peer b too");
        assertThat(state()).as("let go, as its host has it").isEqualTo(OperState.RUNNING);
        service.unlockRunning(netconf);
        view.beginMigration(vm, "b");
        view.endMigration(vm, true).completion().join();
        assertThat(view.get(vm)).isEmpty();
    }
}
