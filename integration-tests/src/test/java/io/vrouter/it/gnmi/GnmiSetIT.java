package io.vrouter.it.gnmi;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vrouter.it.ServerProcess;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * gNMI Set from real clients on the server as bin/vrouter starts it: pygnmi ({@code gnmi_set.py}) and
 * openconfig's gnmi_cli set values that REST then reads; a Set whose second update the server refuses
 * changes nothing, its first update included.
 */
class GnmiSetIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String GNMI_CLI = "/opt/vrouter-go/bin/gnmi_cli";

    @TempDir
    Path dir;

    @Test
    void pygnmiAndGnmiCliSetValuesAndAFailedSetChangesNothing() throws Exception {
        try (ServerProcess server = ServerProcess.start(dir.resolve("server"))) {
            HttpResponse<String> made = server.post("/api/v1/routers?wait=30s", "{\"vmName\":\"gset\"}");
            assertThat(made.statusCode()).as(made.body()).isEqualTo(201);
            int vr = JSON.readTree(made.body()).get("vmIndex").asInt();

            JsonNode ok = pygnmi(server, "ok", vr);
            assertThat(ok.get("ops").toString()).isEqualTo("[\"REPLACE\",\"UPDATE\"]");
            assertThat(ok.get("vmName").asText()).isEqualTo("py-set");
            JsonNode rest = server.router(vr);
            assertThat(rest.get("vmName").asText()).isEqualTo("py-set");
            assertThat(rest.get("vmConfigDescription").asText()).isEqualTo("by pygnmi");
            assertThat(rest.get("vmConfigAutoStart").asBoolean()).isTrue();

            JsonNode fails = pygnmi(server, "fails", vr);
            assertThat(fails.get("error").asText()).contains("INVALID_ARGUMENT");
            assertThat(fails.get("vmName").asText()).as("the first update is not made either").isEqualTo("py-set");
            assertThat(server.router(vr).get("vmName").asText()).isEqualTo("py-set");

            String entry = "elem: <name: 'NEW-VMM-MIB'> elem: <name: 'vmConfigTable'> elem: <name: 'vmConfigEntry' "
                    + "key: <key: 'vmIndex' value: '" + vr + "'>>";
            ServerProcess.Result cli = ServerProcess.run(List.of("env", "GNMI_USER=admin", "GNMI_PASS=admin", GNMI_CLI,
                    "-address", "127.0.0.1:" + server.gnmiPort, "-insecure", "-with_user_pass", "-timeout", "30s", "-set",
                    "-proto", "update: <path: <" + entry + " elem: <name: 'vmName'>> val: <string_val: 'cli-set'>> "
                            + "update: <path: <" + entry + " elem: <name: 'vmConfigDescription'>> "
                            + "val: <json_ietf_val: '\"by gnmi_cli\"'>>"));
            assertThat(cli.exit()).as(cli.toString()).isZero();
            assertThat(cli.out()).contains("UPDATE");
            rest = server.router(vr);
            assertThat(rest.get("vmName").asText()).isEqualTo("cli-set");
            assertThat(rest.get("vmConfigDescription").asText()).isEqualTo("by gnmi_cli");
            assertThat(JSON.readTree(server.get("/api/v1/commits").body()).findValuesAsText("interface")).contains("gnmi");
        }
    }

    private static JsonNode pygnmi(ServerProcess server, String scenario, int vr) throws Exception {
        ServerProcess.Result r = ServerProcess.run(List.of("python3", "src/test/python/gnmi_set.py", scenario, "--port",
                Integer.toString(server.gnmiPort), "--vm", Integer.toString(vr)));
        assertThat(r.exit()).as(r.toString()).isZero();
        String[] lines = r.out().strip().split("\n");
        return JSON.readTree(lines[lines.length - 1]);
    }
}
