package io.vrouter.netconf.protocol;

import static io.vrouter.netconf.protocol.NetconfSessionTest.configTable;
import static io.vrouter.netconf.protocol.NetconfSessionTest.edit;
import static io.vrouter.netconf.protocol.NetconfSessionTest.entry;
import static org.assertj.core.api.Assertions.assertThat;

import io.vrouter.core.driver.sim.LatencyProfile;
import io.vrouter.core.driver.sim.SimulatedDriver;
import io.vrouter.core.metrics.VrMetrics;
import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VrEvent;
import io.vrouter.core.persistence.ConfigStore;
import io.vrouter.core.service.EventFence;
import io.vrouter.core.service.SingleVr;
import io.vrouter.core.service.VirtualRouterService;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * edit-config of vmName, vmConfigCpuNumber, vmConfigMemory, vmConfigAutoStart and
 * vmConfigTemplate of existing VRs: the service's reconfigure, its order with admin state changes,
 * its errors, and its rollback.
 */
class ReconfigureTest {
    @TempDir
    Path dir;
    VirtualRouterService service;
    NetconfServerContext ctx;
    TestClient c;
    final List<VrEvent> events = Collections.synchronizedList(new ArrayList<>());
    AutoCloseable subscription;

    @BeforeEach
    void start() throws Exception {
        service = new VirtualRouterService(new SimulatedDriver(LatencyProfile.NONE), new ConfigStore(dir), VrMetrics.inMemory());
        service.start();
        ctx = new NetconfServerContext(service, VrMetrics.inMemory(), 1 << 20);
        c = new TestClient(ctx, "admin", false, true);
        // Two VRs: 1 shut down, 2 running.
        assertThat(c.rpc(edit("running", configTable(entry(1, "a", "<vmAdminState>shutdown</vmAdminState><vmConfigMemory>256</vmConfigMemory>")
                + entry(2, "b", "")), ""))).contains("<ok/>");
        subscription = service.events().subscribe(events::add);
    }

    @AfterEach
    void stop() throws Exception {
        subscription.close();
        c.close();
        service.close();
    }

    VmConfigEntry config(int vmIndex) {
        return service.getConfig(vmIndex).orElseThrow();
    }

    static String leaves(int vmIndex, String leaves) {
        return configTable("<vmConfigEntry><vmIndex>" + vmIndex + "</vmIndex>" + leaves + "</vmConfigEntry>");
    }

    /**
     * The VR's CONFIG_CHANGED events, which the service publishes once per reconfigure after its driver
     * call, so after the reply: counted once a later change of the VR is done and told
     * ({@link EventFence}), so that every event the edit was to cause is in, however late.
     */
    long configChanged(int vmIndex) throws Exception {
        return EventFence.before(service, events, vmIndex).stream()
                .filter(e -> e.vmIndex == vmIndex && e.type == VrEvent.Type.CONFIG_CHANGED).count();
    }

    @Test
    void mergeOnRunningChangesEveryColumnInOneReconfigure() throws Exception {
        String reply = c.rpc(edit("running", leaves(1, "<vmName>a2</vmName><vmConfigCpuNumber>4</vmConfigCpuNumber>"
                + "<vmConfigMemory>1024</vmConfigMemory><vmConfigAutoStart>true</vmConfigAutoStart>"), ""));
        assertThat(reply).contains("<ok/>");
        VmConfigEntry e = config(1);
        assertThat(e.vmName).isEqualTo("a2");
        assertThat(e.vmConfigCpuNumber).isEqualTo(4);
        assertThat(e.vmConfigMemory).isEqualTo(1024);
        assertThat(e.vmConfigAutoStart).isTrue();
        assertThat(e.vmAdminState).isEqualTo(AdminState.SHUTDOWN);
        assertThat(service.findByName("a")).isEmpty();
        assertThat(configChanged(1)).isEqualTo(1);
        // A rename and auto-start need no stop.
        assertThat(c.rpc(edit("running", leaves(2, "<vmName>b2</vmName><vmConfigAutoStart>true</vmConfigAutoStart>"), "")))
                .contains("<ok/>");
        assertThat(config(2).vmName).isEqualTo("b2");
        assertThat(config(2).vmConfigAutoStart).isTrue();
        assertThat(config(2).vmAdminState).isEqualTo(AdminState.RUNNING);
        // Unchanged values ask nothing of the service (once the rename's event is in, so it is not counted).
        assertThat(configChanged(2)).isEqualTo(1);
        events.clear();
        assertThat(c.rpc(edit("running", leaves(2, "<vmName>b2</vmName><vmConfigMemory>512</vmConfigMemory>"), ""))).contains("<ok/>");
        assertThat(configChanged(2)).isZero();
    }

