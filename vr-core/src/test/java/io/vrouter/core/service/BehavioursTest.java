package io.vrouter.core.service;

import static io.vrouter.core.service.ServiceFixture.vr;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vrouter.core.driver.Interfaces;
import io.vrouter.core.driver.PowerStates;
import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import io.vrouter.core.spi.Applied;
import io.vrouter.core.spi.ChangeSet;
import io.vrouter.core.spi.NotSupportedException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The driver's optional behaviours as the service sees them (docs/adr/0022-driver-behaviours.md): a
 * change that needs one the driver does not offer is refused before anything changes, and what the
 * driver offers is what the service says it can do. Links, rates and CPU weights: LinksTest.
 */
class BehavioursTest extends WithService {

    private static VmNetworkConfigEntry iface(int index, String bridge) {
        VmNetworkConfigEntry n = new VmNetworkConfigEntry();
        n.vmNetworkConfigIndex = index;
        n.vmNetworkConfigParent = bridge;
        return n;
    }

    /** Refused as not supported, and nothing changed: the row is the same object, the driver not called. */
    private void refused(int vmIndex, ChangeSet set, String field, String message) {
        VmConfigEntry before = f.service.getConfig(vmIndex).orElseThrow();
        List<String> calls = List.copyOf(f.recorder.calls);
        assertThatThrownBy(() -> f.service.apply(set)).isInstanceOfSatisfying(NotSupportedException.class,
                e -> assertThat(e.field()).isEqualTo(field)).hasMessageContaining(message);
        assertThat(f.service.getConfig(vmIndex).orElseThrow()).isSameAs(before);
        assertThat(f.recorder.calls).isEqualTo(calls);
    }

    /** Applies the set of one VR and waits for it; returns the VR's vmIndex. */
    private int done(ChangeSet set) {
        Applied a = f.service.apply(set);
        a.completion().join();
        return a.only().accepted().vmIndex;
    }

    @Test
    void withoutInterfacesAnExistingVrKeepsItsInterfacesButItsRatesStillChangeLive() {
        f.recorder.withheld.add(Interfaces.class);
        VmConfigEntry row = vr("r1");
        row.vmNetworkConfigTable = new java.util.ArrayList<>(List.of(iface(1, "br0")));
        int i = done(ChangeSet.builder().create(row).build());
        assertThat(f.recorder.calls).anyMatch(c -> c.startsWith("provision " + i + " "));

        refused(i, ChangeSet.builder().edit(i, ChangeSet.putInterface(iface(2, "br1"))).build(),
                "vmNetworkConfigTable", "driver 'sim' does not attach or detach interfaces of an existing VR");
        refused(i, ChangeSet.builder().edit(i, ChangeSet.removeInterface(1)).build(),
                "vmNetworkConfigTable", "remove the VR and create it again");
        refused(i, ChangeSet.builder().edit(i, ChangeSet.putInterface(iface(1, "br1"))).build(),
                "vmNetworkConfigTable", "does not attach or detach");

        VmNetworkConfigEntry limited = iface(1, "br0");
        limited.vmNetworkConfigRateOut = 1_000;
        done(ChangeSet.builder().edit(i, ChangeSet.putInterface(limited)).build());
        assertThat(f.recorder.calls).contains("setRates " + i + "/1 in=null out=1000").noneMatch(c -> c.contains("Interface"));
    }

    @Test
    void withoutPowerStatesAVrIsOnlyRunningOrShutDown() {
        f.recorder.withheld.add(PowerStates.class);
        assertThat(f.service.adminStates()).containsExactlyInAnyOrder(AdminState.RUNNING, AdminState.SHUTDOWN);
        int i = done(ChangeSet.builder().create(vr("r1")).build());
        VmConfigEntry paused = new VmConfigEntry();
        paused.vmAdminState = AdminState.PAUSED;
        refused(i, ChangeSet.builder().edit(i, ChangeSet.columns(paused)).build(), "vmAdminState",
                "driver 'sim' cannot make a VR paused");
        assertThat(f.recorder.calls).noneMatch(c -> c.startsWith("paused"));
    }
}
