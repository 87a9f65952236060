package io.vrouter.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vrouter.core.config.Settings;
import io.vrouter.core.model.Column;
import io.vrouter.core.model.LinkType;
import io.vrouter.core.model.NetworkColumn;
import io.vrouter.core.model.Schema;
import io.vrouter.core.model.SmiEnum;
import java.io.ByteArrayInputStream;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.snmp4j.CommunityTarget;
import org.snmp4j.PDU;
import org.snmp4j.Snmp;
import org.snmp4j.mp.SnmpConstants;
import org.snmp4j.smi.Null;
import org.snmp4j.smi.OID;
import org.snmp4j.smi.OctetString;
import org.snmp4j.smi.UdpAddress;
import org.snmp4j.smi.Variable;
import org.snmp4j.smi.VariableBinding;
import org.snmp4j.transport.DefaultUdpTransportMapping;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * One VR with interfaces, virtual CPUs and a disk, read over REST (JSON), RESTCONF (the YANG tree in
 * RFC 7951 JSON and in XML) and SNMP (GET of each instance): walking the schema table, every leaf of
 * every table is there on each interface with the same value (SNMP's decoded from its syntax), and
 * a leaf the VR has no value for is absent from the YANG tree and shows SNMP's absent value.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EveryLeafEveryInterfaceTest {
    private static final String ADMIN = "Basic " + Base64.getEncoder().encodeToString("admin:admin".getBytes(StandardCharsets.UTF_8));
    private static final OID OBJECTS = new OID("1.3.6.1.3.7666.1");
    /** Leaves the VR of this test has no value for: each must be absent everywhere but SNMP. */
    private static final Set<String> ABSENT = Set.of("vmOperStateReason",
            // a link's delay and loss are measured while the VR runs, and this one is shut down (the netns driver's tests read them)
            "vmNetworkLinkDelay", "vmNetworkLinkLoss");

    private final ObjectMapper json = new ObjectMapper();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private VrouterServer server;
    private String base;
    private Snmp snmp;
    private CommunityTarget<UdpAddress> target;

    @BeforeAll
    void start() throws Exception {
        int snmpPort;
        try (DatagramSocket s = new DatagramSocket(0)) {
            snmpPort = s.getLocalPort();
        }
        Map<String, String> settings = new HashMap<>(Map.of("data-dir", Files.createTempDirectory("every-leaf").toString(),
                "rest-port", "0", "snmp-port", Integer.toString(snmpPort), "netconf-port", "0", "gnmi-port", "off"));
        // a tenant, so that the VR has an owner (vmConfigTenant) like every other leaf has a value
        settings.put("tenant.acme", "vrs=5");
        server = VrouterServer.start(Settings.of(settings));
        base = "http://127.0.0.1:" + server.interfaces().stream()
                .filter(i -> i instanceof io.vrouter.api.rest.RestInterface)
                .mapToInt(i -> ((io.vrouter.api.rest.RestInterface) i).port()).findFirst().orElseThrow();
        snmp = new Snmp(new DefaultUdpTransportMapping());
        snmp.listen();
        target = new CommunityTarget<>(new UdpAddress("127.0.0.1/" + snmpPort), new OctetString("public"));
        target.setVersion(SnmpConstants.version2c);
        target.setTimeout(10_000);
        target.setRetries(1);
    }

    @AfterAll
    void stop() throws Exception {
        if (snmp != null) snmp.close();
        if (server != null) server.close();
    }

    private HttpResponse<String> send(String method, String path, String accept, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30))
                .header("Authorization", ADMIN).header("Accept", accept)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) b.header("Content-Type", "application/json");
        HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(method + " " + path + ": " + r.body()).isBetween(200, 201);
        return r;
    }

    @Test
    void everyLeafOfTheSchemaReadsTheSameOverRestYangAndSnmp() throws Exception {
        // The far end of its peer link, of the same tenant.
        int far = json.readTree(send("POST", "/api/v1/routers?wait=10s", "application/json",
                "{\"vmName\":\"far-end\",\"vmConfigTenant\":\"acme\"}").body()).get("vmIndex").asInt();
        JsonNode created = json.readTree(send("POST", "/api/v1/routers?wait=10s", "application/json",
                "{\"vmName\":\"every-leaf\",\"vmConfigCpuNumber\":2,\"vmConfigMemory\":256,\"vmConfigAutoStart\":true,"
                        + "\"vmConfigDescription\":\"one of each\",\"vmConfigTenant\":\"acme\",\"vmConfigCpuWeight\":300,"
                        + "\"vmNetworkConfigTable\":["
                        + "{\"vmNetworkConfigIndex\":1,\"vmNetworkConfigParent\":\"br-a\",\"vmNetworkConfigAddress\":\"192.0.2.1\","
                        + "\"vmNetworkConfigLinkType\":\"bridge\",\"vmNetworkConfigRateIn\":20000,\"vmNetworkConfigRateOut\":50000},"
                        + "{\"vmNetworkConfigIndex\":3,\"vmNetworkConfigLinkType\":\"vxlan\",\"vmNetworkConfigParent\":\"eth0\","
                        + "\"vmNetworkConfigVni\":4242,\"vmNetworkConfigRemote\":\"203.0.113.2\",\"vmNetworkConfigAddress\":\"192.0.2.129\"},"
                        + "{\"vmNetworkConfigIndex\":4,\"vmNetworkConfigLinkType\":\"peer\",\"vmNetworkConfigPeerRouter\":" + far
                        + ",\"vmNetworkConfigPeerInterface\":1,\"vmNetworkConfigAddress\":\"203.0.113.9\"},"
                        + "{\"vmNetworkConfigIndex\":2,\"vmNetworkConfigParent\":\"br-b\",\"vmNetworkConfigPhysAddress\":\"02:00:00:00:00:0b\","
                        + "\"vmNetworkConfigAddressType\":\"ipv4\",\"vmNetworkConfigAddress\":\"198.51.100.7\","
                        + "\"vmNetworkConfigPrefixLength\":28}]}").body());
        int vmIndex = created.get("vmIndex").asInt();
        // Shut down, its samples (uptime, CPU time, traffic) stand still between the reads.
        send("POST", "/api/v1/routers/" + vmIndex + "/stop?wait=10s", "application/json", "");

        JsonNode rest = json.readTree(send("GET", "/api/v1/routers/" + vmIndex, "application/json", null).body());
        JsonNode yangJson = json.readTree(send("GET", "/restconf/data/NEW-VMM-MIB:NEW-VMM-MIB", "application/yang-data+json", null)
                .body()).path("NEW-VMM-MIB:NEW-VMM-MIB");
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        Document yangXml = f.newDocumentBuilder().parse(new ByteArrayInputStream(
                send("GET", "/restconf/data/NEW-VMM-MIB:NEW-VMM-MIB", "application/yang-data+xml", null).body()
                        .getBytes(StandardCharsets.UTF_8)));

        List<String> problems = new ArrayList<>();
        Set<String> seen = new LinkedHashSet<>();
        Set<String> peers = new HashSet<>();
        for (JsonNode n : rest.path("vmNetworkConfigTable")) {
            if (n.path("vmNetworkConfigLinkType").asText().equals("peer")) peers.add(n.path("vmNetworkConfigIndex").asText());
        }
        for (Schema.Table table : Schema.Table.values()) {
            List<JsonNode> rows = restRows(rest, table);
            assertThat(rows).as(table + " has rows for this VR").isNotEmpty();
            for (JsonNode row : rows) {
                Map<String, String> keys = new HashMap<>();
                keys.put(table.vrKey(), Integer.toString(vmIndex));
                List<Integer> suffix = new ArrayList<>();
                for (String key : table.keys().subList(1, table.keys().size())) {
                    keys.put(key, row.get(key).asText());
                    suffix.add(row.get(key).asInt());
                }
                String at = table.entryName() + keys;
                JsonNode jsonEntry = jsonEntry(yangJson, table, keys);
                Element xmlEntry = xmlEntry(yangXml, table, keys);
                if (jsonEntry == null || xmlEntry == null) {
                    problems.add(at + " missing in the YANG tree (json " + (jsonEntry != null) + ", xml " + (xmlEntry != null) + ")");
                    continue;
                }
                for (Column<?> c : table.columns()) {
                    if (c.index()) continue;
                    String name = table + "." + c.field();
                    JsonNode restValue = row.get(c.field());
                    JsonNode jsonValue = jsonEntry.get(c.field());
                    String xmlValue = child(xmlEntry, c.field());
                    Variable snmpValue = snmpGet(table, c, vmIndex, suffix);
                    if (restValue == null || restValue.isNull()) {
                        boolean byDesign = absentByDesign(table, row, c, peers);
                        if (!ABSENT.contains(c.field()) && !byDesign) problems.add(at + " " + c.field() + " absent in REST");
                        if (jsonValue != null || xmlValue != null) problems.add(at + " " + c.field() + " absent in REST but in YANG");
                        String absent = c.snmpAbsent() != null ? c.kind().format(c.snmpAbsent())
                                : !byDesign ? null : c.kind() == Column.Kind.LINK_TYPE ? LinkType.BRIDGE.label()
                                : c.kind() == Column.Kind.INET_ADDRESS ? "" : null;
                        if (!java.util.Objects.equals(decode(table, c, snmpValue), absent)) {
                            problems.add(at + " " + c.field() + " absent: SNMP shows " + snmpValue + ", not " + absent);
                        }
                        continue;
                    }
                    String expected = restValue.asText();
                    if (jsonValue == null) {
                        problems.add(at + " " + c.field() + " missing in YANG JSON");
                    } else {
                        if (!jsonValue.asText().equals(expected)) problems.add(at + " " + c.field() + " YANG JSON " + jsonValue + ", REST " + expected);
                        boolean typed = switch (c.kind().json()) {
                            case NUMBER -> jsonValue.isNumber();
                            case STRING -> jsonValue.isTextual();
                            case BOOLEAN -> jsonValue.isBoolean();
                        };
                        if (!typed) problems.add(at + " " + c.field() + " YANG JSON " + jsonValue + " is not an RFC 7951 " + c.kind().json());
                    }
                    if (!expected.equals(xmlValue)) problems.add(at + " " + c.field() + " YANG XML " + xmlValue + ", REST " + expected);
                    String snmpText = decode(table, c, snmpValue);
                    if (!expected.equals(snmpText)) problems.add(at + " " + c.field() + " SNMP " + snmpValue + " (" + snmpText + "), REST " + expected);
                    seen.add(name);
                }
            }
        }
        assertThat(problems).as("leaves that differ between the interfaces").isEmpty();
        List<String> unseen = new ArrayList<>();
        for (Schema.Table table : Schema.Table.values()) {
            for (Column<?> c : table.columns()) {
                if (!c.index() && !ABSENT.contains(c.field()) && !seen.contains(table + "." + c.field())) unseen.add(table + "." + c.field());
            }
        }
        assertThat(unseen).as("leaves this VR has no value for").isEmpty();
        assertThat(seen).contains("NETWORK.vmNetworkInErrors", "NETWORK.vmNetworkOutErrors", "NETWORK.vmNetworkInDiscards",
                "NETWORK.vmNetworkOutDiscards");
    }

    /** The VR's rows of a table as REST shows them (the model's JSON). */
    private static List<JsonNode> restRows(JsonNode vr, Schema.Table table) {
        List<JsonNode> rows = new ArrayList<>();
        switch (table) {
            case VM -> rows.add(vr.get("vmEntry"));
            case CONFIG -> rows.add(vr);
            case CPU -> vr.get("vmCpuTable").forEach(rows::add);
            case CPU_AFFINITY -> vr.get("vmCpuTable").forEach(c -> {
                if (c.path("vmCpuPhysIndex").asInt() >= 1) rows.add(c);
            });
            case STORAGE -> vr.get("vmStorageTable").forEach(rows::add);
            case NETWORK -> vr.get("vmNetworkTable").forEach(rows::add);
            case NETWORK_CONFIG -> vr.get("vmNetworkConfigTable").forEach(rows::add);
        }
        return rows;
    }

    private static JsonNode jsonEntry(JsonNode tree, Schema.Table table, Map<String, String> keys) {
        for (JsonNode e : tree.path(table.tableName()).path(table.entryName())) {
            if (keys.entrySet().stream().allMatch(k -> e.path(k.getKey()).asText().equals(k.getValue()))) return e;
        }
        return null;
    }

    private static Element xmlEntry(Document doc, Schema.Table table, Map<String, String> keys) {
        NodeList entries = doc.getElementsByTagNameNS("*", table.entryName());
        for (int i = 0; i < entries.getLength(); i++) {
            Element e = (Element) entries.item(i);
            if (keys.entrySet().stream().allMatch(k -> k.getValue().equals(child(e, k.getKey())))) return e;
        }
        return null;
    }

    private static String child(Element e, String name) {
        for (Node n = e.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element c && c.getLocalName().equals(name)) return c.getTextContent();
        }
        return null;
    }

    private Variable snmpGet(Schema.Table table, Column<?> c, int vmIndex, List<Integer> suffix) throws Exception {
        OID oid = new OID(OBJECTS).append(table.snmpTable()).append(1).append(c.snmpColumn()).append(vmIndex);
        for (int s : suffix) oid.append(s);
        PDU pdu = new PDU();
        pdu.setType(PDU.GET);
        pdu.add(new VariableBinding(oid));
        PDU response = snmp.send(pdu, target).getResponse();
        assertThat(response).as("SNMP answers GET " + oid).isNotNull();
        return response.get(0).getVariable();
    }

    /** An SNMP value in the text form REST and YANG give it, by the column's kind; null for no instance. */
    /**
     * Whether a row may lack the leaf by design: a column of another link type than its interface's (a
     * peer link has no parent, a bridge no VNI), or one whose absence is its value (no link type:
     * bridge; no rate: unlimited). SNMP shows those as the codec's absent value (bridge, an empty address).
     */
    private static boolean absentByDesign(Schema.Table table, JsonNode row, Column<?> c, Set<String> peers) {
        if (table == Schema.Table.NETWORK) {
            return c == Schema.Network.PARENT && peers.contains(row.path("vmNetworkIndex").asText());
        }
        if (table != Schema.Table.NETWORK_CONFIG) return false;
        LinkType type = SmiEnum.ofLabel(LinkType.class, row.path("vmNetworkConfigLinkType").asText("bridge"));
        return switch ((NetworkColumn) c) {
            case LINK_TYPE, RATE_IN, RATE_OUT -> true;
            case PEER_ROUTER, PEER_INTERFACE -> type != LinkType.PEER;
            case VNI, REMOTE -> type != LinkType.VXLAN;
            case PARENT -> type == LinkType.PEER;
            default -> false;
        };
    }

    private static String decode(Schema.Table table, Column<?> c, Variable v) throws Exception {
        if (v == null || v instanceof Null) return null;
        return switch (c.kind()) {
            case INTEGER, UNSIGNED, INT64, GAUGE32, TIME_TICKS, COUNTER64 -> Long.toString(v.toLong());
            case TRUTH -> v.toInt() == 1 ? "true" : v.toInt() == 2 ? "false" : "TruthValue " + v;
            case ENUM, ADMIN_STATE, ADDRESS_TYPE, LINK_TYPE -> {
                for (Object e : table.rowType().getField(c.field()).getType().getEnumConstants()) {
                    if (((SmiEnum) e).code() == v.toInt()) yield ((SmiEnum) e).label();
                }
                yield "no label for " + v;
            }
            case TEXT -> new String(((OctetString) v).getValue(), StandardCharsets.UTF_8);
            case MAC -> HexFormat.ofDelimiter(":").formatHex(((OctetString) v).getValue());
            case INET_ADDRESS -> ((OctetString) v).length() == 0 ? "" : InetAddress.getByAddress(((OctetString) v).getValue()).getHostAddress();
            case UUID -> {
                byte[] b = ((OctetString) v).getValue();
                if (b.length == 0) yield "";
                ByteBuffer buf = ByteBuffer.wrap(b);
                yield new UUID(buf.getLong(), buf.getLong()).toString();
            }
        };
    }
}
