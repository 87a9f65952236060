package io.vrouter.it.netconf;

import static org.assertj.core.api.Assertions.assertThat;

import io.vrouter.it.ServerProcess;
import io.vrouter.it.Sockets;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Idle connections that never log in must not keep an operator out (issue 12): they have a short
 * login grace time and a cap of their own, apart from netconf.max-sessions.
 */
class NetconfLimitsIT {
    @TempDir
    Path dir;

    @Test
    void idleUnauthenticatedConnectionsDoNotKeepTheOperatorOut() throws Exception {
        Path config = dir.resolve("vrouter.properties");
        Files.writeString(config, "netconf.login-grace-time=5s\nnetconf.max-sessions=2\n");
        List<Socket> idle = new ArrayList<>();
        try (ServerProcess server = ServerProcess.start(dir, "--config", config.toString())) {
            try {
                for (int k = 0; k < 16; k++) {
                    idle.add(Sockets.connectFrom("127.0.0.2", server.netconfPort));
                }
                // Four not logged in yet from one address at most (the default): the others go at once,
                // well before the login grace time.
                List<Socket> open = new ArrayList<>(idle);
                long end = System.nanoTime() + 2_500_000_000L;
                while (open.size() > 4 && System.nanoTime() < end) {
                    for (Socket s : List.copyOf(open)) {
                        if (Sockets.closedWithin(s, 10)) open.remove(s);
                    }
                }
                assertThat(open).hasSize(4);
                // The operator logs in meanwhile, twice over (netconf.max-sessions counts logged-in sessions only);
                // not how fast: a machine under load took 14 s for the two.
                assertThat(Ncclient.scenario(server, "hello").get("get_config_ok").asBoolean()).isTrue();
                assertThat(Ncclient.scenario(server, "hello").get("get_config_ok").asBoolean()).isTrue();
                assertThat(server.get("/health").statusCode()).isEqualTo(200);
                // The four left are closed once the login grace time has passed.
                for (Socket s : idle) assertThat(Sockets.closedWithin(s, 5_000)).isTrue();
            } finally {
                for (Socket s : idle) s.close();
            }
        }
    }
}
