package io.vrouter.it.snmp;

import static org.assertj.core.api.Assertions.assertThat;

import io.vrouter.it.ServerProcess;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * What net-snmp's tools get from the agent in the cases issue 12 found silent: GETBULK with huge
 * max-repetitions answers with what fits (RFC 3416 §4.2.3), and an SNMPv3 request the agent cannot
 * accept gets the Report PDU that tells the operator why (RFC 3414 §3.2).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SnmpHardeningIT {
    @TempDir
    static Path dir;
    ServerProcess server;

    @BeforeAll
    void start() throws Exception {
        server = ServerProcess.start(dir.resolve("server"));
        SnmpCliIT.awaitAgent(server);
        StringBuilder batch = new StringBuilder("{\"virtualRouter\":[");
        for (int k = 1; k <= 300; k++) batch.append(k > 1 ? "," : "").append("{\"vmName\":\"bulk-").append(k).append("\"}");
        assertThat(server.post("/api/v1/routers/batch", batch + "]}").statusCode()).isEqualTo(202);
    }

    @AfterAll
    void stop() throws Exception {
        server.close();
    }

    private ServerProcess.Result snmp(String... args) throws Exception {
        return ServerProcess.run(List.of(args));
    }

    @Test
    void getBulkWithHugeMaxRepetitionsAnswersWhatFits() throws Exception {
        String mib = "1.3.6.1.3.7666";
        List<String> cmd = new ArrayList<>(List.of("snmpbulkget", "-v2c", "-c", "public", "-On", "-Cr1000", "-t", "10",
                "-r", "0", SnmpCliIT.agent(server)));
        for (int k = 0; k < 8; k++) cmd.add(mib);
        ServerProcess.Result eight = ServerProcess.run(cmd);
        assertThat(eight.exit()).as(eight.toString()).isZero();
        long lines = eight.out().lines().count();
        // Eight repeaters, whole repetitions, hundreds of them: as many as a message holds.
        assertThat(lines % 8).isZero();
        assertThat(lines).isGreaterThan(800);

        ServerProcess.Result huge = snmp("snmpbulkget", "-v3", "-l", "authPriv", "-u", "admin", "-a", "SHA", "-A",
                "adminauthpass", "-x", "AES", "-X", "adminprivpass", "-On", "-Cr100000", "-t", "10", "-r", "0",
                SnmpCliIT.agent(server), mib);
        assertThat(huge.exit()).as(huge.toString()).isZero();
        assertThat(huge.out().lines().count()).isGreaterThan(1000);
        assertThat(huge.out()).startsWith(".1.3.6.1.3.7666.");
        // The agent is free again as soon as it answered (it was busy 4 s more, sizing the answer it sent).
        ServerProcess.Result next = snmp("snmpget", "-v2c", "-c", "public", "-t", "3", "-r", "0",
                SnmpCliIT.agent(server), "1.3.6.1.2.1.1.3.0");
        assertThat(next.exit()).as(next.toString()).isZero();
    }

    /** snmpget of sysUpTime over SNMPv3 authPriv as the given user, protocols and passphrases: 3 s, no retry. */
    private ServerProcess.Result v3get(String user, String auth, String authPass, String priv, String privPass)
            throws Exception {
        return snmp("snmpget", "-v3", "-l", "authPriv", "-u", user, "-a", auth, "-A", authPass, "-x", priv, "-X",
                privPass, "-t", "3", "-r", "0", SnmpCliIT.agent(server), "1.3.6.1.2.1.1.3.0");
    }

    @Test
    void snmpv3RequestsTheAgentRefusesGetAReportThatSaysWhy() throws Exception {
        ServerProcess.Result unknownUser = v3get("nobody", "SHA", "adminauthpass", "AES", "adminprivpass");
        assertThat(unknownUser.err()).as(unknownUser.toString()).contains("Unknown user name");
        ServerProcess.Result wrongAuth = v3get("admin", "SHA", "not-the-auth-pass", "AES", "adminprivpass");
        assertThat(wrongAuth.err()).as(wrongAuth.toString()).contains("Authentication failure");
        ServerProcess.Result wrongPriv = v3get("admin", "SHA", "adminauthpass", "AES", "not-the-priv-pass");
        assertThat(wrongPriv.err()).as(wrongPriv.toString()).contains("Decryption error");
        // Protocols the user does not have: DES instead of AES, MD5 instead of SHA.
        ServerProcess.Result des = v3get("admin", "SHA", "adminauthpass", "DES", "adminprivpass");
        assertThat(des.err()).as(des.toString()).contains("Decryption error");
        ServerProcess.Result md5 = v3get("admin", "MD5", "adminauthpass", "AES", "adminprivpass");
        assertThat(md5.err()).as(md5.toString()).contains("Authentication failure");
        // And the right ones still read.
        assertThat(v3get("admin", "SHA", "adminauthpass", "AES", "adminprivpass").exit()).isZero();
    }
}
