package io.vrouter.core.service;

import static io.vrouter.core.service.ServiceFixture.vr;
import static org.assertj.core.api.Assertions.assertThat;

import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.ModelJson;
import io.vrouter.core.model.OperState;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import io.vrouter.core.model.VrEvent.LeafChange;
import io.vrouter.core.model.VrEvent;
import io.vrouter.core.spi.ChangeSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Leaf-level change events: the core tells its listeners which leaves of which VR a change set
 * changed, with old and new values, on one event per VR and set, so that none of them reads a VR
 * again to find out; and none of it goes on the wire.
 */
class LeafEventsTest extends WithService {
    private static VmNetworkConfigEntry iface(int index, String parent, String mac) {
        VmNetworkConfigEntry n = new VmNetworkConfigEntry();
        n.vmNetworkConfigIndex = index;
        n.vmNetworkConfigParent = parent;
        n.vmNetworkConfigPhysAddress = mac;
        return n;
    }

    private int make(VmConfigEntry row) throws Exception {
        return SingleVr.create(f.service, row).await(WAIT).orElseThrow().orElseThrow().vmIndex;
    }

    /** The events about the VR from the given one on, once its work is done. */
    private List<VrEvent> eventsOf(int vmIndex, int from) {
        return f.events.subList(from, f.events.size()).stream().filter(e -> e.vmIndex == vmIndex).toList();
    }

    private static List<LeafChange> configChanges(VrEvent e) {
        return e.changes.stream().filter(c -> !c.table().equals("vmTable")).toList();
    }

    @Test
    void aSetsChangesOfAVrAreToldOnceWithTheirOldAndNewValuesAndNothingElse() throws Exception {
        VmConfigEntry row = vr("a", AdminState.SHUTDOWN);
        row.vmConfigDescription = "first";
        row.vmNetworkConfigTable = List.of(iface(1, "br0", "52:54:00:00:00:01"));
        int a = make(row);
        int b = make(vr("b", AdminState.SHUTDOWN));
        int from = f.events.size();
        f.service.apply(ChangeSet.builder().edit(a, r -> {
            r.vmName = "a2";
            r.vmConfigDescription = "second";
            r.vmNetworkConfigTable = List.of(iface(1, "br0", "52:54:00:00:00:01"), iface(2, "br9", "52:54:00:00:00:02"));
        }).build()).completion().get(10, TimeUnit.SECONDS);

        List<VrEvent> ofA = eventsOf(a, from);
        assertThat(ofA).as("a rename and an interface added: events of the host's steps").hasSizeGreaterThan(1);
        assertThat(ofA).filteredOn(e -> !configChanges(e).isEmpty()).as("one event tells the set's changes").hasSize(1);
        assertThat(ofA.stream().flatMap(e -> e.changes.stream()).toList()).containsExactlyInAnyOrder(
                new LeafChange("vmConfigTable", a, null, "vmName", "a", "a2"),
                new LeafChange("vmConfigTable", a, null, "vmConfigDescription", "first", "second"),
                new LeafChange("vmNetworkConfigTable", a, 2, "vmNetworkConfigParent", null, "br9"),
                new LeafChange("vmNetworkConfigTable", a, 2, "vmNetworkConfigPhysAddress", null, "52:54:00:00:00:02"));
        assertThat(eventsOf(b, from)).as("nothing about a VR the set leaves alone").isEmpty();
        // In-process only: the JSON every interface sends (SSE, the replay log) is as it was.
        assertThat(ModelJson.mapper().writeValueAsString(ofA.get(0))).doesNotContain("changes").doesNotContain("a2\",\"before");
    }

    @Test
    void aCreationTellsItsRowAndEveryStateChangeItsOldAndNewState() throws Exception {
        int from = f.events.size();
        int a = make(vr("c", AdminState.RUNNING));
        List<VrEvent> ofA = eventsOf(a, from);
        VrEvent created = ofA.get(0);
        assertThat(created.type).isEqualTo(VrEvent.Type.CREATED);
        assertThat(created.changes).contains(new LeafChange("vmConfigTable", a, null, "vmName", null, "c"),
                new LeafChange("vmConfigTable", a, null, "vmAdminState", null, AdminState.RUNNING));
        assertThat(created.changes).allMatch(c -> c.before() == null);
        assertThat(ofA).filteredOn(e -> e.type == VrEvent.Type.STATE_CHANGED).allSatisfy(e -> assertThat(e.changes)
                .containsExactly(new LeafChange("vmTable", a, null, "vmOperState", e.previousOperState, e.vmOperState)));
        assertThat(ofA.get(ofA.size() - 1).vmOperState).isEqualTo(OperState.RUNNING);
    }

    @Test
    void aSetUndoneTellsTheWayBack() throws Exception {
        int a = make(vr("d", AdminState.SHUTDOWN));
        f.recorder.failOnce("addInterface", a, "injected");
        int from = f.events.size();
        var applied = f.service.apply(ChangeSet.builder().edit(a, r -> {
            r.vmConfigDescription = "wanted";
            r.vmNetworkConfigTable = List.of(iface(1, "br0", "52:54:00:00:00:03"));
        }).build());
        try {
            applied.completion().get(10, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException expected) {
            // the set failed and was undone
        }
        List<LeafChange> told = eventsOf(a, from).stream().flatMap(e -> configChanges(e).stream()).toList();
        assertThat(told).contains(new LeafChange("vmConfigTable", a, null, "vmConfigDescription", null, "wanted"),
                new LeafChange("vmConfigTable", a, null, "vmConfigDescription", "wanted", null));
        assertThat(f.service.getConfig(a).orElseThrow().vmConfigDescription).isNull();
    }
}
