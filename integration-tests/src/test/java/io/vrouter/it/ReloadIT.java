package io.vrouter.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.vrouter.core.config.Credentials;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.Writer;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
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

/**
 * SIGHUP (systemctl reload) takes the users, the login brake ({@code auth.*}), REST's body limit, the
 * SNMP notification targets and the NETCONF session limits of the config file as it is now, and drops
 * no session; a wrong setting changes nothing.
 */
class ReloadIT {
    /** Logs in over NETCONF, says so, waits for a line on stdin, then reads the running datastore over the same session. */
    private static final String HELD_SESSION = String.join("\n",
            "import sys",
            "from ncclient import manager",
            "m = manager.connect(host='127.0.0.1', port=int(sys.argv[1]), username=sys.argv[2], password=sys.argv[3],",
            "                    hostkey_verify=False, look_for_keys=False, allow_agent=False, timeout=30)",
            "print('connected', flush=True)",
            "sys.stdin.readline()",
            "m.get_config(source='running')",
            "print('still connected', flush=True)",
            "m.close_session()");

    /** Logs in over NETCONF and reads the running datastore: prints "read", or "refused" when that fails. */
    private static final String NEW_SESSION = String.join("\n",
            "import sys",
            "from ncclient import manager",
            "try:",
            "    m = manager.connect(host='127.0.0.1', port=int(sys.argv[1]), username='admin', password='admin',",
            "                        hostkey_verify=False, look_for_keys=False, allow_agent=False, timeout=30)",
            "    m.get_config(source='running')",
            "    print('read', flush=True)",
            "except Exception as e:",
            "    print('refused', type(e).__name__, flush=True)");

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

            Process session = new ProcessBuilder("python3", "-c", HELD_SESSION, Integer.toString(server.netconfPort),
                    "alice", "alice-pass").redirectError(dir.resolve("session.err").toFile()).start();
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
                assertThat(server.log()).contains("reloaded the settings on SIGHUP: 2 users").doesNotContain("stopping")
                        .doesNotContain(NO_RELOAD);

