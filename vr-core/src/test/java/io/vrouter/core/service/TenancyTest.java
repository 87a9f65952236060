package io.vrouter.core.service;

import static io.vrouter.core.service.ServiceFixture.vr;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vrouter.core.config.Caller;
import io.vrouter.core.config.Credentials.Role;
import io.vrouter.core.config.Settings;
import io.vrouter.core.config.Tenants;
import io.vrouter.core.model.Hypervisor;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VrEvent;
import io.vrouter.core.spi.AccessDeniedException;
import io.vrouter.core.spi.Applied;
import io.vrouter.core.spi.ChangeSet;
import io.vrouter.core.spi.QuotaExceededException;
import io.vrouter.core.spi.RouterQuery;
import io.vrouter.core.spi.VirtualRouters;
import io.vrouter.core.spi.VrException.Reason;
import io.vrouter.core.spi.VrException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Tenants enforced once, in the core's view of a caller ({@link TenantView}) and the change-set rules
 * ({@link ChangeCheck}): a tenant's user sees and changes only its tenant's VRs, within its quotas,
 * and the VRs together within the host's capacity; every refusal changes nothing.
 */
class TenancyTest extends WithService {
    private static final Caller PROVIDER = new Caller("inp", null, Role.OPERATOR, "test", "192.0.2.1");
    private static final Caller A = new Caller("alice", "acme", Role.OPERATOR, "test", "192.0.2.2");
    private static final Caller A_VIEWER = new Caller("ann", "acme", Role.VIEWER, "test", null);
    private static final Caller B = new Caller("bob", "bravo", Role.OPERATOR, "test", "192.0.2.3");

    private VirtualRouters provider;
    private VirtualRouters acme;
    private VirtualRouters bravo;

    @BeforeEach
    void tenants() {
        f.service.useTenants(Tenants.from(Settings.of(Map.of(
                "tenant.acme", "vrs=3, vcpus=4, memory=2048",
                "tenant.bravo", "vrs=10"))));
        provider = f.service.as(PROVIDER);
        acme = f.service.as(A);
        bravo = f.service.as(B);
    }

    private static ChangeSet create(String name) {
        return ChangeSet.builder().create(vr(name)).build();
    }

    private static int created(Applied a) {
        return a.routers().get(0).accepted().vmIndex;
    }

    @Test
    void aTenantsVrIsItsOwnAndOnlyItsUsersAndTheProviderSeeIt() {
        int a = created(acme.apply(create("a1")));
        int b = created(bravo.apply(create("b1")));
        int p = created(provider.apply(create("p1")));

        assertThat(f.service.getConfig(a).orElseThrow().vmConfigTenant).isEqualTo("acme");
        assertThat(f.service.getConfig(p).orElseThrow().vmConfigTenant).isNull();
        assertThat(acme.get(a)).isPresent();
        assertThat(acme.get(b)).isEmpty();
        assertThat(acme.get(p)).isEmpty();
        assertThat(acme.getConfig(b)).isEmpty();
        assertThat(acme.version(b)).isEmpty();
        assertThat(acme.findByName("b1")).isEmpty();
        assertThat(acme.indices()).containsExactly(a);
        assertThat(acme.nextIndexAfter(0)).contains(a);
        assertThat(acme.nextIndexAfter(a)).isEmpty();
        assertThat(acme.list(RouterQuery.all()).virtualRouter).extracting(v -> v.vmName).containsExactly("a1");
        assertThat(acme.list(RouterQuery.all()).total).isEqualTo(1);
        assertThat(provider.indices()).containsExactly(a, b, p);
        assertThat(provider.list(RouterQuery.all()).total).isEqualTo(3);
        assertThat(acme.tenants()).extracting(Tenants.Tenant::name).containsExactly("acme");
        assertThat(provider.tenants()).extracting(Tenants.Tenant::name).containsExactly("acme", "bravo");

        Hypervisor h = acme.hypervisor();
        assertThat(h.vmConfiguredVMs).isEqualTo(1);
        assertThat(h.vmCommittedCpus).isEqualTo(1);
        assertThat(h.vmCommittedMemory).isEqualTo(512);
        assertThat(provider.hypervisor().vmConfiguredVMs).isEqualTo(3);
        assertThat(provider.hypervisor().vmCommittedCpus).isEqualTo(3);
    }

