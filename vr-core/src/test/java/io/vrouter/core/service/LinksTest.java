package io.vrouter.core.service;

import static io.vrouter.core.service.ServiceFixture.vr;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vrouter.core.config.Caller;
import io.vrouter.core.config.Credentials.Role;
import io.vrouter.core.config.Settings;
import io.vrouter.core.config.Tenants;
import io.vrouter.core.model.LinkStatus;
import io.vrouter.core.model.LinkType;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import io.vrouter.core.model.VmNetworkEntry;
import io.vrouter.core.model.VrEvent;
import io.vrouter.core.spi.Applied;
import io.vrouter.core.spi.ChangeSet;
import io.vrouter.core.spi.VirtualRouters;
import io.vrouter.core.spi.VrException.Reason;
import io.vrouter.core.spi.VrException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Links and live resources in the core: which peer links a set may declare across the VRs, the
 * columns each link type needs, behaviours a driver lacks refused before anything changes, and rates
 * and CPU weights changed on a running VR without detaching an interface.
 */
class LinksTest extends WithService {
    private static final Caller PROVIDER = new Caller("inp", null, Role.OPERATOR, "test", "192.0.2.1");
    private static final Caller A = new Caller("alice", "acme", Role.OPERATOR, "test", "192.0.2.2");
    private static final Caller B = new Caller("bob", "bravo", Role.OPERATOR, "test", "192.0.2.3");

    private VirtualRouters provider;
    private VirtualRouters acme;
    private VirtualRouters bravo;

    @BeforeEach
    void tenants() {
        f.service.useTenants(Tenants.from(Settings.of(Map.of("tenant.acme", "vrs=10", "tenant.bravo", "vrs=10"))));
        provider = f.service.as(PROVIDER);
        acme = f.service.as(A);
        bravo = f.service.as(B);
    }

    static VmNetworkConfigEntry peer(int index, int farVr, int farIndex) {
        VmNetworkConfigEntry n = new VmNetworkConfigEntry();
        n.vmNetworkConfigIndex = index;
        n.vmNetworkConfigLinkType = LinkType.PEER;
        n.vmNetworkConfigPeerRouter = farVr;
        n.vmNetworkConfigPeerInterface = farIndex;
        return n;
    }

    static VmNetworkConfigEntry bridge(int index, String bridge) {
        VmNetworkConfigEntry n = new VmNetworkConfigEntry();
        n.vmNetworkConfigIndex = index;
        n.vmNetworkConfigParent = bridge;
        return n;
    }

    private static VmConfigEntry vr(String name, int vmIndex, VmNetworkConfigEntry... ifaces) {
        VmConfigEntry c = ServiceFixture.vr(name);
        c.vmIndex = vmIndex;
        c.vmNetworkConfigTable = ifaces.length == 0 ? null : new java.util.ArrayList<>(List.of(ifaces));
        return c;
    }

    private static void done(Applied a) {
        a.completion().join();
    }

    /** The reasons of the linkChanged events published so far, as "vmIndex: reason". */
    private List<String> linkEvents() {
        return f.events.stream().filter(e -> e.type == VrEvent.Type.LINK_CHANGED).map(e -> e.vmIndex + ": " + e.reason).toList();
    }

    /** Waits for the linkChanged events (the bus delivers on a thread of its own), at most 10 s. */
    private void awaitLinkEvents(String... expected) throws InterruptedException {
        long end = System.nanoTime() + 10_000_000_000L;
        while (!linkEvents().equals(List.of(expected)) && System.nanoTime() < end) Thread.sleep(5);
        assertThat(linkEvents()).containsExactly(expected);
    }

    private VmNetworkEntry state(int vmIndex, int networkIndex) {
        return f.service.get(vmIndex).orElseThrow().vmNetworkTable.stream()
                .filter(n -> n.vmNetworkIndex == networkIndex).findFirst().orElseThrow();
    }

