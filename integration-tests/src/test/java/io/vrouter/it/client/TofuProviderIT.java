package io.vrouter.it.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.vrouter.it.ServerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The OpenTofu provider (terraform-provider-vrouter): its Go tests, unit and acceptance ({@code TF_ACC=1}),
 * run with {@code go test} against the packaged server, which the Go tests start through bin/vrouter, and
 * OpenTofu as .ci/install-test-deps builds it. The tests' own output is printed and kept with the reports.
 * And the README's OpenTofu block, as written, against a fresh server.
 */
class TofuProviderIT {
    @TempDir
    Path dir;

    private static final Path PROVIDER = Path.of("..", "terraform-provider-vrouter").toAbsolutePath().normalize();
    /** Where .ci/install-test-deps builds it. */
    private static final String TOFU = "/opt/vrouter-go/bin/tofu";

    @Test
    void theProvidersTestsPassAgainstTheServer() throws Exception {
        assertThat(Path.of(TOFU)).as("OpenTofu, built by .ci/install-test-deps").isExecutable();
        Path log = Files.createDirectories(Path.of("target", "failsafe-reports")).resolve("TofuProviderIT-go-test.log");
        ProcessBuilder pb = new ProcessBuilder(List.of("go", "test", "-count=1", "-v", "-timeout", "15m", "./..."))
                .directory(PROVIDER.toFile()).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("TF_ACC", "1");
        pb.environment().put("TF_ACC_TERRAFORM_PATH", TOFU);
        // The Go tests start bin/vrouter, which runs this jar on the JDK running the tests.
        pb.environment().put("VROUTER_JAR", Path.of(System.getProperty("vrouter.jar")).toAbsolutePath().toString());
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().remove("VROUTER_ENDPOINT");
        Process go = pb.start();
        boolean finished = go.waitFor(16, TimeUnit.MINUTES);
        if (!finished) go.destroyForcibly().waitFor();
        String output = Files.readString(log);
        System.out.println(output);
        assertThat(finished).as("go test finished within 16 minutes").isTrue();
        assertThat(go.exitValue()).as(output).isZero();
        // The acceptance tests ran, not skipped for want of TF_ACC or a server.
        assertThat(output).contains("--- PASS: TestAccRouterLifecycle", "--- PASS: TestAccRefusedApply")
                .doesNotContain("--- SKIP");
    }

    @Test
    void theReadmesOpenTofuBlockWorksAsWritten() throws Exception {
        String readme = Files.readString(Path.of("..", "README.md"));
        int start = readme.indexOf("```sh\n", readme.indexOf("### Routers as code")) + 6;
        Path quickstart = dir.resolve("quickstart");
        Files.createDirectories(quickstart);
        Files.copy(PROVIDER.resolve("examples/quickstart/main.tf"), quickstart.resolve("main.tf"));
        try (ServerProcess server = ServerProcess.start(dir.resolve("server"))) {
            // Its server and, not to leave OpenTofu's files in the source tree, a copy of the example; no input:
            // a command that would ask for an answer fails at once instead of waiting.
            String block = "exec </dev/null\n" + readme.substring(start, readme.indexOf("```", start))
                    .replace("127.0.0.1:8080", "127.0.0.1:" + server.restPort)
                    .replace("cd terraform-provider-vrouter/examples/quickstart", "cd " + quickstart);
            ServerProcess.Result r = ServerProcess.run(List.of("env", "PATH=/opt/vrouter-go/bin:" + System.getenv("PATH"),
                    "bash", "-ec", block), Path.of("..").toAbsolutePath().normalize());
            assertThat(r.exit()).as(block + "\n" + r).isZero();
            assertThat(r.out()).contains("Apply complete! Resources: 1 added", "Destroy complete! Resources: 1 destroyed");
            assertThat(server.get("/api/v1/routers").body()).contains("\"total\":0");
        }
    }
}
