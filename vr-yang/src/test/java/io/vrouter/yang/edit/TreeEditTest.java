package io.vrouter.yang.edit;

import static org.assertj.core.api.Assertions.assertThat;

import io.vrouter.core.driver.sim.LatencyProfile;
import io.vrouter.core.driver.sim.SimulatedDriver;
import io.vrouter.core.metrics.VrMetrics;
import io.vrouter.core.model.ConfigColumn;
import io.vrouter.core.model.NetworkColumn;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import io.vrouter.core.persistence.ConfigStore;
import io.vrouter.core.spi.ChangeSet;
import io.vrouter.core.service.SingleVr;
import io.vrouter.core.service.VirtualRouterService;
import io.vrouter.core.spi.VrException;
import io.vrouter.yang.Ns;
import io.vrouter.yang.WithDefaults;
import io.vrouter.yang.edit.EditError.Kind;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The edit engine on a real service (simulated driver): each operation on each kind of node, the
 * default operation, the defaults the service fills in, and every kind of error.
 */
class TreeEditTest {
    @TempDir
    Path dir;
    VirtualRouterService service;
    ConfigData base;

    @BeforeEach
    void start() throws Exception {
        service = new VirtualRouterService(new SimulatedDriver(LatencyProfile.NONE), new ConfigStore(dir), VrMetrics.inMemory());
        service.start();
        SingleVr.create(service, vr(1, "one", 256));
        VmConfigEntry two = vr(2, "two", 512);
        VmNetworkConfigEntry n = new VmNetworkConfigEntry();
        n.vmNetworkConfigIndex = 1;
        n.vmNetworkConfigParent = "br0";
        two.vmNetworkConfigTable = new ArrayList<>(List.of(n));
        SingleVr.create(service, two);
        base = ConfigData.of(service);
    }

    @AfterEach
    void stop() {
        service.close();
    }

    // ------------------------------------------------------------------ the data an edit brings

    /** A node of an edit's data, with an operation attribute or none. */
    record N(String ns, String name, String value, List<N> children, String operation) implements EditNode {
        @Override
        public boolean isLeaf() {
            return value != null;
        }

        N op(String operation) {
            return new N(ns, name, value, children, operation);
        }
    }

    static N leaf(String name, Object value) {
        return new N(Ns.VMM, name, String.valueOf(value), List.of(), null);
    }

    static N node(String name, N... children) {
        return new N(Ns.VMM, name, null, List.of(children), null);
    }

    static N entry(int vmIndex, N... leaves) {
        List<N> all = new ArrayList<>(List.of(leaf("vmIndex", vmIndex)));
        all.addAll(List.of(leaves));
        return new N(Ns.VMM, "vmConfigEntry", null, all, null);
    }

    static N iface(int vmIndex, int networkIndex, N... leaves) {
        List<N> all = new ArrayList<>(List.of(leaf("vmIndex", vmIndex), leaf("vmNetworkConfigIndex", networkIndex)));
        all.addAll(List.of(leaves));
        return new N(Ns.VMM, "vmNetworkConfigEntry", null, all, null);
    }

    static N top(N... tables) {
        return node("NEW-VMM-MIB", tables);
    }

    static VmConfigEntry vr(int vmIndex, String name, int memory) {
        VmConfigEntry c = new VmConfigEntry();
        c.vmIndex = vmIndex;
        c.vmName = name;
        c.vmConfigMemory = memory;
        return c;
    }

    TreeEdit edit() {
        return new TreeEdit(base.copy(), false);
    }

    /** Applies the edit's change set to the service, as RESTCONF does, and waits until its work is done. */
    void commit(TreeEdit e) throws Exception {
        ChangeSet.Builder set = e.changesFrom(base);
        if (!set.isEmpty()) service.apply(set.build()).completion().get(10, TimeUnit.SECONDS);
        base = ConfigData.of(service);
    }

    static EditError only(List<EditError> errors) {
        assertThat(errors).hasSize(1);
        return errors.get(0);
    }

    // ------------------------------------------------------------------ entries

    @Test
    void mergeIntoAnEntryChangesTheLeavesGivenAndKeepsTheOthers() throws Exception {
        TreeEdit e = edit();
        assertThat(e.apply(Target.TOP, Operation.MERGE, top(node("vmConfigTable", entry(1, leaf("vmName", "uno")))))).isEmpty();
        assertThat(e.changesFrom(base).build().changes()).hasSize(1);
        commit(e);
        assertThat(service.getConfig(1).orElseThrow().vmName).isEqualTo("uno");
        assertThat(service.getConfig(1).orElseThrow().vmConfigMemory).isEqualTo(256);
        assertThat(service.getConfig(2).orElseThrow().vmName).isEqualTo("two");
    }

