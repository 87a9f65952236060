package io.vrouter.it.limits;

import static org.assertj.core.api.Assertions.assertThat;

import io.vrouter.it.ServerProcess;
import io.vrouter.it.Sockets;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Password guessing is braked per source on every interface (issue 12): after auth.max-failures
 * wrong logins from one address, tries from there are refused unchecked, while the real user logs in
 * from another address; each failure is logged and counted. One source address per interface. SNMP's
 * brake is its own.
 */
class AuthThrottleIT {
    @TempDir
    Path dir;

    @Test
    void guessingIsThrottledPerSourceOnRestNetconfAndSnmp() throws Exception {
        Path config = dir.resolve("vrouter.properties");
        // One connection per SSH login: the cap on connections not logged in yet must not be what refuses them.
        Files.writeString(config, "auth.max-failures=5\nauth.failure-interval=60s\nnetconf.max-unauthenticated-per-client=16\n");
        try (ServerProcess server = ServerProcess.start(dir, "--config", config.toString())) {
            // REST from 127.0.0.2: five 401s, then 429 unchecked, the right password included.
            List<String> rest = new ArrayList<>();
            for (int k = 0; k < 7; k++) rest.add(Sockets.restStatusFrom("127.0.0.2", server.restPort, "admin", "guess" + k));
            rest.add(Sockets.restStatusFrom("127.0.0.2", server.restPort, "admin", "admin"));
            assertThat(rest).containsExactly("401", "401", "401", "401", "401", "429", "429", "429");
            assertThat(Sockets.restStatusFrom("127.0.0.1", server.restPort, "admin", "admin")).isEqualTo("200");

            // NETCONF (SSH) from 127.0.0.3.
            ServerProcess.Result ssh = ServerProcess.run(List.of("python3", "src/test/python/ssh_logins.py",
                    Integer.toString(server.netconfPort), "127.0.0.3", "admin", "g1", "g2", "g3", "g4", "g5", "admin"));
            assertThat(ssh.out().strip().split("\n")).as(ssh.toString())
                    .containsExactly("refused", "refused", "refused", "refused", "refused", "refused");
            ServerProcess.Result operator = ServerProcess.run(List.of("python3", "src/test/python/ssh_logins.py",
                    Integer.toString(server.netconfPort), "127.0.0.1", "admin", "admin"));
            assertThat(operator.out().strip()).as(operator.toString()).isEqualTo("accepted");

            // SNMPv2c community guesses from 127.0.0.4: then even "public" gets no answer from there.
            for (int k = 0; k < 5; k++) assertThat(snmpget(server, "127.0.0.4", "guess" + k).exit()).isNotZero();
            assertThat(snmpget(server, "127.0.0.4", "public").exit()).isNotZero();
            ServerProcess.Result manager = snmpget(server, "127.0.0.1", "public");
            assertThat(manager.exit()).as(manager.toString()).isZero();

            String metrics = server.metrics();
            assertThat(metrics).contains("vrouter_auth_failures_total{interface=\"rest\"} 5.0",
                    "vrouter_auth_failures_total{interface=\"netconf\"} 5.0",
                    "vrouter_auth_failures_total{interface=\"snmp\"} 5.0",
                    "vrouter_auth_throttled_total{interface=\"rest\"} 3.0",
                    "vrouter_auth_throttled_total{interface=\"netconf\"} 1.0",
                    "vrouter_auth_throttled_total{interface=\"snmp\"} 1.0",
                    "vrouter_auth_throttled_sources{brake=\"tcp\"} 2.0",
                    "vrouter_auth_throttled_sources{brake=\"snmp\"} 1.0");
            assertThat(server.log()).contains("5 failed logins from 127.0.0.2", "5 failed logins from 127.0.0.3",
                    "5 failed logins from 127.0.0.4");
        }
    }

    /**
     * SNMP has a brake of its own (issue 23): a UDP source address can be forged, so guesses over SNMP
     * in an address's name must never hold back that address's REST logins.
     */
    @Test
    void snmpGuessesFromAnAddressNeverHoldBackItsRestLogins() throws Exception {
        Path config = dir.resolve("vrouter.properties");
        Files.writeString(config, "auth.max-failures=5\nauth.failure-interval=60s\n");
        try (ServerProcess server = ServerProcess.start(dir.resolve("snmp-brake"), "--config", config.toString())) {
            // From 127.0.0.1: wrong SNMPv3 keys (each told so by a Report PDU), then wrong communities ...
            for (int k = 0; k < 3; k++) {
                ServerProcess.Result wrongKey = ServerProcess.run(List.of("snmpget", "-v3", "-l", "authPriv", "-u",
                        "admin", "-a", "SHA", "-A", "guess-" + k + "-auth", "-x", "AES", "-X", "adminprivpass",
                        "--clientaddr=127.0.0.1", "-t", "3", "-r", "0", "udp:127.0.0.1:" + server.snmpPort,
                        "1.3.6.1.2.1.1.3.0"));
                assertThat(wrongKey.err()).as(wrongKey.toString()).contains("Authentication failure");
            }
            for (int k = 0; k < 2; k++) assertThat(snmpget(server, "127.0.0.1", "guess" + k).exit()).isNotZero();
            // ... until SNMP's brake holds: from there even the right community gets no answer now.
            assertThat(snmpget(server, "127.0.0.1", "public").exit()).isNotZero();
            // REST from the same address logs in at once.
            assertThat(Sockets.restStatusFrom("127.0.0.1", server.restPort, "admin", "admin")).isEqualTo("200");
            assertThat(server.metrics()).contains("vrouter_auth_failures_total{interface=\"snmp\"} 5.0",
                    "vrouter_auth_throttled_sources{brake=\"snmp\"} 1.0",
                    "vrouter_auth_throttled_sources{brake=\"tcp\"} 0.0");
        }
    }

    /** One REST request from a source address, by hand: its status code. */
    private static ServerProcess.Result snmpget(ServerProcess server, String source, String community) throws Exception {
        return ServerProcess.run(List.of("snmpget", "-v2c", "-c", community, "--clientaddr=" + source, "-t", "0.5",
                "-r", "0", "udp:127.0.0.1:" + server.snmpPort, "1.3.6.1.2.1.1.3.0"));
    }

}
