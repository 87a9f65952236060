package io.vrouter.it.netconf;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.vrouter.it.ServerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The NETCONF interface driven by yuma123's yangcli (Debian package {@code yangcli}), which loads
 * NEW-VMM-MIB from the server with get-schema and builds its edits from the module.
 */
class YangcliIT extends WithServer {
    @Test
    void yangcliCreatesAVrOnTheCandidateCommitsAndReadsItBack() throws Exception {
        Path script = Files.writeString(dir.resolve("yangcli.script"),
                "create /NEW-VMM-MIB/vmConfigTable/vmConfigEntry -- vmIndex=161 vmName=yuma-161\n"
                        + "commit\n"
                        + "xget /NEW-VMM-MIB/vmConfigTable/vmConfigEntry[vmIndex=161]\n");
        ServerProcess.Result r = ServerProcess.run(List.of("yangcli", "--server=127.0.0.1",
                "--ncport=" + server.netconfPort, "--user=admin", "--password=admin", "--batch-mode",
                "--run-script=" + script, "--display-mode=xml"));
        assertThat(r.exit()).as(r.toString()).isZero();
        // Two <ok/> replies (the edit-config that "create" sends and the commit), then the data.
        assertThat(r.out().split("RPC OK Reply", -1)).hasSize(3);
        assertThat(r.out()).contains("<vmName>yuma-161</vmName>").doesNotContain("RPC Error");
        JsonNode vr = Ncclient.rest(server, "/api/v1/routers/161");
        assertThat(vr).isNotNull();
        assertThat(vr.get("vmName").asText()).isEqualTo("yuma-161");
    }
}