    @Test
    void mergeOfANewEntryCreatesItAndCreateOfAnExistingOneIsRefused() throws Exception {
        TreeEdit e = edit();
        assertThat(e.apply(Target.configEntry(3), Operation.MERGE, entry(3, leaf("vmName", "three")))).isEmpty();
        commit(e);
        assertThat(service.getConfig(3).orElseThrow().vmName).isEqualTo("three");

        EditError exists = only(edit().apply(Target.configEntry(1), Operation.CREATE, entry(1, leaf("vmName", "x"))));
        assertThat(exists.kind()).isEqualTo(Kind.DATA_EXISTS);
        assertThat(exists.at()).isEqualTo(Target.configEntry(1));
    }

    @Test
    void replaceOfAnEntryDropsTheLeavesNotGivenAndKeepsItsInterfaces() throws Exception {
        TreeEdit e = edit();
        assertThat(e.apply(Target.configEntry(2), Operation.REPLACE, entry(2, leaf("vmName", "deux")))).isEmpty();
        VmConfigEntry row = e.data().get(2);
        assertThat(row.vmName).isEqualTo("deux");
        assertThat(row.vmConfigMemory).isNull();
        assertThat(row.interfaces()).hasSize(1);
        commit(e);
        // the service fills in the default the replace left out
        VmConfigEntry after = service.getConfig(2).orElseThrow();
        assertThat(String.valueOf(after.vmConfigMemory)).isEqualTo(WithDefaults.CONFIG_DEFAULTS.get("vmConfigMemory"));
        assertThat(after.interfaces()).hasSize(1);
    }

    @Test
    void deleteNeedsTheEntryAndRemoveDoesNot() throws Exception {
        EditError missing = only(edit().apply(Target.configEntry(9), Operation.DELETE, null));
        assertThat(missing.kind()).isEqualTo(Kind.DATA_MISSING);

        TreeEdit remove = edit();
        assertThat(remove.apply(Target.configEntry(9), Operation.REMOVE, null)).isEmpty();
        assertThat(remove.changesFrom(base).isEmpty()).isTrue();

        TreeEdit delete = edit();
        assertThat(delete.apply(Target.configEntry(1), Operation.DELETE, null)).isEmpty();
        commit(delete);
        assertThat(service.getConfig(1)).isEmpty();
    }

    @Test
    void aNewEntryWithoutIndexGetsOneFromTheService() throws Exception {
        TreeEdit e = edit();
        assertThat(e.createNew(node("vmConfigEntry", leaf("vmName", "picked")))).isEmpty();
        commit(e);
        assertThat(service.findByName("picked")).isPresent();
    }

    // ------------------------------------------------------------------ interfaces

    @Test
    void interfacesAreCreatedMergedAndDeletedAndNeedTheirVr() throws Exception {
        TreeEdit e = edit();
        assertThat(e.apply(Target.NETWORK_TABLE, Operation.MERGE, node("vmNetworkConfigTable",
                iface(1, 1, leaf("vmNetworkConfigParent", "br0"))))).isEmpty();
        assertThat(e.apply(Target.networkEntry(2, 1), Operation.DELETE, null)).isEmpty();
        commit(e);
        assertThat(service.getConfig(1).orElseThrow().interfaces()).hasSize(1);
        assertThat(service.getConfig(2).orElseThrow().interfaces()).isEmpty();

        EditError orphan = only(edit().apply(Target.networkEntry(7, 1), Operation.MERGE, iface(7, 1)));
        assertThat(orphan.kind()).isEqualTo(Kind.INSTANCE_REQUIRED);
        assertThat(orphan.child()).isEqualTo("vmIndex");
        assertThat(only(edit().apply(Target.networkEntry(2, 5), Operation.DELETE, null)).kind()).isEqualTo(Kind.DATA_MISSING);
        assertThat(only(edit().apply(Target.networkEntry(1, 1), Operation.CREATE, iface(1, 1))).kind()).isEqualTo(Kind.DATA_EXISTS);
    }

    // ------------------------------------------------------------------ leaves

