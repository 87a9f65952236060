package io.vrouter.core.service;

import static io.vrouter.core.service.ServiceFixture.vr;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.OperState;
import io.vrouter.core.model.VirtualRouter;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import io.vrouter.core.spi.ChangeSet;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reconciliation at start-up as a run of the executor: the change from the VM as the host has it to
 * the row the journal has, ordered with the sets that follow it like any set, and a failure that
 * crashes the VR with the step and the reason instead of undoing what was done.
 */
class ReconciliationTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    @TempDir
    Path dir;
    /** The server before the crash: its held host call never returns, so it is not closed. */
    private ServiceFixture crashed;
    private ServiceFixture f;

    @AfterEach
    void close() {
        if (f != null) f.close();
    }

    private static VmNetworkConfigEntry iface(int index, String parent) {
        VmNetworkConfigEntry n = new VmNetworkConfigEntry();
        n.vmNetworkConfigIndex = index;
        n.vmNetworkConfigParent = parent;
        return n;
    }

    /**
     * A VR renamed from {@code from} to {@code to} (and given a second interface, and shut down),
     * the server crashing in the host's rename: the journal has the new row, the host the old VM.
     */
    private int cutShortRename(String from, String to) throws Exception {
        crashed = new ServiceFixture(dir);
        VmConfigEntry row = vr(from);
        row.vmNetworkConfigTable = List.of(iface(1, "br0"));
        int a = SingleVr.create(crashed.service, row).await(WAIT).orElseThrow().orElseThrow().vmIndex;
        crashed.recorder.hold("reconfigure", 1);
        crashed.service.apply(ChangeSet.builder().edit(a, r -> {
            r.vmName = to;
            r.vmAdminState = AdminState.SHUTDOWN;
            r.vmNetworkConfigTable = List.of(iface(1, "br0"), iface(2, "br9"));
        }).build());
        assertThat(crashed.recorder.held.await(10, TimeUnit.SECONDS)).isTrue();
        return a;
    }

    private static void awaitUntil(BooleanSupplier condition) throws InterruptedException {
        long end = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) throw new AssertionError("not reached in " + WAIT);
            Thread.sleep(10);
        }
    }

    @Test
    void aStepThatFailsCrashesItsVrWithTheStepAndWhyAndUndoesNothing() throws Exception {
        int a = cutShortRename("a", "a2");
        f = new ServiceFixture(dir, host -> host.failOnce("addInterface", a, "injected: no br9 on this host"));
        awaitUntil(() -> f.service.get(a).orElseThrow().operState() == OperState.CRASHED);
        VirtualRouter vr = f.service.get(a).orElseThrow();
        assertThat(vr.vmEntry.vmOperStateReason)
                .isEqualTo("reconciliation failed: addInterface failed: TEST_FAILURE: injected: no br9 on this host");
        // The rename before it stays (no undo: the journal is what was asked for), and nothing runs after it.
        assertThat(f.driver.inspect(a).orElseThrow().vmName()).isEqualTo("a2");
        assertThat(f.recorder.callsOf(a)).containsExactly("reconfigure " + a + " a2", "addInterface " + a + " 2");
        assertThat(f.service.getConfig(a).orElseThrow().vmName).isEqualTo("a2");
    }

    @Test
    void aVrThatReconciliationCrashedStaysCrashedWhenTheStartUpLooksAtTheHostOnceMore() throws Exception {
        int a = cutShortRename("a", "a2");
        // The start-up's last look at the host comes late (a loaded machine), after the run has had
        // every chance to crash the VR: it must not take the VR back to the host's power state.
        AtomicBoolean late = new AtomicBoolean();
        f = new ServiceFixture(dir, (host, events) -> {
            host.failOnce("addInterface", a, "injected: no br9 on this host");
            host.beforeInspect = () -> {
                if (!Thread.currentThread().getName().equals("main") || late.getAndSet(true)) return;
                // Be later than the crash, if a run could make it now: its event, not a moment after its failed call.
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
                while (events.stream().noneMatch(e -> e.vmIndex == a && e.vmOperState == OperState.CRASHED)
                        && System.nanoTime() < end) {
                    Thread.onSpinWait();
                }
            };
        });
        // the fixture is made once start() has returned, its last look at the host done
        awaitUntil(() -> f.service.get(a).orElseThrow().operState() == OperState.CRASHED);
        assertThat(f.service.get(a).orElseThrow().vmEntry.vmOperStateReason).startsWith("reconciliation failed");
    }

    @Test
    void theSameFailureInASetUndoesItAndLeavesTheVrAsItWas() throws Exception {
        f = new ServiceFixture(dir);
        VmConfigEntry row = vr("a", AdminState.SHUTDOWN);
        row.vmNetworkConfigTable = List.of(iface(1, "br0"));
        int a = SingleVr.create(f.service, row).await(WAIT).orElseThrow().orElseThrow().vmIndex;
        f.recorder.failOnce("addInterface", a, "injected: no br9 on this host");
        var applied = f.service.apply(ChangeSet.builder().edit(a, r -> {
            r.vmName = "a2";
            r.vmNetworkConfigTable = List.of(iface(1, "br0"), iface(2, "br9"));
        }).build());
        assertThatThrownBy(() -> applied.completion().get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause().hasMessageContaining("addInterface failed").hasMessageContaining("the change was undone");
        assertThat(f.driver.inspect(a).orElseThrow().vmName()).isEqualTo("a");
        assertThat(f.service.get(a).orElseThrow().operState()).isEqualTo(OperState.SHUTDOWN);
        assertThat(f.service.getConfig(a).orElseThrow().vmName).isEqualTo("a");
    }

    @Test
    void aNameAVrGivesUpAtStartUpIsTakenOnlyOnceItHasGivenItUp() throws Exception {
        int a = cutShortRename("old", "new");
        // The restarted server's rename of the VM waits for a moment; a set takes the name meanwhile.
        f = new ServiceFixture(dir, host -> host.hold("reconfigure", 1));
        assertThat(f.recorder.held.await(10, TimeUnit.SECONDS)).isTrue();
        var created = SingleVr.create(f.service, vr("old"));
        // While VM a still has the name, VR b's VM is not made (made, it would fail: VM_NAME_TAKEN).
        assertThatThrownBy(() -> created.completion().get(2, TimeUnit.SECONDS)).isInstanceOf(TimeoutException.class);
        assertThat(f.recorder.callsOf(a + 1)).isEmpty();
        f.recorder.release.countDown();
        int b = created.await(WAIT).orElseThrow().orElseThrow().vmIndex;
        awaitUntil(() -> f.service.get(a).orElseThrow().operState() == OperState.SHUTDOWN);
        assertThat(f.driver.inspect(a).orElseThrow().vmName()).isEqualTo("new");
        assertThat(f.driver.inspect(b).orElseThrow().vmName()).isEqualTo("old");
        assertThat(f.service.get(b).orElseThrow().operState()).isEqualTo(OperState.RUNNING);
    }
}
