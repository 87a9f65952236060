package io.vrouter.it.rest;

import static org.assertj.core.api.Assertions.assertThat;

import io.vrouter.it.ServerProcess;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Schema-driven testing of the packaged server (issue 12): schemathesis reads the served
 * /api/v1/openapi.json and sends what it generates from it, valid and invalid, to every operation;
 * not one answer may be a server error or differ from the schema the document declares for it.
 * Bounded: a fixed seed, a few examples per operation and no coverage phase (its thousands of
 * cases took ten minutes), so a run is about two hundred requests. The event stream is left out: it
 * never ends, so each case would wait for the request timeout (RestApiTest and RestLimitsIT read it).
 */
class SchemathesisIT {
    private static final Pattern CASES = Pattern.compile("(\\d+) generated, (\\d+) passed");

    @Test
    void noServerErrorAndNoAnswerOutsideTheSchema(@TempDir Path dir) throws Exception {
        try (ServerProcess server = ServerProcess.start(dir.resolve("server"))) {
            // The first read builds the document; schemathesis gives a schema 10 s to arrive.
            HttpResponse<String> doc = server.get("/api/v1/openapi.json");
            assertThat(doc.statusCode()).isEqualTo(200);
            // Something to find, so that the operations on one VR get past 404 now and then.
            assertThat(server.post("/api/v1/routers?wait=30s", "{\"vmIndex\":1,\"vmName\":\"st1\"}").statusCode())
                    .isEqualTo(201);

            // In the test's directory: schemathesis leaves a cache behind in the one it runs in.
            ServerProcess.Result r = ServerProcess.run(List.of("python3", "-m", "schemathesis.cli", "run",
                    server.restBase() + "/api/v1/openapi.json", "--auth", "admin:admin",
                    "--checks", "not_a_server_error,response_schema_conformance",
                    "--phases", "examples,fuzzing", "--max-examples", "12", "--seed", "12",
                    "--workers", "1", "--request-timeout", "30", "--exclude-path", "/api/v1/events",
                    "--generation-database", "none"), dir);

            String what = r + "\nserver log:\n" + server.log();
            assertThat(r.exit()).as(what).isZero();
            Matcher m = CASES.matcher(r.out());
            assertThat(m.find()).as(what).isTrue();
            System.out.println("schemathesis: " + m.group());
            int generated = Integer.parseInt(m.group(1));
            assertThat(generated).as("test cases run").isGreaterThan(50);
            assertThat(Integer.parseInt(m.group(2))).as(what).isEqualTo(generated);
            assertThat(server.log()).as("every 5xx is logged with its id").doesNotContain("(error ");
        }
    }
}
