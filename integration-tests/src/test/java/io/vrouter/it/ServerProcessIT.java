package io.vrouter.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The tests' own server runner. */
class ServerProcessIT {
    @TempDir
    Path dir;

    @Test
    void aFirstStartWhosePortWasTakenMeanwhileTakesOthers() throws Exception {
        try (ServerSocket taken = new ServerSocket(0);
             ServerProcess server = ServerProcess.start(dir, taken.getLocalPort())) {
            assertThat(server.restPort).isNotEqualTo(taken.getLocalPort());
            assertThat(server.get("/health").statusCode()).isEqualTo(200);
        }
    }
}
