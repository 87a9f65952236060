package io.vrouter.it.restconf;

import static org.assertj.core.api.Assertions.assertThat;

import io.vrouter.it.ServerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A RESTCONF client nobody here wrote: Ansible's ansible.netcommon.restconf_config and restconf_get
 * (over its restconf httpapi plugin) create, read, stop, change, start and remove a VR on the packaged
 * server, with a playbook that knows nothing but NEW-VMM-MIB's YANG (src/test/ansible). Ansible is
 * installed by .ci/install-test-deps in a virtual environment of its own.
 */
class RestconfAnsibleIT {
    static final Path PLAYBOOK = Path.of("src", "test", "ansible", "restconf-lifecycle.yml").toAbsolutePath();
    static final Path ANSIBLE = Path.of("/opt/vrouter-ansible/bin/ansible-playbook");

    @TempDir
    Path dir;

    @Test
    void ansiblesRestconfModulesDriveAVrsWholeLife() throws Exception {
        assertThat(ANSIBLE).as("installed by .ci/install-test-deps").isExecutable();
        try (ServerProcess server = ServerProcess.start(dir.resolve("server"))) {
            Path log = dir.resolve("ansible.log");
            // Ansible's temporary files and persistent connection sockets in this test's directory.
            ProcessBuilder pb = new ProcessBuilder(ANSIBLE.toString(), "-i", "vrouter,", "-e", "port=" + server.restPort,
                    "-e", "index=461", PLAYBOOK.toString()).redirectErrorStream(true).redirectOutput(log.toFile());
            pb.environment().put("ANSIBLE_LOCAL_TEMP", dir.resolve("tmp").toString());
            pb.environment().put("ANSIBLE_PERSISTENT_CONTROL_PATH_DIR", dir.resolve("cp").toString());
            pb.environment().put("ANSIBLE_NOCOLOR", "1");
            Process p = pb.start();
            boolean done = p.waitFor(5, TimeUnit.MINUTES);
            if (!done) p.destroyForcibly();
            String out = Files.readString(log);
            assertThat(done).as(out).isTrue();
            assertThat(p.exitValue()).as(out).isZero();
            assertThat(out).containsPattern("vrouter\\s+: ok=\\d+\\s+changed=5\\s+unreachable=0\\s+failed=0");
            assertThat(server.get("/api/v1/routers/461").statusCode()).isEqualTo(404);
        }
    }
}
