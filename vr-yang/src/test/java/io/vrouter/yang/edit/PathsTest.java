package io.vrouter.yang.edit;

import static org.assertj.core.api.Assertions.assertThat;

import io.vrouter.core.model.Schema;
import org.junit.jupiter.api.Test;

/** Instance identifiers built from the schema table are those the wire carries (NETCONF error-path, RFC 6470, NACM). */
class PathsTest {
    private static final String TOP = "/new-vmm-mib:NEW-VMM-MIB";

    @Test
    void entriesAndLeavesAreNamedByTheTablesContainerListAndKeys() {
        assertThat(Paths.entry(5)).isEqualTo(TOP + "/new-vmm-mib:vmConfigTable/new-vmm-mib:vmConfigEntry[new-vmm-mib:vmIndex='5']");
        assertThat(Paths.networkEntry(5, 2)).isEqualTo(TOP + "/new-vmm-mib:vmNetworkConfigTable/new-vmm-mib:vmNetworkConfigEntry"
                + "[new-vmm-mib:vmIndex='5'][new-vmm-mib:vmNetworkConfigIndex='2']");
        assertThat(Paths.of(Target.keyLeaf(5, 2, "vmNetworkConfigIndex"))).isEqualTo(Paths.networkEntry(5, 2)
                + "/new-vmm-mib:vmNetworkConfigIndex");
        assertThat(Paths.of(Target.NETWORK_TABLE)).isEqualTo(TOP + "/new-vmm-mib:vmNetworkConfigTable");
        // Any table of the schema, by its own keys: a new list costs its declaration there.
        assertThat(Paths.entry(Schema.Table.STORAGE, 5, 1)).isEqualTo(TOP + "/new-vmm-mib:vmStorageTable/new-vmm-mib:vmStorageEntry"
                + "[new-vmm-mib:vmStorageVmIndex='5'][new-vmm-mib:vmStorageIndex='1']");
    }

    @Test
    void aTargetKnowsItsTableAndItsNameFromIt() {
        assertThat(Target.configEntry(1).name()).isEqualTo("vmConfigEntry");
        assertThat(Target.NETWORK_TABLE.name()).isEqualTo("vmNetworkConfigTable");
        assertThat(Target.keyLeaf(1, null, "vmIndex").table()).isSameAs(Schema.Table.CONFIG);
        assertThat(Target.networkEntry(1, 2).table()).isSameAs(Schema.Table.NETWORK_CONFIG);
        assertThat(Target.TOP.table()).isNull();
    }
}