    @Test
    void anotherTenantsVrCannotBeChangedOrRemovedAndTheRefusalTellsNothingOfIt() {
        int b = created(bravo.apply(create("b1")));
        VmConfigEntry before = f.service.getConfig(b).orElseThrow();

        for (ChangeSet set : List.of(
                ChangeSet.builder().edit(b, row -> row.vmConfigDescription = "mine now").build(),
                ChangeSet.builder().remove(b).build())) {
            assertThatThrownBy(() -> acme.apply(set))
                    .isInstanceOfSatisfying(AccessDeniedException.class, e -> assertThat(e.hidden()).isTrue())
                    .hasMessage("no VR with vmIndex " + b);
        }
        // taking its index for a new VR is refused too (NETCONF's merge of an entry it cannot see)
        VmConfigEntry sameIndex = vr("a1");
        sameIndex.vmIndex = b;
        assertThatThrownBy(() -> acme.apply(ChangeSet.builder().create(sameIndex).build()))
                .isInstanceOfSatisfying(VrException.class, e -> assertThat(e.reason()).isEqualTo(Reason.DENIED));
        assertThat(f.service.getConfig(b).orElseThrow()).isSameAs(before);
        assertThat(f.service.indices()).containsExactly(b);
    }

    @Test
    void onlyTheProviderGivesAVrToATenantAndOnlyToADeclaredOne() {
        VmConfigEntry forBravo = vr("a1");
        forBravo.vmConfigTenant = "bravo";
        assertThatThrownBy(() -> acme.apply(ChangeSet.builder().create(forBravo).build()))
                .isInstanceOfSatisfying(AccessDeniedException.class, e -> {
                    assertThat(e.hidden()).isFalse();
                    assertThat(e.field()).isEqualTo("vmConfigTenant");
                });
        int a = created(acme.apply(create("a1")));
        assertThatThrownBy(() -> acme.apply(ChangeSet.builder().edit(a, row -> row.vmConfigTenant = "").build()))
                .isInstanceOf(AccessDeniedException.class);

        VmConfigEntry forNobody = vr("p1");
        forNobody.vmConfigTenant = "charlie";
        assertThatThrownBy(() -> provider.apply(ChangeSet.builder().create(forNobody).build()))
                .isInstanceOfSatisfying(VrException.class, e -> {
                    assertThat(e.reason()).isEqualTo(Reason.INVALID);
                    assertThat(e.getMessage()).contains("no tenant 'charlie'", "acme, bravo");
                });

        provider.apply(ChangeSet.builder().edit(a, row -> row.vmConfigTenant = "bravo").build());
        assertThat(acme.get(a)).isEmpty();
        assertThat(bravo.get(a)).isPresent();
        // a whole row written without the owner (a PUT, a NETCONF replace) keeps it
        VmConfigEntry whole = f.service.getConfig(a).orElseThrow().copy();
        whole.vmConfigTenant = null;
        whole.vmConfigDescription = "replaced";
        provider.apply(ChangeSet.builder().replace(whole).build());
        assertThat(f.service.getConfig(a).orElseThrow().vmConfigTenant).isEqualTo("bravo");
        // the empty string gives it back to the provider
        provider.apply(ChangeSet.builder().edit(a, row -> row.vmConfigTenant = "").build());
        assertThat(f.service.getConfig(a).orElseThrow().vmConfigTenant).isNull();
        assertThat(bravo.get(a)).isEmpty();
    }

    @Test
    void aViewerChangesNothing() {
        assertThatThrownBy(() -> f.service.as(A_VIEWER).apply(create("a1")))
                .isInstanceOfSatisfying(VrException.class, e -> assertThat(e.reason()).isEqualTo(Reason.DENIED));
        assertThatThrownBy(() -> acme.setNotificationsEnabled(false, false)).isInstanceOf(AccessDeniedException.class);
        assertThat(f.service.indices()).isEmpty();
        assertThat(f.service.perVmNotificationsEnabled()).isTrue();
    }