    @Test
    void aLeafTargetIsMergedRemovedDeletedAndCreated() {
        Target memory = Target.configLeaf(1, ConfigColumn.ofField("vmConfigMemory"));
        TreeEdit e = edit();
        assertThat(e.apply(memory, Operation.MERGE, leaf("vmConfigMemory", 1024))).isEmpty();
        assertThat(e.data().get(1).vmConfigMemory).isEqualTo(1024);
        assertThat(e.apply(memory, Operation.REMOVE, null)).isEmpty();
        assertThat(e.data().get(1).vmConfigMemory).isNull();
        EditError notSet = only(e.apply(memory, Operation.DELETE, null));
        assertThat(notSet.kind()).isEqualTo(Kind.DATA_MISSING);
        assertThat(notSet.child()).isEqualTo("vmConfigMemory");

        assertThat(only(edit().apply(memory, Operation.CREATE, leaf("vmConfigMemory", 64))).kind()).isEqualTo(Kind.DATA_EXISTS);
        assertThat(only(edit().apply(Target.configLeaf(9, ConfigColumn.ofField("vmName")), Operation.MERGE, leaf("vmName", "x")))
                .kind()).isEqualTo(Kind.NOT_FOUND);

        Target mode = Target.networkLeaf(2, 1, NetworkColumn.ofField("vmNetworkConfigParent"));
        TreeEdit n = edit();
        assertThat(n.apply(mode, Operation.MERGE, leaf("vmNetworkConfigParent", "br1"))).isEmpty();
        assertThat(n.data().get(2).interfaces().get(0).vmNetworkConfigParent).isEqualTo("br1");
        assertThat(service.getConfig(2).orElseThrow().interfaces().get(0).vmNetworkConfigParent).isEqualTo("br0");
    }

    @Test
    void aKeyLeafCannotChangeOrGo() {
        Target key = Target.keyLeaf(1, null, "vmIndex");
        assertThat(only(edit().apply(key, Operation.MERGE, leaf("vmIndex", 4))).kind()).isEqualTo(Kind.INVALID_VALUE);
        assertThat(only(edit().apply(key, Operation.DELETE, null)).getMessage()).contains("delete the entry instead");
        EditError other = only(edit().apply(Target.configEntry(1), Operation.MERGE, entry(4)));
        assertThat(other.kind()).isEqualTo(Kind.INVALID_VALUE);
        assertThat(other.child()).isEqualTo("vmIndex");
    }

    // ------------------------------------------------------------------ containers

    @Test
    void replaceOfTheTopContainerLeavesOnlyItsData() throws Exception {
        TreeEdit e = edit();
        assertThat(e.apply(Target.TOP, Operation.REPLACE, top(node("vmConfigTable", entry(5, leaf("vmName", "five")))))).isEmpty();
        commit(e);
        assertThat(service.indices()).containsExactly(5);
    }

    @Test
    void replaceOfVmConfigTableKeepsTheInterfacesOfTheVrsItKeeps() {
        TreeEdit e = edit();
        assertThat(e.apply(Target.CONFIG_TABLE, Operation.REPLACE, node("vmConfigTable", entry(2, leaf("vmName", "two"))))).isEmpty();
        assertThat(e.data().indices()).containsExactly(2);
        assertThat(e.data().get(2).interfaces()).hasSize(1);
    }

    @Test
    void theDatastoreIsReplacedByItsChildren() {
        TreeEdit e = edit();
        N data = new N(Ns.RESTCONF, "data", null, List.of(top(node("vmConfigTable", entry(6, leaf("vmName", "six"))))), null);
        assertThat(e.apply(Target.ROOT, Operation.REPLACE, data)).isEmpty();
        assertThat(e.data().indices()).containsExactly(6);
    }

    @Test
    void removeAndDeleteOfTablesAndOfEverything() {
        TreeEdit e = edit();
        assertThat(e.apply(Target.NETWORK_TABLE, Operation.REMOVE, null)).isEmpty();
        assertThat(e.data().get(2).interfaces()).isEmpty();
        assertThat(only(e.apply(Target.NETWORK_TABLE, Operation.DELETE, null)).kind()).isEqualTo(Kind.DATA_MISSING);

        TreeEdit all = edit();
        assertThat(all.apply(Target.TOP, Operation.DELETE, null)).isEmpty();
        assertThat(all.data().isEmpty()).isTrue();
        assertThat(only(all.apply(Target.TOP, Operation.DELETE, null)).kind()).isEqualTo(Kind.DATA_MISSING);
        TreeEdit empty = new TreeEdit(all.data(), false);
        assertThat(empty.apply(Target.CONFIG_TABLE, Operation.CREATE, node("vmConfigTable", entry(3)))).isEmpty();
        assertThat(only(edit().apply(Target.CONFIG_TABLE, Operation.CREATE, node("vmConfigTable"))).kind())
                .isEqualTo(Kind.DATA_EXISTS);
    }

    // ------------------------------------------------------------------ operations inside the data

    @Test
    void defaultOperationNoneDoesOnlyWhatTheDataSays() {
        TreeEdit e = edit();
        N data = top(node("vmConfigTable", entry(1, leaf("vmName", "ignored"), leaf("vmConfigMemory", 128).op("merge")),
                entry(2).op("delete")));
        assertThat(e.apply(Target.TOP, Operation.NONE, data)).isEmpty();
        assertThat(e.data().get(1).vmName).isEqualTo("one");
        assertThat(e.data().get(1).vmConfigMemory).isEqualTo(128);
        assertThat(e.data().get(2)).isNull();

        EditError missing = only(edit().apply(Target.TOP, Operation.NONE, top(node("vmConfigTable", entry(8)))));
        assertThat(missing.kind()).isEqualTo(Kind.DATA_MISSING);
        assertThat(missing.at()).isEqualTo(Target.configEntry(8));
    }

