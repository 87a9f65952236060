package io.vrouter.netconf.protocol;

import static io.vrouter.netconf.protocol.NetconfSessionTest.configTable;
import static io.vrouter.netconf.protocol.NetconfSessionTest.edit;
import static io.vrouter.netconf.protocol.NetconfSessionTest.entry;
import static org.assertj.core.api.Assertions.assertThat;

import io.vrouter.yang.datastore.ConfirmedCommit;
import io.vrouter.core.driver.sim.LatencyProfile;
import io.vrouter.core.model.OperState;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VrEvent;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code :confirmed-commit:1.1} (RFC 6241 section 8.4) on the protocol engine with a real service:
 * what an unconfirmed commit did is put back through the service, whole, on the timeout, on
 * cancel-commit, when its session ends, and when the server starts again.
 */
class ConfirmedCommitTest extends ServerFixture {
    static final String NOTIF = "urn:ietf:params:xml:ns:netconf:notification:1.0";

    /**
     * Three VRs (1 to change: shut down, 256 MiB; 3 to remove) and a candidate that creates VR 2,
     * resizes and renames VR 1 and removes VR 3.
     */
    TestClient threeChangesOnTheCandidate() throws Exception {
        TestClient c = client();
        c.rpc(edit("running", configTable(entry(1, "kept", "<vmAdminState>shutdown</vmAdminState><vmConfigMemory>256</vmConfigMemory>")
                + entry(3, "removed", "")), ""));
        awaitState(1, OperState.SHUTDOWN);
        awaitState(3, OperState.RUNNING);
        c.rpc(edit("candidate", configTable(entry(2, "created", "")
                + "<vmConfigEntry><vmIndex>1</vmIndex><vmName>kept-big</vmName><vmConfigMemory>1024</vmConfigMemory></vmConfigEntry>"
                + "<vmConfigEntry nc:operation='delete'><vmIndex>3</vmIndex></vmConfigEntry>"), ""));
        return c;
    }

    void assertPutBack() throws InterruptedException {
        awaitState(2, null);
        awaitState(3, OperState.RUNNING);
        VmConfigEntry one = service.getConfig(1).orElseThrow();
        assertThat(one.vmName).isEqualTo("kept");
        assertThat(one.vmConfigMemory).isEqualTo(256);
        assertThat(service.getConfig(3).orElseThrow().vmName).isEqualTo("removed");
        assertThat(service.indices()).containsExactly(1, 3);
    }

    @Test
    void anUnconfirmedCommitIsPutBackThroughTheServiceWhenTheTimeoutRunsOut() throws Exception {
        TestClient watcher = client();
        watcher.rpc("<create-subscription xmlns='" + NOTIF + "'><filter type='subtree'><netconf-confirmed-commit"
                + " xmlns='urn:ietf:params:xml:ns:yang:ietf-netconf-notifications'/></filter></create-subscription>");
        TestClient c = threeChangesOnTheCandidate();
        // What the commit did is looked at before the timeout puts it back: 3 s, not 1, since a loaded
        // machine can take a second over the looks (VR 3 gone, the file written).
        assertThat(c.rpc("<commit><confirmed/><confirm-timeout>3</confirm-timeout></commit>")).contains("<ok/>");
        assertThat(service.getConfig(1).orElseThrow().vmConfigMemory).isEqualTo(1024);
        assertThat(service.getConfig(2)).isPresent();
        awaitState(3, null);
        assertThat(Files.exists(dir.resolve(ConfirmedCommit.FILE))).isTrue();
        assertThat(watcher.next()).contains("<confirm-event>start</confirm-event>", "<timeout>3</timeout>",
                "<session-id>" + c.session.id() + "</session-id>");
        assertThat(watcher.next()).contains("<confirm-event>timeout</confirm-event>").doesNotContain("session-id", "username");
        assertPutBack();
        assertThat(Files.exists(dir.resolve(ConfirmedCommit.FILE))).isFalse();
    }

    @Test
    void aConfirmingCommitKeepsTheChangeAndCancelCommitPutsItBackAtOnce() throws Exception {
        TestClient c = threeChangesOnTheCandidate();
        assertThat(c.rpc("<commit><confirmed/><confirm-timeout>600</confirm-timeout></commit>")).contains("<ok/>");
        assertThat(c.rpc("<cancel-commit/>")).contains("<ok/>");
        assertPutBack();
        assertThat(c.rpc("<cancel-commit/>")).as("nothing is pending any more").contains("<error-tag>operation-failed</error-tag>");

        c.rpc(edit("candidate", configTable(entry(2, "created", "")), ""));
        assertThat(c.rpc("<commit><confirmed/></commit>")).contains("<ok/>");
        assertThat(ctx.confirmedCommit().pending()).isTrue();
        assertThat(c.rpc("<commit/>")).contains("<ok/>");
        assertThat(ctx.confirmedCommit().pending()).isFalse();
        assertThat(Files.exists(dir.resolve(ConfirmedCommit.FILE))).isFalse();
        awaitState(2, OperState.RUNNING);
    }