    @Test
    void replaceOfAnEntryResetsTheAbsentColumnsToTheirDefaults() throws Exception {
        c.rpc(edit("running", leaves(1, "<vmConfigAutoStart>true</vmConfigAutoStart><vmConfigCpuNumber>2</vmConfigCpuNumber>"), ""));
        String reply = c.rpc(edit("running", configTable("<vmConfigEntry xmlns:nc='urn:ietf:params:xml:ns:netconf:base:1.0'"
                + " nc:operation='replace'><vmIndex>1</vmIndex><vmName>a</vmName><vmAdminState>shutdown</vmAdminState>"
                + "<vmConfigMemory>2048</vmConfigMemory></vmConfigEntry>"), ""));
        assertThat(reply).contains("<ok/>");
        VmConfigEntry e = config(1);
        assertThat(e.vmConfigMemory).isEqualTo(2048);
        assertThat(e.vmConfigCpuNumber).isEqualTo(1);
        assertThat(e.vmConfigAutoStart).isFalse();
        // The same through the candidate.
        assertThat(c.rpc(edit("candidate", configTable("<vmConfigEntry><vmIndex>1</vmIndex><vmName>a-r</vmName>"
                + "<vmAdminState>shutdown</vmAdminState><vmConfigCpuNumber>3</vmConfigCpuNumber></vmConfigEntry>"),
                "<default-operation>replace</default-operation>"))).contains("<ok/>");
        assertThat(c.rpc("<commit/>")).contains("<ok/>");
        e = config(1);
        assertThat(e.vmName).isEqualTo("a-r");
        assertThat(e.vmConfigCpuNumber).isEqualTo(3);
        assertThat(e.vmConfigMemory).isEqualTo(512);
    }

    @Test
    void aResizeOfAVrThatIsNotShutDownIsRefusedUnlessTheSameEditStopsIt() throws Exception {
        String refused = c.rpc(edit("running", leaves(2, "<vmName>b2</vmName><vmConfigMemory>1024</vmConfigMemory>"), ""));
        assertThat(refused).contains("<error-type>application</error-type>", "<error-tag>operation-failed</error-tag>",
                "<error-app-tag>vr-not-shut-down</error-app-tag>",
                "vmConfigEntry[new-vmm-mib:vmIndex='2']/new-vmm-mib:vmConfigMemory</error-path>", "stop it")
                .doesNotContain("<ok/>");
        String cpus = c.rpc(edit("running", leaves(2, "<vmConfigCpuNumber>2</vmConfigCpuNumber>"), ""));
        assertThat(cpus).contains("<error-tag>operation-failed</error-tag>", "new-vmm-mib:vmConfigCpuNumber</error-path>");
        // test-then-set: the rename in the refused edit was not applied either.
        assertThat(config(2).vmName).isEqualTo("b");
        assertThat(config(2).vmConfigMemory).isEqualTo(512);
        // test-only says the same and changes nothing.
        assertThat(c.rpc(edit("running", leaves(2, "<vmConfigMemory>1024</vmConfigMemory>"), "<test-option>test-only</test-option>")))
                .contains("<error-app-tag>vr-not-shut-down</error-app-tag>");

        // Stopped in the same edit: the stop goes first, then the resize.
        String stopAndResize = c.rpc(edit("running", leaves(2, "<vmConfigMemory>1024</vmConfigMemory>"
                + "<vmAdminState>shutdown</vmAdminState>"), ""));
        assertThat(stopAndResize).contains("<ok/>");
        assertThat(config(2).vmAdminState).isEqualTo(AdminState.SHUTDOWN);
        assertThat(config(2).vmConfigMemory).isEqualTo(1024);
        // Started in the same edit: the resize goes first, then the start.
        String resizeAndStart = c.rpc(edit("running", leaves(2, "<vmConfigCpuNumber>8</vmConfigCpuNumber>"
                + "<vmAdminState>running</vmAdminState>"), ""));
        assertThat(resizeAndStart).contains("<ok/>");
        assertThat(config(2).vmAdminState).isEqualTo(AdminState.RUNNING);
        assertThat(config(2).vmConfigCpuNumber).isEqualTo(8);
    }

