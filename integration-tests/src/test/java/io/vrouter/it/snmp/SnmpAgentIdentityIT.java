package io.vrouter.it.snmp;

import static org.assertj.core.api.Assertions.assertThat;

import io.vrouter.it.ServerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SNMP agent's identity as net-snmp's snmpget and snmpset see it (issue 38 item 1): sysDescr
 * names vrouter and its version, not the library or the host's kernel; sysObjectID is vrouter's own
 * (NEW-VMM-MIB's vmVrouterAgent); sysContact, sysName and sysLocation come from the settings, where
 * they are read-only as in snmpd, and those not set there are the provider's writers' to set, kept
 * across a restart.
 */
class SnmpAgentIdentityIT {
    private static final String SYS = "1.3.6.1.2.1.1.";
    private static final String DESCR = SYS + "1.0";
    private static final String OBJECT_ID = SYS + "2.0";
    private static final String CONTACT = SYS + "4.0";
    private static final String NAME = SYS + "5.0";
    private static final String LOCATION = SYS + "6.0";

    @TempDir
    Path dir;
    ServerProcess server;

    @AfterEach
    void stop() throws Exception {
        if (server != null) server.close();
    }

    private ServerProcess.Result snmp(String tool, String community, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(tool, "-v2c", "-c", community, "-On", "-t", "8", "-r", "0",
                SnmpCliIT.agent(server)));
        cmd.addAll(List.of(args));
        return ServerProcess.run(cmd);
    }

    private String get(String oid) throws Exception {
        ServerProcess.Result r = snmp("snmpget", "public", oid);
        assertThat(r.exit()).as(r.toString()).isZero();
        return r.out().trim();
    }

    @Test
    void theAgentSaysItIsVrouterAndKeepsTheOperatorsNameContactAndLocation() throws Exception {
        Path config = dir.resolve("vrouter.properties");
        Files.writeString(config, "snmp.sysContact = NOC <noc@example.net>\n");
        server = ServerProcess.start(dir.resolve("server"), "--config", config.toString());
        SnmpCliIT.awaitAgent(server);

        String descr = get(DESCR);
        assertThat(descr).matches("\\." + DESCR + " = STRING: \"vrouter \\d+\\.\\d+\\.\\d+[^\"]*\"")
                .doesNotContain("SNMP4J", System.getProperty("os.version"));
        assertThat(get(OBJECT_ID)).isEqualTo("." + OBJECT_ID + " = OID: .1.3.6.1.3.7666.3.1");
        assertThat(get(CONTACT)).isEqualTo("." + CONTACT + " = STRING: \"NOC <noc@example.net>\"");
        assertThat(get(NAME)).as("the host's name until set").doesNotEndWith("\"\"");

        // Set in the settings: read-only, as snmpd's sysContact.
        ServerProcess.Result pinned = snmp("snmpset", "private", CONTACT, "s", "someone else");
        assertThat(pinned.exit()).isNotZero();
        assertThat(pinned.err()).contains("notWritable");
        // Not set there: the writers' to set; not a reader's.
        ServerProcess.Result reader = snmp("snmpset", "public", LOCATION, "s", "nowhere");
        assertThat(reader.exit()).isNotZero();
        assertThat(reader.err()).contains("noAccess");
        ServerProcess.Result set = snmp("snmpset", "private", NAME, "s", "edge-router-1", LOCATION, "s",
                "Paris, rack 4, U12");
        assertThat(set.exit()).as(set.toString()).isZero();
        ServerProcess.Result tooLong = snmp("snmpset", "private", LOCATION, "s", "x".repeat(256));
        assertThat(tooLong.err()).contains("wrongLength");

        server.restart();
        SnmpCliIT.awaitAgent(server);
        assertThat(get(NAME)).isEqualTo("." + NAME + " = STRING: \"edge-router-1\"");
        assertThat(get(LOCATION)).isEqualTo("." + LOCATION + " = STRING: \"Paris, rack 4, U12\"");
        assertThat(get(CONTACT)).isEqualTo("." + CONTACT + " = STRING: \"NOC <noc@example.net>\"");
    }
}