    @Test
    void withoutPersistOnlyItsSessionConfirmsAndItsEndPutsTheChangeBack() throws Exception {
        TestClient c = threeChangesOnTheCandidate();
        TestClient other = client();
        assertThat(c.rpc("<commit><confirmed/></commit>")).contains("<ok/>");
        assertThat(other.rpc("<commit/>")).contains("<error-tag>in-use</error-tag>", "<session-id>" + c.session.id() + "</session-id>");
        assertThat(other.rpc("<cancel-commit/>")).contains("<error-tag>in-use</error-tag>");
        assertThat(other.rpc("<commit><persist-id>x</persist-id></commit>")).contains("<error-tag>invalid-value</error-tag>");
        assertThat(ctx.confirmedCommit().pending()).isTrue();
        c.rpc("<close-session/>");
        assertPutBack();
    }

    @Test
    void withPersistAnySessionConfirmsWithItsPersistIdAndTheChangeOutlivesTheSession() throws Exception {
        TestClient c = threeChangesOnTheCandidate();
        assertThat(c.rpc("<commit><confirmed/><persist>op-42</persist></commit>")).contains("<ok/>");
        c.rpc("<close-session/>");
        TestClient other = client();
        assertThat(other.rpc("<commit/>")).contains("<error-tag>missing-element</error-tag>", "<bad-element>persist-id</bad-element>");
        assertThat(other.rpc("<commit><persist-id>op-41</persist-id></commit>")).contains("<error-tag>invalid-value</error-tag>");
        assertThat(ctx.confirmedCommit().pending()).isTrue();
        assertThat(service.getConfig(2)).isPresent();
        // A follow-up confirmed commit extends it; the persist-id confirms it.
        assertThat(other.rpc("<commit><confirmed/><confirm-timeout>300</confirm-timeout><persist-id>op-42</persist-id></commit>"))
                .contains("<ok/>");
        assertThat(other.rpc("<commit><persist-id>op-42</persist-id></commit>")).contains("<ok/>");
        assertThat(ctx.confirmedCommit().pending()).isFalse();
        assertThat(service.getConfig(1).orElseThrow().vmName).isEqualTo("kept-big");
    }

    @Test
    void aServerThatStopsWithACommitUnconfirmedPutsItBackWhenItStartsAgain() throws Exception {
        TestClient c = threeChangesOnTheCandidate();
        assertThat(c.rpc("<commit><confirmed/><persist>across</persist></commit>")).contains("<ok/>");
        awaitState(3, null);
        stopServer();
        startServer(LatencyProfile.NONE);
        assertPutBack();
        assertThat(ctx.confirmedCommit().pending()).isFalse();
        assertThat(Files.exists(dir.resolve(ConfirmedCommit.FILE))).isFalse();
    }

    @Test
    void aRemovalStillUnderWayWhenTheTimeoutRunsOutIsUndoneOnceItIsDone() throws Exception {
        stopServer();
        Duration slow = Duration.ofMillis(1500);
        startServer(new LatencyProfile(Duration.ZERO, Duration.ZERO, slow, slow, Duration.ZERO));
        TestClient c = client();
        c.rpc(edit("running", configTable(entry(3, "slowly-removed", "")), ""));
        awaitState(3, OperState.RUNNING);
        c.rpc(edit("candidate", configTable("<vmConfigEntry nc:operation='delete'><vmIndex>3</vmIndex></vmConfigEntry>"), ""));
        List<VrEvent.Type> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        service.events().subscribe(e -> {
            if (e.vmIndex == 3 && e.type != VrEvent.Type.STATE_CHANGED) seen.add(e.type);
        });
        assertThat(c.rpc("<commit><confirmed/><confirm-timeout>1</confirm-timeout></commit>")).contains("<ok/>");
        // At the timeout VR 3 is still shutting down (3 s): it is created again once it is gone.
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        while (System.nanoTime() < deadline && !seen.contains(VrEvent.Type.CREATED)) Thread.sleep(10);
        assertThat(seen).containsExactly(VrEvent.Type.DELETED, VrEvent.Type.CREATED);
        awaitState(3, OperState.RUNNING);
        assertThat(service.getConfig(3).orElseThrow().vmName).isEqualTo("slowly-removed");
    }

    @Test
    void badParametersAreRefusedAndChangeNothing() throws Exception {
        TestClient c = threeChangesOnTheCandidate();
        assertThat(c.rpc("<commit><confirmed/><confirm-timeout>0</confirm-timeout></commit>")).contains("<error-tag>invalid-value</error-tag>");
        assertThat(c.rpc("<commit><confirmed/><confirm-timeout>soon</confirm-timeout></commit>")).contains("<error-tag>invalid-value</error-tag>");
        assertThat(c.rpc("<commit><persist-id>none</persist-id></commit>")).contains("<error-tag>invalid-value</error-tag>");
        assertThat(service.getConfig(2)).isEmpty();
        assertThat(ctx.confirmedCommit().pending()).isFalse();
        assertThat(c.serverHello).contains("urn:ietf:params:netconf:capability:confirmed-commit:1.1");
    }
}