    @Test
    void aTenantsQuotasRefuseTheSetThatWouldExceedThemAndChangeNothing() throws Exception {
        acme.apply(ChangeSet.builder().create(vr("a1")).create(vr("a2")).build());
        // a third and a fourth in one set: refused whole
        assertThatThrownBy(() -> acme.apply(ChangeSet.builder().create(vr("a3")).create(vr("a4")).build()))
                .isInstanceOfSatisfying(QuotaExceededException.class, e -> assertThat(e.getMessage())
                        .isEqualTo("tenant 'acme' may have 3 VRs (tenant.acme vrs): this change would make it 4"));
        assertThat(f.service.indices()).hasSize(2);

        VmConfigEntry big = vr("a3");
        big.vmConfigCpuNumber = 3;
        assertThatThrownBy(() -> acme.apply(ChangeSet.builder().create(big).build()))
                .isInstanceOfSatisfying(QuotaExceededException.class, e -> {
                    assertThat(e.field()).isEqualTo("vmConfigCpuNumber");
                    assertThat(e.getMessage()).contains("4 vCPUs", "would make it 5");
                });
        VmConfigEntry hungry = vr("a3");
        hungry.vmConfigMemory = 1025;
        assertThatThrownBy(() -> acme.apply(ChangeSet.builder().create(hungry).build()))
                .isInstanceOfSatisfying(QuotaExceededException.class, e -> assertThat(e.field()).isEqualTo("vmConfigMemory"));
        assertThat(f.service.indices()).hasSize(2);

        // a set that frees as much as it takes passes: the quota is on the VRs as the set leaves them
        int a1 = f.service.findByName("a1").orElseThrow();
        acme.apply(ChangeSet.builder().remove(a1).create(vr("a3")).create(vr("a4")).build()).completion().get();
        assertThat(acme.list(RouterQuery.all()).total).isEqualTo(3);
        // another tenant's quota is its own
        bravo.apply(create("b1"));
        // the provider may create for a tenant, and is held to that tenant's quota too
        VmConfigEntry forAcme = vr("p1");
        forAcme.vmConfigTenant = "acme";
        assertThatThrownBy(() -> provider.apply(ChangeSet.builder().create(forAcme).build()))
                .isInstanceOf(QuotaExceededException.class);
    }

    @Test
    void theHostsCapacityTimesTheOvercommitLimitsWhatAllVrsCommit() throws Exception {
        f.driver.setHostResources(2, 1024);
        // default: CPUs 4x (8 vCPUs), memory 1x (1024 MiB)
        VmConfigEntry two = vr("p1");
        two.vmConfigMemory = 512;
        provider.apply(ChangeSet.builder().create(two).build());
        VmConfigEntry more = vr("p2");
        more.vmConfigMemory = 513;
        assertThatThrownBy(() -> bravo.apply(ChangeSet.builder().create(more).build()))
                .isInstanceOfSatisfying(QuotaExceededException.class, e -> assertThat(e.getMessage()).isEqualTo(
                        "the host has 1024 MiB of memory, and the VRs may commit 1024 MiB (capacity.memory-overcommit 1):"
                                + " this change would commit 1025 MiB"));
        VmConfigEntry cpus = vr("p2");
        cpus.vmConfigMemory = 64;
        cpus.vmConfigCpuNumber = 8;
        assertThatThrownBy(() -> provider.apply(ChangeSet.builder().create(cpus).build()))
                .isInstanceOfSatisfying(QuotaExceededException.class, e -> assertThat(e.getMessage())
                        .contains("the host has 2 CPUs", "may commit 8 vCPUs", "would commit 9"));
        assertThat(f.service.indices()).hasSize(1);
        cpus.vmConfigCpuNumber = 7;
        provider.apply(ChangeSet.builder().create(cpus).build());
        Hypervisor h = f.service.hypervisor();
        assertThat(h.vmHvCpus).isEqualTo(2);
        assertThat(h.vmCommittedCpus).isEqualTo(8);
        assertThat(h.vmCommittedMemory).isEqualTo(576);
        // a host that shrank still lets VRs shrink and go
        f.driver.setHostResources(1, 256);
        int p1 = f.service.findByName("p1").orElseThrow();
        provider.apply(ChangeSet.builder().remove(p1).build()).completion().get();
        assertThat(f.service.indices()).hasSize(1);
    }