    /** Refused, and nothing changed: the VRs' rows are the same objects as before. */
    private void refused(VirtualRouters as, ChangeSet set, Reason reason, String message) {
        Map<Integer, VmConfigEntry> before = new java.util.HashMap<>();
        for (int i : f.service.indices()) before.put(i, f.service.getConfig(i).orElseThrow());
        List<String> calls = List.copyOf(f.recorder.calls);
        assertThatThrownBy(() -> as.apply(set))
                .isInstanceOfSatisfying(VrException.class, e -> assertThat(e.reason()).isEqualTo(reason))
                .hasMessageContaining(message);
        for (int i : f.service.indices()) assertThat(f.service.getConfig(i).orElseThrow()).isSameAs(before.get(i));
        assertThat(f.service.indices()).containsExactlyInAnyOrderElementsOf(before.keySet());
        assertThat(f.recorder.calls).isEqualTo(calls);
    }

    @Test
    void aPeerLinkDeclaredAtBothEndsIsUpAtBothAndDownWhenOneEndGoes() throws InterruptedException {
        done(acme.apply(ChangeSet.builder().create(vr("r2", 2)).build()));
        done(acme.apply(ChangeSet.builder().create(vr("r1", 1, peer(1, 2, 3))).build()));
        // Half declared: the far VR has no interface 3 yet, so the link is down.
        assertThat(state(1, 1).vmNetworkLinkStatus).isEqualTo(LinkStatus.DOWN);
        done(acme.apply(ChangeSet.builder().edit(2, ChangeSet.putInterface(peer(3, 1, 1))).build()));
        assertThat(state(1, 1).vmNetworkLinkStatus).isEqualTo(LinkStatus.UP);
        assertThat(state(2, 3).vmNetworkLinkStatus).isEqualTo(LinkStatus.UP);
        assertThat(state(2, 3).vmNetworkLinkDelay).isNotNull();
        assertThat(state(2, 3).vmNetworkParent).isNull();
        // Each end's coming up is an event, as a probe would tell it.
        awaitLinkEvents("1: the link of interface 1 is up", "2: the link of interface 3 is up");

        done(acme.apply(ChangeSet.builder().edit(2, ChangeSet.removeInterface(3)).build()));
        assertThat(state(1, 1).vmNetworkLinkStatus).isEqualTo(LinkStatus.DOWN);
        awaitLinkEvents("1: the link of interface 1 is up", "2: the link of interface 3 is up", "1: the link of interface 1 is down");
        done(acme.apply(ChangeSet.builder().edit(2, ChangeSet.putInterface(peer(3, 1, 1))).build()));
        assertThat(state(1, 1).vmNetworkLinkStatus).isEqualTo(LinkStatus.UP);
        done(acme.apply(ChangeSet.builder().remove(2).build()));
        assertThat(state(1, 1).vmNetworkLinkStatus).isEqualTo(LinkStatus.DOWN);
        // The end left behind names a VR that is gone: the VR's other changes are still accepted.
        VmConfigEntry renamed = new VmConfigEntry();
        renamed.vmName = "r1-renamed";
        done(acme.apply(ChangeSet.builder().edit(1, ChangeSet.columns(renamed)).build()));
        assertThat(f.service.getConfig(1).orElseThrow().vmName).isEqualTo("r1-renamed");
    }

    @Test
    void bothEndsInOneSetAreAccepted() {
        done(acme.apply(ChangeSet.builder().create(vr("r1", 1, peer(1, 2, 1))).create(vr("r2", 2, peer(1, 1, 1))).build()));
        assertThat(state(1, 1).vmNetworkLinkStatus).isEqualTo(LinkStatus.UP);
    }

