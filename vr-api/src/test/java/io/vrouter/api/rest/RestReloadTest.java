package io.vrouter.api.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vrouter.core.config.Settings;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A reload (SIGHUP) changes rest.max-body-bytes from the next request on; a wrong value changes nothing. */
class RestReloadTest {
    private static final String ADMIN = RestClient.basic("admin", "admin");
    /** Not a body the server takes (an unknown member), but only the limit answers 413. */
    private static final String BODY = "{\"vmName\":\"padded\",\"pad\":\"" + "x".repeat(5000) + "\"}";

    @TempDir
    Path dir;

    @Test
    void theBodyLimitChangesOnReloadAndAWrongOneIsRefused() throws Exception {
        Settings started = Settings.of(Map.of("data-dir", dir.toString(), "rest-port", "0"));
        try (RestServer server = RestServer.start(started)) {
            RestClient rest = new RestClient(server.port());
            assertThat(rest.post("/api/v1/routers", ADMIN, "application/json", BODY).statusCode()).isEqualTo(400);

            server.rest().reload(started.with("rest.max-body-bytes", "2048")).run();
            var refused = rest.post("/api/v1/routers", ADMIN, "application/json", BODY);
            assertThat(refused.statusCode()).isEqualTo(413);
            assertThat(refused.body()).contains("2048");

            assertThatThrownBy(() -> server.rest().reload(started.with("rest.max-body-bytes", "0")))
                    .hasMessage("setting 'rest.max-body-bytes' must be at least 1");
            assertThatThrownBy(() -> server.rest().reload(started.with("rest.max-body-bytes", "1MiB")))
                    .hasMessageContaining("'rest.max-body-bytes' must be a whole number");
            assertThat(rest.post("/api/v1/routers", ADMIN, "application/json", BODY).statusCode()).isEqualTo(413);
            assertThat(rest.post("/api/v1/routers", ADMIN, "application/json", "{\"vmName\":\"small\"}").statusCode())
                    .isEqualTo(202);
        }
    }
}
