package io.vrouter.core.migration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vrouter.core.config.Caller;
import io.vrouter.core.config.Credentials.Role;
import io.vrouter.core.config.Settings;
import io.vrouter.core.config.Tenants;
import io.vrouter.core.driver.sim.LatencyProfile;
import io.vrouter.core.driver.sim.SimulatedDriver;
import io.vrouter.core.metrics.VrMetrics;
import io.vrouter.core.migration.Restore.Action;
import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.InetAddressType;
import io.vrouter.core.model.LinkType;
import io.vrouter.core.model.ModelJson;
import io.vrouter.core.model.OperState;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import io.vrouter.core.persistence.ConfigStore;
import io.vrouter.core.spi.ChangeSet;
import io.vrouter.core.spi.QuotaExceededException;
import io.vrouter.core.spi.ValidationException;
import io.vrouter.core.service.VirtualRouterService;
import io.vrouter.core.spi.VrException;
import io.vrouter.core.spi.VirtualRouters;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Backup and restore on simulated routers: a router's every VR saved, a router wiped (a new data
 * directory) and restored field by field, a restore run again that makes nothing, a partly populated
 * router given only what it lacks, a vmIndex taken here that moves a VR and its peer links, and
 * refusals that make nothing.
 */
class RestoreTest {
    private static final Caller PROVIDER = new Caller("inp", null, Role.OPERATOR, "test", "192.0.2.1");
    private static final Tenants ACME = Tenants.from(Settings.of(Map.of("tenant.acme", "vrs=10")));

    @TempDir
    Path dir;
    private final List<VirtualRouterService> services = new ArrayList<>();

    @AfterEach
    void stop() {
        services.forEach(VirtualRouterService::close);
    }

    /** A router of its own data directory, with tenant acme declared unless {@code tenants} says otherwise. */
    private VirtualRouters router(String name, Tenants tenants) throws Exception {
        Path data = dir.resolve(name);
        java.nio.file.Files.createDirectories(data);
        VirtualRouterService s = new VirtualRouterService(new SimulatedDriver(LatencyProfile.NONE, data.resolve("sim-host.journal")),
                new ConfigStore(data), VrMetrics.inMemory());
        services.add(s);
        s.start();
        s.useTenants(tenants);
        return s.as(PROVIDER);
    }

    private VirtualRouters router(String name) throws Exception {
        return router(name, ACME);
    }

    private static VmNetworkConfigEntry iface(int index, String mac, String address) {
        VmNetworkConfigEntry n = new VmNetworkConfigEntry();
        n.vmNetworkConfigIndex = index;
        n.vmNetworkConfigParent = "br0";
        n.vmNetworkConfigPhysAddress = mac;
        n.vmNetworkConfigAddressType = InetAddressType.IPV4;
        n.vmNetworkConfigAddress = address;
        n.vmNetworkConfigPrefixLength = 24;
        n.vmNetworkConfigRateIn = 20_000;
        n.vmNetworkConfigRateOut = 50_000;
        return n;
    }

    private static VmNetworkConfigEntry peer(int index, int farVr, int farIndex) {
        VmNetworkConfigEntry n = new VmNetworkConfigEntry();
        n.vmNetworkConfigIndex = index;
        n.vmNetworkConfigLinkType = LinkType.PEER;
        n.vmNetworkConfigPeerRouter = farVr;
        n.vmNetworkConfigPeerInterface = farIndex;
        return n;
    }

    private static VmConfigEntry vr(String name, int vmIndex, VmNetworkConfigEntry... ifaces) {
        VmConfigEntry c = new VmConfigEntry();
        c.vmName = name;
        c.vmIndex = vmIndex;
        c.vmNetworkConfigTable = ifaces.length == 0 ? null : new ArrayList<>(List.of(ifaces));
        return c;
    }