    @Test
    void badLinksAreRefusedBeforeAnythingChanges() {
        done(acme.apply(ChangeSet.builder().create(vr("a1", 1, bridge(1, "br0"))).create(vr("a2", 2, peer(1, 3, 1)))
                .create(vr("a3", 3, peer(1, 2, 1))).build()));
        done(bravo.apply(ChangeSet.builder().create(vr("b1", 4, bridge(1, "br0"))).build()));

        refused(acme, ChangeSet.builder().create(vr("self", 5, peer(1, 5, 2))).build(), Reason.INVALID,
                "a VR cannot be linked to itself");
        // Another tenant's VR is answered as a missing one, word for word.
        refused(acme, ChangeSet.builder().create(vr("x", 5, peer(1, 4, 1))).build(), Reason.INVALID,
                "there is no VR with vmIndex 4");
        refused(acme, ChangeSet.builder().create(vr("x", 5, peer(1, 99, 1))).build(), Reason.INVALID,
                "there is no VR with vmIndex 99");
        // The provider sees bravo's VR, but a link joins VRs of one owner only.
        refused(provider, ChangeSet.builder().edit(1, ChangeSet.putInterface(peer(2, 4, 2))).build(), Reason.INVALID,
                "belongs to another owner");
        // Interface 1 of a3 is linked to a2 already.
        refused(acme, ChangeSet.builder().create(vr("x", 5, peer(1, 3, 1))).build(), Reason.EXISTS,
                "interface 1 of VR 3 is already linked to VR 2's interface 1");
        // Interface 1 of a1 is on a bridge.
        refused(acme, ChangeSet.builder().create(vr("x", 5, peer(1, 1, 1))).build(), Reason.EXISTS,
                "interface 1 of VR 1 is attached otherwise");

        VmNetworkConfigEntry noFar = peer(1, 1, 2);
        noFar.vmNetworkConfigPeerInterface = null;
        refused(acme, ChangeSet.builder().create(vr("x", 5, noFar)).build(), Reason.MISSING, "vmNetworkConfigPeerInterface");
        VmNetworkConfigEntry withParent = peer(1, 1, 2);
        withParent.vmNetworkConfigParent = "br0";
        refused(acme, ChangeSet.builder().create(vr("x", 5, withParent)).build(), Reason.INVALID, "a peer link has no host parent");

        VmNetworkConfigEntry vxlan = bridge(1, "eth0");
        vxlan.vmNetworkConfigLinkType = LinkType.VXLAN;
        vxlan.vmNetworkConfigVni = 16_777_216;
        vxlan.vmNetworkConfigRemote = "203.0.113.2";
        refused(provider, ChangeSet.builder().create(vr("x", 5, vxlan)).build(), Reason.INVALID, "vmNetworkConfigVni");
        vxlan.vmNetworkConfigVni = 42;
        vxlan.vmNetworkConfigRemote = "224.0.0.1";
        refused(provider, ChangeSet.builder().create(vr("x", 5, vxlan)).build(), Reason.INVALID, "a multicast address");
        vxlan.vmNetworkConfigRemote = "203.0.113.2";
        // The underlay is the provider's.
        refused(acme, ChangeSet.builder().create(vr("x", 5, vxlan)).build(), Reason.DENIED, "host NICs and underlays");
        done(provider.apply(ChangeSet.builder().create(vr("x", 5, vxlan)).build()));

        VmNetworkConfigEntry rate = bridge(2, "br0");
        rate.vmNetworkConfigRateOut = 63;
        refused(acme, ChangeSet.builder().edit(1, ChangeSet.putInterface(rate)).build(), Reason.INVALID, "vmNetworkConfigRateOut");
        VmConfigEntry withVni = vr("y", 6, bridge(1, "br0"));
        withVni.vmNetworkConfigTable.get(0).vmNetworkConfigVni = 7;
        refused(acme, ChangeSet.builder().create(withVni).build(), Reason.INVALID, "is not a column of a bridge interface");
    }