                in.write("\n");
                in.flush();
                assertThat(out.readLine()).as(() -> errors()).isEqualTo("still connected");
            } finally {
                if (!session.waitFor(30, TimeUnit.SECONDS)) session.destroyForcibly();
            }
        }
    }

    @Test
    void aTrapTargetAddedBySighupReceivesNotificationsAndOneRemovedNoLonger() throws Exception {
        try (DatagramSocket staying = new DatagramSocket(0, InetAddress.getLoopbackAddress());
             DatagramSocket added = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            Path config = dir.resolve("vrouter.properties");
            String stayingOnly = "snmp-trap-target = " + target(staying) + "\n";
            Files.writeString(config, stayingOnly);
            try (ServerProcess server = ServerProcess.start(dir.resolve("server"), "--config", config.toString())) {
                Files.writeString(config, "snmp-trap-target = " + target(staying) + "," + target(added) + "\n");
                hup(server, "reloaded the settings on SIGHUP", 1);
                assertThat(server.post("/api/v1/routers", "{\"vmName\":\"seen-by-added\"}").statusCode()).isEqualTo(202);
                awaitNotification(added, "seen-by-added");

                // A wrong setting: nothing changes, the removal in the same file included.
                Files.writeString(config, stayingOnly + "snmp.trap.queue = 0\n");
                hup(server, "reload on SIGHUP refused, nothing changed: setting 'snmp.trap.queue'", 1);
                assertThat(server.post("/api/v1/routers", "{\"vmName\":\"after-refused\"}").statusCode()).isEqualTo(202);
                awaitNotification(added, "after-refused");

                Files.writeString(config, stayingOnly);
                hup(server, "reloaded the settings on SIGHUP", 2);
                assertThat(server.post("/api/v1/routers", "{\"vmName\":\"after-removal\"}").statusCode()).isEqualTo(202);
                // The target that stays has it: had the removed one still been there, its own sender would have
                // sent it at the same time.
                awaitNotification(staying, "after-removal");
                assertThat(received(added, Duration.ofSeconds(2))).noneMatch(n -> n.contains("after-removal"));
                assertThat(server.log()).doesNotContain("needs a restart");
            }
        }
    }

    @Test
    void aLoweredNetconfSessionLimitRefusesTheNextSessionWhileTheOpenOneGoesOn() throws Exception {
        Path config = dir.resolve("vrouter.properties");
        Files.writeString(config, "netconf.max-sessions = 2\n");
        try (ServerProcess server = ServerProcess.start(dir.resolve("server"), "--config", config.toString())) {
            Process session = new ProcessBuilder("python3", "-c", HELD_SESSION, Integer.toString(server.netconfPort),
                    "admin", "admin").redirectError(dir.resolve("session.err").toFile()).start();
            try (BufferedReader out = new BufferedReader(new InputStreamReader(session.getInputStream(), StandardCharsets.UTF_8));
                 Writer in = new java.io.OutputStreamWriter(session.getOutputStream(), StandardCharsets.UTF_8)) {
                assertThat(out.readLine()).as(() -> errors()).isEqualTo("connected");

                // With a setting the SSH server cannot take while it runs: said, and left as it is.
                Files.writeString(config, "netconf.max-sessions = 1\nnetconf.idle-timeout = 300\n");
                hup(server, "reloaded the settings on SIGHUP", 1);
                assertThat(server.log()).contains("reload: setting 'netconf.idle-timeout' changed; it needs a restart");
                ServerProcess.Result second = ServerProcess.run(List.of("python3", "-c", NEW_SESSION,
                        Integer.toString(server.netconfPort)));
                assertThat(second.out()).as(second.toString()).startsWith("refused");
                assertThat(server.log()).contains("1 sessions are open (netconf.max-sessions)");

                in.write("\n");
                in.flush();
                assertThat(out.readLine()).as(() -> errors()).isEqualTo("still connected");
            } finally {
                if (!session.waitFor(30, TimeUnit.SECONDS)) session.destroyForcibly();
            }
        }
    }

    @Test
    void theLoginBrakeAndTheBodyLimitAreReReadBySighupAllOrNothing() throws Exception {
        Path config = dir.resolve("vrouter.properties");
        Files.writeString(config, "auth.max-failures = 100\n");
        // Not a body the server takes (an unknown member), but only the limit answers 413.
        String body = "{\"vmName\":\"padded\",\"pad\":\"" + "x".repeat(5000) + "\"}";
        try (ServerProcess server = ServerProcess.start(dir.resolve("server"), "--config", config.toString())) {
            assertThat(server.post("/api/v1/routers", body).statusCode()).isEqualTo(400);

            Files.writeString(config, "auth.max-failures = 2\nauth.failure-interval = 1h\nrest.max-body-bytes = 2048\n");
            hup(server, "reloaded the settings on SIGHUP", 1);
            assertThat(server.post("/api/v1/routers", body).statusCode()).isEqualTo(413);
            // Two wrong passwords from 127.0.0.2, then the right one is refused unchecked.
            assertThat(Sockets.restStatusFrom("127.0.0.2", server.restPort, "admin", "guess1")).isEqualTo("401");
            assertThat(Sockets.restStatusFrom("127.0.0.2", server.restPort, "admin", "guess2")).isEqualTo("401");
            assertThat(Sockets.restStatusFrom("127.0.0.2", server.restPort, "admin", "admin")).isEqualTo("429");
            assertThat(Sockets.restStatusFrom("127.0.0.1", server.restPort, "admin", "admin")).isEqualTo("200");

            // A wrong auth setting refuses the whole reload: the body limit in the same file stays as it was.
            Files.writeString(config, "auth.max-failures = 0\nrest.max-body-bytes = 1048576\n");
            hup(server, "reload on SIGHUP refused, nothing changed: setting 'auth.max-failures'", 1);
            assertThat(server.post("/api/v1/routers", body).statusCode()).isEqualTo(413);
            assertThat(server.log()).doesNotContain("needs a restart");
        }
    }

    /**
     * Under nohup SIGHUP stays ignored (the JVM installs no handler for a signal its process was
     * started ignoring), so the server cannot reload: it says so at start-up instead of leaving an
     * operator's SIGHUP to do nothing without a word.
     */
    @Test
    void startedUnderNohupTheServerSaysThatSighupWillNotReload() throws Exception {
        try (ServerProcess server = ServerProcess.startUnder(List.of("nohup"), dir)) {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!server.log().contains(NO_RELOAD) && System.nanoTime() < end) Thread.sleep(100);
            assertThat(server.log()).contains(NO_RELOAD);
        }
    }

    private static final String NO_RELOAD = "SIGHUP is ignored in this process (started under nohup?)";

    /** Sends SIGHUP and waits until the server's log holds {@code line} {@code times} times. */
    private static void hup(ServerProcess server, String line, int times) throws Exception {
        ServerProcess.Result hup = ServerProcess.run(List.of("kill", "-HUP", Long.toString(server.pid())));
        assertThat(hup.exit()).as(hup.toString()).isZero();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (occurrences(server.log(), line) < times && System.nanoTime() < end) Thread.sleep(100);
        assertThat(occurrences(server.log(), line)).as(server.log()).isEqualTo(times);
    }

    private static int occurrences(String text, String line) {
        return text.split(java.util.regex.Pattern.quote(line), -1).length - 1;
    }

    private static String target(DatagramSocket socket) {
        return "udp:127.0.0.1:" + socket.getLocalPort();
    }

    /** Waits (20 s at the most) for a notification naming {@code vrName} (its vmName is in every one about it). */
    private static void awaitNotification(DatagramSocket socket, String vrName) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        List<String> seen = new java.util.ArrayList<>();
        while (System.nanoTime() < end) {
            List<String> got = received(socket, Duration.ofMillis(500));
            seen.addAll(got);
            if (got.stream().anyMatch(n -> n.contains(vrName))) return;
        }
        throw new AssertionError("no notification about " + vrName + " on port " + socket.getLocalPort() + "; got " + seen);
    }

    /** The datagrams that come until none has come for {@code quiet}, as ISO-8859-1 text. */
    private static List<String> received(DatagramSocket socket, Duration quiet) throws Exception {
        List<String> got = new java.util.ArrayList<>();
        socket.setSoTimeout((int) quiet.toMillis());
        byte[] buf = new byte[65535];
        while (true) {
            DatagramPacket p = new DatagramPacket(buf, buf.length);
            try {
                socket.receive(p);
            } catch (java.net.SocketTimeoutException quietNow) {
                return got;
            }
            got.add(new String(p.getData(), 0, p.getLength(), StandardCharsets.ISO_8859_1));
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
