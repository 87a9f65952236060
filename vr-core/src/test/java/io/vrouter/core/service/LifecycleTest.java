package io.vrouter.core.service;

import static io.vrouter.core.service.ServiceFixture.vr;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vrouter.core.driver.PowerState;
import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.OperState;
import io.vrouter.core.model.VirtualRouter;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import io.vrouter.core.model.VrEvent;
import io.vrouter.core.spi.Accepted;
import io.vrouter.core.spi.ChangeFailedException;
import io.vrouter.core.spi.ChangeSet;
import io.vrouter.core.spi.ConflictException;
import io.vrouter.core.spi.NotFoundException;
import io.vrouter.core.spi.NotSupportedException;
import io.vrouter.core.spi.RouterQuery;
import io.vrouter.core.spi.ValidationException;
import io.vrouter.core.spi.VrException;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class LifecycleTest extends WithService {
    private static VirtualRouter done(Accepted a) throws InterruptedException {
        return a.await(WAIT).orElseThrow().orElseThrow();
    }

    private List<OperState> statesOf(int vmIndex) {
        return f.events.stream().filter(e -> e.vmIndex == vmIndex && e.type == VrEvent.Type.STATE_CHANGED)
                .map(e -> e.vmOperState).collect(Collectors.toList());
    }

    @Test
    void creationIsAcceptedPreparingAndEndsRunning() throws Exception {
        Accepted a = SingleVr.create(f.service, vr("edge1"));
        assertThat(a.accepted().vmIndex).isEqualTo(1);
        assertThat(a.accepted().operState()).isEqualTo(OperState.PREPARING);
        VirtualRouter vr = done(a);
        assertThat(vr.operState()).isEqualTo(OperState.RUNNING);
        assertThat(vr.vmConfigTemplate).isEqualTo("vyos");
        assertThat(vr.vmConfigMemory).isEqualTo(512);
        assertThat(vr.vmEntry.vmUUID).isNotBlank();
        assertThat(f.events.get(0).type).isEqualTo(VrEvent.Type.CREATED);
        assertThat(statesOf(1)).containsExactly(OperState.RUNNING);
        assertThat(f.service.hypervisor().vmActiveVMs).isEqualTo(1);
    }

    @Test
    void aTemplateTheDriverDoesNotOfferIsRefusedAndTheDefaultIsTheDriversFirst() throws Exception {
        var request = vr("odd");
        request.vmConfigTemplate = "../../../etc/passwd";
        assertThatThrownBy(() -> SingleVr.create(f.service, request)).isInstanceOf(ValidationException.class)
                .hasMessageContaining("driver 'sim' has no template").hasMessageContaining("vyos, openwrt")
                .extracting(e -> ((ValidationException) e).field()).isEqualTo("vmConfigTemplate");
        assertThat(f.service.list(RouterQuery.all()).total).isZero();
        request.vmConfigTemplate = "openwrt";
        assertThat(done(SingleVr.create(f.service, request)).vmConfigTemplate).isEqualTo("openwrt");
    }

    @Test
    void anAdminStateTheDriverCannotReachIsRefusedAndChangesNothing() throws Exception {
        f.driver.limitAdminStates(java.util.EnumSet.of(AdminState.RUNNING, AdminState.SHUTDOWN, AdminState.PAUSED));
        VirtualRouter vr = done(SingleVr.create(f.service, vr("edge1")));
        assertThatThrownBy(() -> SingleVr.setAdminState(f.service, vr.vmIndex, AdminState.SUSPENDED))
                .isInstanceOf(NotSupportedException.class).hasMessage("driver 'sim' cannot make a VR suspended");
        assertThat(f.service.get(vr.vmIndex).orElseThrow().vmAdminState).isEqualTo(AdminState.RUNNING);
        assertThat(statesOf(vr.vmIndex)).containsExactly(OperState.RUNNING);
    }

    @Test
    void creationShutdownStaysOff() throws Exception {
        VirtualRouter vr = done(SingleVr.create(f.service, vr("cold", AdminState.SHUTDOWN)));
        assertThat(vr.operState()).isEqualTo(OperState.SHUTDOWN);
        assertThat(vr.vmEntry.vmCurCpuNumber).isZero();
    }

    @Test
    void adminStatesMoveThroughTransitionalStates() throws Exception {
        int i = done(SingleVr.create(f.service, vr("r"))).vmIndex;
        assertThat(done(SingleVr.setAdminState(f.service, i, AdminState.SHUTDOWN)).operState()).isEqualTo(OperState.SHUTDOWN);
        assertThat(done(SingleVr.setAdminState(f.service, i, AdminState.RUNNING)).operState()).isEqualTo(OperState.RUNNING);
        assertThat(done(SingleVr.setAdminState(f.service, i, AdminState.SUSPENDED)).operState()).isEqualTo(OperState.SUSPENDED);
        assertThat(done(SingleVr.setAdminState(f.service, i, AdminState.RUNNING)).operState()).isEqualTo(OperState.RUNNING);
        assertThat(done(SingleVr.setAdminState(f.service, i, AdminState.PAUSED)).operState()).isEqualTo(OperState.PAUSED);
        assertThat(done(SingleVr.setAdminState(f.service, i, AdminState.RUNNING)).operState()).isEqualTo(OperState.RUNNING);
        assertThat(statesOf(i)).containsExactly(OperState.RUNNING,
                OperState.SHUTTINGDOWN, OperState.SHUTDOWN,
                OperState.PREPARING, OperState.RUNNING,
                OperState.SUSPENDING, OperState.SUSPENDED,
                OperState.RESUMING, OperState.RUNNING,
                OperState.PAUSED, OperState.RUNNING);
    }

    @Test
    void suspendingAShutDownVrIsAConflict() throws Exception {
        int i = done(SingleVr.create(f.service, vr("off", AdminState.SHUTDOWN))).vmIndex;
        assertThatThrownBy(() -> SingleVr.setAdminState(f.service, i, AdminState.SUSPENDED)).isInstanceOf(ConflictException.class);
        assertThat(f.service.get(i).orElseThrow().vmAdminState).isEqualTo(AdminState.SHUTDOWN);
    }

    @Test
    void removalPassesShuttingDownAndForgetsTheVr() throws Exception {
        int i = done(SingleVr.create(f.service, vr("gone"))).vmIndex;
        Accepted a = SingleVr.remove(f.service, i);
        assertThat(a.await(WAIT).orElseThrow()).isEmpty();
        assertThat(f.service.get(i)).isEmpty();
        assertThat(f.driver.inspect(i)).isEmpty();
        assertThat(statesOf(i)).containsExactly(OperState.RUNNING, OperState.SHUTTINGDOWN);
        assertThat(f.events.get(f.events.size() - 1).type).isEqualTo(VrEvent.Type.DELETED);
        assertThat(f.service.findByName("gone")).isEmpty();
        // The name is free again.
        assertThat(done(SingleVr.create(f.service, vr("gone"))).operState()).isEqualTo(OperState.RUNNING);
    }

    @Test
    void requestsOfOneVrRunInOrder() throws Exception {
        int i = SingleVr.create(f.service, vr("q")).accepted().vmIndex;
        SingleVr.setAdminState(f.service, i, AdminState.SHUTDOWN);
        SingleVr.setAdminState(f.service, i, AdminState.RUNNING);
        Accepted last = SingleVr.setAdminState(f.service, i, AdminState.SHUTDOWN);
        assertThat(done(last).operState()).isEqualTo(OperState.SHUTDOWN);
        assertThat(statesOf(i)).containsExactly(OperState.RUNNING, OperState.SHUTTINGDOWN, OperState.SHUTDOWN,
                OperState.PREPARING, OperState.RUNNING, OperState.SHUTTINGDOWN, OperState.SHUTDOWN);
    }

    @Test
    void aDriverFailureUndoesTheCreationAndSaysWhy() throws Exception {
        f.driver.failOn("start", "fragile", "no memory left on host");
        Accepted a = SingleVr.create(f.service, vr("fragile"));
        assertThatThrownBy(() -> a.await(WAIT)).isInstanceOfSatisfying(ChangeFailedException.class, e -> {
            assertThat(e.reason()).isEqualTo(VrException.Reason.FAILED);
            assertThat(e.vmIndex()).isEqualTo(1);
            assertThat(e.field()).isEqualTo("vmAdminState");
            assertThat(e.getMessage()).contains("start failed").contains("no memory left on host");
        });
        // As it was: no VR, no VM on the host, the name free; the deletion says why.
        assertThat(f.service.get(1)).isEmpty();
        assertThat(f.driver.inspect(1)).isEmpty();
        assertThat(f.service.findByName("fragile")).isEmpty();
        VrEvent last = f.events.get(f.events.size() - 1);
        assertThat(last.type).isEqualTo(VrEvent.Type.DELETED);
        assertThat(last.reason).contains("start failed").contains("no memory left on host");
        // The operator can retry once the cause is gone.
        f.driver.clearFailures();
        VirtualRouter vr = done(SingleVr.create(f.service, vr("fragile")));
        assertThat(vr.operState()).isEqualTo(OperState.RUNNING);
        assertThat(vr.vmEntry.vmOperStateReason).isNull();
    }

    /**
     * vmOperStateReason says why a VR is not in the state its vmAdminState asks for (issue 23 item 19):
     * an interface that fails to be added is undone and leaves the VR running with none; a VR
     * crashed behind vrouter's back has one until it is started again.
     */
    @Test
    void aReasonIsShownOnlyWhileTheVrIsNotAsAsked() throws Exception {
        int i = done(SingleVr.create(f.service, vr("flaky"))).vmIndex;
        f.driver.failOn("addInterface", "flaky", "no such bridge");
        VmNetworkConfigEntry n = new VmNetworkConfigEntry();
        n.vmNetworkConfigParent = "br9";
        assertThatThrownBy(() -> SingleVr.addInterface(f.service, i, n).await(WAIT)).isInstanceOf(ChangeFailedException.class)
                .hasMessageContaining("no such bridge");
        VirtualRouter vr = f.service.get(i).orElseThrow();
        assertThat(vr.operState()).isEqualTo(OperState.RUNNING);
        assertThat(vr.vmNetworkConfigTable).isNull();
        assertThat(vr.vmEntry.vmOperStateReason).as("running as asked").isNull();
        assertThat(f.events.get(f.events.size() - 1).reason).as("the event says why").contains("no such bridge");
        f.driver.clearFailures();

        f.driver.setPowerBehindTheBack(i, PowerState.HALTED);
        assertThat(f.service.get(i).orElseThrow().vmEntry.vmOperStateReason).contains("outside vrouter");
        // Shut down as it is now asked to be: nothing to explain; and none once it runs again.
        assertThat(done(SingleVr.setAdminState(f.service, i, AdminState.SHUTDOWN)).vmEntry.vmOperStateReason).isNull();
        assertThat(done(SingleVr.setAdminState(f.service, i, AdminState.RUNNING)).vmEntry.vmOperStateReason).isNull();
    }

    /**
     * Every event carries the VR's vmUUID as it was when the event was made (issue 23 item 4): its
     * VM's while it has one, the last one seen once it is gone; none before it has a VM.
     */
    @Test
    void everyEventCarriesTheVmUuidOfItsTime() throws Exception {
        int i = done(SingleVr.create(f.service, vr("u"))).vmIndex;
        String uuid = f.service.get(i).orElseThrow().vmEntry.vmUUID;
        done(SingleVr.setAdminState(f.service, i, AdminState.SHUTDOWN));
        assertThat(SingleVr.remove(f.service, i).await(WAIT)).isPresent();
        List<VrEvent> of = f.events.stream().filter(e -> e.vmIndex == i).toList();
        assertThat(of).extracting(e -> e.type).contains(VrEvent.Type.CREATED, VrEvent.Type.STATE_CHANGED, VrEvent.Type.DELETED);
        assertThat(of.get(0).vmUUID).as("created, before its VM is made").isNull();
        assertThat(of.subList(1, of.size())).allSatisfy(e -> assertThat(e.vmUUID).as(e.toString()).isEqualTo(uuid));
    }

    @Test
    void aFailedRemovalPutsTheVrBackAsItWas() throws Exception {
        int i = done(SingleVr.create(f.service, vr("sticky"))).vmIndex;
        f.driver.failOn("destroy", "sticky", "disk busy");
        assertThatThrownBy(() -> SingleVr.remove(f.service, i).await(WAIT)).isInstanceOf(ChangeFailedException.class)
                .hasMessageContaining("destroy failed").hasMessageContaining("disk busy");
        VirtualRouter back = f.service.get(i).orElseThrow();
        assertThat(back.operState()).as("started again, as it was").isEqualTo(OperState.RUNNING);
        // Running as asked: nothing to explain there; the event says why the removal did not happen.
        assertThat(back.vmEntry.vmOperStateReason).isNull();
        VrEvent last = f.events.get(f.events.size() - 1);
        assertThat(last.type).isEqualTo(VrEvent.Type.STATE_CHANGED);
        assertThat(last.reason).contains("disk busy");
        assertThat(f.driver.inspect(i).orElseThrow().power()).isEqualTo(PowerState.RUNNING);
        f.driver.clearFailures();
        assertThat(SingleVr.remove(f.service, i).await(WAIT).orElseThrow()).isEmpty();
    }

    @Test
    void duplicateNamesAreConflicts() throws Exception {
        SingleVr.create(f.service, vr("dup"));
        assertThatThrownBy(() -> SingleVr.create(f.service, vr("dup")))
                .isInstanceOf(ConflictException.class).hasMessageContaining("dup");
        assertThat(f.service.list(RouterQuery.all()).total).isEqualTo(1);
    }

    @Test
    void invalidFieldsNameTheField() {
        var bad = vr("ok");
        bad.vmConfigMemory = 1;
        assertThatThrownBy(() -> SingleVr.create(f.service, bad)).isInstanceOf(ValidationException.class)
                .extracting(e -> ((ValidationException) e).field()).isEqualTo("vmConfigMemory");
        assertThatThrownBy(() -> SingleVr.create(f.service, vr("bad name!")))
                .isInstanceOf(ValidationException.class).hasMessageStartingWith("vmName");
        var paused = vr("p", AdminState.PAUSED);
        assertThatThrownBy(() -> SingleVr.create(f.service, paused)).isInstanceOf(ValidationException.class);
        assertThat(f.service.list(RouterQuery.all()).total).isZero();
    }

    @Test
    void aBatchWithOneBadRowCreatesNothing() {
        assertThatThrownBy(() -> SingleVr.createAll(f.service, List.of(vr("a"), vr("b"), vr("a"))))
                .isInstanceOf(ConflictException.class);
        assertThat(f.service.list(RouterQuery.all()).total).isZero();
        assertThat(f.service.findByName("a")).isEmpty();
        assertThat(SingleVr.createAll(f.service, List.of(vr("a"), vr("b"))).stream().map(x -> x.accepted().vmIndex))
                .containsExactly(1, 2);
    }

    @Test
    void anExplicitIndexIsHonouredAndMustBeFree() throws Exception {
        var c = vr("at7");
        c.vmIndex = 7;
        assertThat(done(SingleVr.create(f.service, c)).vmIndex).isEqualTo(7);
        assertThat(f.service.nextAvailableVmIndex()).isEqualTo(8);
        var again = vr("other");
        again.vmIndex = 7;
        assertThatThrownBy(() -> SingleVr.create(f.service, again)).isInstanceOf(ConflictException.class);
    }

    @Test
    void interfacesAreAddedNumberedAndRemoved() throws Exception {
        int i = done(SingleVr.create(f.service, vr("ifs"))).vmIndex;
        VmNetworkConfigEntry n = new VmNetworkConfigEntry();
        n.vmNetworkConfigParent = "xenbr0";
        n.vmNetworkConfigAddress = "192.0.2.1";
        VirtualRouter vr = done(SingleVr.addInterface(f.service, i, n));
        assertThat(n.vmNetworkConfigIndex).isEqualTo(1);
        assertThat(vr.vmNetworkConfigTable).hasSize(1);
        assertThat(vr.vmNetworkConfigTable.get(0).vmNetworkConfigPrefixLength).isEqualTo(24);
        assertThat(vr.vmNetworkTable).extracting(x -> x.vmNetworkParent).containsExactly("xenbr0");
        assertThat(vr.vmEntry.vmRouterAddr).isEqualTo("192.0.2.1");
        VmNetworkConfigEntry same = new VmNetworkConfigEntry();
        same.vmNetworkConfigIndex = 1;
        same.vmNetworkConfigParent = "xenbr1";
        assertThatThrownBy(() -> SingleVr.addInterface(f.service, i, same)).isInstanceOf(ConflictException.class);
        VirtualRouter after = done(SingleVr.removeInterface(f.service, i, 1));
        assertThat(after.vmNetworkConfigTable).isNull();
        assertThat(after.vmNetworkTable).isEmpty();
        assertThatThrownBy(() -> SingleVr.removeInterface(f.service, i, 1)).isInstanceOf(NotFoundException.class);
    }

    @Test
    void theMacTheHostGeneratedIsRecordedInTheRowAndKept() throws Exception {
        VmConfigEntry c = vr("macs");
        VmNetworkConfigEntry given = new VmNetworkConfigEntry();
        given.vmNetworkConfigParent = "xenbr0";
        given.vmNetworkConfigPhysAddress = "02:00:5e:00:53:01";
        VmNetworkConfigEntry generated = new VmNetworkConfigEntry();
        generated.vmNetworkConfigParent = "xenbr1";
        c.vmNetworkConfigTable = List.of(given, generated);
        VirtualRouter vr = done(SingleVr.create(f.service, c));
        int i = vr.vmIndex;
        String host = vr.vmNetworkTable.get(1).vmNetworkPhysAddress;
        assertThat(host).isNotBlank().isNotEqualTo("02:00:5e:00:53:01");
        // The answer, the row and so every interface show the host's MAC beside the given one.
        assertThat(vr.vmNetworkConfigTable).extracting(n -> n.vmNetworkConfigPhysAddress)
                .containsExactly("02:00:5e:00:53:01", host);
        assertThat(f.service.getConfig(i).orElseThrow().interfaces().get(1).vmNetworkConfigPhysAddress).isEqualTo(host);

        // An interface added later gets its MAC recorded too.
        VmNetworkConfigEntry third = new VmNetworkConfigEntry();
        third.vmNetworkConfigParent = "xenbr2";
        VirtualRouter with3 = done(SingleVr.addInterface(f.service, i, third));
        assertThat(with3.vmNetworkConfigTable.get(2).vmNetworkConfigPhysAddress)
                .isEqualTo(with3.vmNetworkTable.get(2).vmNetworkPhysAddress).isNotBlank();

        // Written again without MACs (a row read before the host chose them), the interfaces keep
        // theirs and the VM is not touched: no interface is re-plugged.
        int calls = f.recorder.callsOf(i).size();
        VmConfigEntry rewrite = new VmConfigEntry();
        rewrite.vmNetworkConfigTable = new java.util.ArrayList<>();
        for (VmNetworkConfigEntry n : with3.vmNetworkConfigTable) {
            VmNetworkConfigEntry m = n.copy();
            m.vmNetworkConfigPhysAddress = null;
            rewrite.vmNetworkConfigTable.add(m);
        }
        done(f.service.apply(ChangeSet.builder().edit(i, ChangeSet.columns(rewrite)).build()).only());
        assertThat(f.recorder.callsOf(i).subList(calls, f.recorder.callsOf(i).size()))
                .noneMatch(call -> call.startsWith("addInterface") || call.startsWith("removeInterface"));
        assertThat(f.service.getConfig(i).orElseThrow().interfaces()).extracting(n -> n.vmNetworkConfigPhysAddress)
                .containsExactly("02:00:5e:00:53:01", host, with3.vmNetworkConfigTable.get(2).vmNetworkConfigPhysAddress);

        // Journaled: the row after a restart has them.
        f.close();
        f = new ServiceFixture(dir);
        assertThat(f.service.getConfig(i).orElseThrow().interfaces().get(1).vmNetworkConfigPhysAddress).isEqualTo(host);
    }

    /**
     * The simulated host never generates a MAC the service then refuses as another interface's: not
     * past interface index 255 (257 once had the MAC of 1), not for VRs whose indices differ by 2^24
     * or 2^30, not one another VR was given.
     */
    @Test
    void theHostNeverGeneratesAMacTheServiceRefuses() throws Exception {
        VmNetworkConfigEntry given = iface(1, "xenbr0");
        given.vmNetworkConfigPhysAddress = "02:00:00:00:4d:01"; // the MAC VR 77's interface 1 would be generated
        VmConfigEntry taker = vr("taker");
        taker.vmNetworkConfigTable = List.of(given);
        done(SingleVr.create(f.service, taker));
        for (int[] vr : new int[][] {{5, 1, 257, 513}, {5 + (1 << 24), 1, 257}, {5 + (1 << 30), 1, 2}, {77, 1, 65535}}) {
            VmConfigEntry c = vr("macs-" + vr[0]);
            c.vmIndex = vr[0];
            c.vmNetworkConfigTable = new java.util.ArrayList<>();
            for (int k = 1; k < vr.length; k++) c.vmNetworkConfigTable.add(iface(vr[k], "xenbr" + k));
            done(SingleVr.create(f.service, c));
        }
        List<String> macs = new java.util.ArrayList<>();
        for (int i : f.service.indices()) {
            f.service.getConfig(i).orElseThrow().interfaces().forEach(n -> macs.add(n.vmNetworkConfigPhysAddress));
        }
        assertThat(macs).hasSize(10).doesNotContainNull().doesNotHaveDuplicates()
                .allMatch(m -> (Integer.parseInt(m.substring(0, 2), 16) & 0x03) == 0x02, "locally administered unicast");
        // VRs below 2^24 with interfaces below 256 keep the MACs they were generated before (02:00:vm:vm:vm:if).
        assertThat(f.service.getConfig(5).orElseThrow().interfaces().get(0).vmNetworkConfigPhysAddress).isEqualTo("02:00:00:00:05:01");
    }

    private static VmNetworkConfigEntry iface(int index, String parent) {
        VmNetworkConfigEntry n = new VmNetworkConfigEntry();
        n.vmNetworkConfigIndex = index;
        n.vmNetworkConfigParent = parent;
        return n;
    }

    /**
     * An upgrade whose driver refuses a value an existing VR has (a parent the netns driver now takes
     * for its own names) leaves the VR manageable: start-up names it, a change that keeps the value
     * is accepted (another column, another interface, that interface's address), and only a change
     * that sets a refused value is refused.
     */
    @Test
    void aValueTheDriverNowRefusesLocksNoChangeThatKeepsIt() throws Exception {
        VmConfigEntry c = vr("upgraded");
        c.vmNetworkConfigTable = List.of(iface(1, "vr05"), iface(2, "br0"));
        int i = done(SingleVr.create(f.service, c)).vmIndex;
        f.close();
        f = new ServiceFixture(dir, host -> host.refuseParent("vr05"));
        assertThat(f.report.refusedNow()).singleElement().asString()
                .contains("VR " + i, "upgraded", "interface 1", "vmNetworkConfigParent", "vr05");

        VmConfigEntry described = new VmConfigEntry();
        described.vmConfigDescription = "changed after the upgrade";
        assertThat(done(SingleVr.reconfigure(f.service, i, described)).vmConfigDescription).isEqualTo("changed after the upgrade");
        VmNetworkConfigEntry otherParent = new VmNetworkConfigEntry();
        otherParent.vmNetworkConfigParent = "br1";
        done(f.service.apply(ChangeSet.builder().edit(i, ChangeSet.changeInterface(2, otherParent)).build()).only());
        VmNetworkConfigEntry address = new VmNetworkConfigEntry();
        address.vmNetworkConfigAddress = "192.0.2.1";
        done(f.service.apply(ChangeSet.builder().edit(i, ChangeSet.changeInterface(1, address)).build()).only());
        assertThat(f.service.getConfig(i).orElseThrow().interfaces()).extracting(n -> n.vmNetworkConfigParent)
                .containsExactly("vr05", "br1");

        // Setting the refused value anew is refused, on another interface as on a new one.
        VmNetworkConfigEntry toRefused = new VmNetworkConfigEntry();
        toRefused.vmNetworkConfigParent = "vr05";
        assertThatThrownBy(() -> f.service.apply(ChangeSet.builder().edit(i, ChangeSet.changeInterface(2, toRefused)).build()))
                .isInstanceOf(ValidationException.class).hasMessageContaining("vr05");
        assertThatThrownBy(() -> SingleVr.addInterface(f.service, i, iface(3, "vr05")))
                .isInstanceOf(ValidationException.class).hasMessageContaining("vr05");
        assertThat(f.service.getConfig(i).orElseThrow().interfaces()).hasSize(2);
    }

    @Test
    void columnsChangeAndCpusAndMemoryOnlyWhileShutDown() throws Exception {
        int i = done(SingleVr.create(f.service, vr("resize"))).vmIndex;
        var bigger = new io.vrouter.core.model.VmConfigEntry();
        bigger.vmConfigMemory = 1024;
        assertThatThrownBy(() -> SingleVr.reconfigure(f.service, i, bigger)).isInstanceOf(ConflictException.class)
                .extracting(e -> ((ConflictException) e).field()).isEqualTo("vmConfigMemory");
        done(SingleVr.setAdminState(f.service, i, AdminState.SHUTDOWN));
        VirtualRouter resized = done(SingleVr.reconfigure(f.service, i, bigger));
        assertThat(resized.vmConfigMemory).isEqualTo(1024);
        assertThat(resized.vmEntry.vmMaxMem).isEqualTo(1024L);
        assertThat(f.events.get(f.events.size() - 1).type).isEqualTo(VrEvent.Type.CONFIG_CHANGED);

        var renamed = new io.vrouter.core.model.VmConfigEntry();
        renamed.vmName = "resized";
        renamed.vmConfigAutoStart = true;
        assertThat(done(SingleVr.reconfigure(f.service, i, renamed)).vmName).isEqualTo("resized");
        assertThat(f.service.findByName("resized")).hasValue(i);
        assertThat(f.service.findByName("resize")).isEmpty();
        assertThat(f.service.getConfig(i).orElseThrow().vmConfigAutoStart).isTrue();
        done(SingleVr.create(f.service, vr("resize")));

        var taken = new io.vrouter.core.model.VmConfigEntry();
        taken.vmName = "resize";
        assertThatThrownBy(() -> SingleVr.reconfigure(f.service, i, taken)).isInstanceOf(ConflictException.class);
        var template = new io.vrouter.core.model.VmConfigEntry();
        template.vmConfigTemplate = "other";
        assertThatThrownBy(() -> SingleVr.reconfigure(f.service, i, template)).isInstanceOf(ConflictException.class);
        var admin = new io.vrouter.core.model.VmConfigEntry();
        admin.vmAdminState = AdminState.RUNNING;
        assertThatThrownBy(() -> SingleVr.reconfigure(f.service, i, admin)).isInstanceOf(ValidationException.class);
        assertThat(f.service.getConfig(i).orElseThrow().vmName).isEqualTo("resized");
    }

    @Test
    void listFiltersAndPages() throws Exception {
        for (int k = 1; k <= 5; k++) done(SingleVr.create(f.service, vr("core-" + k, k % 2 == 0 ? AdminState.SHUTDOWN : AdminState.RUNNING)));
        done(SingleVr.create(f.service, vr("edge-1")));
        assertThat(f.service.list(new RouterQuery("core-*", null, null, 0, 100)).total).isEqualTo(5);
        assertThat(f.service.list(new RouterQuery(null, OperState.SHUTDOWN, null, 0, 100)).total).isEqualTo(2);
        var page = f.service.list(new RouterQuery("core-*", OperState.RUNNING, null, 1, 1));
        assertThat(page.total).isEqualTo(3);
        assertThat(page.virtualRouter).extracting(v -> v.vmName).containsExactly("core-3");
        assertThat(f.service.list(new RouterQuery("*-1", null, null, 0, 100)).virtualRouter)
                .extracting(v -> v.vmName).containsExactly("core-1", "edge-1");
    }

    @Test
    void changesMadeOnTheHostAreFollowed() throws Exception {
        int i = done(SingleVr.create(f.service, vr("victim"))).vmIndex;
        f.driver.setPowerBehindTheBack(i, PowerState.HALTED);
        assertThat(f.service.get(i).orElseThrow().operState()).isEqualTo(OperState.SHUTDOWN);
        f.driver.deleteBehindTheBack(i);
        VirtualRouter vr = f.service.get(i).orElseThrow();
        assertThat(vr.operState()).isEqualTo(OperState.CRASHED);
        assertThat(vr.vmEntry.vmOperStateReason).contains("outside vrouter");
    }
}