    @Test
    void anOperationThatIsNoneOfTheFiveIsRefused() {
        EditError bad = only(edit().apply(Target.TOP, Operation.MERGE, top(node("vmConfigTable", entry(1).op("erase")))));
        assertThat(bad.kind()).isEqualTo(Kind.BAD_OPERATION);
        assertThat(bad.at()).isEqualTo(Target.CONFIG_TABLE);
        assertThat(bad.child()).isEqualTo("vmConfigEntry");
    }

    // ------------------------------------------------------------------ errors

    @Test
    void valuesKeysAndElementsAreCheckedAgainstTheModel() {
        EditError value = only(edit().apply(Target.configEntry(1), Operation.MERGE, entry(1, leaf("vmConfigMemory", "lots"))));
        assertThat(value.kind()).isEqualTo(Kind.INVALID_VALUE);
        assertThat(value.child()).isEqualTo("vmConfigMemory");

        EditError nested = only(edit().apply(Target.configEntry(1), Operation.MERGE, entry(1, node("vmName", leaf("x", 1)))));
        assertThat(nested.kind()).isEqualTo(Kind.INVALID_VALUE);

        EditError unknown = only(edit().apply(Target.configEntry(1), Operation.MERGE, entry(1, leaf("vmColour", "red"))));
        assertThat(unknown.kind()).isEqualTo(Kind.UNKNOWN_ELEMENT);
        assertThat(unknown.child()).isEqualTo("vmColour");

        EditError noKey = only(edit().apply(Target.CONFIG_TABLE, Operation.MERGE, node("vmConfigTable",
                node("vmConfigEntry", leaf("vmName", "x")))));
        assertThat(noKey.kind()).isEqualTo(Kind.MISSING_ELEMENT);
        assertThat(noKey.child()).isEqualTo("vmIndex");

        EditError badKey = only(edit().apply(Target.CONFIG_TABLE, Operation.MERGE, node("vmConfigTable", entry(0))));
        assertThat(badKey.kind()).isEqualTo(Kind.INVALID_VALUE);

        EditError state = only(edit().apply(Target.TOP, Operation.MERGE, top(node("vmTable"))));
        assertThat(state.kind()).isEqualTo(Kind.NOT_CONFIG);
        assertThat(state.child()).isEqualTo("vmTable");

        EditError foreign = only(edit().apply(Target.TOP, Operation.MERGE,
                top(new N("urn:example", "vmConfigTable", null, List.of(), null))));
        assertThat(foreign.kind()).isEqualTo(Kind.UNKNOWN_ELEMENT);
    }

    @Test
    void anEntryThatFailsIsLeftAsItWasAndContinueOnErrorEditsTheOthers() {
        N data = top(node("vmConfigTable", entry(1, leaf("vmName", "uno"), leaf("vmConfigMemory", "lots")),
                entry(2, leaf("vmName", "deux"))));
        TreeEdit stop = edit();
        assertThat(stop.apply(Target.TOP, Operation.MERGE, data)).hasSize(1);
        assertThat(stop.data().get(1).vmName).isEqualTo("one");
        assertThat(stop.data().get(2).vmName).isEqualTo("two");

        TreeEdit go = new TreeEdit(base.copy(), true);
        assertThat(go.apply(Target.TOP, Operation.MERGE, data)).hasSize(1);
        assertThat(go.data().get(1).vmName).isEqualTo("one");
        assertThat(go.data().get(2).vmName).isEqualTo("deux");
    }

    @Test
    void theStateNodesAreTheConfigFalseChildrenOfTheModule() {
        for (String s : List.of("vmHypervisor", "vmObjects", "vmTable", "vmCpuTable", "vmCpuAffinityTable", "vmStorageTable",
                "vmNetworkTable")) {
            assertThat(Target.isState(s)).as(s).isTrue();
        }
        assertThat(Target.isState("vmConfigTable")).isFalse();
        assertThat(Target.isState("vmNetworkConfigTable")).isFalse();
    }

    // ------------------------------------------------------------------ the service's rules, once

    @Test
    void theServiceRefusesWhatBreaksItsRulesAndNothingChanges() {
        TreeEdit e = edit();
        assertThat(e.apply(Target.configEntry(1), Operation.MERGE, entry(1, leaf("vmName", "two")))).isEmpty();
        ChangeSet set = e.changesFrom(base).build();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> service.apply(set)).isInstanceOf(VrException.class);
        assertThat(service.getConfig(1).orElseThrow().vmName).isEqualTo("one");
    }
}
