package io.vrouter.it.netconf;

import static org.assertj.core.api.Assertions.assertThat;

import io.vrouter.it.ServerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The YANG module as shipped passes pyang --strict and yanglint (the CI check of issue 4, item 1). */
class YangModuleIT {
    static final Path YANG = Path.of("../vr-netconf-adapter/src/main/resources/io/vrouter/netconf/yang");
    static final Path MODULE = YANG.resolve("NEW-VMM-MIB@2026-11-22.yang");

    @Test
    void pyangStrictAcceptsTheModule() throws Exception {
        assertThat(MODULE).exists();
        ServerProcess.Result r = ServerProcess.run(List.of("pyang", "--strict", "-p", YANG.toString(), MODULE.toString()));
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.out() + r.err()).as("pyang prints nothing for a clean module").isBlank();
    }

    @Test
    void yanglintAcceptsTheModule() throws Exception {
        ServerProcess.Result r = ServerProcess.run(List.of("yanglint", "-p", YANG.toString(), MODULE.toString()));
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.out() + r.err()).as("yanglint prints nothing for a clean module").isBlank();
    }

    @Test
    void theTreeHasTheTablesAsContainersOfListsKeyedByTheIndex() throws Exception {
        ServerProcess.Result r = ServerProcess.run(List.of("pyang", "-f", "tree", "-p", YANG.toString(), MODULE.toString()));
        assertThat(r.exit()).as(r.toString()).isZero();
        String tree = r.out();
        assertThat(tree).contains("+--rw NEW-VMM-MIB", "+--rw vmConfigTable", "+--rw vmConfigEntry* [vmIndex]",
                "+--rw vmNetworkConfigEntry* [vmIndex vmNetworkConfigIndex]", "+--ro vmEntry* [vmIndex]",
                "+--ro vmOperState?", "+--rw vmAdminState?", "+--rw vmName ", "+--ro vmHypervisor",
                "+--ro vmActiveVMs?");
        assertThat(Files.readString(MODULE)).contains("namespace \"urn:ietf:params:xml:ns:yang:smiv2:NEW-VMM-MIB\"");
    }
}