    @Test
    void aTenantNamesOnlyTheUnderlaysTheProviderGrantsItAndKeepsChangingAVrTheProviderLinked() {
        f.service.useTenants(Tenants.from(Settings.of(Map.of("tenant.acme", "vrs=10, underlays=eth1 eth2", "tenant.bravo", "vrs=10"))));
        // The provider links a VR of acme's over eth0, which acme was not granted.
        VmConfigEntry linked = vr("linked", 7, vxlan(1, "eth0", 42));
        linked.vmConfigTenant = "acme";
        done(provider.apply(ChangeSet.builder().create(linked).build()));
        // acme changes the rest of that VR: its interface stays as the provider made it.
        VmConfigEntry renamed = new VmConfigEntry();
        renamed.vmName = "linked-renamed";
        done(acme.apply(ChangeSet.builder().edit(7, ChangeSet.columns(renamed)).build()));
        // acme attaches over eth1, granted; not over eth0, nor bravo over eth1.
        done(acme.apply(ChangeSet.builder().edit(7, ChangeSet.putInterface(vxlan(2, "eth1", 43))).build()));
        refused(acme, ChangeSet.builder().edit(7, ChangeSet.putInterface(vxlan(3, "eth0", 44))).build(), Reason.DENIED,
                "cannot attach a vxlan interface to 'eth0', which the provider has not granted the tenant");
        refused(bravo, ChangeSet.builder().create(vr("b", 8, vxlan(1, "eth1", 45))).build(), Reason.DENIED, "host NICs and underlays");
        assertThatThrownBy(() -> Tenants.from(Settings.of(Map.of("tenant.acme", "underlays=eth1 ../x"))))
                .hasMessageContaining("underlay '../x' is not a Linux interface name");
    }

    private static VmNetworkConfigEntry vxlan(int index, String underlay, int vni) {
        VmNetworkConfigEntry n = bridge(index, underlay);
        n.vmNetworkConfigLinkType = LinkType.VXLAN;
        n.vmNetworkConfigVni = vni;
        n.vmNetworkConfigRemote = "203.0.113.2";
        return n;
    }

    @Test
    void ratesChangeOnALiveInterfaceWithoutDetachingIt() {
        done(acme.apply(ChangeSet.builder().create(vr("r1", 1, bridge(1, "br0"))).build()));
        f.recorder.calls.clear();
        VmNetworkConfigEntry limited = bridge(1, "br0");
        limited.vmNetworkConfigRateIn = 20_000;
        limited.vmNetworkConfigRateOut = 50_000;
        done(acme.apply(ChangeSet.builder().edit(1, ChangeSet.putInterface(limited)).build()));
        assertThat(f.recorder.calls).containsExactly("setRates 1/1 in=20000 out=50000");
        VmNetworkConfigEntry now = f.service.getConfig(1).orElseThrow().interfaces().get(0);
        assertThat(now.vmNetworkConfigRateIn).isEqualTo(20_000);
        assertThat(now.vmNetworkConfigRateOut).isEqualTo(50_000);

        VmConfigEntry weight = new VmConfigEntry();
        weight.vmConfigCpuWeight = 400;
        done(acme.apply(ChangeSet.builder().edit(1, ChangeSet.columns(weight)).build()));
        assertThat(f.service.getConfig(1).orElseThrow().vmConfigCpuWeight).isEqualTo(400);
        assertThat(f.service.get(1).orElseThrow().vmEntry.vmOperState).isEqualTo(io.vrouter.core.model.OperState.RUNNING);
    }

    @Test
    void aDriverWithoutTheBehaviourRefusesCleanly() {
        f.recorder.behaviours = false;
        refused(provider, ChangeSet.builder().create(vr("r1", 1, peer(1, 2, 1))).build(), Reason.NOT_SUPPORTED,
                "does not make peer links");
        VmNetworkConfigEntry rate = bridge(1, "br0");
        rate.vmNetworkConfigRateOut = 1_000;
        refused(provider, ChangeSet.builder().create(vr("r1", 1, rate)).build(), Reason.NOT_SUPPORTED,
                "does not limit interface rates");
        VmConfigEntry weighted = vr("r1", 1, bridge(1, "br0"));
        weighted.vmConfigCpuWeight = 10;
        refused(provider, ChangeSet.builder().create(weighted).build(), Reason.NOT_SUPPORTED, "does not set CPU weights");
    }
}
