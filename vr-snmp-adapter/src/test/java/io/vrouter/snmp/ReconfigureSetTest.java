package io.vrouter.snmp;

import static io.vrouter.snmp.SnmpTestAgent.vb;
import static io.vrouter.snmp.VmmMib.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.vrouter.core.driver.sim.LatencyProfile;
import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.ConfigColumn;
import io.vrouter.core.model.OperState;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VrEvent;
import io.vrouter.core.service.EventFence;
import io.vrouter.core.service.SingleVr;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.snmp4j.PDU;
import org.snmp4j.smi.Integer32;
import org.snmp4j.smi.OID;
import org.snmp4j.smi.OctetString;

/**
 * SETs of vmName, vmConfigCpuNumber, vmConfigMemory and vmConfigAutoStart of existing vmConfigTable rows
 * (VirtualRouterService#reconfigure), alone and with vmAdminState, and their refusals.
 */
class ReconfigureSetTest {
    @TempDir
    Path dir;
    SnmpTestAgent a;
    final List<VrEvent> configChanges = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws Exception {
        a = new SnmpTestAgent(dir);
        followConfigChanges();
    }

    private void followConfigChanges() {
        a.service.events().subscribe(e -> {
            if (e.type == VrEvent.Type.CONFIG_CHANGED) configChanges.add(e);
        });
    }

    /** The agent again, on a host whose destroy takes this long: a VR stays "being removed" that long. */
    private void withSlowDestroy(Duration destroy) throws Exception {
        a.close();
        a = new SnmpTestAgent(dir.resolve("slow"), new LatencyProfile(Duration.ZERO, Duration.ZERO, Duration.ZERO,
                destroy, Duration.ZERO), Map.of());
        followConfigChanges();
    }

    @AfterEach
    void stop() throws Exception {
        a.close();
    }

    private static OID cfg(int column, int vmIndex) {
        return cell(VM_CONFIG_ENTRY, column, vmIndex);
    }

    /** A VR made through the service (the SETs under test are the SNMP ones), in its stable state. */
    private VmConfigEntry vr(int vmIndex, String name, AdminState admin) throws InterruptedException {
        VmConfigEntry e = new VmConfigEntry();
        e.vmIndex = vmIndex;
        e.vmName = name;
        e.vmAdminState = admin;
        e.vmConfigCpuNumber = 1;
        e.vmConfigMemory = 512;
        SingleVr.create(a.service, e);
        awaitState(vmIndex, admin == AdminState.SHUTDOWN ? OperState.SHUTDOWN : OperState.RUNNING);
        return a.service.getConfig(vmIndex).orElseThrow();
    }

