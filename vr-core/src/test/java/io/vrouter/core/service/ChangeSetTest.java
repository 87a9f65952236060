package io.vrouter.core.service;

import static io.vrouter.core.service.ServiceFixture.vr;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vrouter.core.driver.VmRuntime;
import io.vrouter.core.driver.sim.LatencyProfile;
import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.InetAddressType;
import io.vrouter.core.model.ModelJson;
import io.vrouter.core.model.OperState;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import io.vrouter.core.model.VmNetworkEntry;
import io.vrouter.core.model.VrEvent;
import io.vrouter.core.spi.Applied;
import io.vrouter.core.spi.ChangeFailedException;
import io.vrouter.core.spi.ChangeSet;
import io.vrouter.core.spi.ConflictException;
import io.vrouter.core.spi.Events;
import io.vrouter.core.spi.ValidationException;
import io.vrouter.core.spi.VrException.Reason;
import io.vrouter.core.spi.VrException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link VirtualRouterService#apply}: every rule checked once for a whole set (a refused set changes
 * nothing), the order of the hypervisor work, the undo of a set whose work fails at any step, a
 * crash in the middle of a set, and two sets on one VR at once.
 */
class ChangeSetTest extends WithService {
    // ---------------------------------------------------------------- helpers

    private static ChangeSet.Builder set() {
        return ChangeSet.builder();
    }

    /** Edits that set columns. */
    private static ChangeSet.RowEdit with(Consumer<VmConfigEntry> columns) {
        return columns::accept;
    }

    private static VmNetworkConfigEntry iface(Integer index, String parent) {
        VmNetworkConfigEntry n = new VmNetworkConfigEntry();
        n.vmNetworkConfigIndex = index;
        n.vmNetworkConfigParent = parent;
        return n;
    }

    private int make(String name, AdminState admin, VmNetworkConfigEntry... ifaces) throws Exception {
        VmConfigEntry c = vr(name, admin);
        if (ifaces.length > 0) c.vmNetworkConfigTable = List.of(ifaces);
        return SingleVr.create(f.service, c).await(WAIT).orElseThrow().orElseThrow().vmIndex;
    }

    /** Applies a set and waits for its hypervisor work; a failure is thrown. */
    private void applied(ChangeSet.Builder b) throws Exception {
        f.service.apply(b.build()).completion().get(10, TimeUnit.SECONDS);
    }