    @Test
    void aTenantFollowsOnlyItsVrsEventsLiveAndReplayedAndEachTellsWhoMadeIt() throws Exception {
        List<VrEvent> seenByAcme = new CopyOnWriteArrayList<>();
        try (AutoCloseable sub = acme.events().subscribe(seenByAcme::add)) {
            int a = created(acme.apply(create("a1")));
            int b = created(bravo.apply(create("b1")));
            acme.apply(ChangeSet.builder().remove(a).build()).completion().get();
            bravo.apply(ChangeSet.builder().remove(b).build()).completion().get();
        }
        assertThat(seenByAcme).isNotEmpty().allSatisfy(e -> assertThat(e.vmName).isEqualTo("a1"));
        assertThat(seenByAcme).extracting(e -> e.type).contains(VrEvent.Type.CREATED, VrEvent.Type.DELETED);
        VrEvent created = seenByAcme.stream().filter(e -> e.type == VrEvent.Type.CREATED).findFirst().orElseThrow();
        assertThat(created.changedBy.user).isEqualTo("alice");
        assertThat(created.changedBy.tenant).isEqualTo("acme");
        assertThat(created.changedBy.iface).isEqualTo("test");
        assertThat(created.changedBy.source).isEqualTo("192.0.2.2");
        assertThat(created.vmConfigTenant).isEqualTo("acme");
        // the provider sees both VRs' events
        assertThat(f.events).extracting(e -> e.vmName).contains("a1", "b1");
        assertThat(Optional.ofNullable(f.events.stream().filter(e -> "b1".equals(e.vmName)
                && e.type == VrEvent.Type.DELETED).findFirst().orElseThrow().changedBy).map(c -> c.user)).contains("bob");
    }

    @Test
    void aVrGivenToAnotherTenantIsGoneForTheOldOwnerAndNewForTheNewOne() throws Exception {
        int a = created(acme.apply(create("a1")));
        List<VrEvent> seenByAcme = new CopyOnWriteArrayList<>();
        List<VrEvent> seenByBravo = new CopyOnWriteArrayList<>();
        try (AutoCloseable x = acme.events().subscribe(seenByAcme::add);
             AutoCloseable y = bravo.events().subscribe(seenByBravo::add)) {
            provider.apply(ChangeSet.builder().edit(a, row -> row.vmConfigTenant = "bravo").build()).completion().get();
            long end = System.nanoTime() + WAIT.toNanos();
            while ((seenByAcme.stream().noneMatch(e -> e.type == VrEvent.Type.DELETED) || seenByBravo.isEmpty())
                    && System.nanoTime() < end) Thread.sleep(10);
        }
        // the creation's own last event (its state reached) may still come after the subscription began: what
        // acme sees of the move is the deletion, last, and nothing of the VR as bravo's
        assertThat(seenByAcme).extracting(e -> e.type).last().isEqualTo(VrEvent.Type.DELETED);
        assertThat(seenByAcme).filteredOn(e -> e.type != VrEvent.Type.DELETED)
                .allSatisfy(e -> assertThat(e.vmConfigTenant).isEqualTo("acme"));
        assertThat(seenByBravo.get(0).type).isEqualTo(VrEvent.Type.CREATED);
        assertThat(seenByBravo.get(0).previousTenant).isEqualTo("acme");
        assertThat(seenByBravo).extracting(e -> e.type).doesNotContain(VrEvent.Type.DELETED);
        // the provider sees the change as it is
        VrEvent moved = f.events.stream().filter(e -> "acme".equals(e.previousTenant)).findFirst().orElseThrow();
        assertThat(moved.vmConfigTenant).isEqualTo("bravo");
    }

    @Test
    void aNameTakenByAnotherTenantsVrIsRefusedWithoutItsIndex() {
        int b = created(bravo.apply(create("shared-name")));
        assertThatThrownBy(() -> acme.apply(create("shared-name")))
                .isInstanceOfSatisfying(VrException.class, e -> {
                    assertThat(e.reason()).isEqualTo(Reason.NOT_UNIQUE);
                    assertThat(e.getMessage()).isEqualTo("a VR named 'shared-name' already exists");
                });
        assertThatThrownBy(() -> provider.apply(create("shared-name")))
                .hasMessage("a VR named 'shared-name' already exists (vmIndex " + b + ")");
    }
}
