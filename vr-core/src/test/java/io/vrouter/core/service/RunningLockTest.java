package io.vrouter.core.service;

import io.vrouter.core.spi.ChangeSet;
import io.vrouter.core.spi.LockDeniedException;
import static io.vrouter.core.service.ServiceFixture.vr;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vrouter.core.config.Caller;
import io.vrouter.core.config.Credentials.Role;
import io.vrouter.core.config.Settings;
import io.vrouter.core.config.Tenants;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.spi.VrException.Reason;
import io.vrouter.core.spi.VirtualRouters;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Running's lock held in the core for every interface (RFC 6241 section 7.5): while a session holds
 * it, every other caller's change to a VR it covers is refused naming the session, whatever the
 * interface, and nothing changes; after the unlock they pass again. A tenant's lock covers its VRs.
 */
class RunningLockTest extends WithService {
    private static final Caller ADMIN_SESSION = new Caller("admin", null, Role.OPERATOR, "netconf", null).inSession(7);
    private static final Caller ADMIN_REST = new Caller("admin", null, Role.OPERATOR, "rest", "192.0.2.1");
    private static final Caller ADMIN_OTHER_SESSION = ADMIN_SESSION.inSession(8);
    private static final Caller ALICE_SESSION = new Caller("alice", "acme", Role.OPERATOR, "netconf", null).inSession(9);
    private static final Caller ALICE_SNMP = new Caller("alice", "acme", Role.OPERATOR, "snmp", null);
    private static final Caller BOB_REST = new Caller("bob", "bravo", Role.OPERATOR, "rest", null);

    @BeforeEach
    void tenants() {
        f.service.useTenants(Tenants.from(Settings.of(Map.of("tenant.acme", "vrs=10", "tenant.bravo", "vrs=10"))));
    }

    private static ChangeSet describe(int vmIndex, String text) {
        return ChangeSet.builder().edit(vmIndex, row -> row.vmConfigDescription = text).build();
    }

    private static int create(VirtualRouters via, String name) {
        return via.apply(ChangeSet.builder().create(vr(name)).build()).routers().get(0).accepted().vmIndex;
    }

    @Test
    void whileASessionHoldsTheLockEveryOtherCallerIsRefusedNamingItAndNothingChanges() {
        int vr = create(f.service.as(ADMIN_REST), "r1");
        VmConfigEntry before = f.service.getConfig(vr).orElseThrow();
        f.service.as(ADMIN_SESSION).lockRunning(ADMIN_SESSION);

        for (Caller other : new Caller[] {ADMIN_REST, ADMIN_OTHER_SESSION, Caller.SYSTEM}) {
            assertThatThrownBy(() -> f.service.as(other).apply(describe(vr, "by " + other.iface())))
                    .isInstanceOfSatisfying(LockDeniedException.class, e -> {
                        assertThat(e.reason()).isEqualTo(Reason.LOCKED);
                        assertThat(e.holderSession()).isEqualTo(7);
                    })
                    .hasMessageContaining("locked by NETCONF session 7 (user admin)");
        }
        assertThatThrownBy(() -> f.service.as(ADMIN_REST).apply(ChangeSet.builder().create(vr("r2")).build()))
                .isInstanceOf(LockDeniedException.class);
        assertThatThrownBy(() -> f.service.as(ADMIN_REST).apply(ChangeSet.builder().remove(vr).build()))
                .isInstanceOf(LockDeniedException.class);
        assertThat(f.service.getConfig(vr).orElseThrow()).isSameAs(before);
        assertThat(f.service.indices()).containsExactly(vr);
        // a check changes nothing: it is not refused (NETCONF's validate)
        assertThat(f.service.as(ADMIN_REST).validate(describe(vr, "checked"))).hasSize(1);

        // the holder's own session changes it
        f.service.as(ADMIN_SESSION).apply(describe(vr, "by the holder"));
        assertThat(f.service.getConfig(vr).orElseThrow().vmConfigDescription).isEqualTo("by the holder");

        // the server's own restoration (a confirmed commit not confirmed) passes it
        f.service.as(new Caller("vrouter", null, Role.OPERATOR, "netconf", null, Caller.RESTORING))
                .apply(describe(vr, "restored"));
        assertThat(f.service.getConfig(vr).orElseThrow().vmConfigDescription).isEqualTo("restored");

        // another session may not take the lock, nor let go of it
        assertThatThrownBy(() -> f.service.lockRunning(ADMIN_OTHER_SESSION)).isInstanceOf(LockDeniedException.class);
        assertThat(f.service.unlockRunning(ADMIN_OTHER_SESSION)).isFalse();
        assertThat(f.service.runningLockHolder(ADMIN_REST)).contains(ADMIN_SESSION);

        assertThat(f.service.unlockRunning(ADMIN_SESSION)).isTrue();
        f.service.as(ADMIN_REST).apply(describe(vr, "after the unlock"));
        assertThat(f.service.getConfig(vr).orElseThrow().vmConfigDescription).isEqualTo("after the unlock");
        assertThat(f.service.runningLockHolder(ADMIN_REST)).isEmpty();
    }

    @Test
    void aTenantsLockCoversItsOwnVrsOnlyAndExcludesTheProvidersLock() {
        int acmes = create(f.service.as(ALICE_SNMP), "a1");
        int bravos = create(f.service.as(BOB_REST), "b1");
        f.service.lockRunning(ALICE_SESSION);

        // acme's VRs: refused to acme's other callers and to the provider, even to give one away
        assertThatThrownBy(() -> f.service.as(ALICE_SNMP).apply(describe(acmes, "x"))).isInstanceOf(LockDeniedException.class);
        assertThatThrownBy(() -> f.service.as(ADMIN_REST).apply(describe(acmes, "x"))).isInstanceOf(LockDeniedException.class);
        assertThatThrownBy(() -> f.service.as(ALICE_SNMP).apply(ChangeSet.builder().create(vr("a2")).build()))
                .isInstanceOf(LockDeniedException.class);
        // giving a VR to acme touches acme's VRs too
        assertThatThrownBy(() -> f.service.as(ADMIN_REST).apply(ChangeSet.builder()
                .edit(bravos, row -> row.vmConfigTenant = "acme").build())).isInstanceOf(LockDeniedException.class);
        // bravo's are not covered
        f.service.as(BOB_REST).apply(describe(bravos, "bravo's own"));
        f.service.as(ALICE_SESSION).apply(describe(acmes, "by the holder"));

        // the provider's lock would cover acme's VRs: refused while acme holds its own, and the other way round
        assertThatThrownBy(() -> f.service.lockRunning(ADMIN_SESSION))
                .isInstanceOfSatisfying(LockDeniedException.class, e -> assertThat(e.holderSession()).isEqualTo(9));
        f.service.unlockRunning(ALICE_SESSION);
        f.service.lockRunning(ADMIN_SESSION);
        assertThatThrownBy(() -> f.service.lockRunning(ALICE_SESSION)).isInstanceOf(LockDeniedException.class);
        assertThatThrownBy(() -> f.service.as(BOB_REST).apply(describe(bravos, "y"))).isInstanceOf(LockDeniedException.class);
        f.service.unlockRunning(ADMIN_SESSION);
        f.service.as(ALICE_SNMP).apply(describe(acmes, "after"));
        assertThat(f.service.getConfig(acmes).orElseThrow().vmConfigDescription).isEqualTo("after");
    }
}