    /** The failure the set's work ended with. */
    private VrException failedWith(ChangeSet.Builder b) throws Exception {
        ChangeSet set = b.build();
        Applied a = f.service.apply(set);
        try {
            a.completion().get(10, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            return (VrException) e.getCause();
        }
        throw new AssertionError("the set was applied: " + set);
    }

    private VmConfigEntry row(int i) {
        return f.service.getConfig(i).orElseThrow();
    }

    private VmRuntime host(int i) {
        return f.driver.inspect(i).orElseThrow();
    }

    /**
     * Everything a set can change, as text: each VR's row and operational state, each VM on the host
     * with its name, power state, CPUs, memory and interfaces.
     */
    private String state() throws Exception {
        Map<Integer, String> s = new TreeMap<>();
        for (int i : f.service.indices()) {
            var vr = f.service.get(i).orElseThrow();
            s.put(i, ModelJson.mapper().writeValueAsString(f.service.getConfig(i).orElseThrow()) + " " + vr.operState());
        }
        StringBuilder out = new StringBuilder(s.toString());
        for (VmRuntime vm : f.driver.list()) {
            out.append("\nVM ").append(vm.vmIndex()).append(' ').append(vm.vmName()).append(' ').append(vm.power())
                    .append(" cpus=").append(vm.entry().vmMaxCpuNumber).append(" mem=").append(vm.entry().vmMaxMem);
            for (VmNetworkEntry n : vm.networks()) out.append(" if").append(n.vmNetworkIndex).append('@').append(n.vmNetworkParent);
        }
        return out.toString();
    }

    private void assertRefused(ChangeSet.Builder b, Reason reason, String field, Integer vmIndex) throws Exception {
        String before = state();
        int events = f.events.size();
        long journal = Files.size(dir.resolve("config.journal"));
        ChangeSet set = b.build();
        assertThatThrownBy(() -> f.service.validate(set)).as("validate").isInstanceOfSatisfying(VrException.class,
                e -> assertThat(e.reason()).isEqualTo(reason));
        assertThatThrownBy(() -> f.service.apply(set)).isInstanceOfSatisfying(VrException.class, e -> {
            assertThat(e.reason()).as(e.getMessage()).isEqualTo(reason);
            assertThat(e.field()).as(e.getMessage()).isEqualTo(field);
            assertThat(e.vmIndex()).as(e.getMessage()).isEqualTo(vmIndex);
        });
        assertThat(state()).as("nothing changed").isEqualTo(before);
        assertThat(f.events).hasSize(events);
        assertThat(Files.size(dir.resolve("config.journal"))).as("nothing written").isEqualTo(journal);
    }

    // ---------------------------------------------------------------- the rules

    @Test
    void everyRuleIsCheckedBeforeAnythingChanges() throws Exception {
        int a = make("a", AdminState.RUNNING);
        int b = make("b", AdminState.SHUTDOWN);
        int c = make("c", AdminState.RUNNING, iface(1, "br0"));

        // The bug of issue 11: the stop went through before the memory was refused.
        assertRefused(set().edit(a, with(r -> {
            r.vmAdminState = AdminState.SHUTDOWN;
            r.vmConfigMemory = -5;
        })), Reason.INVALID, "vmConfigMemory", a);
        assertRefused(set().create(new VmConfigEntry()), Reason.MISSING, "vmName", null);
        VmConfigEntry cpus = vr("cpus");
        cpus.vmConfigCpuNumber = 65;
        assertRefused(set().create(cpus), Reason.INVALID, "vmConfigCpuNumber", null);
        assertRefused(set().create(vr("paused", AdminState.PAUSED)), Reason.INVALID, "vmAdminState", null);
        VmConfigEntry template = vr("t");
        template.vmConfigTemplate = "../../etc/passwd";
        assertRefused(set().create(template), Reason.INVALID, "vmConfigTemplate", null);
        VmConfigEntry taken = vr("taken");
        taken.vmIndex = b;
        assertRefused(set().create(taken), Reason.EXISTS, "vmIndex", b);
        assertRefused(set().create(vr("a")), Reason.NOT_UNIQUE, "vmName", 4);
        VmConfigEntry x1 = vr("x");
        x1.vmIndex = 10;
        VmConfigEntry x2 = vr("x");
        x2.vmIndex = 11;
        assertRefused(set().create(x1).create(x2), Reason.NOT_UNIQUE, "vmName", 11);
        assertRefused(set().edit(b, with(r -> r.vmName = "a")), Reason.NOT_UNIQUE, "vmName", b);
        assertRefused(set().edit(a, with(r -> r.vmConfigMemory = 1024)), Reason.NOT_SHUT_DOWN, "vmConfigMemory", a);
        assertRefused(set().edit(a, with(r -> {
            r.vmAdminState = AdminState.SUSPENDED;
            r.vmConfigCpuNumber = 2;
        })), Reason.NOT_SHUT_DOWN, "vmConfigCpuNumber", a);
        assertRefused(set().edit(b, with(r -> r.vmAdminState = AdminState.SUSPENDED)), Reason.STATE, "vmAdminState", b);
        assertRefused(set().edit(a, with(r -> r.vmConfigTemplate = "openwrt")), Reason.FIXED, "vmConfigTemplate", a);
        assertRefused(set().edit(99, with(r -> r.vmName = "n")), Reason.NOT_FOUND, null, 99);
        assertRefused(set().remove(99), Reason.NOT_FOUND, null, 99);
        assertRefused(set().edit(a, with(r -> r.vmConfigAutoStart = true)).remove(a), Reason.INVALID, "vmIndex", a);
        assertRefused(set().edit(c, with(r -> r.vmNetworkConfigTable = List.of(iface(2, "br1"), iface(2, "br2")))),
                Reason.INVALID, "vmNetworkConfigIndex", c);
        assertRefused(set().edit(c, ChangeSet.putInterface(iface(3, null))), Reason.MISSING, "vmNetworkConfigParent", c);
        assertRefused(set().edit(c, ChangeSet.removeInterface(7)), Reason.NOT_FOUND, null, c);
        // One bad VR refuses the whole set: the rename of b is not made either.
        assertRefused(set().edit(b, with(r -> r.vmName = "b2")).edit(a, with(r -> r.vmConfigCpuNumber = 4)),
                Reason.NOT_SHUT_DOWN, "vmConfigCpuNumber", a);
        // What the driver cannot do.
        f.driver.limitAdminStates(EnumSet.of(AdminState.RUNNING, AdminState.SHUTDOWN));
        assertRefused(set().edit(a, with(r -> r.vmAdminState = AdminState.SUSPENDED)), Reason.NOT_SUPPORTED, "vmAdminState", a);
        // A VR being removed takes no other change.
        f.recorder.hold("destroy", 1);
        SingleVr.remove(f.service, c);
        assertThat(f.recorder.held.await(10, TimeUnit.SECONDS)).isTrue();
        assertRefused(set().edit(c, with(r -> r.vmConfigAutoStart = true)), Reason.STATE, null, c);
        // Its name stays taken until it is gone.
        assertRefused(set().edit(a, with(r -> r.vmName = "c")), Reason.NOT_UNIQUE, "vmName", a);
        f.recorder.release.countDown();
    }

    private static VmNetworkConfigEntry addressed(Integer index, InetAddressType type, String address, Integer prefix) {
        VmNetworkConfigEntry n = iface(index, "br0");
        n.vmNetworkConfigAddressType = type;
        n.vmNetworkConfigAddress = address;
        n.vmNetworkConfigPrefixLength = prefix;
        return n;
    }

    private static VmNetworkConfigEntry withMac(Integer index, String mac) {
        VmNetworkConfigEntry n = iface(index, "br0");
        n.vmNetworkConfigPhysAddress = mac;
        return n;
    }

    /** An address that is not of its type, or no interface's, is refused before anything changes (issue 23 item 6). */
    @ParameterizedTest
    @CsvSource({
            "IPV6, 192.0.2.1, 64", "IPV4, 2001:db8::1, 24", "IPV6, ::ffff:192.0.2.1, 64", "IPV6, .1:2::3, 64",
            "IPV6, 1:2:3:4:5:6:7:8:9, 64", ", 255.255.255.255, 24", ", 255.255.255.255, 32", ", 0.0.0.0, 24",
            ", 192.0.2.0, 24", ", 192.0.2.255, 24", ", 192.0.2.127, 25", ", 224.0.0.5, 24", ", 127.0.0.1, 8",
            ", ::, 64", ", ::1, 128", ", ff02::1, 64", ", 2001:db8::, 64"})
    void anInterfaceAddressMustBeOfItsTypeAndAnInterfacesAddress(InetAddressType type, String address, int prefix) throws Exception {
        int a = make("a", AdminState.RUNNING);
        assertRefused(set().edit(a, ChangeSet.putInterface(addressed(1, type, address, prefix))), Reason.INVALID,
                "vmNetworkConfigAddress", a);
        VmConfigEntry created = vr("b");
        created.vmNetworkConfigTable = List.of(addressed(1, type, address, prefix));
        assertRefused(set().create(created), Reason.INVALID, "vmNetworkConfigAddress", null);
    }

    @ParameterizedTest
    @CsvSource({"IPV4, 192.0.2.1, 24", ", 192.0.2.0, 31", ", 192.0.2.1, 31", ", 192.0.2.255, 32", ", 198.51.100.1, 0",
            "IPV6, 2001:db8::1, 64", ", 2001:db8::, 127", ", fe80::1, 64", ", 2001:DB8:0:0::1:2, 96"})
    void interfaceAddressesOfEveryKindAreTaken(InetAddressType type, String address, int prefix) throws Exception {
        int a = make("a", AdminState.RUNNING);
        applied(set().edit(a, ChangeSet.putInterface(addressed(1, type, address, prefix))));
        VmNetworkConfigEntry n = row(a).interfaces().get(0);
        assertThat(n.vmNetworkConfigAddress).isEqualTo(address);
        assertThat(n.vmNetworkConfigAddressType).isEqualTo(address.contains(":") ? InetAddressType.IPV6 : InetAddressType.IPV4);
    }

    /**
     * A MAC is one interface's across the VRs as they will be (issue 23 item 6): twice in one VR, or
     * another VR's (one being removed included) is refused; one the same set takes from a VR it
     * removes is free; an interface keeps its own MAC through any other change.
     */
    @Test
    void aMacIsOneInterfacesAcrossTheVrs() throws Exception {
        String mac = "02:00:5e:00:53:01";
        int a = make("a", AdminState.RUNNING, withMac(1, mac));
        int b = make("b", AdminState.RUNNING, iface(1, "br0"));
        assertRefused(set().edit(b, ChangeSet.putInterface(withMac(2, mac.toUpperCase(java.util.Locale.ROOT)))),
                Reason.NOT_UNIQUE, "vmNetworkConfigPhysAddress", b);
        assertRefused(set().edit(a, ChangeSet.putInterface(withMac(2, mac))), Reason.NOT_UNIQUE, "vmNetworkConfigPhysAddress", a);
        assertRefused(set().edit(b, with(r -> r.vmNetworkConfigTable = List.of(withMac(1, "02:00:5e:00:53:02"),
                withMac(2, "02:00:5e:00:53:02")))), Reason.NOT_UNIQUE, "vmNetworkConfigPhysAddress", b);
        VmConfigEntry c = vr("c");
        c.vmNetworkConfigTable = List.of(withMac(1, mac));
        assertRefused(set().create(c), Reason.NOT_UNIQUE, "vmNetworkConfigPhysAddress", 3);
        assertRefused(set().create(vr("zero")).edit(b, ChangeSet.putInterface(withMac(3, "00:00:00:00:00:00"))),
                Reason.INVALID, "vmNetworkConfigPhysAddress", b);
        // The one refused is the interface that takes the MAC, at its VR and interface.
        assertThatThrownBy(() -> f.service.apply(set().edit(b, ChangeSet.putInterface(withMac(4, mac))).build()))
                .isInstanceOfSatisfying(VrException.class, e -> {
                    assertThat(e.networkIndex()).isEqualTo(4);
                    assertThat(e.getMessage()).contains("VR " + a + "'s interface 1");
                });
        // A change of anything else keeps the VR's own MAC, and the MAC is free once its VR is removed.
        applied(set().edit(a, with(r -> r.vmName = "a2")));
        applied(set().remove(a).edit(b, ChangeSet.putInterface(withMac(2, mac))));
        assertThat(row(b).interfaces()).extracting(n -> n.vmNetworkConfigPhysAddress).contains(mac);
        // A VR being removed keeps its MACs until it is gone.
        f.recorder.hold("destroy", 1);
        SingleVr.remove(f.service, b);
        assertThat(f.recorder.held.await(10, TimeUnit.SECONDS)).isTrue();
        c.vmIndex = 9;
        assertRefused(set().create(c), Reason.NOT_UNIQUE, "vmNetworkConfigPhysAddress", 9);
        f.recorder.release.countDown();
    }

    /** The driver's check sees every row a set makes, numbered, and its refusal refuses the set at its column. */
    @Test
    void whatTheDriverRefusesOfARowIsRefusedBeforeAnythingChanges() throws Exception {
        int a = make("a", AdminState.RUNNING, iface(1, "br0"));
        f.recorder.refuseParent("bad0");
        assertRefused(set().edit(a, ChangeSet.putInterface(iface(2, "bad0"))), Reason.INVALID, "vmNetworkConfigParent", a);
        VmConfigEntry b = vr("b");
        b.vmNetworkConfigTable = List.of(iface(null, "br0"), iface(null, "bad0"));
        assertThatThrownBy(() -> f.service.validate(set().create(vr("ok")).create(b).build()))
                .isInstanceOfSatisfying(ValidationException.class, e -> {
                    assertThat(e.vmIndex()).isEqualTo(a + 2);
                    assertThat(e.networkIndex()).isEqualTo(2);
                    assertThat(e.getMessage()).isEqualTo("vmNetworkConfigParent: 'bad0' is refused by the test driver");
                });
        assertThat(f.recorder.checked).extracting(r -> r.vmIndex).contains(a, a + 1, a + 2);
        assertThat(f.service.indices()).containsExactly(a);
    }

    @Test
    void absentColumnsTakeTheirDefaultsAndTheTemplateIsTheDriversOrTheVrsOwn() throws Exception {
        Applied made = f.service.apply(set().create(vr("plain")).build());
        VmConfigEntry c = made.only().accepted();
        assertThat(c.vmConfigTemplate).isEqualTo(f.driver.templates().get(0));
        assertThat(c.vmConfigCpuNumber).isEqualTo(1);
        assertThat(c.vmConfigMemory).isEqualTo(512);
        assertThat(c.vmConfigAutoStart).isFalse();
        assertThat(c.vmAdminState).isEqualTo(AdminState.RUNNING);
        VmConfigEntry other = vr("other", AdminState.SHUTDOWN);
        other.vmConfigTemplate = "openwrt";
        other.vmConfigCpuNumber = 4;
        int i = SingleVr.create(f.service, other).accepted().vmIndex;
        // A whole row without the template or CPUs: CPUs back to the default, the template the VR's.
        VmConfigEntry desired = new VmConfigEntry();
        desired.vmIndex = i;
        desired.vmName = "other";
        desired.vmAdminState = AdminState.SHUTDOWN;
        applied(set().replace(desired));
        assertThat(row(i).vmConfigTemplate).isEqualTo("openwrt");
        assertThat(row(i).vmConfigCpuNumber).isEqualTo(1);
        assertThat(host(i).entry().vmMaxCpuNumber).isEqualTo(1);
    }

    @Test
    void aDescriptionIsKeptByVrouterAloneAndChangesInAnyState() throws Exception {
        int a = make("a", AdminState.RUNNING);
        f.recorder.calls.clear();
        int events = f.events.size();
        applied(set().edit(a, with(r -> r.vmConfigDescription = "edge router, rack 4 — Zürich")));
        assertThat(row(a).vmConfigDescription).isEqualTo("edge router, rack 4 — Zürich");
        assertThat(f.recorder.calls).as("nothing for the host").isEmpty();
        assertThat(f.events.subList(events, f.events.size())).extracting(e -> e.type).containsExactly(VrEvent.Type.CONFIG_CHANGED);
        // Empty is none; too long or with control characters is refused.
        applied(set().edit(a, with(r -> r.vmConfigDescription = "")));
        assertThat(row(a).vmConfigDescription).isNull();
        assertRefused(set().edit(a, with(r -> r.vmConfigDescription = "é".repeat(128))), Reason.INVALID, "vmConfigDescription", a);
        assertRefused(set().edit(a, with(r -> r.vmConfigDescription = "two\nlines")), Reason.INVALID, "vmConfigDescription", a);
        // It survives a restart, as any column.
        applied(set().edit(a, with(r -> r.vmConfigDescription = "kept")));
        f.close();
        f = new ServiceFixture(dir);
        assertThat(row(a).vmConfigDescription).isEqualTo("kept");
    }

    // ---------------------------------------------------------------- the order of the work

    @Test
    void aResizeStopsFirstAndAStartComesLast() throws Exception {
        int a = make("a", AdminState.RUNNING);
        f.recorder.calls.clear();
        applied(set().edit(a, with(r -> {
            r.vmConfigMemory = 1024;
            r.vmAdminState = AdminState.SHUTDOWN;
        })));
        assertThat(f.recorder.callsOf(a)).containsExactly("stop " + a, "reconfigure " + a + " a");
        f.recorder.calls.clear();
        applied(set().edit(a, with(r -> {
            r.vmAdminState = AdminState.RUNNING;
            r.vmConfigCpuNumber = 2;
        })));
        assertThat(f.recorder.callsOf(a)).containsExactly("reconfigure " + a + " a", "start " + a);
        assertThat(host(a).entry().vmMaxCpuNumber).isEqualTo(2);
        assertThat(host(a).entry().vmMaxMem).isEqualTo(1024L);
        assertThat(f.service.get(a).orElseThrow().operState()).isEqualTo(OperState.RUNNING);
    }

    @Test
    void aRenameChainRenamesTheLastFirst() throws Exception {
        int a = make("a", AdminState.RUNNING);
        int b = make("b", AdminState.RUNNING);
        f.recorder.calls.clear();
        applied(set().edit(a, with(r -> r.vmName = "b")).edit(b, with(r -> r.vmName = "c")));
        // The host keeps names unique: "b" is free for VR a only once VR b is "c".
        assertThat(f.recorder.calls).containsExactly("reconfigure " + b + " c", "reconfigure " + a + " b");
        assertThat(host(a).vmName()).isEqualTo("b");
        assertThat(host(b).vmName()).isEqualTo("c");
        assertThat(f.service.findByName("b")).contains(a);
        assertThat(f.service.findByName("c")).contains(b);
        assertThat(f.service.findByName("a")).isEmpty();
    }

    @Test
    void aSwapGoesThroughATemporaryName() throws Exception {
        int a = make("a", AdminState.RUNNING);
        int b = make("b", AdminState.SHUTDOWN);
        f.recorder.calls.clear();
        applied(set().edit(a, with(r -> r.vmName = "b")).edit(b, with(r -> r.vmName = "a")));
        assertThat(f.recorder.calls).containsExactly("reconfigure " + a + " vr" + a + "-renaming",
                "reconfigure " + b + " a", "reconfigure " + a + " b");
        assertThat(host(a).vmName()).isEqualTo("b");
        assertThat(host(b).vmName()).isEqualTo("a");
        assertThat(row(a).vmName).isEqualTo("b");
        assertThat(row(b).vmName).isEqualTo("a");
    }

    @Test
    void aNameGivenUpByARemovalIsTakenInTheSameSet() throws Exception {
        int a = make("a", AdminState.RUNNING);
        int b = make("b", AdminState.RUNNING);
        f.recorder.calls.clear();
        VmConfigEntry fresh = vr("b");
        applied(set().remove(a).edit(b, with(r -> r.vmName = "a")).create(fresh));
        int created = f.service.findByName("b").orElseThrow();
        assertThat(f.service.get(a)).isEmpty();
        assertThat(f.driver.inspect(a)).isEmpty();
        assertThat(host(b).vmName()).isEqualTo("a");
        assertThat(host(created).vmName()).isEqualTo("b");
        // The VM removed steps aside first and is destroyed last, when nothing else can fail.
        assertThat(f.recorder.calls).startsWith("stop " + a, "reconfigure " + a + " vr" + a + "-renaming")
                .endsWith("destroy " + a);
    }

    @Test
    void theVrsOfOneRemovalGoOneByOneAsTheirVmsDo() throws Exception {
        int a = make("a", AdminState.RUNNING);
        int b = make("b", AdminState.RUNNING);
        f.recorder.hold("destroy", 2);
        Applied removal = f.service.apply(set().remove(a).remove(b).build());
        assertThat(f.recorder.held.await(10, TimeUnit.SECONDS)).isTrue();
        // One destroy done, the other held: the first VR goes, the second stays until its VM is gone.
        awaitUntil(() -> f.service.get(a).isEmpty() || f.service.get(b).isEmpty());
        int second = f.service.get(a).isPresent() ? a : b;
        assertThat(f.service.get(second)).isPresent();
        assertThat(f.driver.inspect(second)).isPresent();
        f.recorder.release.countDown();
        removal.completion().get(10, TimeUnit.SECONDS);
        assertThat(f.service.get(second)).isEmpty();
    }

    // ---------------------------------------------------------------- undo

    /**
     * One set with a step of every kind: VR a stopped, resized, renamed and its interfaces changed;
     * b started; c removed; d suspended; e created. The step named fails; the set must leave every VR
     * (rows, states and VMs) as it was; with the undo switched off, the same failure leaves them changed.
     */
    @ParameterizedTest
    @ValueSource(strings = {"stop a", "reconfigure a", "removeInterface a", "addInterface a", "stop c",
            "provision e", "start e", "start b", "suspended d", "destroy c"})
    void aSetThatFailsAtAnyStepLeavesEveryVrAsItWas(String failing) throws Exception {
        for (boolean undo : new boolean[] {true, false}) {
            if (!undo) {
                f.close();
                Path again = dir.resolve("without-undo");
                f = new ServiceFixture(again);
                f.service.setUndoForTests(false);
            }
            int a = make("a", AdminState.RUNNING, iface(1, "br0"));
            int b = make("b", AdminState.SHUTDOWN);
            int c = make("c", AdminState.RUNNING);
            int d = make("d", AdminState.RUNNING);
            Map<String, Integer> index = Map.of("a", a, "b", b, "c", c, "d", d, "e", d + 1);
            String before = state();
            String[] op = failing.split(" ");
            f.recorder.failOnce(op[0], index.get(op[1]), "injected " + failing);
            VrException e = failedWith(set()
                    .edit(a, with(r -> {
                        r.vmAdminState = AdminState.SHUTDOWN;
                        r.vmConfigMemory = 1024;
                        r.vmName = "a2";
                        r.vmNetworkConfigTable = List.of(iface(1, "br1"), iface(2, "br2"));
                    }))
                    .edit(b, with(r -> r.vmAdminState = AdminState.RUNNING))
                    .remove(c)
                    .edit(d, with(r -> r.vmAdminState = AdminState.SUSPENDED))
                    .create(vr("e")));
            assertThat(e.reason()).isEqualTo(Reason.FAILED);
            assertThat(e.vmIndex()).isEqualTo(index.get(op[1]));
            assertThat(e.getMessage()).contains("injected " + failing);
            if (undo) {
                assertThat(state()).as("undone after " + failing).isEqualTo(before);
                assertThat(eventsOf(index.get(op[1]))).as("the VR it failed on says why")
                        .anyMatch(ev -> ev.reason != null && ev.reason.contains("injected " + failing));
            } else {
                assertThat(state()).as("without the undo, " + failing + " leaves a half-done set").isNotEqualTo(before);
            }
        }
    }

    @Test
    void aSetThatDependsOnAFailedOneIsNotApplied() throws Exception {
        int a = make("a", AdminState.RUNNING);
        f.recorder.hold("reconfigure", 1);
        f.recorder.failOnce("reconfigure", a, "host busy");
        Applied rename = f.service.apply(set().edit(a, with(r -> r.vmName = "x")).build());
        assertThat(f.recorder.held.await(10, TimeUnit.SECONDS)).isTrue();
        // "a" is free now that VR a is to be "x": a new VR takes it, after the rename.
        Applied taker = f.service.apply(set().create(vr("a")).build());
        int created = taker.only().accepted().vmIndex;
        f.recorder.release.countDown();
        assertThatThrownBy(() -> rename.completion().get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(ChangeFailedException.class);
        assertThatThrownBy(() -> taker.completion().get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(ChangeFailedException.class)
                .hasMessageContaining("depended on");
        assertThat(row(a).vmName).isEqualTo("a");
        assertThat(f.service.get(created)).isEmpty();
        assertThat(f.driver.inspect(created)).as("never provisioned").isEmpty();
        assertThat(f.service.findByName("a")).contains(a);
        // The journal says the same after a restart.
        f.close();
        f = new ServiceFixture(dir);
        assertThat(f.service.findByName("a")).contains(a);
        assertThat(f.service.get(created)).isEmpty();
    }

    // ---------------------------------------------------------------- a crash in the middle

    @Test
    void aSetCutShortByACrashIsFinishedAfterTheRestart() throws Exception {
        int a = make("a", AdminState.RUNNING, iface(1, "br0"));
        int b = make("b", AdminState.RUNNING);
        // The crash: the host call of the first reconfiguration never returns, and nothing after it runs.
        f.recorder.hold("reconfigure", 1);
        f.service.apply(set()
                .edit(a, with(r -> {
                    r.vmAdminState = AdminState.SHUTDOWN;
                    r.vmConfigMemory = 2048;
                    r.vmNetworkConfigTable = List.of(iface(1, "br0"), iface(2, "br9"));
                    r.vmName = "a2";
                }))
                .edit(b, with(r -> r.vmName = "a")).build());
        assertThat(f.recorder.held.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(host(a).power()).as("stopped before the crash").isEqualTo(io.vrouter.core.driver.PowerState.HALTED);
        assertThat(host(a).entry().vmMaxMem).as("not resized before the crash").isEqualTo(512L);
        f = new ServiceFixture(dir);   // the old server is gone: its held call never returns
        awaitUntil(() -> f.service.get(a).orElseThrow().operState() == OperState.SHUTDOWN
                && f.service.get(b).orElseThrow().operState() == OperState.RUNNING
                && f.driver.inspect(a).orElseThrow().entry().vmMaxMem == 2048L
                && f.driver.inspect(b).orElseThrow().vmName().equals("a")
                && f.driver.inspect(a).orElseThrow().networks().size() == 2);
        // All of it: the rows, and the VMs brought to them.
        assertThat(row(a).vmConfigMemory).isEqualTo(2048);
        assertThat(row(b).vmName).isEqualTo("a");
        assertThat(host(a).vmName()).isEqualTo("a2");
        assertThat(host(a).networks()).extracting(n -> n.vmNetworkParent).containsExactly("br0", "br9");
        assertThat(host(b).power()).isEqualTo(io.vrouter.core.driver.PowerState.RUNNING);
    }

    @Test
    void aSetWhoseRecordACrashCutShortLeavesNothing() throws Exception {
        int a = make("a", AdminState.RUNNING);
        // The crash: the set's record is torn in the journal, and the host was not asked for anything.
        f.recorder.holdAll("provision");
        VmConfigEntry b = vr("b");
        b.vmIndex = 7;
        VmConfigEntry c = vr("c");
        c.vmIndex = 8;
        f.service.apply(set().create(b).create(c).edit(a, with(r -> r.vmConfigAutoStart = true)).build());
        assertThat(f.recorder.held.await(10, TimeUnit.SECONDS)).isTrue();
        Path journal = dir.resolve("config.journal");
        byte[] bytes = Files.readAllBytes(journal);
        int lastLine = bytes.length - 2;
        while (lastLine > 0 && bytes[lastLine] != '\n') lastLine--;
        Files.write(journal, java.util.Arrays.copyOf(bytes, lastLine + 1 + (bytes.length - lastLine) / 2));
        f = new ServiceFixture(dir);
        // Nothing of it: no VR created, the change of VR a not made either.
        assertThat(f.service.get(7)).isEmpty();
        assertThat(f.service.get(8)).isEmpty();
        assertThat(f.driver.inspect(7)).isEmpty();
        assertThat(row(a).vmConfigAutoStart).isFalse();
        assertThat(f.service.findByName("b")).isEmpty();
    }

    private static void awaitUntil(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long end = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) throw new AssertionError("not reached in " + WAIT);
            Thread.sleep(10);
        }
    }

    // ---------------------------------------------------------------- two sets at once

    @Test
    void twoSetsOnOneVrNeverInterleave() throws Exception {
        f.close();
        f = new ServiceFixture(dir.resolve("slow"), new LatencyProfile(Duration.ofMillis(3), Duration.ofMillis(3),
                Duration.ofMillis(3), Duration.ofMillis(3), Duration.ofMillis(3)));
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 10; round++) {
                int i = make("r" + round, AdminState.RUNNING);
                String name = "r" + round;
                f.recorder.calls.clear();
                CountDownLatch go = new CountDownLatch(1);
                // A stops and resizes; B (checked against A's row when A comes first) resizes again and starts.
                Future<Applied> first = pool.submit(() -> {
                    go.await();
                    return f.service.apply(set().edit(i, with(r -> {
                        r.vmAdminState = AdminState.SHUTDOWN;
                        r.vmConfigMemory = 1024;
                    })).build());
                });
                Future<Applied> second = pool.submit(() -> {
                    go.await();
                    return f.service.apply(set().edit(i, with(r -> {
                        r.vmConfigCpuNumber = 2;
                        r.vmName = name + "-z";
                        r.vmAdminState = AdminState.RUNNING;
                    })).build());
                });
                go.countDown();
                first.get().completion().get(10, TimeUnit.SECONDS);
                boolean bApplied;
                try {
                    second.get().completion().get(10, TimeUnit.SECONDS);
                    bApplied = true;
                } catch (java.util.concurrent.ExecutionException e) {
                    assertThat(e.getCause()).isInstanceOf(ConflictException.class);
                    bApplied = false;
                }
                if (bApplied) {
                    assertThat(f.recorder.callsOf(i)).containsExactly("stop " + i, "reconfigure " + i + " " + name,
                            "reconfigure " + i + " " + name + "-z", "start " + i);
                    assertThat(host(i).entry().vmMaxCpuNumber).isEqualTo(2);
                } else {
                    assertThat(f.recorder.callsOf(i)).containsExactly("stop " + i, "reconfigure " + i + " " + name);
                }
                assertThat(host(i).entry().vmMaxMem).isEqualTo(1024L);
            }
        } finally {
            pool.shutdown();
        }
    }

    /** Events of a VR, for tests that look at what clients are told. */
    List<VrEvent> eventsOf(int vmIndex) {
        List<VrEvent> out = new ArrayList<>();
        for (VrEvent e : f.events) if (e.vmIndex == vmIndex) out.add(e);
        return out;
    }
}
