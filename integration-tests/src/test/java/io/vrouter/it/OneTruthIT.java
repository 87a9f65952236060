package io.vrouter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One truth on all four interfaces: VRs read over REST, SNMP (net-snmp's snmpbulkwalk), NETCONF
 * (ncclient) and RESTCONF (a GET of the module's tree, in yang-data+json and in yang-data+xml) by
 * {@code src/test/python/one_truth.py}, which compares every column of every table of
 * NEW-VMM-MIB (the YANG module's lists and leaves) value by value, converting only what the encodings
 * must. Any difference fails the test, a new column included.
 */
class OneTruthIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String YANG = "../vr-yang/src/main/resources/io/vrouter/yang";

    @TempDir
    Path dir;

    @Test
    void everyColumnOfEveryTableIsTheSameOnRestSnmpNetconfAndRestconf() throws Exception {
        try (ServerProcess server = ServerProcess.start(dir.resolve("server"))) {
            // One VR with three interfaces: IPv4, IPv6 with a given MAC, none; running, autostarting.
            HttpResponse<String> truth = server.post("/api/v1/routers?wait=30s", "{\"vmName\":\"truth\","
                    + "\"vmConfigAutoStart\":true,\"vmConfigDescription\":\"compared everywhere\",\"vmConfigCpuNumber\":2,"
                    + "\"vmNetworkConfigTable\":[{\"vmNetworkConfigParent\":\"br-a\",\"vmNetworkConfigAddress\":\"192.0.2.1\"},"
                    + "{\"vmNetworkConfigParent\":\"br-b\",\"vmNetworkConfigAddress\":\"2001:db8::1\","
                    + "\"vmNetworkConfigPrefixLength\":48,\"vmNetworkConfigPhysAddress\":\"02:00:5E:00:53:AA\"},"
                    + "{\"vmNetworkConfigParent\":\"br-c\"}]}");
            assertThat(truth.statusCode()).as(truth.body()).isEqualTo(201);
            // And one with no IPv4 address at all, shut down.
            HttpResponse<String> v6 = server.post("/api/v1/routers?wait=30s", "{\"vmName\":\"v6only\","
                    + "\"vmAdminState\":\"shutdown\",\"vmNetworkConfigTable\":[{\"vmNetworkConfigParent\":\"br-b\","
                    + "\"vmNetworkConfigAddress\":\"2001:db8::2\"}]}");
            assertThat(v6.statusCode()).as(v6.body()).isEqualTo(201);
            int t = JSON.readTree(truth.body()).get("vmIndex").asInt();
            int s = JSON.readTree(v6.body()).get("vmIndex").asInt();

            ServerProcess.Result r = ServerProcess.run(List.of("python3", "src/test/python/one_truth.py",
                    "--rest-port", Integer.toString(server.restPort), "--snmp-port", Integer.toString(server.snmpPort),
                    "--netconf-port", Integer.toString(server.netconfPort), "--yang", YANG));
            assertThat(r.exit()).as(r.toString()).isZero();
            String[] lines = r.out().strip().split("\n");
            JsonNode report = JSON.readTree(lines[lines.length - 1]);

            assertThat(report.get("differences")).as(report.get("differences").toPrettyString()).isEmpty();
            assertThat(report.get("snmpOnly")).as("MIB columns the YANG module lacks").isEmpty();
            // Every table was there, with the rows of both VRs, and compared column by column.
            JsonNode rows = report.get("tables");
            assertThat(JSON.convertValue(rows, java.util.Map.class)).containsOnlyKeys("vmTable", "vmCpuTable",
                    "vmCpuAffinityTable", "vmStorageTable", "vmNetworkTable", "vmConfigTable", "vmNetworkConfigTable");
            assertThat(rows.get("vmConfigTable").toString()).isEqualTo("[\"" + t + "\",\"" + s + "\"]");
            assertThat(rows.get("vmNetworkConfigTable").toString())
                    .isEqualTo("[\"" + t + ".1\",\"" + t + ".2\",\"" + t + ".3\",\"" + s + ".1\"]");
            assertThat(rows.get("vmCpuTable").toString()).isEqualTo("[\"" + t + ".1\",\"" + t + ".2\",\"" + s + ".1\"]");
            // The simulated host pins vCPU N to physical CPU N: one affinity row each (vmCpuPhysIndex is 1 and up).
            assertThat(rows.get("vmCpuAffinityTable").toString())
                    .isEqualTo("[\"" + t + ".1.1\",\"" + t + ".2.2\",\"" + s + ".1.1\"]");
            assertThat(report.get("compared").get("vmTable").asInt()).isEqualTo(2 * 21);
            assertThat(report.get("compared").get("vmStorageTable").asInt()).isEqualTo(2 * 18);

            // The values the four agree on are the right ones.
            JsonNode vr = server.router(t);
            assertThat(vr.at("/vmEntry/vmAutoStart").asText()).isEqualTo("enabled");
            assertThat(vr.at("/vmEntry/vmRouterAddrType").asText()).isEqualTo("ipv4");
            assertThat(vr.at("/vmEntry/vmRouterAddr").asText()).isEqualTo("192.0.2.1");
            assertThat(vr.at("/vmNetworkTable/1/vmNetworkPhysAddress").asText()).isEqualTo("02:00:5e:00:53:aa");
            // The MACs the host generated are in the configuration, so every interface shows them.
            for (int i : new int[] {0, 2}) {
                assertThat(vr.at("/vmNetworkConfigTable/" + i + "/vmNetworkConfigPhysAddress").asText()).isNotEmpty()
                        .isEqualTo(vr.at("/vmNetworkTable/" + i + "/vmNetworkPhysAddress").asText());
            }
            assertThat(vr.at("/vmStorageTable/0/vmStorageMediaType").asText()).isEqualTo("hardDisk");
            assertThat(vr.at("/vmStorageTable/0/vmStorageAccess").asText()).as("RFC 7666's label").isEqualTo("readwrite");
            assertThat(vr.at("/vmCpuTable/0/vmCpuAffinity").asText()).isEqualTo("unknown");
            JsonNode none = server.router(s);
            assertThat(none.at("/vmEntry/vmAutoStart").asText()).isEqualTo("disabled");
            assertThat(none.at("/vmEntry/vmRouterAddrType").asText()).isEqualTo("unknown");
            assertThat(none.at("/vmEntry/vmRouterAddr").asText()).isEmpty();
        }
    }
}
