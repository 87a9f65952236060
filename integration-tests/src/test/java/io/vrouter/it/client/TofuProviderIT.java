package io.vrouter.it.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The OpenTofu provider (terraform-provider-vrouter): its Go tests, unit and acceptance ({@code TF_ACC=1}),
 * run with {@code go test} against the packaged server, which the Go tests start through bin/vrouter, and
 * OpenTofu as .ci/install-test-deps builds it. The tests' own output is printed and kept with the reports.
 */
class TofuProviderIT {
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
}
