package io.vrouter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * One table of changes and what must come of them, run against the packaged server over all three
 * interfaces: REST (HTTP), SNMP (net-snmp's snmpset) and NETCONF (ncclient over SSH). Each change is
 * accepted or refused the same way everywhere (the same reason, on the same column, in each
 * protocol's terms), and leaves the same VRs behind. Every scenario starts from two VRs of its own:
 * A running and B shut down. A change's "interface" is interface 1 on that bridge; its "peer" is
 * interface 1 as a peer link to that VR's interface 1.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ChangeScenariosIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String MIB = "1.3.6.1.3.7666.1";
    /** The SNMP column of each writable column (NEW-VMM-MIB vmConfigEntry and vmNetworkConfigEntry). */
    private static final Map<String, Integer> SNMP_COLUMN = Map.of("vmName", 1, "vmAdminState", 2,
            "vmConfigTemplate", 3, "vmConfigCpuNumber", 4, "vmConfigMemory", 5, "vmConfigAutoStart", 6,
            "vmConfigDescription", 8, "vmConfigCpuWeight", 10);
    /** The SNMP column of each vmNetworkConfigEntry column a scenario names. */
    private static final Map<String, Integer> SNMP_NETWORK_COLUMN = Map.of("vmNetworkConfigParent", 2,
            "vmNetworkConfigPeerRouter", 9);
    private static final Map<String, Integer> ADMIN = Map.of("running", 1, "suspended", 2, "paused", 3, "shutdown", 4);

    enum Iface { REST, SNMP, NETCONF }

    /** What a scenario does to one VR: A and B exist, C is new; columns by model field. */
    record Change(String vr, String op, Map<String, Object> columns) {
        static Change change(String vr, Object... kv) {
            return new Change(vr, "change", map(kv));
        }

        static Change create(String vr, Object... kv) {
            return new Change(vr, "create", map(kv));
        }

        static Change remove(String vr) {
            return new Change(vr, "remove", Map.of());
        }
    }

    /**
     * A refusal: the reason's family (invalid, too-long, not-shut-down, not-unique, state, fixed: each
     * with its status, error-status and error-tag), the VR and the column named.
     */
    record Refusal(String reason, String vr, String field) {
    }

    /**
     * One row of the table: the changes, the refusal expected (null: accepted) and the VRs after
     * (each VR's columns that matter; absent: the VR does not exist). "${A}" stands for A's name.
     */
    record Scenario(String name, List<Change> changes, Refusal refused, Map<String, Map<String, Object>> after) {
    }

    private static Map<String, Object> map(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int k = 0; k < kv.length; k += 2) m.put((String) kv[k], kv[k + 1]);
        return m;
    }

    private static final Map<String, Object> A_AS_IT_WAS = map("vmName", "${A}", "vmAdminState", "running",
            "vmConfigMemory", 512, "vmConfigCpuNumber", 1);
    private static final Map<String, Object> B_AS_IT_WAS = map("vmName", "${B}", "vmAdminState", "shutdown",
            "vmConfigMemory", 512, "vmConfigCpuNumber", 1);

    static final List<Scenario> SCENARIOS = List.of(
            new Scenario("a refused change stops nothing (the PATCH of issue 11)",
                    List.of(Change.change("A", "vmAdminState", "shutdown", "vmConfigMemory", -5)),
                    new Refusal("invalid", "A", "vmConfigMemory"), Map.of("A", A_AS_IT_WAS, "B", B_AS_IT_WAS)),
            new Scenario("a stop and a resize in one change, the stop first",
                    List.of(Change.change("A", "vmAdminState", "shutdown", "vmConfigMemory", 1024)),
                    null, Map.of("A", map("vmAdminState", "shutdown", "vmConfigMemory", 1024), "B", B_AS_IT_WAS)),
            new Scenario("a resize and a start in one change, the start last",
                    List.of(Change.change("B", "vmAdminState", "running", "vmConfigMemory", 2048)),
                    null, Map.of("A", A_AS_IT_WAS, "B", map("vmAdminState", "running", "vmConfigMemory", 2048))),
            new Scenario("no resize of a running VR",
                    List.of(Change.change("A", "vmConfigCpuNumber", 2)),
                    new Refusal("not-shut-down", "A", "vmConfigCpuNumber"), Map.of("A", A_AS_IT_WAS, "B", B_AS_IT_WAS)),
            new Scenario("no suspend of a VR that is shut down",
                    List.of(Change.change("B", "vmAdminState", "suspended")),
                    new Refusal("state", "B", "vmAdminState"), Map.of("A", A_AS_IT_WAS, "B", B_AS_IT_WAS)),
            new Scenario("the template is fixed",
                    List.of(Change.change("A", "vmConfigTemplate", "openwrt")),
                    new Refusal("fixed", "A", "vmConfigTemplate"), Map.of("A", A_AS_IT_WAS, "B", B_AS_IT_WAS)),
            new Scenario("a name is one VR's",
                    List.of(Change.change("B", "vmName", "${A}")),
                    new Refusal("not-unique", "B", "vmName"), Map.of("A", A_AS_IT_WAS, "B", B_AS_IT_WAS)),
            new Scenario("two VRs swap their names",
                    List.of(Change.change("A", "vmName", "${B}"), Change.change("B", "vmName", "${A}")),
                    null, Map.of("A", map("vmName", "${B}", "vmAdminState", "running"),
                            "B", map("vmName", "${A}", "vmAdminState", "shutdown"))),
            new Scenario("a rename chain",
                    List.of(Change.change("A", "vmName", "${B}"), Change.change("B", "vmName", "${B}-2")),
                    null, Map.of("A", map("vmName", "${B}"), "B", map("vmName", "${B}-2"))),
            new Scenario("a removed VR's name taken in the same change",
                    List.of(Change.remove("B"), Change.change("A", "vmName", "${B}")),
                    null, Map.of("A", map("vmName", "${B}", "vmAdminState", "running"))),
            new Scenario("a template the driver does not offer (a path, of all things)",
                    List.of(Change.create("C", "vmName", "${C}", "vmConfigTemplate", "../../../etc/passwd")),
                    new Refusal("invalid", "C", "vmConfigTemplate"), Map.of("A", A_AS_IT_WAS, "B", B_AS_IT_WAS)),
            new Scenario("one bad VR refuses the whole change",
                    List.of(Change.change("A", "vmName", "${A}-x"), Change.change("B", "vmConfigMemory", 32)),
                    new Refusal("invalid", "B", "vmConfigMemory"), Map.of("A", A_AS_IT_WAS, "B", B_AS_IT_WAS)),
            new Scenario("a description, of a running VR and of one created",
                    List.of(Change.change("A", "vmConfigDescription", "edge, rack 4"),
                            Change.create("C", "vmName", "${C}", "vmConfigDescription", "spare")),
                    null, Map.of("A", map("vmConfigDescription", "edge, rack 4", "vmAdminState", "running"), "B", B_AS_IT_WAS,
                            "C", map("vmConfigDescription", "spare"))),
            new Scenario("a description too long",
                    List.of(Change.change("B", "vmConfigDescription", "x".repeat(256))),
                    new Refusal("too-long", "B", "vmConfigDescription"), Map.of("A", A_AS_IT_WAS, "B", B_AS_IT_WAS)),
            new Scenario("a VR created with an interface while another is resized",
                    List.of(Change.create("C", "vmName", "${C}", "vmConfigCpuNumber", 2, "interface", "br0"),
                            Change.change("B", "vmConfigMemory", 768)),
                    null, Map.of("A", A_AS_IT_WAS, "B", map("vmConfigMemory", 768, "vmAdminState", "shutdown"),
                            "C", map("vmName", "${C}", "vmConfigCpuNumber", 2, "vmAdminState", "running", "interface", "br0"))),
            new Scenario("a CPU weight, set on a running VR",
                    List.of(Change.change("A", "vmConfigCpuWeight", 400)),
                    null, Map.of("A", map("vmConfigCpuWeight", 400, "vmAdminState", "running"), "B", B_AS_IT_WAS)),
            new Scenario("a CPU weight out of range",
                    List.of(Change.change("B", "vmConfigCpuWeight", 0)),
                    new Refusal("invalid", "B", "vmConfigCpuWeight"), Map.of("A", A_AS_IT_WAS, "B", B_AS_IT_WAS)),
            new Scenario("a peer link between two VRs, both ends in one change",
                    List.of(Change.change("A", "peer", "B"), Change.change("B", "peer", "A")),
                    null, Map.of("A", map("peer", "B", "vmAdminState", "running"), "B", map("peer", "A", "vmAdminState", "shutdown"))),
            new Scenario("a VR linked to itself",
                    List.of(Change.change("A", "peer", "A")),
                    new Refusal("link", "A", "vmNetworkConfigPeerRouter"), Map.of("A", A_AS_IT_WAS, "B", B_AS_IT_WAS)));

    @TempDir
    static Path dir;
    ServerProcess server;
    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeAll
    void start() throws Exception {
        server = ServerProcess.start(dir.resolve("server"));
    }

    @AfterAll
    void stop() throws Exception {
        if (server != null) server.close();
    }

    /** The vmIndex of a scenario's VR on an interface: each run has VRs of its own. */
    private static int index(int scenario, Iface iface, String vr) {
        return 1000 + scenario * 100 + iface.ordinal() * 10 + (vr.charAt(0) - 'A' + 1);
    }

    private static String name(int scenario, Iface iface, String vr) {
        return "s" + scenario + "-" + iface.name().toLowerCase() + "-" + vr.toLowerCase();
    }

    private static Object resolve(Object v, int scenario, Iface iface) {
        if (!(v instanceof String s)) return v;
        for (String vr : List.of("A", "B", "C")) s = s.replace("${" + vr + "}", name(scenario, iface, vr));
        return s;
    }

    @Test
    void everyInterfaceAcceptsAndRefusesTheSameChangesAndLeavesTheSameVrs() throws Exception {
        // A running and B shut down, for every scenario on every interface, in one batch.
        ArrayNode vrs = JSON.createArrayNode();
        for (int s = 0; s < SCENARIOS.size(); s++) {
            for (Iface i : Iface.values()) {
                vrs.addObject().put("vmIndex", index(s, i, "A")).put("vmName", name(s, i, "A"));
                vrs.addObject().put("vmIndex", index(s, i, "B")).put("vmName", name(s, i, "B")).put("vmAdminState", "shutdown");
            }
        }
        HttpResponse<String> made = send("POST", "/api/v1/routers/batch?wait=60s", JSON.createObjectNode()
                .set("virtualRouter", vrs).toString());
        assertThat(made.statusCode()).as(made.body()).isEqualTo(201);

        SoftAssertions soft = new SoftAssertions();
        List<String> edits = new ArrayList<>();
        for (int s = 0; s < SCENARIOS.size(); s++) {
            Scenario sc = SCENARIOS.get(s);
            checkRest(soft, s, sc, rest(s, sc));
            checkSnmp(soft, s, sc, snmp(s, sc));
            edits.add(netconf(s, sc));
        }
        Path file = dir.resolve("edits.txt");
        Files.write(file, edits, StandardCharsets.UTF_8);
        ServerProcess.Result r = ServerProcess.run(List.of("python3", "src/test/python/netconf_scenarios.py", "edits",
                "--port", Integer.toString(server.netconfPort), "--edits", file.toString()));
        assertThat(r.exit()).as(r.toString()).isZero();
        String[] lines = r.out().strip().split("\n");
        JsonNode results = JSON.readTree(lines[lines.length - 1]);
        for (int s = 0; s < SCENARIOS.size(); s++) checkNetconf(soft, s, SCENARIOS.get(s), results.get(s));

        // The same VRs after, on every interface.
        for (int s = 0; s < SCENARIOS.size(); s++) {
            for (Iface i : Iface.values()) checkAfter(soft, s, i, SCENARIOS.get(s));
        }
        soft.assertAll();
    }

    // ------------------------------------------------------------------ REST

    private HttpResponse<String> rest(int s, Scenario sc) throws Exception {
        List<Change> ch = sc.changes();
        if (ch.size() == 1 && ch.get(0).op().equals("change")) {
            return send("PATCH", "/api/v1/routers/" + index(s, Iface.REST, ch.get(0).vr()) + "?wait=20s",
                    restRow(s, ch.get(0)).toString());
        }
        ObjectNode body = JSON.createObjectNode();
        for (Change c : ch) {
            switch (c.op()) {
                case "create" -> body.withArray("create").add(restRow(s, c).put("vmIndex", index(s, Iface.REST, c.vr())));
                case "change" -> body.withArray("change").add(restRow(s, c).put("vmIndex", index(s, Iface.REST, c.vr())));
                default -> body.withArray("remove").add(index(s, Iface.REST, c.vr()));
            }
        }
        return send("PATCH", "/api/v1/routers?wait=20s", body.toString());
    }

    private static ObjectNode restRow(int s, Change c) {
        ObjectNode row = JSON.createObjectNode();
        c.columns().forEach((k, v) -> {
            Object val = resolve(v, s, Iface.REST);
            if (k.equals("interface")) {
                row.putArray("vmNetworkConfigTable").addObject().put("vmNetworkConfigIndex", 1).put("vmNetworkConfigParent", (String) val);
            } else if (k.equals("peer")) {
                row.putArray("vmNetworkConfigTable").addObject().put("vmNetworkConfigIndex", 1).put("vmNetworkConfigLinkType", "peer")
                        .put("vmNetworkConfigPeerRouter", index(s, Iface.REST, (String) v)).put("vmNetworkConfigPeerInterface", 1);
            } else {
                row.set(k, JSON.valueToTree(val));
            }
        });
        return row;
    }

    private void checkRest(SoftAssertions soft, int s, Scenario sc, HttpResponse<String> r) throws Exception {
        String what = "REST, " + sc.name() + ": " + r.body();
        if (sc.refused() == null) {
            soft.assertThat(r.statusCode()).as(what).isBetween(200, 201);
            return;
        }
        int status = switch (sc.refused().reason()) {
            case "invalid", "too-long", "link" -> 400;
            default -> 409;
        };
        soft.assertThat(r.statusCode()).as(what).isEqualTo(status);
        soft.assertThat(JSON.readTree(r.body()).path("field").asText()).as(what).isEqualTo(sc.refused().field());
    }

    // ------------------------------------------------------------------ SNMP

    private ServerProcess.Result snmp(int s, Scenario sc) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("snmpset", "-v2c", "-c", "private", "-On", "-t", "8", "-r", "0",
                "udp:127.0.0.1:" + server.snmpPort));
        for (Change c : sc.changes()) {
            int i = index(s, Iface.SNMP, c.vr());
            if (c.op().equals("create")) cmd.addAll(List.of(MIB + ".12.1.7." + i, "i", "4"));
            if (c.op().equals("remove")) cmd.addAll(List.of(MIB + ".12.1.7." + i, "i", "6"));
            for (Map.Entry<String, Object> col : c.columns().entrySet()) {
                Object v = resolve(col.getValue(), s, Iface.SNMP);
                if (col.getKey().equals("interface")) {
                    cmd.addAll(List.of(MIB + ".13.1.7." + i + ".1", "i", "4", MIB + ".13.1.2." + i + ".1", "s", (String) v));
                    continue;
                }
                if (col.getKey().equals("peer")) {
                    // vmNetworkConfigLinkType peer(2), PeerRouter, PeerInterface 1
                    cmd.addAll(List.of(MIB + ".13.1.7." + i + ".1", "i", "4", MIB + ".13.1.8." + i + ".1", "i", "2",
                            MIB + ".13.1.9." + i + ".1", "u", Integer.toString(index(s, Iface.SNMP, (String) col.getValue())),
                            MIB + ".13.1.10." + i + ".1", "u", "1"));
                    continue;
                }
                String oid = MIB + ".12.1." + SNMP_COLUMN.get(col.getKey()) + "." + i;
                if (col.getKey().equals("vmAdminState")) {
                    cmd.addAll(List.of(oid, "i", Integer.toString(ADMIN.get((String) v))));
                } else if (v instanceof Integer n) {
                    cmd.addAll(List.of(oid, "i", Integer.toString(n)));
                } else {
                    cmd.addAll(List.of(oid, "s", (String) v));
                }
            }
        }
        return ServerProcess.run(cmd);
    }

    private static final Pattern SNMP_ERROR = Pattern.compile("Reason: (\\w+).*?Failed object: \\.?([0-9.]+)", Pattern.DOTALL);

    private void checkSnmp(SoftAssertions soft, int s, Scenario sc, ServerProcess.Result r) {
        String what = "SNMP, " + sc.name() + ": " + r;
        if (sc.refused() == null) {
            soft.assertThat(r.exit()).as(what).isZero();
            return;
        }
        Matcher m = SNMP_ERROR.matcher(r.err() + r.out());
        if (!m.find()) {
            soft.fail(what + ": no error-status in snmpset's answer");
            return;
        }
        String status = switch (sc.refused().reason()) {
            case "invalid" -> "wrongValue";
            case "too-long" -> "wrongLength";
            default -> "inconsistentValue";
        };
        soft.assertThat(m.group(1)).as(what).isEqualTo(status);
        int i = index(s, Iface.SNMP, sc.refused().vr());
        String column = SNMP_NETWORK_COLUMN.containsKey(sc.refused().field())
                ? MIB + ".13.1." + SNMP_NETWORK_COLUMN.get(sc.refused().field()) + "." + i + ".1"
                : MIB + ".12.1." + SNMP_COLUMN.get(sc.refused().field()) + "." + i;
        soft.assertThat(m.group(2)).as(what).isEqualTo(column);
    }

    // ------------------------------------------------------------------ NETCONF

    private static String netconf(int s, Scenario sc) {
        StringBuilder table = new StringBuilder("<vmConfigTable>");
        StringBuilder nets = new StringBuilder();
        for (Change c : sc.changes()) {
            int i = index(s, Iface.NETCONF, c.vr());
            String op = c.op().equals("change") ? "" : " nc:operation=\"" + (c.op().equals("create") ? "create" : "delete") + "\"";
            table.append("<vmConfigEntry").append(op).append("><vmIndex>").append(i).append("</vmIndex>");
            for (Map.Entry<String, Object> col : c.columns().entrySet()) {
                Object v = resolve(col.getValue(), s, Iface.NETCONF);
                if (col.getKey().equals("interface")) {
                    nets.append("<vmNetworkConfigEntry><vmIndex>").append(i).append("</vmIndex><vmNetworkConfigIndex>1"
                            + "</vmNetworkConfigIndex><vmNetworkConfigParent>").append(v).append("</vmNetworkConfigParent>"
                            + "</vmNetworkConfigEntry>");
                } else if (col.getKey().equals("peer")) {
                    nets.append("<vmNetworkConfigEntry><vmIndex>").append(i).append("</vmIndex><vmNetworkConfigIndex>1"
                            + "</vmNetworkConfigIndex><vmNetworkConfigLinkType>peer</vmNetworkConfigLinkType><vmNetworkConfigPeerRouter>")
                            .append(index(s, Iface.NETCONF, (String) col.getValue()))
                            .append("</vmNetworkConfigPeerRouter><vmNetworkConfigPeerInterface>1</vmNetworkConfigPeerInterface>"
                            + "</vmNetworkConfigEntry>");
                } else {
                    table.append('<').append(col.getKey()).append('>').append(v).append("</").append(col.getKey()).append('>');
                }
            }
            table.append("</vmConfigEntry>");
        }
        table.append("</vmConfigTable>");
        return table + (nets.isEmpty() ? "" : "<vmNetworkConfigTable>" + nets + "</vmNetworkConfigTable>");
    }

    private static void checkNetconf(SoftAssertions soft, int s, Scenario sc, JsonNode result) {
        String what = "NETCONF, " + sc.name() + ": " + result;
        if (sc.refused() == null) {
            soft.assertThat(result.path("ok").asBoolean()).as(what).isTrue();
            return;
        }
        JsonNode e = result.path("errors").path(0);
        String[] tagAndApp = switch (sc.refused().reason()) {
            case "invalid", "too-long", "link" -> new String[] {"invalid-value", ""};
            case "not-shut-down" -> new String[] {"operation-failed", "vr-not-shut-down"};
            case "not-unique" -> new String[] {"operation-failed", "data-not-unique"};
            case "fixed" -> new String[] {"operation-not-supported", ""};
            default -> new String[] {"operation-failed", ""};
        };
        soft.assertThat(e.path("tag").asText()).as(what).isEqualTo(tagAndApp[0]);
        soft.assertThat(text(e.path("app_tag"))).as(what).isEqualTo(tagAndApp[1]);
        soft.assertThat(e.path("path").asText()).as(what).contains("vmIndex='" + index(s, Iface.NETCONF, sc.refused().vr()) + "'")
                .endsWith(":" + sc.refused().field());
    }

    // ------------------------------------------------------------------ the VRs after

    /** Each VR as the scenario expects it, once its hypervisor work is done (read over REST for all three). */
    private void checkAfter(SoftAssertions soft, int s, Iface iface, Scenario sc) throws Exception {
        for (String vr : List.of("A", "B", "C")) {
            Map<String, Object> want = sc.after().get(vr);
            int i = index(s, iface, vr);
            String what = iface + ", " + sc.name() + ", VR " + vr;
            JsonNode got = awaitSettled(i, want != null);
            if (want == null) {
                soft.assertThat(got).as(what + " is gone").isNull();
                continue;
            }
            soft.assertThat(got).as(what + " exists").isNotNull();
            if (got == null) continue;
            for (Map.Entry<String, Object> col : want.entrySet()) {
                Object v = resolve(col.getValue(), s, iface);
                if (col.getKey().equals("interface")) {
                    soft.assertThat(got.at("/vmNetworkConfigTable/0/vmNetworkConfigParent").asText()).as(what).isEqualTo(v);
                } else if (col.getKey().equals("peer")) {
                    soft.assertThat(got.at("/vmNetworkConfigTable/0/vmNetworkConfigPeerRouter").asInt()).as(what + " linked")
                            .isEqualTo(index(s, iface, (String) col.getValue()));
                } else {
                    soft.assertThat(got.path(col.getKey()).asText()).as(what + " " + col.getKey()).isEqualTo(String.valueOf(v));
                }
            }
            String admin = got.path("vmAdminState").asText();
            soft.assertThat(got.at("/vmEntry/vmOperState").asText()).as(what + " runs as its admin state says").isEqualTo(admin);
        }
    }

    /**
     * The VR (null when there is none) once it is as expected to be settled: gone, or there with its
     * operational state its admin state's; or as it is after 20 s.
     */
    private JsonNode awaitSettled(int vmIndex, boolean there) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            HttpResponse<String> r = send("GET", "/api/v1/routers/" + vmIndex, null);
            JsonNode vr = r.statusCode() == 404 ? null : JSON.readTree(r.body());
            boolean settled = !there ? vr == null
                    : vr != null && vr.at("/vmEntry/vmOperState").asText().equals(vr.path("vmAdminState").asText());
            if (settled || System.nanoTime() > end) return vr;
            Thread.sleep(50);
        }
    }

    private HttpResponse<String> send(String method, String path, String json) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(server.restBase() + path)).timeout(Duration.ofSeconds(60))
                .header("Accept", "application/json")
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString("admin:admin".getBytes(StandardCharsets.UTF_8)));
        b.method(method, json == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json));
        if (json != null) b.header("Content-Type", "application/json");
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String text(JsonNode n) {
        return n.isNull() || n.isMissingNode() ? "" : n.asText();
    }
}