    @Test
    void templateNameAndRangeErrorsNameTheLeaf() throws Exception {
        String template = c.rpc(edit("running", leaves(1, "<vmConfigTemplate>openwrt</vmConfigTemplate>"), ""));
        assertThat(template).contains("<error-tag>operation-not-supported</error-tag>",
                "new-vmm-mib:vmConfigTemplate</error-path>", "<bad-element>vmConfigTemplate</bad-element>");
        assertThat(c.rpc(edit("running", leaves(1, "<vmConfigTemplate>vyos</vmConfigTemplate>"), ""))).contains("<ok/>");

        String taken = c.rpc(edit("running", leaves(1, "<vmName>b</vmName>"), ""));
        assertThat(taken).contains("<error-tag>operation-failed</error-tag>", "<error-app-tag>data-not-unique</error-app-tag>",
                "new-vmm-mib:vmName</error-path>");
        String badName = c.rpc(edit("running", leaves(1, "<vmName>no spaces</vmName>"), ""));
        assertThat(badName).contains("<error-tag>invalid-value</error-tag>", "vmIndex='1']/new-vmm-mib:vmName</error-path>");
        String memory = c.rpc(edit("running", leaves(1, "<vmConfigMemory>10</vmConfigMemory>"), ""));
        assertThat(memory).contains("<error-tag>invalid-value</error-tag>", "vmIndex='1']/new-vmm-mib:vmConfigMemory</error-path>");
        String cpus = c.rpc(edit("running", leaves(1, "<vmConfigCpuNumber>65</vmConfigCpuNumber>"), ""));
        assertThat(cpus).contains("<error-tag>invalid-value</error-tag>", "vmIndex='1']/new-vmm-mib:vmConfigCpuNumber</error-path>");
        VmConfigEntry e = config(1);
        assertThat(e.vmName).isEqualTo("a");
        assertThat(e.vmConfigMemory).isEqualTo(256);
        assertThat(e.vmConfigCpuNumber).isEqualTo(1);

        // A rename to a name another VR of the same edit gives up: the service renames that one first.
        String chain = c.rpc(edit("running", leaves(1, "<vmName>b</vmName>") .replace("</vmConfigTable>", "")
                + "<vmConfigEntry><vmIndex>2</vmIndex><vmName>c</vmName></vmConfigEntry></vmConfigTable>", ""));
        assertThat(chain).contains("<ok/>");
        assertThat(config(1).vmName).isEqualTo("b");
        assertThat(config(2).vmName).isEqualTo("c");
        // And two VRs swap their names in one edit.
        String swap = c.rpc(edit("running", leaves(1, "<vmName>c</vmName>") .replace("</vmConfigTable>", "")
                + "<vmConfigEntry><vmIndex>2</vmIndex><vmName>b</vmName></vmConfigEntry></vmConfigTable>", ""));
        assertThat(swap).contains("<ok/>");
        assertThat(config(1).vmName).isEqualTo("c");
        assertThat(config(2).vmName).isEqualTo("b");
    }

    @Test
    void stopResizeAndRenameOnTheCandidateApplyAtCommit() throws Exception {
        assertThat(c.rpc(edit("candidate", leaves(2, "<vmAdminState>shutdown</vmAdminState>"), ""))).contains("<ok/>");
        assertThat(c.rpc(edit("candidate", leaves(2, "<vmConfigMemory>768</vmConfigMemory><vmName>b-big</vmName>"), ""))).contains("<ok/>");
        assertThat(config(2).vmConfigMemory).isEqualTo(512);
        assertThat(c.rpc("<commit/>")).contains("<ok/>");
        assertThat(config(2).vmAdminState).isEqualTo(AdminState.SHUTDOWN);
        assertThat(config(2).vmConfigMemory).isEqualTo(768);
        assertThat(config(2).vmName).isEqualTo("b-big");

        // Shut down in running: the resize goes before the start.
        String resizeAndStart = c.rpc(edit("candidate", leaves(2, "<vmAdminState>running</vmAdminState>")
                .replace("</vmConfigEntry>", "<vmConfigCpuNumber>2</vmConfigCpuNumber></vmConfigEntry>"), ""));
        assertThat(resizeAndStart).contains("<ok/>");
        assertThat(c.rpc("<commit/>")).contains("<ok/>");
        assertThat(config(2).vmConfigCpuNumber).isEqualTo(2);
        assertThat(config(2).vmAdminState).isEqualTo(AdminState.RUNNING);
        // On the candidate, a resize of a running VR without a stop is refused at the edit.
        String running = c.rpc(edit("candidate", leaves(2, "<vmConfigCpuNumber>3</vmConfigCpuNumber>"), ""));
        assertThat(running).contains("<error-app-tag>vr-not-shut-down</error-app-tag>");
    }

