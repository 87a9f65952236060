package io.vrouter.it.snmp;

import static io.vrouter.it.snmp.SnmpCliIT.cli;
import static org.assertj.core.api.Assertions.assertThat;

import io.vrouter.it.ServerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SNMPv3 notifications received by snmptrapd: authPriv traps sent with the agent's own engineID, then,
 * after a restart on the same data directory (same engineID, snmpEngineBoots one higher), authPriv
 * informs. Uses settings from a config file, as an operator would.
 */
class SnmpV3NotificationIT {
    static final String MIB = NewVmmOids.MIB;
    static final String ENGINE_ID = "80001370047672746573743031";

    @TempDir
    Path dir;

    private ServerProcess.Result v3(ServerProcess server, String tool, String... args) throws Exception {
        String[] cmd = new String[SnmpCliIT.V3.length + 7 + args.length];
        cmd[0] = tool;
        System.arraycopy(SnmpCliIT.V3, 0, cmd, 1, SnmpCliIT.V3.length);
        int i = 1 + SnmpCliIT.V3.length;
        for (String s : new String[]{"-On", "-t", "8", "-r", "0", SnmpCliIT.agent(server)}) cmd[i++] = s;
        System.arraycopy(args, 0, cmd, i, args.length);
        return cli(java.util.Arrays.copyOf(cmd, i + args.length));
    }

    private static void awaitLine(Path log, String... parts) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < end) {
            if (Files.exists(log) && Files.readString(log).lines().anyMatch(l -> {
                for (String p : parts) if (!l.contains(p)) return false;
                return true;
            })) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("snmptrapd never logged " + String.join(" + ", parts) + ":\n"
                + (Files.exists(log) ? Files.readString(log) : "(no log)"));
    }

    @Test
    void v3TrapsThenInformsAcrossARestart() throws Exception {
        int trapPort = ServerProcess.freeUdpPort();
        Path traps = dir.resolve("traps.log");
        Path conf = dir.resolve("snmptrapd.conf");
        Files.writeString(conf, String.join("\n",
                // traps: the agent is authoritative, its engineID is known in advance
                "createUser -e 0x" + ENGINE_ID + " admin SHA adminauthpass AES adminprivpass",
                // informs: snmptrapd is authoritative
                "createUser admin SHA adminauthpass AES adminprivpass",
                "authUser log admin priv", ""));
        ProcessBuilder pb = new ProcessBuilder("snmptrapd", "-f", "-Lf", traps.toString(), "-On", "-C", "-c",
                conf.toString(), "udp:127.0.0.1:" + trapPort);
        pb.environment().put("MIBS", "");
        Process trapd = pb.redirectErrorStream(true).redirectOutput(dir.resolve("snmptrapd.out").toFile()).start();
        try {
            awaitLine(traps, "NET-SNMP version");
            Path serverDir = dir.resolve("server");
            Files.createDirectories(serverDir.resolve("data/snmp"));
            Files.writeString(serverDir.resolve("data/snmp/engine.properties"),
                    "engineID=" + ENGINE_ID + "\nengineBoots=0\n");
            Path trapConf = dir.resolve("trap.properties");
            Files.writeString(trapConf, "snmp.trap.version=v3\nsnmp.trap.type=trap\nsnmp.trap.user=admin\n");
            try (ServerProcess server = ServerProcess.start(serverDir, "--config", trapConf.toString(),
                    "--snmp-trap-target", "udp:127.0.0.1:" + trapPort)) {
                SnmpCliIT.awaitAgent(server);
                ServerProcess.Result boots = v3(server, "snmpget", "1.3.6.1.6.3.10.2.1.1.0", "1.3.6.1.6.3.10.2.1.2.0");
                assertThat(boots.out()).as(boots.toString()).contains("INTEGER: 1")
                        .containsIgnoringCase("80 00 13 70 04 76 72 74 65 73 74 30 31");
                ServerProcess.Result set = v3(server, "snmpset", MIB + ".1.12.1.7.1", "i", "4",
                        MIB + ".1.12.1.1.1", "s", "v3-trapped");
                assertThat(set.exit()).as(set.toString()).isZero();
                awaitLine(traps, "= OID: ." + MIB + ".0.1", "\"v3-trapped\"");
            }
            Path informConf = dir.resolve("inform.properties");
            Files.writeString(informConf, "snmp.trap.version=v3\nsnmp.trap.type=inform\n");
            try (ServerProcess server = ServerProcess.start(serverDir, "--config", informConf.toString(),
                    "--snmp-trap-target", "udp:127.0.0.1:" + trapPort)) {
                SnmpCliIT.awaitAgent(server);
                ServerProcess.Result boots = v3(server, "snmpget", "1.3.6.1.6.3.10.2.1.2.0");
                assertThat(boots.out()).as("snmpEngineBoots after a restart").contains("INTEGER: 2");
                // the VR made before the restart is still there, and its removal is announced by an inform
                ServerProcess.Result d = v3(server, "snmpset", MIB + ".1.12.1.7.1", "i", "6");
                assertThat(d.exit()).as(d.toString()).isZero();
                awaitLine(traps, "= OID: ." + MIB + ".0.10", "\"v3-trapped\"");
            }
        } finally {
            trapd.destroy();
            trapd.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
