package io.vrouter.it.snmp;

import static io.vrouter.it.snmp.MigrationSnmpIT.await;
import static io.vrouter.it.snmp.MigrationSnmpIT.snmp;
import static io.vrouter.it.snmp.MigrationSnmpIT.snmpQuiet;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.vrouter.it.ServerProcess;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Drain through NEW-VMM-MIB's vmDrain scalars with net-snmp's snmpset and snmpget, on three servers as
 * bin/vrouter starts them (docs/adr/0023 decision 16): A with four VRs drains to its peers B and C with
 * {@code vmDrainState.0 i 2}; once it reads drained, the report says all four moved, each runs on B or C
 * and none on A; a creation through vmConfigTable is refused (resourceUnavailable), a second drain too
 * (inconsistentValue: drained with nothing left); {@code vmDrainState.0 i 1} opens it and a creation passes.
 */
class DrainSnmpIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String MIB = "1.3.6.1.3.7666";
    private static final String STATE = MIB + ".1.22.1.0", TOTAL = MIB + ".1.22.2.0", MOVED = MIB + ".1.22.3.0",
            NOT_MOVED = MIB + ".1.22.4.0", RESULT = MIB + ".1.22.5.0";
    private static final String ROW_STATUS = MIB + ".1.12.1.7.", NAME = MIB + ".1.12.1.1.";
    private static final int VRS = 4;

    @TempDir
    Path dir;

    @Test
    void aRouterDrainsToItsPeersThroughVmDrainStateAndOpensAgain() throws Exception {
        Path peerConfig = dir.resolve("peer.properties");
        Files.write(peerConfig, List.of("user.admin = operator:admin"));
        try (ServerProcess b = ServerProcess.start(dir.resolve("b"), "--config", peerConfig.toString());
             ServerProcess c = ServerProcess.start(dir.resolve("c"), "--config", peerConfig.toString())) {
            Path configA = dir.resolve("a.properties");
            Files.write(configA, List.of("user.admin = operator:admin",
                    "peer.b = " + b.restBase(), "peer.b.user = admin", "peer.b.password = admin",
                    "peer.c = " + c.restBase(), "peer.c.user = admin", "peer.c.password = admin"));
            try (ServerProcess a = ServerProcess.start(dir.resolve("a"), "--config", configA.toString())) {
                SnmpCliIT.awaitAgent(a);
                Set<String> names = new HashSet<>();
                for (int n = 1; n <= VRS; n++) {
                    HttpResponse<String> made = a.post("/api/v1/routers?wait=30s", "{\"vmName\":\"snmp-drained-" + n + "\"}");
                    assertThat(made.statusCode()).as(made.body()).isEqualTo(201);
                    names.add("snmp-drained-" + n);
                }
                assertThat(snmp(a, "snmpget", STATE).out()).as("open").contains("INTEGER: 1");

                ServerProcess.Result drain = snmp(a, "snmpset", STATE, "i", "2");
                assertThat(drain.exit()).as(drain.toString()).isZero();
                await("the drain ended", () -> snmpQuiet(a, STATE).contains("INTEGER: 2"));
                assertThat(snmp(a, "snmpget", TOTAL, MOVED, NOT_MOVED).out()).contains(
                        TOTAL + " = Gauge32: " + VRS, MOVED + " = Gauge32: " + VRS, NOT_MOVED + " = Gauge32: 0");
                assertThat(snmp(a, "snmpget", RESULT).out()).contains("drained to b, c: " + VRS + " of " + VRS + " VRs moved;");

                // the same drain as REST's (one per server): its report is the one REST reads
                assertThat(JSON.readTree(a.get("/api/v1/drain").body()).get("moved").asInt()).isEqualTo(VRS);
                assertThat(namesOn(a)).as("none left on A").isEmpty();
                List<String> onPeers = new ArrayList<>(namesOn(b));
                onPeers.addAll(namesOn(c));
                assertThat(onPeers).containsExactlyInAnyOrderElementsOf(names);

                // drained: a creation is refused in SNMP's terms, as is a drain with nothing left
                ServerProcess.Result create = snmp(a, "snmpset", ROW_STATUS + 9, "i", "4", NAME + 9, "s", "while-drained");
                assertThat(create.exit()).isNotZero();
                assertThat(create.err() + create.out()).contains("resourceUnavailable");
                assertThat(a.get("/api/v1/routers/9").statusCode()).isEqualTo(404);
                ServerProcess.Result again = snmp(a, "snmpset", STATE, "i", "2");
                assertThat(again.err() + again.out()).contains("inconsistentValue");

                ServerProcess.Result open = snmp(a, "snmpset", STATE, "i", "1");
                assertThat(open.exit()).as(open.toString()).isZero();
                assertThat(snmp(a, "snmpget", STATE).out()).as("open").contains("INTEGER: 1");
                assertThat(JSON.readTree(a.get("/health").body()).get("drained").asBoolean()).isFalse();
                ServerProcess.Result opened = snmp(a, "snmpset", ROW_STATUS + 9, "i", "4", NAME + 9, "s", "after-open");
                assertThat(opened.exit()).as(opened.toString()).isZero();
                assertThat(namesOn(a)).containsExactly("after-open");
            }
        }
    }

    private static List<String> namesOn(ServerProcess s) throws Exception {
        List<String> out = new ArrayList<>();
        JSON.readTree(s.get("/api/v1/routers").body()).path("virtualRouter").forEach(vr -> out.add(vr.get("vmName").asText()));
        return out;
    }
}
