package io.vrouter.it.rest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vrouter.it.ServerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the README's curl walkthrough, command by command, with real curl against the packaged
 * server, and checks what each command answers: the README stays true.
 */
class ReadmeWalkthroughIT {
    private final ObjectMapper json = new ObjectMapper();

    @TempDir
    Path dir;

    /** The curl commands of the first sh block after the walkthrough heading, continuation lines joined. */
    static List<String> walkthrough() throws Exception {
        String readme = Files.readString(Path.of("..", "README.md"));
        int section = readme.indexOf("## A walk through with curl");
        int start = readme.indexOf("```sh\n", section) + 6;
        String block = readme.substring(start, readme.indexOf("```", start)).replace("\\\n", " ");
        List<String> commands = new ArrayList<>();
        for (String line : block.split("\n")) {
            if (line.startsWith("curl ")) commands.add(line.replaceAll(" +", " "));
        }
        return commands;
    }

    @Test
    void theReadmeWalkthroughWorksAsWritten() throws Exception {
        List<String> commands = walkthrough();
        assertThat(commands).hasSizeGreaterThanOrEqualTo(14);
        try (ServerProcess server = ServerProcess.start(dir)) {
            List<String> out = new ArrayList<>();
            for (String command : commands) {
                String c = command.replace("127.0.0.1:8080", "127.0.0.1:" + server.restPort);
                // The event stream never ends by itself: give it a second.
                if (c.contains("/events")) c = "timeout 1 " + c + " || true";
                ServerProcess.Result r = ServerProcess.run(List.of("bash", "-c", c));
                assertThat(r.exit()).as(command + "\n" + r).isZero();
                out.add(r.out());
            }
            int k = 0;
            JsonNode created = json.readTree(out.get(k++));
            assertThat(created.get("vmName").asText()).isEqualTo("edge1");
            assertThat(created.at("/vmEntry/vmOperState").asText()).isEqualTo("running");
            int i = created.get("vmIndex").asInt();
            assertThat(i).isEqualTo(1);
            JsonNode conflict = json.readTree(out.get(k++));
            assertThat(conflict.get("status").asInt()).isEqualTo(409);
            assertThat(conflict.get("field").asText()).isEqualTo("vmName");
            assertThat(json.readTree(out.get(k++)).get("total").asInt()).isEqualTo(1);
            assertThat(json.readTree(out.get(k++)).at("/vmEntry/vmRouterAddr").asText()).isEqualTo("192.0.2.1");
            assertThat(out.get(k++)).startsWith("<?xml").contains("<vmName>edge1</vmName>");
            assertThat(json.readTree(out.get(k++)).at("/vmEntry/vmOperState").asText()).isEqualTo("shutdown");
            assertThat(json.readTree(out.get(k++)).at("/vmEntry/vmOperState").asText()).isEqualTo("running");
            assertThat(json.readTree(out.get(k++)).get("vmNetworkConfigIndex").asInt()).isEqualTo(2);
            assertThat(json.readTree(out.get(k++)).get("vmNetworkConfigEntry")).hasSize(2);
            assertThat(out.get(k++)).contains(": subscribed");
            assertThat(out.get(k++).trim()).isEqualTo("204");
            JsonNode hv = json.readTree(out.get(k++));
            assertThat(hv.get("vmConfiguredVMs").asInt()).isZero();
            assertThat(json.readTree(out.get(k++)).get("status").asText()).isEqualTo("UP");
            assertThat(out.get(k++)).contains("vrouter_requests_seconds_count");
            assertThat(out.get(k++)).contains("openapi: 3.");
            assertThat(k).isEqualTo(commands.size());
        }
    }
}
