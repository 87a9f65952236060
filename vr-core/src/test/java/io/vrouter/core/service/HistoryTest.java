package io.vrouter.core.service;

import io.vrouter.core.spi.ChangeFailedException;
import io.vrouter.core.spi.NotFoundException;
import io.vrouter.core.spi.QuotaExceededException;
import io.vrouter.core.spi.Accepted;
import io.vrouter.core.spi.Applied;
import io.vrouter.core.spi.ChangeSet;
import static io.vrouter.core.service.ServiceFixture.vr;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vrouter.core.config.Caller;
import io.vrouter.core.config.Credentials.Role;
import io.vrouter.core.config.Settings;
import io.vrouter.core.config.Tenants;
import io.vrouter.core.model.Commit;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import io.vrouter.core.spi.VirtualRouters;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The history of committed change sets and the rollback to one of them
 * (docs/adr/0021-history-and-rollback.md): every set numbered with who, when, from where and its leaf
 * changes, kept to its depth across restarts; a rollback is one new set through the usual checks.
 */
class HistoryTest extends WithService {
    private static final Caller ALICE = new Caller("alice", "acme", Role.OPERATOR, "rest", "192.0.2.2");
    private static final Caller INP = new Caller("inp", null, Role.OPERATOR, "netconf", "192.0.2.1");

    @BeforeEach
    void history() throws Exception {
        f.close();
        f = new ServiceFixture(dir, 5);
    }

    private static VmNetworkConfigEntry iface(int index, String parent, String address) {
        VmNetworkConfigEntry n = new VmNetworkConfigEntry();
        n.vmNetworkConfigIndex = index;
        n.vmNetworkConfigParent = parent;
        n.vmNetworkConfigAddress = address;
        return n;
    }

    private int created(VirtualRouters as, VmConfigEntry row) throws Exception {
        Accepted a = as.apply(ChangeSet.builder().create(row).build()).only();
        a.await(WAIT);
        return a.accepted().vmIndex;
    }

    private static void done(Applied a) throws Exception {
        a.completion().get(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
    }

    @Test
    void everyCommitIsNumberedWithItsAuthorInterfaceAndLeafChanges() throws Exception {
        VirtualRouters inp = f.service.as(INP);
        VmConfigEntry row = vr("r1");
        row.vmNetworkConfigTable = List.of(iface(1, "xenbr0", "192.0.2.10"));
        int i = created(inp, row);
        done(inp.apply(ChangeSet.builder().edit(i, r -> r.vmName = "r2").build()));

        List<Commit> commits = f.service.commits();
        assertThat(commits).extracting(c -> c.number).containsExactly(1L, 2L);
        Commit rename = commits.get(1);
        assertThat(rename.changedBy.user).isEqualTo("inp");
        assertThat(rename.changedBy.iface).isEqualTo("netconf");
        assertThat(rename.changedBy.source).isEqualTo("192.0.2.1");
        assertThat(rename.time).isNotBlank();
        assertThat(rename.vrs).containsExactly(new Commit.Vr(i, "r2", null));
        assertThat(rename.changes).singleElement().satisfies(l -> {
            assertThat(l.leaf()).isEqualTo("vmName");
            assertThat(l.before()).isEqualTo("r1");
            assertThat(l.after()).isEqualTo("r2");
        });
        assertThat(commits.get(0).changes).extracting(l -> l.leaf() + "=" + l.after())
                .contains("vmIndex=" + i, "vmNetworkConfigIndex=1", "vmName=r1", "vmAdminState=running",
                        "vmNetworkConfigAddress=192.0.2.10");
    }

    @Test
    void aRollbackUndoesARenameAnInterfaceRemovalAndACreationAsOneNewCommit() throws Exception {
        VmConfigEntry row = vr("r1");
        row.vmNetworkConfigTable = List.of(iface(1, "xenbr0", "192.0.2.10"), iface(2, "xenbr1", "198.51.100.1"));
        int i = created(f.service, row);
        String mac = f.service.getConfig(i).orElseThrow().interfaces().get(1).vmNetworkConfigPhysAddress;
        done(f.service.apply(ChangeSet.builder().edit(i, r -> r.vmName = "renamed").build()));
        done(f.service.apply(ChangeSet.builder().edit(i, ChangeSet.removeInterface(2)).build()));
        int other = created(f.service, vr("other"));

        Applied rollback = f.service.rollback(1);
        assertThat(rollback.commit()).isEqualTo(5);
        done(rollback);

        VmConfigEntry back = f.service.getConfig(i).orElseThrow();
        assertThat(back.vmName).isEqualTo("r1");
        assertThat(back.interfaces()).extracting(n -> n.vmNetworkConfigIndex + " " + n.vmNetworkConfigAddress)
                .containsExactlyInAnyOrder("1 192.0.2.10", "2 198.51.100.1");
        assertThat(back.interfaces().stream().filter(n -> n.vmNetworkConfigIndex == 2).findFirst().orElseThrow()
                .vmNetworkConfigPhysAddress).as("the interface comes back with its MAC").isEqualTo(mac);
        assertThat(f.driver.inspect(i).orElseThrow().vmName()).isEqualTo("r1");
        awaitGone(other);
        Commit recorded = f.service.commits().get(f.service.commits().size() - 1);
        assertThat(recorded.number).isEqualTo(5);
        assertThat(recorded.rollbackTo).isEqualTo(1L);

        // ... and rolled forward again: back to what commit 4 left
        done(f.service.rollback(4));
        assertThat(f.service.getConfig(i).orElseThrow().vmName).isEqualTo("renamed");
        assertThat(f.service.getConfig(i).orElseThrow().interfaces()).hasSize(1);
        assertThat(f.service.findByName("other")).isPresent();
    }

    private void awaitGone(int vmIndex) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (f.service.getConfig(vmIndex).isPresent() && System.nanoTime() < deadline) Thread.sleep(10);
        assertThat(f.service.getConfig(vmIndex)).isEmpty();
    }