    @Test
    void aCommitThatFailsLaterPutsTheReconfiguredVrBack() throws Exception {
        c.rpc(edit("running", leaves(2, "<vmAdminState>shutdown</vmAdminState>"), ""));
        // VR 1 renamed and resized, then VR 2 resized: both shut down when the candidate is edited.
        assertThat(c.rpc(edit("candidate", leaves(1, "<vmName>a-new</vmName><vmConfigMemory>4096</vmConfigMemory>"
                + "<vmConfigAutoStart>true</vmConfigAutoStart>") .replace("</vmConfigTable>", "")
                + "<vmConfigEntry><vmIndex>2</vmIndex><vmConfigMemory>2048</vmConfigMemory></vmConfigEntry></vmConfigTable>", "")))
                .contains("<ok/>");
        // Started over another interface meanwhile: VR 2's resize fails when the commit gets to it.
        SingleVr.setAdminState(service, 2, AdminState.RUNNING);
        String reply = c.rpc("<commit/>");
        assertThat(reply).contains("<error-tag>operation-failed</error-tag>", "<error-app-tag>vr-not-shut-down</error-app-tag>",
                "vmIndex='2']/new-vmm-mib:vmConfigMemory</error-path>", "stop it").doesNotContain("<ok/>");
        VmConfigEntry e = config(1);
        assertThat(e.vmName).isEqualTo("a");
        assertThat(e.vmConfigMemory).isEqualTo(256);
        assertThat(e.vmConfigAutoStart).isFalse();
        assertThat(config(2).vmConfigMemory).isEqualTo(512);
        // The candidate is kept.
        assertThat(c.rpc("<get-config><source><candidate/></source></get-config>")).contains("<vmName>a-new</vmName>");
    }

    @Test
    void rollbackOnErrorUndoesAReconfigureWhenALaterStepFails() throws Exception {
        // VR 1 is renamed and resized, then VR 2's interface removal fails (the interface was removed
        // over another interface after the candidate was edited); the commit's rollback-on-error puts
        // VR 1's old name and CPUs back.
        c.rpc(edit("running", "<vmNetworkConfigTable><vmNetworkConfigEntry><vmIndex>2</vmIndex><vmNetworkConfigIndex>1</vmNetworkConfigIndex>"
                + "<vmNetworkConfigParent>br0</vmNetworkConfigParent></vmNetworkConfigEntry></vmNetworkConfigTable>", ""));
        assertThat(c.rpc(edit("candidate", leaves(1, "<vmName>renamed</vmName><vmConfigCpuNumber>2</vmConfigCpuNumber>")
                + "<vmNetworkConfigTable><vmNetworkConfigEntry xmlns:nc='urn:ietf:params:xml:ns:netconf:base:1.0' nc:operation='delete'>"
                + "<vmIndex>2</vmIndex><vmNetworkConfigIndex>1</vmNetworkConfigIndex></vmNetworkConfigEntry></vmNetworkConfigTable>", "")))
                .contains("<ok/>");
        SingleVr.removeInterface(service, 2, 1);
        String reply = c.rpc("<commit/>");
        assertThat(reply).contains("<error-tag>data-missing</error-tag>").doesNotContain("<ok/>");
        assertThat(config(1).vmName).isEqualTo("a");
        assertThat(config(1).vmConfigCpuNumber).isEqualTo(1);
        assertThat(service.findByName("renamed")).isEmpty();
    }

    @Test
    void aDescriptionIsALeafOfAnyStateDeletedToNone() throws Exception {
        assertThat(c.rpc(edit("running", leaves(2, "<vmConfigDescription>edge, Zürich</vmConfigDescription>"), "")))
                .contains("<ok/>");
        assertThat(config(2).vmConfigDescription).isEqualTo("edge, Zürich");
        assertThat(c.rpc("<get-config><source><running/></source></get-config>"))
                .contains("<vmConfigDescription>edge, Zürich</vmConfigDescription>");
        String tooLong = c.rpc(edit("running", leaves(2, "<vmConfigDescription>" + "x".repeat(256) + "</vmConfigDescription>"), ""));
        assertThat(tooLong).contains("<error-tag>invalid-value</error-tag>",
                "vmIndex='2']/new-vmm-mib:vmConfigDescription</error-path>");
        assertThat(c.rpc(edit("running", configTable("<vmConfigEntry><vmIndex>2</vmIndex><vmConfigDescription"
                + " xmlns:nc='urn:ietf:params:xml:ns:netconf:base:1.0' nc:operation='delete'/></vmConfigEntry>"), "")))
                .contains("<ok/>");
        assertThat(config(2).vmConfigDescription).isNull();
    }
}
