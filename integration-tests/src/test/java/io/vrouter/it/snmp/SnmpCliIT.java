package io.vrouter.it.snmp;

import static io.vrouter.it.snmp.NewVmmOids.*;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vrouter.it.ServerProcess;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SNMP interface of the packaged server driven by net-snmp's command-line tools (snmpset,
 * snmpget, snmpbulkwalk, snmptrapd) over SNMPv2c and SNMPv3 authPriv, cross-checked with REST.
 * OIDs are numeric (1.3.6.1.3.7666 = NEW-VMM-MIB) so that no base MIB is needed, except in the test of
 * the MIB file itself.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SnmpCliIT {
    static final String[] V3 = {"-v3", "-l", "authPriv", "-u", "admin", "-a", "SHA", "-A", "adminauthpass", "-x", "AES",
            "-X", "adminprivpass"};
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dir;
    ServerProcess server;
    Snmptrapd trapd;

    @BeforeAll
    void start() throws Exception {
        trapd = Snmptrapd.start(dir);
        server = ServerProcess.start(dir.resolve("server"), "--snmp-trap-target", trapd.target());
        awaitAgent(server);
    }

    /** Runs a command-line tool. */
    static ServerProcess.Result cli(String... cmd) throws Exception {
        return ServerProcess.run(List.of(cmd));
    }

    /** The agent's address in net-snmp syntax. */
    static String agent(ServerProcess server) {
        return "udp:127.0.0.1:" + server.snmpPort;
    }

    private String agent() {
        return agent(server);
    }

    /** /health/ready may answer before the SNMP agent listens: wait for the agent too. */
    static void awaitAgent(ServerProcess server) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < end) {
            if (cli("snmpget", "-v2c", "-c", "public", "-t", "1", "-r", "0", "-On", agent(server),
                    MIB + ".1.2.0").exit() == 0) {
                return;
            }
        }
        throw new AssertionError("the SNMP agent never answered:\n" + server.log());
    }

    @AfterAll
    void stop() throws Exception {
        if (server != null) server.close();
        if (trapd != null) trapd.close();
    }

    private static void await(String what, Supplier<Boolean> condition) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < end) {
            if (condition.get()) return;
            Thread.sleep(100);
        }
        throw new AssertionError("timed out waiting for " + what);
    }

    /**
     * Runs a net-snmp tool against the server. The time-out is generous and there is no retry: the
     * machine may be busy, and a retried createAndGo would find its own row.
     */
    private ServerProcess.Result snmp(String tool, String[] security, String... args) throws Exception {
        return snmpWithin(8, tool, security, args);
    }

    private ServerProcess.Result snmpWithin(int seconds, String tool, String[] security, String... args)
            throws Exception {
        List<String> cmd = new ArrayList<>(List.of(tool));
        cmd.addAll(List.of(security));
        cmd.addAll(List.of("-On", "-t", Integer.toString(seconds), "-r", "0", agent()));
        cmd.addAll(List.of(args));
        return cli(cmd.toArray(String[]::new));
    }

    private static String[] v2c(String community) {
        return new String[]{"-v2c", "-c", community};
    }

    private String getValue(String oid) throws Exception {
        ServerProcess.Result r = snmp("snmpget", v2c("public"), oid);
        assertThat(r.exit()).as(r.toString()).isZero();
        return r.out().trim();
    }

    private void awaitOperState(int vmIndex, int state) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        String last = "";
        while (System.nanoTime() < end) {
            last = getValue(OPER_STATE + vmIndex);
            if (last.endsWith("INTEGER: " + state)) return;
            Thread.sleep(100);
        }
        throw new AssertionError("vmOperState." + vmIndex + " never became " + state + ": " + last);
    }

    private JsonNode rest(int vmIndex) throws Exception {
        var r = server.get("/api/v1/routers/" + vmIndex);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    private void awaitTrap(String trapOid, String vmName) throws InterruptedException {
        await("notification " + trapOid + " for " + vmName, () -> trapd.log().lines()
                .anyMatch(l -> l.contains("= OID: ." + trapOid) && l.contains("\"" + vmName + "\"")));
    }

    @Test
    void v2cRowCreationIsSeenOverRestWithTheSameValues() throws Exception {
        ServerProcess.Result r = snmp("snmpset", v2c("private"), ROW_STATUS + 1, "i", "4", NAME + 1, "s", "snmp-v2c",
                MEMORY + 1, "i", "768", CPUS + 1, "i", "2");
        assertThat(r.exit()).as(r.toString()).isZero();
        awaitOperState(1, 4);
        awaitTrap(MIB + ".0.1", "snmp-v2c");
        JsonNode vr = rest(1);
        assertThat(vr.get("vmName").asText()).isEqualTo("snmp-v2c");
        assertThat(vr.get("vmConfigMemory").asInt()).isEqualTo(768);
        assertThat(vr.get("vmConfigCpuNumber").asInt()).isEqualTo(2);
        assertThat(vr.get("vmAdminState").asText()).isEqualTo("running");
        assertThat(vr.get("vmEntry").get("vmOperState").asText()).isEqualTo("running");
        assertThat(getValue(NAME + 1)).endsWith("STRING: \"snmp-v2c\"");
        assertThat(getValue(MEMORY + 1)).endsWith("INTEGER: 768");
        String uuidHex = getValue(UUID + 1).replaceAll(".*Hex-STRING: ", "").replace(" ", "").toLowerCase();
        assertThat(uuidHex).isEqualTo(vr.get("vmEntry").get("vmUUID").asText().replace("-", ""));
        // the state columns that do not move by themselves, one by one against REST
        JsonNode e = vr.get("vmEntry");
        ServerProcess.Result row = snmp("snmpget", v2c("public"), VM + "4.1", VM + "9.1", VM + "12.1", VM + "13.1",
                VM + "18.1", VM + "19.1", VM + "20.1", VM + "21.1", VM + "22.1");
        assertThat(row.exit()).as(row.toString()).isZero();
        assertThat(row.out()).contains("." + VM + "4.1 = STRING: \"" + e.get("vmOSType").asText() + "\"",
                "." + VM + "9.1 = INTEGER: " + e.get("vmCurCpuNumber").asInt(),
                "." + VM + "12.1 = INTEGER: " + e.get("vmMemUnit").asInt(),
                "." + VM + "13.1 = INTEGER: " + e.get("vmCurMem").asLong(),
                "." + VM + "18.1 = Gauge32: " + e.get("vmRouteEntries").asLong(),
                "." + VM + "19.1 = Gauge32: " + e.get("vmFibEntries").asLong(),
                "." + VM + "20.1 = STRING: \"" + e.get("vmRoutingProtocols").asText() + "\"",
                "." + VM + "21.1 = INTEGER: " + List.of("unknown", "ipv4", "ipv6").indexOf(e.get("vmRouterAddrType").asText()));
        // vmRouterAddr: the octets in hex, or "" with no router address (REST's empty text).
        String addr = row.out().lines().filter(l -> l.startsWith("." + VM + "22.1 ")).findFirst().orElseThrow()
                .replaceAll(".*(Hex-STRING: |= \"\")", "").trim();
        StringBuilder dotted = new StringBuilder();
        for (String octet : addr.isEmpty() ? new String[0] : addr.split(" ")) {
            dotted.append(dotted.length() == 0 ? "" : ".").append(Integer.parseInt(octet, 16));
        }
        assertThat(dotted.toString()).isEqualTo(e.get("vmRouterAddr").asText());
    }

    @Test
    void v3AuthPrivRowCreationAndBulkWalks() throws Exception {
        ServerProcess.Result r = snmp("snmpset", V3, ROW_STATUS + 2, "i", "4", NAME + 2, "s", "snmp-v3",
                ADMIN + 2, "i", "4");
        assertThat(r.exit()).as(r.toString()).isZero();
        awaitOperState(2, 11);
        ServerProcess.Result walk = snmp("snmpbulkwalk", V3, MIB + ".1.12");
        assertThat(walk.exit()).as(walk.toString()).isZero();
        assertThat(walk.out()).contains("." + NAME + "2 = STRING: \"snmp-v3\"", "." + ADMIN + "2 = INTEGER: 4",
                "." + ROW_STATUS + "2 = INTEGER: 1");
        ServerProcess.Result vmTable = snmp("snmpbulkwalk", v2c("public"), MIB + ".1.4");
        assertThat(vmTable.exit()).as(vmTable.toString()).isZero();
        assertThat(vmTable.out()).contains("." + OPER_STATE + "2 = INTEGER: 11");
        List<String> oids = vmTable.out().lines().map(l -> l.substring(0, l.indexOf(' '))).toList();
        assertThat(oids).hasSizeGreaterThan(10).doesNotHaveDuplicates();
        assertThat(rest(2).get("vmEntry").get("vmOperState").asText()).isEqualTo("shutdown");
    }

    @Test
    void scalarsMatchTheHypervisorResource() throws Exception {
        ServerProcess.Result r = snmp("snmpget", V3, MIB + ".1.15.0", MIB + ".1.2.0", MIB + ".1.14.0",
                MIB + ".1.1.1.0");
        assertThat(r.exit()).as(r.toString()).isZero();
        var h = JSON.readTree(server.get("/api/v1/hypervisor").body());
        assertThat(r.out()).contains("." + MIB + ".1.15.0 = Gauge32: " + h.get("vmConfiguredVMs").asInt());
        assertThat(r.out()).contains("." + MIB + ".1.2.0 = INTEGER: " + h.get("vmNumber").asInt());
        assertThat(r.out()).contains("." + MIB + ".1.1.1.0 = STRING: \"" + h.get("vmHvSoftware").asText() + "\"");
    }

    @Test
    void adminStateChangesAndDestroyAnnouncedBySnmptrapd() throws Exception {
        assertThat(snmp("snmpset", v2c("private"), ROW_STATUS + 3, "i", "4", NAME + 3, "s", "cycled").exit()).isZero();
        awaitTrap(MIB + ".0.1", "cycled");
        assertThat(snmp("snmpset", V3, ADMIN + 3, "i", "4").exit()).isZero();
        awaitOperState(3, 11);
        awaitTrap(MIB + ".0.3", "cycled");
        assertThat(rest(3).get("vmAdminState").asText()).isEqualTo("shutdown");
        assertThat(snmp("snmpset", v2c("private"), ADMIN + 3, "i", "1").exit()).isZero();
        awaitOperState(3, 4);
        ServerProcess.Result d = snmp("snmpset", v2c("private"), ROW_STATUS + 3, "i", "6");
        assertThat(d.exit()).as(d.toString()).isZero();
        awaitTrap(MIB + ".0.10", "cycled");
        assertThat(getValue(NAME + 3)).contains("No Such Instance");
        assertThat(server.get("/api/v1/routers/3").statusCode()).isEqualTo(404);
    }

    @Test
    void resizeWhileShutDownAndRenameWithSnmpsetAreSeenOverRest() throws Exception {
        ServerProcess.Result c = snmp("snmpset", v2c("private"), ROW_STATUS + 80, "i", "4", NAME + 80, "s", "resize-me");
        assertThat(c.exit()).as(c.toString()).isZero();
        awaitOperState(80, 4);
        // a running VR is not resized: inconsistentValue, and nothing in the PDU is done
        ServerProcess.Result hot = snmp("snmpset", v2c("private"), NAME + 80, "s", "not-this", MEMORY + 80, "i", "1024");
        assertThat(hot.exit()).as(hot.toString()).isNotZero();
        assertThat(hot.err()).contains("inconsistentValue");
        JsonNode vr = rest(80);
        assertThat(vr.get("vmConfigMemory").asInt()).isEqualTo(512);
        assertThat(vr.get("vmName").asText()).isEqualTo("resize-me");
        // shut down over SNMP, then resize
        assertThat(snmp("snmpset", v2c("private"), ADMIN + 80, "i", "4").exit()).isZero();
        awaitOperState(80, 11);
        ServerProcess.Result mem = snmp("snmpset", V3, MEMORY + 80, "i", "1024", CPUS + 80, "i", "2");
        assertThat(mem.exit()).as(mem.toString()).isZero();
        vr = rest(80);
        assertThat(vr.get("vmConfigMemory").asInt()).isEqualTo(1024);
        assertThat(vr.get("vmConfigCpuNumber").asInt()).isEqualTo(2);
        assertThat(getValue(MEMORY + 80)).endsWith("INTEGER: 1024");
        // rename and start in one PDU: renamed first, then started with the new memory
        ServerProcess.Result rename = snmp("snmpset", v2c("private"), NAME + 80, "s", "resized", ADMIN + 80, "i", "1");
        assertThat(rename.exit()).as(rename.toString()).isZero();
        assertThat(rest(80).get("vmName").asText()).isEqualTo("resized");
        awaitOperState(80, 4);
        vr = rest(80);
        assertThat(vr.get("vmName").asText()).isEqualTo("resized");
        assertThat(vr.get("vmAdminState").asText()).isEqualTo("running");
        assertThat(vr.get("vmEntry").get("vmCurMem").asLong() * vr.get("vmEntry").get("vmMemUnit").asLong())
                .isEqualTo(1024L * 1024 * 1024);
        assertThat(getValue(NAME + 80)).endsWith("STRING: \"resized\"");
        var byName = server.get("/api/v1/routers?name=resize-me");
        assertThat(JSON.readTree(byName.body()).get("total").asInt()).as(byName.body()).isZero();
    }

    @Test
    void interfacesOfAWaitingVrTheirEffectiveValuesTheirChangesAndTheUuidOfADestroy() throws Exception {
        String net = MIB + ".1.13.1.";
        // The VR row waits (createAndWait) and its interface is created in the same PDU.
        ServerProcess.Result c = snmp("snmpset", v2c("private"), ROW_STATUS + 90, "i", "5", NAME + 90, "s", "if-wait",
                ADMIN + 90, "i", "4", net + "7.90.1", "i", "4", net + "2.90.1", "s", "br0",
                net + "4.90.1", "i", "1", net + "5.90.1", "x", "C0000201");
        assertThat(c.exit()).as(c.toString()).isZero();
        assertThat(getValue(net + "7.90.1")).as("the interface waits with its VR").endsWith("INTEGER: 2");
        assertThat(getValue(CPUS + 90)).as("a waiting row shows its defaults").endsWith("INTEGER: 1");
        assertThat(getValue(MEMORY + 90)).endsWith("INTEGER: 512");
        assertThat(server.get("/api/v1/routers/90").statusCode()).isEqualTo(404);
        ServerProcess.Result go = snmp("snmpset", v2c("private"), ROW_STATUS + 90, "i", "1");
        assertThat(go.exit()).as(go.toString()).isZero();
        awaitOperState(90, 11);
        JsonNode vr = rest(90);
        JsonNode iface = vr.get("vmNetworkConfigTable").get(0);
        assertThat(iface.get("vmNetworkConfigParent").asText()).isEqualTo("br0");
        assertThat(iface.get("vmNetworkConfigAddress").asText()).isEqualTo("192.0.2.1");
        // The MAC the hypervisor generated and the default prefix, not noSuchInstance.
        ServerProcess.Result eff = snmp("snmpget", v2c("public"), net + "3.90.1", net + "6.90.1");
        assertThat(eff.exit()).as(eff.toString()).isZero();
        String mac = vr.get("vmNetworkTable").get(0).get("vmNetworkPhysAddress").asText();
        assertThat(iface.get("vmNetworkConfigPhysAddress").asText()).as("REST shows the generated MAC too").isEqualTo(mac);
        assertThat(eff.out()).contains("." + net + "3.90.1 = Hex-STRING: " + mac.replace(":", " ").toUpperCase(),
                "." + net + "6.90.1 = Gauge32: 24");
        // The columns of the existing interface change.
        ServerProcess.Result change = snmp("snmpset", v2c("private"), net + "2.90.1", "s", "br1",
                net + "5.90.1", "x", "C6336401", net + "6.90.1", "u", "25");
        assertThat(change.exit()).as(change.toString()).isZero();
        iface = rest(90).get("vmNetworkConfigTable").get(0);
        assertThat(iface.get("vmNetworkConfigParent").asText() + " " + iface.get("vmNetworkConfigAddress").asText() + "/"
                + iface.get("vmNetworkConfigPrefixLength").asInt()).isEqualTo("br1 198.51.100.1/25");
        // Destroyed while running: vmShuttingdown carries the VR's vmUUID.
        assertThat(snmp("snmpset", v2c("private"), ADMIN + 90, "i", "1").exit()).isZero();
        awaitOperState(90, 4);
        String uuid = rest(90).get("vmEntry").get("vmUUID").asText().replace("-", "").toUpperCase();
        assertThat(snmp("snmpset", v2c("private"), ROW_STATUS + 90, "i", "6").exit()).isZero();
        awaitTrap(MIB + ".0.10", "if-wait");
        List<String> shuttingDown = trapd.log().lines()
                .filter(l -> l.contains("= OID: ." + MIB + ".0.2") && l.contains("\"if-wait\"")).toList();
        assertThat(shuttingDown).isNotEmpty();
        assertThat(shuttingDown).allSatisfy(l -> assertThat(l.replace(" ", "")).contains(
                "." + UUID + "90=Hex-STRING:" + uuid));
    }

    @Test
    void restCreationIsSeenOverSnmp() throws Exception {
        var r = server.post("/api/v1/routers", "{\"vmIndex\":40,\"vmName\":\"rest-made\",\"vmConfigMemory\":640,"
                + "\"vmAdminState\":\"shutdown\"}");
        assertThat(r.statusCode()).as(r.body()).isBetween(200, 202);
        assertThat(getValue(NAME + 40)).endsWith("STRING: \"rest-made\"");
        assertThat(getValue(MEMORY + 40)).endsWith("INTEGER: 640");
        assertThat(getValue(ADMIN + 40)).endsWith("INTEGER: 4");
        awaitOperState(40, 11);
        ServerProcess.Result v3 = snmp("snmpget", V3, ROW_STATUS + 40);
        assertThat(v3.out()).contains("INTEGER: 1");
    }

    @Test
    void wrongCommunityWrongKeysAndReadOnlyWritesAreRefused() throws Exception {
        ServerProcess.Result wrong = snmpWithin(2, "snmpget", v2c("notacommunity"), MIB + ".1.2.0");
        assertThat(wrong.exit()).isNotZero();
        assertThat(wrong.out() + wrong.err()).contains("Timeout").doesNotContain("INTEGER");
        String[] badAuth = V3.clone();
        badAuth[8] = "wrongauthpass";
        ServerProcess.Result a = snmpWithin(2, "snmpget", badAuth, MIB + ".1.2.0");
        assertThat(a.exit()).isNotZero();
        assertThat(a.out()).doesNotContain("INTEGER");
        String[] badPriv = V3.clone();
        badPriv[12] = "wrongprivpass";
        ServerProcess.Result p = snmpWithin(2, "snmpget", badPriv, MIB + ".1.2.0");
        assertThat(p.exit()).isNotZero();
        assertThat(p.out()).doesNotContain("INTEGER");
        ServerProcess.Result ro = snmp("snmpset", v2c("public"), ROW_STATUS + 50, "i", "4", NAME + 50, "s", "nope");
        assertThat(ro.exit()).isNotZero();
        assertThat(ro.err()).contains("noAccess");
        assertThat(server.get("/api/v1/routers/50").statusCode()).isEqualTo(404);
    }

    @Test
    void errorStatusesReachTheClient() throws Exception {
        ServerProcess.Result name = snmp("snmpset", v2c("private"), NAME + 60, "s", "no-row");
        assertThat(name.err()).contains("inconsistentName");
        ServerProcess.Result ro = snmp("snmpset", v2c("private"), MIB + ".1.15.0", "u", "3");
        assertThat(ro.err()).contains("notWritable");
        ServerProcess.Result len = snmp("snmpset", v2c("private"), ROW_STATUS + 61, "i", "4", NAME + 61, "s",
                "x".repeat(65));
        assertThat(len.err()).contains("wrongLength");
        assertThat(server.get("/api/v1/routers/61").statusCode()).isEqualTo(404);
    }

    private static String[] concat(String[]... parts) {
        List<String> all = new ArrayList<>();
        for (String[] p : parts) all.addAll(List.of(p));
        return all.toArray(String[]::new);
    }

    /** NEW-VMM-MIB as the jar holds it, in a directory of its own; extracted once. */
    private Path mibs;
    /** The base MIBs it imports; fetched once. */
    private Path baseMibs;

    /** Takes the MIB out of the jar and the base MIBs out of npm's cache, the first time. */
    private void extractMibs() throws Exception {
        if (mibs != null) return;
        Path jarMibs = dir.resolve("mibs");
        Files.createDirectories(jarMibs);
        try (ZipFile jar = new ZipFile(System.getProperty("vrouter.jar"))) {
            ZipEntry e = jar.getEntry("mibs/NEW-VMM-MIB");
            assertThat(e).as("mibs/NEW-VMM-MIB in the jar").isNotNull();
            try (InputStream in = jar.getInputStream(e)) {
                Files.copy(in, jarMibs.resolve("NEW-VMM-MIB"));
            }
        }
        // The base MIBs (SNMPv2-SMI, -TC, -CONF, IF-MIB) as the npm package net-snmp ships them: a fixed
        // version, from npm's cache where .ci/install-test-deps put it (no download in the middle of the tests).
        Path npm = dir.resolve("npm");
        Files.createDirectories(npm);
        ServerProcess.Result pack = cli("npm", "pack", "net-snmp@3.29.2", "--prefer-offline", "--pack-destination", npm.toString());
        assertThat(pack.exit()).as(pack.toString()).isZero();
        String tgz = pack.out().lines().filter(l -> l.endsWith(".tgz")).reduce((x, y) -> y).orElseThrow();
        ServerProcess.Result untar = cli("tar", "xzf", npm.resolve(tgz).toString(), "-C", npm.toString());
        assertThat(untar.exit()).as(untar.toString()).isZero();
        assertThat(npm.resolve("package/lib/mibs/SNMPv2-SMI.mib")).exists();
        baseMibs = npm.resolve("package/lib/mibs");
        mibs = jarMibs;
    }

    /** net-snmp's options that load NEW-VMM-MIB, so that its names and display hints apply. */
    private String[] withTheMib() throws Exception {
        extractMibs();
        return new String[]{"-M", baseMibs + ":" + mibs, "-m", "+NEW-VMM-MIB"};
    }

    /**
     * An NMS that knows RFC 7666 and not NEW-VMM-MIB: net-snmp with the RFC's own VM-MIB text (and the
     * IANA module it imports; its other imports, SNMP-FRAMEWORK-MIB and UUID-TC-MIB, only name textual
     * conventions, and net-snmp goes on without them) walks vmMIB (mib-2.236) and reads by name the
     * same VR, with the values NEW-VMM-MIB gives it in the same request; a SET there is notWritable.
     */
    @Test
    void rfc7666sOwnMibReadsTheSameVrWithTheSameValuesAndCannotWrite() throws Exception {
        extractMibs();
        String[] vmMib = {"-M", baseMibs + ":" + Path.of("../vr-snmp-adapter/src/test/resources/rfc7666").toAbsolutePath(),
                "-m", "+VM-MIB"};
        assertThat(snmp("snmpset", v2c("private"), ROW_STATUS + 97, "i", "4", NAME + 97, "s", "rfc-seen").exit()).isZero();
        awaitOperState(97, 4);
        String[] read = {"-v2c", "-c", "public", "-t", "8", "-r", "0"};
        ServerProcess.Result walk = cli(concat(new String[]{"snmpbulkwalk", "-Oq"}, read, vmMib, new String[]{agent(), "VM-MIB::vmMIB"}));
        assertThat(walk.exit()).as(walk.toString()).isZero();
        assertThat(walk.out()).contains("VM-MIB::vmName.97 \"rfc-seen\"", "VM-MIB::vmAdminState.97 running",
                "VM-MIB::vmOperState.97 running", "VM-MIB::vmNumber.0 ", "VM-MIB::vmCpuCoreTime.97.1 ",
                "VM-MIB::vmStorageResourceID.97.");
        assertThat(walk.out()).as("NEW-VMM-MIB's own columns stay under its arc").doesNotContain("vmRouteEntries", ".18.97");
        // RFC 7666's object and NEW-VMM-MIB's, pairwise in one request (one picture of the VR).
        ServerProcess.Result pairs = cli(concat(new String[]{"snmpget", "-Oqv", "-OU"}, read, vmMib, new String[]{agent(),
                "VM-MIB::vmName.97", NAME + 97, "VM-MIB::vmAdminState.97", CONFIG + "2.97",
                "VM-MIB::vmUUID.97", MIB + ".1.4.1.3.97", "VM-MIB::vmCurMem.97", MIB + ".1.4.1.13.97",
                "VM-MIB::vmUpTime.97", MIB + ".1.4.1.16.97", "VM-MIB::vmCpuTime.97", MIB + ".1.4.1.17.97"}));
        assertThat(pairs.exit()).as(pairs.toString()).isZero();
        List<String> values = pairs.out().lines().toList();
        assertThat(values).hasSize(12);
        assertThat(values.subList(0, 4)).containsExactly("\"rfc-seen\"", "\"rfc-seen\"", "running", "1");
        // From vmUUID on: the same text (vmAdminState above: the RFC's label, NEW-VMM-MIB's number, not loaded here).
        for (int i = 4; i < values.size(); i += 2) assertThat(values.get(i)).as("pair " + i / 2).isEqualTo(values.get(i + 1));
        ServerProcess.Result set = cli(concat(new String[]{"snmpset"}, new String[]{"-v2c", "-c", "private", "-t", "8", "-r", "0"},
                vmMib, new String[]{agent(), "VM-MIB::vmName.97", "s", "renamed"}));
        assertThat(set.err()).contains("notWritable");
        assertThat(server.get("/api/v1/routers/97").body()).contains("\"rfc-seen\"");
    }

    /**
     * vmUUID as net-snmp shows it with the MIB is REST's string, leading zeros and all (issue 38 item
     * 2: with "4x-2x-2x-2x-6x" each group was one number, and a group starting with 0 came out short).
     */
    @Test
    void vmUuidShowsEveryDigitInNetSnmpAsOnRest() throws Exception {
        // The simulated host derives a VR's UUID from its index and name (SimulatedDriver): a name whose
        // UUID starts its first and last groups with 0. REST confirms it below.
        String name = IntStream.range(0, 1000).mapToObj(n -> "uuid-" + n).filter(n -> {
            String u = java.util.UUID.nameUUIDFromBytes(("vrouter-sim/95/" + n).getBytes(StandardCharsets.UTF_8)).toString();
            return u.charAt(0) == '0' && u.charAt(24) == '0';
        }).findFirst().orElseThrow();
        assertThat(snmp("snmpset", v2c("private"), ROW_STATUS + 95, "i", "4", NAME + 95, "s", name).exit()).isZero();
        String uuid = server.awaitRouter(95, vr -> !vr.path("vmEntry").path("vmUUID").asText().isEmpty(), "a vmUUID")
                .get("vmEntry").get("vmUUID").asText();
        assertThat(uuid).as("REST's vmUUID has the leading zeros this test is about").matches("0.{23}0.{11}");

        // -O0: net-snmp's two digits for every octet of a per-octet hint; without it, only for the hint's last
        // spec, the last group's (see VirtualMachineUUID). With 4x-2x-2x-2x-6x neither way was whole.
        ServerProcess.Result every = cli(concat(new String[]{"snmpget", "-O0", "-v2c", "-c", "public", "-t", "8", "-r", "0"},
                withTheMib(), new String[]{agent(), "NEW-VMM-MIB::vmUUID.95"}));
        assertThat(every.out().trim()).as(every.toString()).isEqualTo("NEW-VMM-MIB::vmUUID.95 = STRING: " + uuid);
        ServerProcess.Result plain = cli(concat(new String[]{"snmpget", "-v2c", "-c", "public", "-t", "8", "-r", "0"},
                withTheMib(), new String[]{agent(), "NEW-VMM-MIB::vmUUID.95"}));
        assertThat(plain.out().trim()).as(plain.toString()).endsWith("-" + uuid.substring(24));
        assertThat(snmp("snmpset", v2c("private"), ROW_STATUS + 95, "i", "6").exit()).isZero();
    }

    @Test
    void theMibInTheJarValidatesAndLoadsInNetSnmp() throws Exception {
        extractMibs();
        Path base = baseMibs;

        Path smiConf = dir.resolve("smi.conf");
        Files.writeString(smiConf, "path " + base + "\n");
        ServerProcess.Result lint = cli("smilint", "-c", smiConf.toString(), "-l", "2", mibs.resolve("NEW-VMM-MIB").toString());
        assertThat(lint.out() + lint.err()).as("smilint -l 2 reports nothing").isBlank();
        ServerProcess.Result lint6 = cli("smilint", "-c", smiConf.toString(), "-l", "6", mibs.resolve("NEW-VMM-MIB").toString());
        assertThat(lint6.out() + lint6.err()).as("smilint -l 6 reports nothing either").isBlank();

        ServerProcess.Result t = cli("snmptranslate", "-M", base + ":" + mibs, "-m", "+NEW-VMM-MIB", "-On",
                "NEW-VMM-MIB::vmConfigRowStatus");
        assertThat(t.out().trim()).isEqualTo("." + MIB + ".1.12.1.7");
        ServerProcess.Result agentId = cli("snmptranslate", "-M", base + ":" + mibs, "-m", "+NEW-VMM-MIB", "-On",
                "NEW-VMM-MIB::vmVrouterAgent");
        assertThat(agentId.out().trim()).as("the agent's sysObjectID").isEqualTo("." + MIB + ".3.1");
        ServerProcess.Result names = cli("snmptranslate", "-M", base + ":" + mibs, "-m", "NEW-VMM-MIB", "-Tz");
        assertThat(names.out()).contains("\"vmName\"", "\"vmAdminState\"", "\"vmConfigTemplate\"",
                "\"vmConfigCpuNumber\"", "\"vmConfigMemory\"", "\"vmConfigAutoStart\"", "\"vmConfigRowStatus\"",
                "\"vmNetworkConfigRowStatus\"", "\"vmOperState\"", "\"vmRouteEntries\"", "\"vmFibEntries\"",
                "\"vmRoutingProtocols\"", "\"vmRouterAddrType\"", "\"vmRouterAddr\"",
                "\"vmConfigNextAvailableVmIndex\"", "\"vmConfiguredVMs\"", "\"vmActiveVMs\"", "\"vmRunning\"",
                "\"vmDeleted\"");
        // And the operator's way: by name.
        String[] m = withTheMib();
        ServerProcess.Result set = cli(concat(new String[]{"snmpset", "-v2c", "-c", "private", "-t", "8", "-r", "0"}, m,
                new String[]{agent(), "NEW-VMM-MIB::vmConfigRowStatus.70", "i", "createAndGo",
                        "NEW-VMM-MIB::vmName.70", "s", "by-name"}));
        assertThat(set.exit()).as(set.toString()).isZero();
        ServerProcess.Result walk = cli(concat(new String[]{"snmpbulkwalk", "-v2c", "-c", "public", "-t", "8", "-r", "0"}, m,
                new String[]{agent(), "NEW-VMM-MIB::vmConfigTable"}));
        assertThat(walk.exit()).as(walk.toString()).isZero();
        assertThat(walk.out()).contains("NEW-VMM-MIB::vmName.70 = STRING: by-name",
                "NEW-VMM-MIB::vmConfigRowStatus.70 = INTEGER: active(1)");
    }
}