    private void awaitState(int vmIndex, OperState state) throws InterruptedException {
        long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() < end) {
            var vr = a.service.get(vmIndex);
            if (vr.isPresent() && vr.get().operState() == state) return;
            Thread.sleep(20);
        }
        throw new AssertionError("VR " + vmIndex + " did not reach " + state + ": " + a.service.get(vmIndex));
    }

    private void awaitConfigChanges(int n) throws InterruptedException {
        long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (configChanges.size() < n && System.nanoTime() < end) Thread.sleep(20);
        assertThat(configChanges).hasSize(n);
    }

    private VmConfigEntry config(int vmIndex) {
        return a.service.getConfig(vmIndex).orElseThrow();
    }

    @Test
    void columnsOfAShutDownVrChangeWithOneReconfigureCall() throws Exception {
        vr(1, "cold", AdminState.SHUTDOWN);
        PDU r = a.set(vb(cfg(VM_NAME, 1), new OctetString("cold-renamed")),
                vb(cfg(VM_CONFIG_CPU_NUMBER, 1), new Integer32(4)),
                vb(cfg(VM_CONFIG_MEMORY, 1), new Integer32(2048)),
                vb(cfg(VM_CONFIG_AUTO_START, 1), new Integer32(1)));
        assertThat(r.getErrorStatus()).as(r.toString()).isEqualTo(PDU.noError);
        VmConfigEntry c = config(1);
        assertThat(c.vmName).isEqualTo("cold-renamed");
        assertThat(c.vmConfigCpuNumber).isEqualTo(4);
        assertThat(c.vmConfigMemory).isEqualTo(2048);
        assertThat(c.vmConfigAutoStart).isTrue();
        assertThat(c.vmAdminState).isEqualTo(AdminState.SHUTDOWN);
        assertThat(EventFence.before(a.service, configChanges, 1)).as("one reconfigure for the four columns").hasSize(1);
        assertThat(a.get(cfg(VM_NAME, 1))).isEqualTo(new OctetString("cold-renamed"));
        assertThat(a.get(cfg(VM_CONFIG_MEMORY, 1))).isEqualTo(new Integer32(2048));
        assertThat(a.get(cfg(VM_CONFIG_AUTO_START, 1))).isEqualTo(new Integer32(1));
        assertThat(a.service.findByName("cold-renamed")).contains(1);
        assertThat(a.service.findByName("cold")).isEmpty();
    }

    @Test
    void renameAndAutoStartOfARunningVrAndTheOldNameIsFreeAfterwards() throws Exception {
        vr(1, "hot", AdminState.RUNNING);
        PDU r = a.set(vb(cfg(VM_NAME, 1), new OctetString("hot-renamed")), vb(cfg(VM_CONFIG_AUTO_START, 1),
                new Integer32(1)), vb(cfg(VM_CONFIG_ROW_STATUS, 1), new Integer32(ACTIVE)));
        assertThat(r.getErrorStatus()).as(r.toString()).isEqualTo(PDU.noError);
        assertThat(config(1).vmName).isEqualTo("hot-renamed");
        assertThat(config(1).vmConfigAutoStart).isTrue();
        assertThat(a.service.get(1).orElseThrow().operState()).isEqualTo(OperState.RUNNING);
        r = a.set(vb(cfg(VM_CONFIG_ROW_STATUS, 2), new Integer32(CREATE_AND_GO)), vb(cfg(VM_NAME, 2), new OctetString("hot")));
        assertThat(r.getErrorStatus()).as("the old name is free").isEqualTo(PDU.noError);
    }

    @Test
    void sameValuesAreAcceptedAndChangeNothing() throws Exception {
        VmConfigEntry before = vr(1, "same", AdminState.RUNNING);
        PDU r = a.set(vb(cfg(VM_NAME, 1), new OctetString("same")),
                vb(cfg(VM_ADMIN_STATE, 1), new Integer32(AdminState.RUNNING.code())),
                vb(cfg(VM_CONFIG_TEMPLATE, 1), new OctetString(before.vmConfigTemplate)),
                vb(cfg(VM_CONFIG_CPU_NUMBER, 1), new Integer32(1)),
                vb(cfg(VM_CONFIG_MEMORY, 1), new Integer32(512)),
                vb(cfg(VM_CONFIG_AUTO_START, 1), new Integer32(2)));
        assertThat(r.getErrorStatus()).as(r.toString()).isEqualTo(PDU.noError);
        assertThat(EventFence.before(a.service, configChanges, 1)).as("no reconfigure").isEmpty();
        assertThat(config(1).vmName).isEqualTo("same");
    }

    @Test
    void resizeOfAVrThatIsNotShutDownIsInconsistentValueAndChangesNothing() throws Exception {
        vr(1, "busy", AdminState.RUNNING);
        PDU r = a.set(vb(cfg(VM_NAME, 1), new OctetString("busy-2")), vb(cfg(VM_CONFIG_MEMORY, 1), new Integer32(1024)));
        assertThat(r.getErrorStatus()).isEqualTo(PDU.inconsistentValue);
        assertThat(r.getErrorIndex()).isEqualTo(2);
        r = a.set(vb(cfg(VM_CONFIG_CPU_NUMBER, 1), new Integer32(2)));
        assertThat(r.getErrorStatus()).isEqualTo(PDU.inconsistentValue);
        assertThat(r.getErrorIndex()).isEqualTo(1);
        // a start or a suspend in the same PDU does not help: only a stop does
        r = a.set(vb(cfg(VM_ADMIN_STATE, 1), new Integer32(AdminState.SUSPENDED.code())),
                vb(cfg(VM_CONFIG_MEMORY, 1), new Integer32(1024)));
        assertThat(r.getErrorStatus()).isEqualTo(PDU.inconsistentValue);
        assertThat(r.getErrorIndex()).isEqualTo(2);
        VmConfigEntry c = config(1);
        assertThat(c.vmName).isEqualTo("busy");
        assertThat(c.vmConfigMemory).isEqualTo(512);
        assertThat(c.vmConfigCpuNumber).isEqualTo(1);
        assertThat(c.vmAdminState).isEqualTo(AdminState.RUNNING);
        assertThat(EventFence.before(a.service, configChanges, 1)).isEmpty();
    }

    @Test
    void stopAndResizeInOnePduStopsFirst() throws Exception {
        vr(1, "stop-resize", AdminState.RUNNING);
        PDU r = a.set(vb(cfg(VM_CONFIG_MEMORY, 1), new Integer32(4096)),
                vb(cfg(VM_CONFIG_CPU_NUMBER, 1), new Integer32(8)),
                vb(cfg(VM_ADMIN_STATE, 1), new Integer32(AdminState.SHUTDOWN.code())));
        assertThat(r.getErrorStatus()).as(r.toString()).isEqualTo(PDU.noError);
        VmConfigEntry c = config(1);
        assertThat(c.vmAdminState).isEqualTo(AdminState.SHUTDOWN);
        assertThat(c.vmConfigMemory).isEqualTo(4096);
        assertThat(c.vmConfigCpuNumber).isEqualTo(8);
        awaitState(1, OperState.SHUTDOWN);
        awaitConfigChanges(1);
    }

    @Test
    void resizeAndStartInOnePduResizesFirst() throws Exception {
        vr(1, "resize-start", AdminState.SHUTDOWN);
        PDU r = a.set(vb(cfg(VM_ADMIN_STATE, 1), new Integer32(AdminState.RUNNING.code())),
                vb(cfg(VM_CONFIG_MEMORY, 1), new Integer32(1536)));
        assertThat(r.getErrorStatus()).as(r.toString()).isEqualTo(PDU.noError);
        assertThat(config(1).vmConfigMemory).isEqualTo(1536);
        assertThat(config(1).vmAdminState).isEqualTo(AdminState.RUNNING);
        awaitState(1, OperState.RUNNING);
        awaitConfigChanges(1);
        assertThat(configChanges.get(0).vmOperState).as("reconfigured before the start").isEqualTo(OperState.SHUTDOWN);
        assertThat(a.get(cell(VM_ENTRY, VM_CUR_MEM, 1)).toLong()).isEqualTo(1536L);
    }

    @Test
    void aDifferentTemplateIsInconsistentValueTheSameOneIsAccepted() throws Exception {
        VmConfigEntry before = vr(1, "templated", AdminState.SHUTDOWN);
        PDU r = a.set(vb(cfg(VM_CONFIG_AUTO_START, 1), new Integer32(1)),
                vb(cfg(VM_CONFIG_TEMPLATE, 1), new OctetString("other-template")));
        assertThat(r.getErrorStatus()).isEqualTo(PDU.inconsistentValue);
        assertThat(r.getErrorIndex()).isEqualTo(2);
        assertThat(config(1).vmConfigTemplate).isEqualTo(before.vmConfigTemplate);
        assertThat(config(1).vmConfigAutoStart).isFalse();
        r = a.set(vb(cfg(VM_CONFIG_TEMPLATE, 1), new OctetString(before.vmConfigTemplate)),
                vb(cfg(VM_CONFIG_AUTO_START, 1), new Integer32(1)));
        assertThat(r.getErrorStatus()).isEqualTo(PDU.noError);
        assertThat(config(1).vmConfigAutoStart).isTrue();
    }

    @Test
    void aTakenNameIsInconsistentValue() throws Exception {
        vr(1, "alpha", AdminState.SHUTDOWN);
        vr(2, "beta", AdminState.SHUTDOWN);
        PDU r = a.set(vb(cfg(VM_NAME, 2), new OctetString("alpha")));
        assertThat(r.getErrorStatus()).as("another VR's name").isEqualTo(PDU.inconsistentValue);
        // two rows given the same new name
        r = a.set(vb(cfg(VM_NAME, 1), new OctetString("gamma")), vb(cfg(VM_NAME, 2), new OctetString("gamma")));
        assertThat(r.getErrorStatus()).as("twins").isEqualTo(PDU.inconsistentValue);
        assertThat(r.getErrorIndex()).isEqualTo(2);
        // a new name that a row created in the same PDU takes
        r = a.set(vb(cfg(VM_CONFIG_ROW_STATUS, 3), new Integer32(CREATE_AND_GO)), vb(cfg(VM_NAME, 3), new OctetString("delta")),
                vb(cfg(VM_NAME, 1), new OctetString("delta")));
        assertThat(r.getErrorStatus()).as("created in the same PDU").isEqualTo(PDU.inconsistentValue);
        assertThat(r.getErrorIndex()).isEqualTo(3);
        assertThat(a.service.getConfig(3)).isEmpty();
        // the name of a row waiting for activation (createAndWait)
        assertThat(a.set(vb(cfg(VM_CONFIG_ROW_STATUS, 4), new Integer32(CREATE_AND_WAIT)),
                vb(cfg(VM_NAME, 4), new OctetString("waiting"))).getErrorStatus()).isEqualTo(PDU.noError);
        r = a.set(vb(cfg(VM_NAME, 1), new OctetString("waiting")));
        assertThat(r.getErrorStatus()).as("a waiting row's name").isEqualTo(PDU.inconsistentValue);
        assertThat(config(1).vmName).isEqualTo("alpha");
        assertThat(config(2).vmName).isEqualTo("beta");
        assertThat(EventFence.before(a.service, configChanges, 1, 2)).isEmpty();
        // two rows swapping their names is fine: the service orders the renames (through a temporary name)
        r = a.set(vb(cfg(VM_NAME, 1), new OctetString("beta")), vb(cfg(VM_NAME, 2), new OctetString("alpha")));
        assertThat(r.getErrorStatus()).as("swap").isEqualTo(PDU.noError);
        assertThat(config(1).vmName).isEqualTo("beta");
        assertThat(config(2).vmName).isEqualTo("alpha");
    }

    @Test
    void aNameStaysTakenWhileItsVrIsBeingDestroyedButIsFreeInTheSamePdu() throws Exception {
        // A slow destroy: the VR stays "being removed" long enough to be seen so.
        withSlowDestroy(Duration.ofSeconds(2));
        vr(1, "old", AdminState.SHUTDOWN);
        vr(2, "other", AdminState.SHUTDOWN);
        vr(3, "third", AdminState.SHUTDOWN);
        // In one PDU the service frees the name: the VR removed steps aside, and is destroyed last.
        PDU r = a.set(vb(cfg(VM_CONFIG_ROW_STATUS, 3), new Integer32(DESTROY)),
                vb(cfg(VM_CONFIG_ROW_STATUS, 4), new Integer32(CREATE_AND_GO)), vb(cfg(VM_NAME, 4), new OctetString("third")));
        assertThat(r.getErrorStatus()).as(r.toString()).isEqualTo(PDU.noError);
        assertThat(config(4).vmName).isEqualTo("third");
        // In a later PDU, the name of a VR being destroyed is still its own until the VM is gone.
        assertThat(a.set(vb(cfg(VM_CONFIG_ROW_STATUS, 1), new Integer32(DESTROY))).getErrorStatus()).isEqualTo(PDU.noError);
        r = a.set(vb(cfg(VM_CONFIG_AUTO_START, 2), new Integer32(1)), vb(cfg(VM_NAME, 2), new OctetString("old")));
        assertThat(r.getErrorStatus()).isEqualTo(PDU.inconsistentValue);
        assertThat(r.getErrorIndex()).isEqualTo(2);
        assertThat(config(2).vmName).isEqualTo("other");
        assertThat(config(2).vmConfigAutoStart).isFalse();
    }

    @Test
    void outOfRangeValuesAreWrongValueAsAtCreation() throws Exception {
        vr(1, "ranges", AdminState.SHUTDOWN);
        assertThat(a.set(vb(cfg(VM_CONFIG_CPU_NUMBER, 1), new Integer32(65))).getErrorStatus()).isEqualTo(PDU.wrongValue);
        assertThat(a.set(vb(cfg(VM_CONFIG_CPU_NUMBER, 1), new Integer32(0))).getErrorStatus()).isEqualTo(PDU.wrongValue);
        assertThat(a.set(vb(cfg(VM_CONFIG_MEMORY, 1), new Integer32(32))).getErrorStatus()).isEqualTo(PDU.wrongValue);
        assertThat(a.set(vb(cfg(VM_CONFIG_MEMORY, 1), new Integer32(1_048_577))).getErrorStatus()).isEqualTo(PDU.wrongValue);
        assertThat(a.set(vb(cfg(VM_CONFIG_AUTO_START, 1), new Integer32(3))).getErrorStatus()).isEqualTo(PDU.wrongValue);
        PDU r = a.set(vb(cfg(VM_CONFIG_AUTO_START, 1), new Integer32(1)), vb(cfg(VM_NAME, 1), new OctetString("bad name!")));
        assertThat(r.getErrorStatus()).isEqualTo(PDU.wrongValue);
        assertThat(r.getErrorIndex()).isEqualTo(2);
        assertThat(a.set(vb(cfg(VM_NAME, 1), new OctetString("x".repeat(65)))).getErrorStatus()).isEqualTo(PDU.wrongLength);
        assertThat(a.set(vb(cfg(VM_CONFIG_MEMORY, 1), new OctetString("1024"))).getErrorStatus()).isEqualTo(PDU.wrongType);
        VmConfigEntry c = config(1);
        assertThat(c.vmName).isEqualTo("ranges");
        assertThat(c.vmConfigCpuNumber).isEqualTo(1);
        assertThat(c.vmConfigMemory).isEqualTo(512);
        assertThat(c.vmConfigAutoStart).isFalse();
    }

    @Test
    void aPduRefusedForOneRowChangesNoOtherRow() throws Exception {
        vr(1, "first", AdminState.SHUTDOWN);
        vr(2, "second", AdminState.RUNNING);
        PDU r = a.set(vb(cfg(VM_NAME, 1), new OctetString("first-renamed")),
                vb(cfg(VM_CONFIG_MEMORY, 1), new Integer32(1024)),
                vb(cfg(VM_ADMIN_STATE, 2), new Integer32(AdminState.SHUTDOWN.code())),
                vb(cfg(VM_CONFIG_ROW_STATUS, 3), new Integer32(CREATE_AND_GO)),
                vb(cfg(VM_NAME, 3), new OctetString("third")),
                vb(cfg(VM_CONFIG_CPU_NUMBER, 2), new Integer32(2)),
                vb(cfg(VM_CONFIG_TEMPLATE, 2), new OctetString("nope")));
        assertThat(r.getErrorStatus()).isEqualTo(PDU.inconsistentValue);
        assertThat(r.getErrorIndex()).isEqualTo(7);
        assertThat(config(1).vmName).isEqualTo("first");
        assertThat(config(1).vmConfigMemory).isEqualTo(512);
        assertThat(config(2).vmAdminState).isEqualTo(AdminState.RUNNING);
        assertThat(config(2).vmConfigCpuNumber).isEqualTo(1);
        assertThat(a.service.getConfig(3)).isEmpty();
        assertThat(EventFence.before(a.service, configChanges, 1, 2)).isEmpty();
    }

    @Test
    void aPduThatChangesAVrBeingRemovedIsRefusedBeforeAnythingChanges() throws Exception {
        // A slow destroy: the VR stays "being removed" long enough for the service to refuse the change.
        withSlowDestroy(Duration.ofSeconds(3));
        vr(1, "kept", AdminState.SHUTDOWN);
        vr(2, "going", AdminState.SHUTDOWN);
        SingleVr.remove(a.service, 2);
        // Every rule is checked in prepare, for the whole PDU: the row being removed is named, nothing is done.
        PDU r = a.set(vb(cfg(VM_NAME, 1), new OctetString("kept-renamed")),
                vb(cfg(VM_CONFIG_MEMORY, 1), new Integer32(1024)),
                vb(cfg(VM_ADMIN_STATE, 1), new Integer32(AdminState.RUNNING.code())),
                vb(cfg(VM_CONFIG_AUTO_START, 2), new Integer32(1)));
        assertThat(r.getErrorStatus()).isEqualTo(PDU.inconsistentValue);
        assertThat(r.getErrorIndex()).isEqualTo(4);
        VmConfigEntry c = config(1);
        assertThat(c.vmName).isEqualTo("kept");
        assertThat(c.vmConfigMemory).isEqualTo(512);
        assertThat(c.vmAdminState).isEqualTo(AdminState.SHUTDOWN);
        assertThat(a.service.findByName("kept")).contains(1);
        assertThat(a.service.findByName("kept-renamed")).isEmpty();
        assertThat(EventFence.before(a.service, configChanges, 1)).isEmpty();
    }

    @Test
    void aDescriptionIsUtf8TextOfAnyStateEmptyWhenNone() throws Exception {
        vr(1, "described", AdminState.RUNNING);
        OID description = cfg(ConfigColumn.VM_CONFIG_DESCRIPTION.snmpColumn(), 1);
        assertThat(a.get(description)).as("none is empty").isEqualTo(new OctetString(""));
        byte[] utf8 = "edge, Zürich".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        PDU r = a.set(vb(description, new OctetString(utf8)));
        assertThat(r.getErrorStatus()).as(r.toString()).isEqualTo(PDU.noError);
        assertThat(config(1).vmConfigDescription).isEqualTo("edge, Zürich");
        assertThat(a.get(description)).isEqualTo(new OctetString(utf8));
        assertThat(a.service.get(1).orElseThrow().operState()).as("running on").isEqualTo(OperState.RUNNING);
        // Created with one; too long; a control character; not UTF-8.
        r = a.set(vb(cfg(VM_CONFIG_ROW_STATUS, 2), new Integer32(CREATE_AND_GO)), vb(cfg(VM_NAME, 2), new OctetString("two")),
                vb(cfg(ConfigColumn.VM_CONFIG_DESCRIPTION.snmpColumn(), 2), new OctetString("spare")));
        assertThat(r.getErrorStatus()).as(r.toString()).isEqualTo(PDU.noError);
        assertThat(config(2).vmConfigDescription).isEqualTo("spare");
        assertThat(a.set(vb(description, new OctetString("x".repeat(256)))).getErrorStatus()).isEqualTo(PDU.wrongLength);
        assertThat(a.set(vb(description, new OctetString("a\tb"))).getErrorStatus()).isEqualTo(PDU.wrongValue);
        assertThat(a.set(vb(description, new OctetString(new byte[] {(byte) 0xff}))).getErrorStatus()).isEqualTo(PDU.wrongValue);
        assertThat(config(1).vmConfigDescription).isEqualTo("edge, Zürich");
        assertThat(a.set(vb(description, new OctetString(""))).getErrorStatus()).isEqualTo(PDU.noError);
        assertThat(config(1).vmConfigDescription).isNull();
    }
}