    @Test
    void aRollbackTheHostCannotHonourIsRefusedWholeAndChangesNothing() throws Exception {
        // 4 host CPUs, overcommit 4: the VRs may commit 16 vCPUs
        f.driver.setHostResources(4, null);
        f.service.useTenants(Tenants.from(Settings.of(Map.of("tenant.acme", "vrs=5"))));
        VirtualRouters alice = f.service.as(ALICE);
        VmConfigEntry big = vr("a1");
        big.vmConfigCpuNumber = 8;
        int a1 = created(alice, big);
        int a2 = created(alice, vr("a2"));
        done(alice.apply(ChangeSet.builder().edit(a2, r -> r.vmName = "a2-renamed").remove(a1).build()));
        awaitGone(a1);
        VmConfigEntry p = vr("p1");
        p.vmConfigCpuNumber = 12;
        created(f.service, p);
        List<Commit> before = f.service.commits();

        // back to commit 2 brings a1 (8 vCPUs) back beside p1 (12) and a2 (1): past the 16 the host allows
        assertThatThrownBy(() -> alice.rollback(2)).isInstanceOf(QuotaExceededException.class)
                .hasMessageContaining("16 vCPUs");
        assertThat(f.service.getConfig(a1)).isEmpty();
        assertThat(f.service.getConfig(a2).orElseThrow().vmName).as("not even the rename is undone").isEqualTo("a2-renamed");
        assertThat(f.service.commits()).hasSameSizeAs(before);
    }

    @Test
    void aTenantSeesAndRollsBackOnlyItsOwnVrs() throws Exception {
        f.service.useTenants(Tenants.from(Settings.of(Map.of("tenant.acme", "vrs=5"))));
        VirtualRouters alice = f.service.as(ALICE);
        int mine = created(alice, vr("mine"));
        int theirs = created(f.service, vr("theirs"));
        done(f.service.apply(ChangeSet.builder().edit(theirs, r -> r.vmName = "theirs2")
                .edit(mine, r -> r.vmConfigDescription = "by the provider").build()));

        List<Commit> seen = alice.commits();
        assertThat(seen).extracting(c -> c.number).containsExactly(1L, 3L);
        assertThat(seen.get(1).vrs).extracting(Commit.Vr::vmName).containsExactly("mine");
        assertThat(seen.get(1).changes).extracting(l -> l.vmIndex()).containsOnly(mine);

        done(alice.rollback(1));
        assertThat(f.service.getConfig(mine).orElseThrow().vmConfigDescription).isNull();
        assertThat(f.service.getConfig(theirs).orElseThrow().vmName).as("not the tenant's: left alone").isEqualTo("theirs2");
        assertThatThrownBy(() -> alice.rollback(2)).isInstanceOf(NotFoundException.class);
    }

    @Test
    void aCommitUndoneByTheHostIsMarkedAndSkipped() throws Exception {
        int i = created(f.service, vr("r1"));
        f.driver.failOn("addInterface", "r1", "no such bridge");
        Applied failing = f.service.apply(ChangeSet.builder().edit(i, ChangeSet.addInterface(iface(1, "br9", null))).build());
        assertThatThrownBy(() -> done(failing)).hasCauseInstanceOf(ChangeFailedException.class);
        f.driver.clearFailures();
        assertThat(f.service.commits().get(1).undone).contains("no such bridge");
        done(f.service.apply(ChangeSet.builder().edit(i, r -> r.vmName = "r2").build()));

        done(f.service.rollback(1));
        assertThat(f.service.getConfig(i).orElseThrow().vmName).isEqualTo("r1");
        assertThat(f.service.getConfig(i).orElseThrow().interfaces()).isEmpty();
    }

    @Test
    void theHistoryIsKeptToItsDepthAcrossRestarts() throws Exception {
        int i = created(f.service, vr("r0"));
        for (int k = 1; k <= 30; k++) {
            int n = k;
            done(f.service.apply(ChangeSet.builder().edit(i, r -> r.vmName = "r" + n).build()));
        }
        f.close();
        f = new ServiceFixture(dir, 5);
        assertThat(f.service.commits()).extracting(c -> c.number).containsExactly(27L, 28L, 29L, 30L, 31L);
        assertThat(f.service.commits().get(4).changes.get(0).after()).isEqualTo("r30");
        assertThatThrownBy(() -> f.service.rollback(26)).isInstanceOf(NotFoundException.class)
                .hasMessageContaining("commits 27 to 31");

        done(f.service.rollback(28));
        assertThat(f.service.getConfig(i).orElseThrow().vmName).isEqualTo("r27");
        assertThat(f.service.commits().get(4).number).as("numbers go on after a restart").isEqualTo(32);
    }
}
