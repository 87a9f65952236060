package io.vrouter.it.netconf;

import static org.assertj.core.api.Assertions.assertThat;

import io.vrouter.it.ServerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The YANG module as shipped passes pyang --strict and yanglint (the CI check of issue 4, item 1). */
class YangModuleIT {
    static final Path YANG = Path.of("../vr-yang/src/main/resources/io/vrouter/yang");
    static final Path MODULE = YANG.resolve("NEW-VMM-MIB@2026-11-28.yang");

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

    /**
     * The published module RFC 6470 printed has a when statement on a uses ("../confirm-event")
     * whose path both tools resolve one level too high; they warn, and nothing else may be said.
     */
    static final String RFC_6470_WHEN = "confirm-event";

    @Test
    void everyModuleTheServerOffersPassesPyangStrictAndYanglint() throws Exception {
        List<String> modules;
        try (var files = Files.list(YANG)) {
            modules = files.map(Path::toString).filter(f -> f.endsWith(".yang")).sorted().toList();
        }
        assertThat(modules).hasSizeGreaterThanOrEqualTo(15);
        for (String tool : List.of("pyang --strict", "yanglint")) {
            List<String> cmd = new java.util.ArrayList<>(List.of(tool.split(" ")));
            cmd.addAll(List.of("-p", YANG.toString()));
            cmd.addAll(modules);
            ServerProcess.Result r = ServerProcess.run(cmd);
            assertThat(r.exit()).as(tool + "\n" + r).isZero();
            assertThat((r.out() + r.err()).lines().filter(l -> !l.contains(RFC_6470_WHEN)))
                    .as(tool + " says nothing but the known warning").isEmpty();
        }
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
