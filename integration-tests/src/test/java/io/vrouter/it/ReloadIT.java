package io.vrouter.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.vrouter.core.config.Credentials;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.Writer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** SIGHUP (systemctl reload) takes the users of the config file as it is now, and drops no session. */
class ReloadIT {
    /** Logs in over NETCONF, says so, waits for a line on stdin, then reads the running datastore over the same session. */
    private static final String HELD_SESSION = String.join("\n",
            "import sys",
            "from ncclient import manager",
            "m = manager.connect(host='127.0.0.1', port=int(sys.argv[1]), username='alice', password='alice-pass',",
            "                    hostkey_verify=False, look_for_keys=False, allow_agent=False, timeout=30)",
            "print('connected', flush=True)",
            "sys.stdin.readline()",
            "m.get_config(source='running')",
            "print('still connected', flush=True)",
            "m.close_session()");

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @TempDir
    Path dir;

    @Test
    void aUserAddedToTheConfigFileLogsInAfterSighupAndAnOpenNetconfSessionGoesOn() throws Exception {
        Path config = dir.resolve("vrouter.properties");
        Files.writeString(config, "user.alice = operator:" + Credentials.hash("alice-pass") + "\n");
        try (ServerProcess server = ServerProcess.start(dir, "--config", config.toString())) {
            assertThat(status(server, "alice", "alice-pass")).isEqualTo(200);
            assertThat(status(server, "bob", "bob-pass")).isEqualTo(401);

            Process session = new ProcessBuilder("python3", "-c", HELD_SESSION, Integer.toString(server.netconfPort))
                    .redirectError(dir.resolve("session.err").toFile()).start();
            try (BufferedReader out = new BufferedReader(new InputStreamReader(session.getInputStream(), StandardCharsets.UTF_8));
                 Writer in = new java.io.OutputStreamWriter(session.getOutputStream(), StandardCharsets.UTF_8)) {
                assertThat(out.readLine()).as(() -> errors()).isEqualTo("connected");

                Files.writeString(config, "user.bob = viewer:" + Credentials.hash("bob-pass") + "\n", StandardOpenOption.APPEND);
                ServerProcess.Result hup = ServerProcess.run(List.of("kill", "-HUP", Long.toString(server.pid())));
                assertThat(hup.exit()).as(hup.toString()).isZero();
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (status(server, "bob", "bob-pass") != 200 && System.nanoTime() < end) Thread.sleep(100);
                assertThat(status(server, "bob", "bob-pass")).as(server.log()).isEqualTo(200);
                assertThat(status(server, "alice", "alice-pass")).isEqualTo(200);
                assertThat(server.log()).contains("reloaded the settings on SIGHUP: 2 users").doesNotContain("stopping");

                in.write("\n");
                in.flush();
                assertThat(out.readLine()).as(() -> errors()).isEqualTo("still connected");
            } finally {
                if (!session.waitFor(30, TimeUnit.SECONDS)) session.destroyForcibly();
            }
        }
    }

    private String errors() {
        try {
            return Files.readString(dir.resolve("session.err"));
        } catch (java.io.IOException e) {
            return e.toString();
        }
    }

    private int status(ServerProcess server, String user, String password) throws Exception {
        HttpRequest r = HttpRequest.newBuilder(URI.create(server.restBase() + "/api/v1/routers"))
                .timeout(Duration.ofSeconds(30)).header("Accept", "application/json")
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString((user + ":" + password)
                        .getBytes(StandardCharsets.UTF_8)))
                .build();
        return http.send(r, HttpResponse.BodyHandlers.ofString()).statusCode();
    }
}