    /** Four VRs: one with addresses, MACs and rates; two of acme's joined by a peer link; one VXLAN end, shut down. */
    private static void populate(VirtualRouters r) {
        VmConfigEntry edge = vr("edge", 3, iface(1, "02:00:5e:00:53:01", "192.0.2.10"), iface(2, "02:00:5e:00:53:02", "198.51.100.10"));
        edge.vmConfigDescription = "the edge, kept whole";
        edge.vmConfigCpuNumber = 2;
        edge.vmConfigMemory = 1024;
        edge.vmConfigTemplate = "openwrt";
        edge.vmConfigCpuWeight = 400;
        VmConfigEntry left = vr("left", 5, peer(1, 6, 1));
        left.vmConfigTenant = "acme";
        VmConfigEntry right = vr("right", 6, peer(1, 5, 1));
        right.vmConfigTenant = "acme";
        right.vmConfigCpuWeight = 50;
        VmNetworkConfigEntry vxlan = new VmNetworkConfigEntry();
        vxlan.vmNetworkConfigIndex = 1;
        vxlan.vmNetworkConfigLinkType = LinkType.VXLAN;
        vxlan.vmNetworkConfigParent = "eth0";
        vxlan.vmNetworkConfigVni = 4242;
        vxlan.vmNetworkConfigRemote = "203.0.113.2";
        VmConfigEntry far = vr("far", 9, vxlan);
        far.vmAdminState = AdminState.SHUTDOWN;
        r.apply(ChangeSet.builder().create(edge).create(left).create(right).create(far).build()).completion().join();
    }

    private static String json(Object o) {
        return ModelJson.mapper().valueToTree(o).toString();
    }

    /** Every VR's row (by name) on the router as the backup has it: the same JSON, field by field. */
    private static void assertHolds(VirtualRouters r, RouterBackup backup) {
        assertThat(r.indices()).hasSize(backup.routers.size());
        for (BackedUpRouter b : backup.routers) {
            VmConfigEntry here = r.getConfig(r.findByName(b.vmName).orElseThrow()).orElseThrow();
            assertThat(json(here)).as(b.vmName).isEqualTo(json(b.row()));
        }
    }

    @Test
    void aWipedRouterIsRestoredFieldByFieldAndARestoreRunAgainMakesNothing() throws Exception {
        VirtualRouters a = router("a");
        populate(a);
        // Through its JSON, as an operator keeps it.
        RouterBackup backup = RouterBackup.read(RouterBackup.of(a).toJson());
        assertThat(backup.format).isEqualTo(RouterBackup.FORMAT);
        assertThat(backup.driver).isEqualTo("sim");
        assertThat(backup.routers).extracting(b -> b.vmName).containsExactly("edge", "left", "right", "far");
        assertThat(backup.routers).allSatisfy(b -> assertThat(b.vmUUID).isEqualTo(a.get(b.vmIndex).orElseThrow().vmEntry.vmUUID));
        assertThat(backup.routers.get(0).interfaces()).extracting(n -> n.vmNetworkConfigRateIn).containsExactly(20_000, 20_000);

        VirtualRouters wiped = router("wiped");
        Restore.Report report = Restore.run(wiped, backup);
        report.completion().join();
        assertThat(report.routers()).extracting(o -> o.vmName() + " " + o.backedUpIndex() + "->" + o.vmIndex() + " " + o.action())
                .containsExactly("edge 3->3 CREATED", "left 5->5 CREATED", "right 6->6 CREATED", "far 9->9 CREATED");
        assertHolds(wiped, backup);
        // Its identity too: each VR has its vmUUID back.
        assertThat(backup.routers).allSatisfy(b -> assertThat(wiped.get(b.vmIndex).orElseThrow().vmEntry.vmUUID)
                .as(b.vmName).isEqualTo(b.vmUUID));
        assertThat(wiped.get(3).orElseThrow().operState()).isEqualTo(OperState.RUNNING);
        assertThat(wiped.get(9).orElseThrow().operState()).isEqualTo(OperState.SHUTDOWN);
        assertThat(json(RouterBackup.of(wiped).routers.stream().map(BackedUpRouter::row).toList()))
                .isEqualTo(json(backup.routers.stream().map(BackedUpRouter::row).toList()));

        Restore.Report again = Restore.run(wiped, backup);
        assertThat(again.applied()).isNull();
        assertThat(again.routers()).extracting(Restore.Outcome::action).containsOnly(Action.PRESENT);
        assertHolds(wiped, backup);
    }

