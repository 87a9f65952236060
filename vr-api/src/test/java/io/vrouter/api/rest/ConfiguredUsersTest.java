package io.vrouter.api.rest;

import static org.assertj.core.api.Assertions.assertThat;

import io.vrouter.core.config.Settings;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Configured users replace the development ones; hashed passwords work. */
class ConfiguredUsersTest {
    @TempDir
    Path dir;

    @Test
    void configuredUsersReplaceTheDevelopmentOnes() throws Exception {
        // printf %s s3cret | sha256sum
        String hash = "{sha256}1ec1c26b50d5d3c58d9583181af8076655fe00756bf7285940ba3670f99fcba0";
        Settings s = Settings.of(Map.of("data-dir", dir.toString(), "rest-port", "0", "snmp-port", "0", "netconf-port", "0",
                "user.ops", "operator:" + hash, "user.noc", "viewer:look"));
        try (RestServer server = RestServer.start(s)) {
            RestClient rest = new RestClient(server.port());
            assertThat(rest.get("/api/v1/routers", RestClient.basic("admin", "admin"), "application/json").statusCode()).isEqualTo(401);
            assertThat(rest.post("/api/v1/routers", RestClient.basic("ops", "s3cret"), "application/json",
                    "{\"vmName\":\"by-ops\"}").statusCode()).isEqualTo(202);
            assertThat(rest.get("/api/v1/routers", RestClient.basic("noc", "look"), "application/json").statusCode()).isEqualTo(200);
            assertThat(rest.post("/api/v1/routers", RestClient.basic("noc", "look"), "application/json",
                    "{\"vmName\":\"by-noc\"}").statusCode()).isEqualTo(403);
        }
    }
}
