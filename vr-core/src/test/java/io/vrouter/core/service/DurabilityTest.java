package io.vrouter.core.service;

import static io.vrouter.core.service.ServiceFixture.vr;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vrouter.core.driver.PowerState;
import io.vrouter.core.driver.sim.LatencyProfile;
import io.vrouter.core.driver.sim.SimulatedDriver;
import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.OperState;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.persistence.ConfigStore;
import io.vrouter.core.spi.ChangeSet;
import io.vrouter.core.spi.RouterQuery;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What survives a restart, and how the service reconciles what it kept with what the host has. */
class DurabilityTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    @TempDir
    Path dir;

    private static void awaitState(VirtualRouterService s, int vmIndex, OperState state) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            if (s.get(vmIndex).map(v -> v.operState() == state).orElse(false)) return;
            Thread.sleep(5);
        }
        throw new AssertionError("VR " + vmIndex + " is " + s.get(vmIndex).map(v -> v.operState()).orElse(null)
                + ", not " + state);
    }

    @Test
    void acceptedVrsSurviveARestartAndAreAdopted() throws Exception {
        int a;
        int b;
        try (ServiceFixture f = new ServiceFixture(dir)) {
            a = SingleVr.create(f.service, vr("keep-a")).await(WAIT).orElseThrow().orElseThrow().vmIndex;
            b = SingleVr.create(f.service, vr("keep-b", AdminState.SHUTDOWN)).await(WAIT).orElseThrow().orElseThrow().vmIndex;
            VmConfigEntry withIface = vr("keep-c");
            SingleVr.create(f.service, withIface).await(WAIT);
        }
        try (ServiceFixture f = new ServiceFixture(dir)) {
            assertThat(f.report.adopted()).isEqualTo(3);
            assertThat(f.report.reprovisioned()).isZero();
            assertThat(f.service.get(a).orElseThrow().operState()).isEqualTo(OperState.RUNNING);
            assertThat(f.service.get(b).orElseThrow().operState()).isEqualTo(OperState.SHUTDOWN);
            assertThat(f.service.findByName("keep-c")).isPresent();
            // New VRs get new indices.
            assertThat(SingleVr.create(f.service, vr("new")).accepted().vmIndex).isEqualTo(4);
        }
    }

    @Test
    void vrsMissingOnTheHostAreProvisionedAgain() throws Exception {
        int a;
        try (ServiceFixture f = new ServiceFixture(dir)) {
            a = SingleVr.create(f.service, vr("lost")).await(WAIT).orElseThrow().orElseThrow().vmIndex;
        }
        Files.delete(dir.resolve("sim-host.journal"));
        try (ServiceFixture f = new ServiceFixture(dir)) {
            assertThat(f.report.reprovisioned()).isEqualTo(1);
            awaitState(f.service, a, OperState.RUNNING);
            assertThat(f.driver.inspect(a)).isPresent();
        }
    }

    @Test
    void aVmNotInItsAdminStateIsDrivenThere() throws Exception {
        int a;
        try (ServiceFixture f = new ServiceFixture(dir)) {
            a = SingleVr.create(f.service, vr("drift")).await(WAIT).orElseThrow().orElseThrow().vmIndex;
            f.driver.setPowerBehindTheBack(a, PowerState.HALTED);
        }
        try (ServiceFixture f = new ServiceFixture(dir)) {
            assertThat(f.report.adopted()).isEqualTo(1);
            awaitState(f.service, a, OperState.RUNNING);
        }
    }

    @Test
    void unfinishedRemovalsAreResumed() throws Exception {
        VmConfigEntry config;
        try (ServiceFixture f = new ServiceFixture(dir)) {
            int a = SingleVr.create(f.service, vr("half")).await(WAIT).orElseThrow().orElseThrow().vmIndex;
            config = f.service.getConfig(a).orElseThrow();
        }
        // What a crash right after acknowledging a removal leaves: the row, marked as being removed.
        restartFinishesTheRemovalOf(config,
                f -> assertThat(f.driver.inspect(config.vmIndex)).isEmpty(),
                f -> assertThat(f.service.findByName("half")).isEmpty());
    }

    @Test
    void aRemovalWhoseLastRecordALostFlushDroppedIsFinishedOnAHostWithoutTheVm() throws Exception {
        VmConfigEntry config;
        try (ServiceFixture f = new ServiceFixture(dir)) {
            int a = SingleVr.create(f.service, vr("gone")).await(WAIT).orElseThrow().orElseThrow().vmIndex;
            config = f.service.getConfig(a).orElseThrow();
            f.service.apply(ChangeSet.builder().remove(a).build()).completion().get(10, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(f.driver.inspect(a)).isEmpty();
        }
        // The record that forgets a destroyed VR is not flushed: a crash may lose it, leaving the row
        // as its accepted removal made it, durable: marked as being removed; the VM is gone already.
        restartFinishesTheRemovalOf(config,
                f -> assertThat(f.events).noneMatch(e -> e.type == io.vrouter.core.model.VrEvent.Type.STATE_CHANGED
                        && e.vmOperState == io.vrouter.core.model.OperState.CRASHED),
                f -> {
                    assertThat(f.service.findByName("gone")).isEmpty();
                    assertThat(f.report.removalsResumed()).isZero();
                });
    }

    /**
     * Leaves the row in the journal marked as being removed, as a crash would, and restarts: the
     * removal is resumed and finished ({@code finished} checks more), and a restart after that
     * ({@code after}) finds it done.
     */
    private void restartFinishesTheRemovalOf(VmConfigEntry config, java.util.function.Consumer<ServiceFixture> finished,
                                             java.util.function.Consumer<ServiceFixture> after) throws Exception {
        try (ConfigStore store = new ConfigStore(dir)) {
            store.open();
            store.put(config, true);
        }
        try (ServiceFixture f = new ServiceFixture(dir)) {
            assertThat(f.report.removalsResumed()).isEqualTo(1);
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (f.service.get(config.vmIndex).isPresent() && System.nanoTime() < deadline) Thread.sleep(5);
            assertThat(f.service.get(config.vmIndex)).isEmpty();
            finished.accept(f);
        }
        try (ServiceFixture f = new ServiceFixture(dir)) {
            after.accept(f);
        }
    }

    @Test
    void hostVmsWithoutConfigurationAreReportedAndLeftAlone() throws Exception {
        SimulatedDriver host = new SimulatedDriver(LatencyProfile.NONE, dir.resolve("sim-host.journal"));
        VmConfigEntry stray = vr("stray");
        stray.vmIndex = 42;
        stray.vmConfigTemplate = "vyos";
        stray.vmConfigCpuNumber = 1;
        stray.vmConfigMemory = 256;
        host.provision(stray);
        host.close();
        try (ServiceFixture f = new ServiceFixture(dir)) {
            assertThat(f.report.unresolved()).extracting(vm -> vm.vmName()).containsExactly("stray");
            assertThat(f.service.get(42)).isEmpty();
            assertThat(f.driver.inspect(42)).isPresent();
        }
    }

    @Test
    void aTornJournalLineIsDroppedAndTheRestKept() throws Exception {
        try (ServiceFixture f = new ServiceFixture(dir)) {
            SingleVr.create(f.service, vr("whole")).await(WAIT);
        }
        // A crash in the middle of an append leaves half a line; that request was never acknowledged.
        Files.writeString(dir.resolve("config.journal"), "{\"put\":{\"config\":{\"vmIndex\":9,\"vmNa",
                StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        try (ServiceFixture f = new ServiceFixture(dir)) {
            assertThat(f.service.findByName("whole")).isPresent();
            assertThat(f.service.get(9)).isEmpty();
        }
    }

    /**
     * The case: 20 VRs, bytes garbled inside line 10 of the journal. The start-up stops and
     * keeps the files as they are; a recovery keeps the 19 intact VRs and the lost one's VM shows as
     * unresolved on the host, never deleted.
     */
    @Test
    void aDamagedJournalStopsTheStartUpUntilARecoveryIsAskedFor() throws Exception {
        try (ServiceFixture f = new ServiceFixture(dir)) {
            for (int k = 1; k <= 20; k++) SingleVr.create(f.service, vr("j" + k)).await(WAIT);
        }
        Path journal = dir.resolve("config.journal");
        List<String> lines = Files.readAllLines(journal);
        int tenth = lines.stream().filter(l -> l.contains("\"j10\"")).findFirst().map(lines::indexOf).orElseThrow();
        lines.set(tenth, lines.get(tenth).replace("\"j10\"", "\"j1\u0000"));
        Files.write(journal, lines);
        byte[] damaged = Files.readAllBytes(journal);
        assertThatThrownBy(() -> new ServiceFixture(dir)).hasMessageContaining(journal + " line " + (tenth + 1) + " ");
        assertThat(Files.readAllBytes(journal)).isEqualTo(damaged);
        try (ServiceFixture f = new ServiceFixture(dir, true)) {
            assertThat(f.service.list(RouterQuery.all()).total).isEqualTo(19);
            assertThat(f.service.findByName("j11")).isPresent();
            assertThat(f.report.unresolved()).extracting(vm -> vm.vmName()).containsExactly("j10");
        }
        try (ServiceFixture f = new ServiceFixture(dir)) {
            assertThat(f.service.list(RouterQuery.all()).total).isEqualTo(19);
        }
    }

    @Test
    void manyChangesCompactTheJournal() throws Exception {
        try (ServiceFixture f = new ServiceFixture(dir)) {
            for (int k = 0; k < 700; k++) {
                int i = SingleVr.create(f.service, vr("c" + k)).accepted().vmIndex;
                if (k % 2 == 0) SingleVr.remove(f.service, i).await(WAIT);
            }
        }
        assertThat(Files.size(dir.resolve("config.journal"))).isLessThan(Files.size(dir.resolve("config.snapshot.json")) * 4);
        try (ServiceFixture f = new ServiceFixture(dir)) {
            assertThat(f.service.list(RouterQuery.all()).total).isEqualTo(350);
            assertThat(f.service.findByName("c1")).isPresent();
            assertThat(f.service.findByName("c0")).isEmpty();
        }
    }
}