    @Test
    void aPartlyPopulatedRouterGetsWhatItLacksAndAVrThatDiffersIsLeftAsItIs() throws Exception {
        VirtualRouters a = router("a");
        populate(a);
        RouterBackup backup = RouterBackup.of(a);
        a.apply(ChangeSet.builder().remove(5).remove(6).build()).completion().join();
        VmConfigEntry changed = new VmConfigEntry();
        changed.vmConfigDescription = "changed since";
        a.apply(ChangeSet.builder().edit(3, ChangeSet.columns(changed)).build()).completion().join();

        Restore.Report report = Restore.run(a, backup);
        report.completion().join();
        assertThat(report.routers()).extracting(o -> o.vmName() + " " + o.action())
                .containsExactly("edge DIFFERS", "left CREATED", "right CREATED", "far PRESENT");
        assertThat(report.created()).isEqualTo(2);
        assertThat(a.get(5).orElseThrow().vmEntry.vmUUID).isEqualTo(backup.routers.get(1).vmUUID);
        assertThat(a.getConfig(3).orElseThrow().vmConfigDescription).isEqualTo("changed since");
        assertThat(json(a.getConfig(5).orElseThrow())).isEqualTo(json(backup.routers.get(1).row()));
        assertThat(json(a.getConfig(6).orElseThrow())).isEqualTo(json(backup.routers.get(2).row()));
    }

    @Test
    void aVmIndexTakenHereMovesTheVrAndItsPeerLinksFollow() throws Exception {
        VirtualRouters a = router("a");
        populate(a);
        RouterBackup backup = RouterBackup.of(a);
        VirtualRouters b = router("b");
        b.apply(ChangeSet.builder().create(vr("squatter", 5)).build()).completion().join();

        Restore.Report report = Restore.run(b, backup);
        report.completion().join();
        assertThat(report.routers()).extracting(o -> o.vmName() + " " + o.backedUpIndex() + "->" + o.vmIndex())
                .containsExactly("edge 3->3", "left 5->1", "right 6->6", "far 9->9");
        assertThat(b.getConfig(1).orElseThrow().vmName).isEqualTo("left");
        assertThat(b.getConfig(6).orElseThrow().interfaces().get(0).vmNetworkConfigPeerRouter).isEqualTo(1);
        assertThat(b.getConfig(1).orElseThrow().interfaces().get(0).vmNetworkConfigPeerRouter).isEqualTo(6);
        assertThat(b.get(1).orElseThrow().vmEntry.vmUUID).isEqualTo(backup.routers.get(1).vmUUID);
    }

    @Test
    void aRestoreTheRouterRefusesMakesNothing() throws Exception {
        VirtualRouters a = router("a");
        populate(a);
        RouterBackup backup = RouterBackup.of(a);
        VirtualRouters noAcme = router("no-acme", Tenants.from(Settings.of(Map.of())));
        assertThatThrownBy(() -> Restore.run(noAcme, backup)).isInstanceOf(VrException.class).hasMessageContaining("acme");
        assertThat(noAcme.indices()).isEmpty();

        VirtualRouters small = router("small", Tenants.from(Settings.of(Map.of("tenant.acme", "vrs=1"))));
        assertThatThrownBy(() -> Restore.run(small, backup)).isInstanceOf(QuotaExceededException.class);
        assertThat(small.indices()).isEmpty();
    }

    @Test
    void aBackupStatesItsFormatAndALaterOneIsRefusedByName() {
        assertThatThrownBy(() -> RouterBackup.read("{\"format\":2,\"routers\":[],\"later\":1}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(ValidationException.class).hasMessageContaining("format 2").hasMessageContaining("reads formats 1 to 1");
        assertThatThrownBy(() -> RouterBackup.read("{\"routers\":[]}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(ValidationException.class).hasMessageContaining("states its format");
        RouterBackup twice = RouterBackup.read("{\"format\":1,\"routers\":[{\"vmName\":\"x\",\"vmIndex\":1},{\"vmName\":\"x\",\"vmIndex\":2}]}"
                .getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(() -> Restore.run(null, twice)).isInstanceOf(ValidationException.class).hasMessageContaining("names x twice");
    }
}
