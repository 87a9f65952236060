package io.vrouter.netconf.protocol;

import io.vrouter.yang.datastore.Datastore;
import static io.vrouter.netconf.protocol.NetconfSessionTest.configTable;
import static io.vrouter.netconf.protocol.NetconfSessionTest.edit;
import static io.vrouter.netconf.protocol.NetconfSessionTest.entry;
import static io.vrouter.netconf.protocol.NetconfSessionTest.tag;
import static io.vrouter.netconf.protocol.TestClient.VMM;
import static org.assertj.core.api.Assertions.assertThat;

import io.vrouter.core.driver.sim.LatencyProfile;
import io.vrouter.core.model.OperState;
import io.vrouter.yang.Schemas;
import io.vrouter.yang.WithDefaults;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The standard capabilities beyond the base protocol, on the protocol engine with a real service
 * that keeps a replay log: with-defaults (RFC 6243), get-data and the YANG library (RFC 8526, 8525),
 * replay (RFC 5277), monitoring statistics (RFC 6022) and the session notifications (RFC 6470).
 */
class StandardsTest extends ServerFixture {
    static final String NOTIF = "urn:ietf:params:xml:ns:netconf:notification:1.0";
    static final String WD = "urn:ietf:params:xml:ns:yang:ietf-netconf-with-defaults";
    static final String NMDA = "urn:ietf:params:xml:ns:yang:ietf-netconf-nmda";
    static final String DS = "urn:ietf:params:xml:ns:yang:ietf-datastores";
    static final String MON = "urn:ietf:params:xml:ns:yang:ietf-netconf-monitoring";

    /** The notifications that arrive until one matches (that one included); fails after 10 s without. */
    static List<String> until(TestClient c, Predicate<String> last) throws Exception {
        List<String> got = new ArrayList<>();
        while (true) {
            String m = c.next();
            got.add(m);
            if (last.test(m)) return got;
        }
    }

    static int count(String xml, String what) {
        Matcher m = Pattern.compile(Pattern.quote(what)).matcher(xml);
        int n = 0;
        while (m.find()) n++;
        return n;
    }

    static String getData(String datastore, String params) {
        return "<get-data xmlns='" + NMDA + "' xmlns:ds='" + DS + "'><datastore>ds:" + datastore + "</datastore>"
                + params + "</get-data>";
    }

    // ------------------------------------------------------------------ with-defaults

    @Test
    void withDefaultsTrimsOrTagsTheLeavesThatHaveTheirYangDefault() throws Exception {
        TestClient c = client();
        // vmConfigMemory 512 and the CPU count 1 are the defaults, whether given or filled in.
        c.rpc(edit("running", configTable(entry(1, "wd1", "<vmConfigMemory>512</vmConfigMemory>")
                + entry(2, "wd2", "<vmConfigMemory>256</vmConfigMemory><vmConfigAutoStart>true</vmConfigAutoStart>")), ""));
        String basic = c.rpc("<get-config><source><running/></source></get-config>");
        assertThat(count(basic, "<vmConfigMemory>")).isEqualTo(2);
        assertThat(count(basic, "<vmConfigTemplate>vyos</vmConfigTemplate>")).isEqualTo(2);

        String trim = c.rpc("<get-config><source><running/></source><with-defaults xmlns='" + WD + "'>trim</with-defaults></get-config>");
        assertThat(trim).contains("<vmName>wd1</vmName>", "<vmConfigMemory>256</vmConfigMemory>",
                "<vmConfigAutoStart>true</vmConfigAutoStart>").doesNotContain("<vmConfigMemory>512", "vmConfigTemplate",
                "vmConfigCpuNumber", "<vmAdminState>running", "<vmConfigAutoStart>false");

        String tagged = c.rpc("<get><filter type='subtree'><NEW-VMM-MIB xmlns='" + VMM + "'><vmConfigTable/></NEW-VMM-MIB></filter>"
                + "<with-defaults xmlns='" + WD + "'>report-all-tagged</with-defaults></get>");
        assertThat(tagged).contains("<vmConfigMemory xmlns:wd=\"urn:ietf:params:xml:ns:netconf:default:1.0\" wd:default=\"true\">512</vmConfigMemory>",
                "<vmConfigMemory>256</vmConfigMemory>", "<vmConfigAutoStart>true</vmConfigAutoStart>",
                "wd:default=\"true\">vyos</vmConfigTemplate>");
        assertThat(count(tagged, "wd:default=\"true\"")).as(tagged).isEqualTo(2 * 3 + 2);

        String all = c.rpc("<get-config><source><running/></source><with-defaults xmlns='" + WD + "'>report-all</with-defaults></get-config>");
        assertThat(all).isEqualTo(basic.replace("message-id=\"2\"", "message-id=\"5\""));

        // An XPath filter keeps the tags.
        String xpath = c.rpc("<get-config><source><running/></source><filter type='xpath' xmlns:v='" + VMM
                + "' select='/v:NEW-VMM-MIB/v:vmConfigTable/v:vmConfigEntry[v:vmIndex=1]/v:vmConfigMemory'/>"
                + "<with-defaults xmlns='" + WD + "'>report-all-tagged</with-defaults></get-config>");
        assertThat(xpath).contains("wd:default=\"true\">512</vmConfigMemory>");
    }

    @Test
    void anUnsupportedWithDefaultsValueIsInvalidValue() throws Exception {
        TestClient c = client();
        for (String op : List.of("get", "get-config")) {
            String source = op.equals("get") ? "" : "<source><running/></source>";
            String reply = c.rpc("<" + op + ">" + source + "<with-defaults xmlns='" + WD + "'>everything</with-defaults></" + op + ">");
            assertThat(reply).contains("<error-tag>invalid-value</error-tag>", "<bad-element>with-defaults</bad-element>")
                    .doesNotContain("<data");
        }
        assertThat(c.rpc(getData("running", "<with-defaults>most</with-defaults>"))).contains("<error-tag>invalid-value</error-tag>");
        assertThat(c.session.id()).isPositive();
        assertThat(c.serverHello).contains(
                "urn:ietf:params:netconf:capability:with-defaults:1.0?basic-mode=report-all&amp;also-supported=trim,report-all-tagged");
    }

    @Test
    void theYangDefaultsWithDefaultsKnowsAreTheModules() throws Exception {
        String module = Files.readString(Path.of("../vr-yang/src/main/resources/io/vrouter/yang/NEW-VMM-MIB@2026-11-28.yang"));
        for (var d : WithDefaults.CONFIG_DEFAULTS.entrySet()) {
            Matcher m = Pattern.compile("leaf " + d.getKey() + " \\{(.*?)\\n {8}\\}", Pattern.DOTALL).matcher(module);
            assertThat(m.find()).as(d.getKey()).isTrue();
            assertThat(m.group(1)).as(d.getKey()).contains("default \"" + d.getValue() + "\"");
        }
        assertThat(count(module, "default \"")).isEqualTo(WithDefaults.CONFIG_DEFAULTS.size());
    }

    // ------------------------------------------------------------------ NMDA

    @Test
    void getDataReadsRunningCandidateAndOperational() throws Exception {
        TestClient c = client();
        c.rpc(edit("running", configTable(entry(1, "nmda1", "")), ""));
        awaitState(1, OperState.RUNNING);
        c.rpc(edit("candidate", configTable(entry(2, "nmda2", "")), ""));

        String running = c.rpc(getData("running", ""));
        assertThat(running).contains("<data xmlns=\"" + NMDA + "\">", "<vmName>nmda1</vmName>")
                .doesNotContain("nmda2", "vmOperState", "netconf-state");
        String candidate = c.rpc(getData("candidate", ""));
        assertThat(candidate).contains("<vmName>nmda1</vmName>", "<vmName>nmda2</vmName>").doesNotContain("vmOperState");
        String operational = c.rpc(getData("operational", ""));
        assertThat(operational).contains("<vmOperState>running</vmOperState>", "<vmName>nmda1</vmName>", "<netconf-state",
                "<yang-library", "<streams>").doesNotContain("nmda2");

        // config-filter: false leaves the configuration out of operational, true the state; running has no state.
        String state = c.rpc(getData("operational", "<config-filter>false</config-filter>"));
        assertThat(state).contains("<vmOperState>running</vmOperState>", "<netconf-state").doesNotContain("vmConfigTable", "<vmName>");
        String config = c.rpc(getData("operational", "<config-filter>true</config-filter>"));
        assertThat(config).contains("<vmName>nmda1</vmName>").doesNotContain("vmOperState", "netconf-state", "vmHypervisor");
        assertThat(c.rpc(getData("running", "<config-filter>false</config-filter>"))).contains("<data xmlns=\"" + NMDA + "\"></data>");

        // Filters: a subtree filter and an XPath filter with the prefixes in scope on the leaf.
        String subtree = c.rpc(getData("operational", "<subtree-filter><NEW-VMM-MIB xmlns='" + VMM
                + "'><vmTable><vmEntry><vmIndex>1</vmIndex><vmOperState/></vmEntry></vmTable></NEW-VMM-MIB></subtree-filter>"));
        assertThat(subtree).contains("<vmEntry><vmIndex>1</vmIndex><vmOperState>running</vmOperState></vmEntry>")
                .doesNotContain("vmUUID", "vmConfigTable");
        String xpath = c.rpc(getData("candidate", "<xpath-filter xmlns:v='" + VMM
                + "'>/v:NEW-VMM-MIB/v:vmConfigTable/v:vmConfigEntry[v:vmName='nmda2']/v:vmConfigMemory</xpath-filter>"));
        assertThat(xpath).contains("<vmConfigEntry><vmIndex>2</vmIndex><vmConfigMemory>512</vmConfigMemory></vmConfigEntry>")
                .doesNotContain("nmda1");

        // with-defaults applies to the conventional datastores.
        assertThat(c.rpc(getData("running", "<with-defaults>trim</with-defaults>"))).doesNotContain("vmConfigMemory");
        assertThat(c.rpc(getData("operational", "<with-defaults>trim</with-defaults>"))).contains("<error-tag>invalid-value</error-tag>");
    }

    static String editData(String datastore, String tables) {
        return "<edit-data xmlns='" + NMDA + "' xmlns:ds='" + DS + "'><datastore>ds:" + datastore + "</datastore><config>"
                + "<NEW-VMM-MIB xmlns='" + VMM + "' xmlns:nc='urn:ietf:params:xml:ns:netconf:base:1.0'>" + tables
                + "</NEW-VMM-MIB></config></edit-data>";
    }

    @Test
    void editDataWritesRunningOrCandidateAllOrNothing() throws Exception {
        TestClient c = client();
        assertThat(c.rpc(editData("candidate", configTable(entry(1, "ed1", ""))))).contains("<ok/>");
        assertThat(service.indices()).isEmpty();
        assertThat(c.rpc(getData("candidate", ""))).contains("<vmName>ed1</vmName>");
        assertThat(c.rpc("<commit/>")).contains("<ok/>");
        assertThat(service.indices()).containsExactly(1);
        assertThat(c.rpc(editData("running", configTable(entry(2, "ed2", ""))))).contains("<ok/>");
        assertThat(service.indices()).containsExactly(1, 2);
        // One bad entry: nothing of the edit is applied.
        assertThat(c.rpc(editData("running", configTable(entry(3, "ed3", "") + entry(4, "ed4", "<vmConfigMemory>1</vmConfigMemory>")))))
                .contains("<error-tag>invalid-value</error-tag>");
        assertThat(service.indices()).containsExactly(1, 2);
        assertThat(c.rpc(editData("operational", configTable(entry(5, "ed5", ""))))).contains("<error-tag>invalid-value</error-tag>");
        assertThat(c.rpc("<edit-data xmlns='" + NMDA + "' xmlns:ds='" + DS + "'><datastore>ds:running</datastore></edit-data>"))
                .contains("<error-tag>missing-element</error-tag>");
        TestClient viewer = new TestClient(ctx, "viewer", true, true);
        clients.add(viewer);
        assertThat(viewer.rpc(editData("running", configTable(entry(6, "ed6", ""))))).contains("<error-tag>access-denied</error-tag>");
        assertThat(service.indices()).containsExactly(1, 2);
    }

    @Test
    void maxDepthCutsEachSelectedNodeBelowTheGivenLevel() throws Exception {
        TestClient c = client();
        c.rpc(edit("running", configTable(entry(1, "deep", "")), ""));
        String one = c.rpc(getData("running", "<max-depth>1</max-depth>"));
        assertThat(one).contains("<NEW-VMM-MIB xmlns=\"" + VMM + "\"></NEW-VMM-MIB>");
        String three = c.rpc(getData("running", "<max-depth>3</max-depth>"));
        // NEW-VMM-MIB, its tables, their entries with nothing but their keys.
        assertThat(three).contains("<vmConfigTable><vmConfigEntry><vmIndex>1</vmIndex></vmConfigEntry></vmConfigTable>")
                .doesNotContain("vmName");
        String selected = c.rpc(getData("running", "<max-depth>1</max-depth><subtree-filter><NEW-VMM-MIB xmlns='" + VMM
                + "'><vmConfigTable><vmConfigEntry/></vmConfigTable></NEW-VMM-MIB></subtree-filter>"));
        assertThat(selected).contains("<vmConfigEntry><vmIndex>1</vmIndex></vmConfigEntry>").doesNotContain("vmName");
        assertThat(c.rpc(getData("running", "<max-depth>0</max-depth>"))).contains("<error-tag>invalid-value</error-tag>");
        assertThat(c.rpc(getData("running", "<max-depth>unbounded</max-depth>"))).contains("<vmName>deep</vmName>");
    }

    @Test
    void getDataRefusesDatastoresThisServerDoesNotHaveAndUnknownParameters() throws Exception {
        TestClient c = client();
        for (String ds : List.of("startup", "intended")) {
            assertThat(c.rpc(getData(ds, ""))).contains("<error-tag>invalid-value</error-tag>", "<bad-element>datastore</bad-element>");
        }
        assertThat(c.rpc("<get-data xmlns='" + NMDA + "'><datastore>running</datastore></get-data>"))
                .as("an identity needs the ietf-datastores namespace").contains("<error-tag>invalid-value</error-tag>");
        assertThat(c.rpc("<get-data xmlns='" + NMDA + "'/>")).contains("<error-tag>missing-element</error-tag>");
        assertThat(c.rpc(getData("operational", "<with-origin/>"))).contains("<error-tag>unknown-element</error-tag>");
        // NMDA names datastores in lock and unlock too; operational is not writable.
        String lock = "<lock><target><datastore xmlns='" + NMDA + "' xmlns:ds='" + DS + "'>ds:%s</datastore></target></lock>";
        assertThat(c.rpc(String.format(lock, "candidate"))).contains("<ok/>");
        assertThat(ctx.datastore().lockHolder(Datastore.Name.CANDIDATE)).isEqualTo(c.session.id());
        assertThat(c.rpc(String.format(lock, "operational"))).contains("<error-tag>invalid-value</error-tag>");
    }

    @Test
    void theYangLibraryListsEveryModuleGetSchemaServesAndTheHelloNamesItsContentId() throws Exception {
        TestClient c = client();
        String lib = c.rpc(getData("operational", "<subtree-filter><yang-library xmlns='urn:ietf:params:xml:ns:yang:ietf-yang-library'/>"
                + "</subtree-filter>"));
        assertThat(lib).contains("<name xmlns:ds=\"" + DS + "\">ds:running</name>", ">ds:candidate</name>", ">ds:operational</name>",
                "<module><name>ietf-netconf</name><revision>2011-06-01</revision>", "<feature>candidate</feature>",
                "<import-only-module><name>ietf-yang-types</name>");
        String contentId = tag(lib, "content-id");
        assertThat(c.serverHello).contains("urn:ietf:params:netconf:capability:yang-library:1.1?revision=2019-01-04&amp;content-id="
                + contentId);
        Matcher names = Pattern.compile("<(?:module|import-only-module)><name>([^<]+)</name><revision>([^<]+)</revision>").matcher(lib);
        int n = 0;
        while (names.find()) {
            n++;
            String schema = c.rpc("<get-schema xmlns='" + MON + "'><identifier>" + names.group(1) + "</identifier><version>"
                    + names.group(2) + "</version></get-schema>");
            assertThat(schema).as(names.group(1)).contains("module " + names.group(1) + " {");
        }
        assertThat(n).isEqualTo(Schemas.MODULES.size());
    }

    // ------------------------------------------------------------------ replay

    @Test
    void aReplayFromStartTimeSendsWhatHappenedThenReplayCompleteThenGoesOnLive() throws Exception {
        Instant before = Instant.now();
        TestClient c = client();
        c.rpc(edit("running", configTable(entry(1, "early", "")), ""));
        awaitState(1, OperState.RUNNING);

        TestClient late = client();
        assertThat(late.rpc("<create-subscription xmlns='" + NOTIF + "'><startTime>" + before + "</startTime></create-subscription>"))
                .contains("<ok/>");
        List<String> replayed = until(late, m -> m.contains("<replayComplete"));
        assertThat(String.join("\n", replayed)).contains("<vmRunning", "<vmName>early</vmName>");
        assertThat(replayed.get(replayed.size() - 1)).contains("<replayComplete xmlns=\"urn:ietf:params:xml:ns:netmod:notification\"/>");
        c.rpc(edit("running", configTable(entry(2, "later", "")), ""));
        assertThat(String.join("\n", until(late, m -> m.contains("<vmRunning")))).contains("<vmName>later</vmName>");
    }

    @Test
    void theReplayIsWrittenBeforeTheReplyToTheSessionsNextRpc() throws Exception {
        // A client that subscribes with a startTime and then sends another rpc sees the whole replay
        // (up to replayComplete) before that rpc's reply; yangcli, which quits after its script's last
        // reply, lost the end of the replay when the two raced.
        Instant before = Instant.now();
        TestClient c = client();
        StringBuilder entries = new StringBuilder();
        for (int i = 1; i <= 150; i++) entries.append(entry(i, "replayed" + i, ""));
        c.rpc(edit("running", configTable(entries.toString()), ""));
        for (int i = 1; i <= 150; i++) awaitState(i, OperState.RUNNING);

        TestClient late = client();
        assertThat(late.rpc("<create-subscription xmlns='" + NOTIF + "'><startTime>" + before + "</startTime></create-subscription>"))
                .contains("<ok/>");
        // A reply that costs next to nothing (the filter selects nothing), written while the replay may still be.
        assertThat(late.rpc("<get-config><source><running/></source><filter type='subtree'><nothing xmlns='urn:example:none'/>"
                + "</filter></get-config>")).contains("<rpc-reply");
        List<String> beforeTheReply = late.pendingNotifications();
        assertThat(beforeTheReply).as("the notifications that came before the get-config's reply").isNotEmpty();
        assertThat(beforeTheReply.get(beforeTheReply.size() - 1)).contains("<replayComplete");
        assertThat(String.join("\n", beforeTheReply)).contains("<vmName>replayed150</vmName>");
    }

    @Test
    void aStopTimeEndsTheSubscriptionWithNotificationCompleteAndTheSessionMaySubscribeAgain() throws Exception {
        Instant before = Instant.now();
        TestClient c = client();
        c.rpc(edit("running", configTable(entry(1, "bounded", "")), ""));
        awaitState(1, OperState.RUNNING);
        Instant stop = Instant.now();
        c.rpc(edit("running", configTable(entry(2, "after-stop", "")), ""));
        awaitState(2, OperState.RUNNING);

        TestClient s = client();
        assertThat(s.rpc("<create-subscription xmlns='" + NOTIF + "'><startTime>" + before + "</startTime><stopTime>" + stop
                + "</stopTime></create-subscription>")).contains("<ok/>");
        List<String> got = until(s, m -> m.contains("<notificationComplete"));
        String all = String.join("\n", got);
        assertThat(all).contains("<vmName>bounded</vmName>").doesNotContain("after-stop");
        assertThat(got.get(got.size() - 2)).contains("<replayComplete");
        // The subscription is over: the session can start another (a live one, stopping in the future).
        String future = Instant.now().plusMillis(1500).toString();
        assertThat(s.rpc("<create-subscription xmlns='" + NOTIF + "'><startTime>" + stop + "</startTime><stopTime>" + future
                + "</stopTime></create-subscription>")).contains("<ok/>");
        c.rpc(edit("running", configTable(entry(3, "live", "")), ""));
        List<String> second = until(s, m -> m.contains("<notificationComplete"));
        assertThat(String.join("\n", second)).contains("<vmName>after-stop</vmName>", "<vmName>live</vmName>");
    }

    @Test
    void aSubscriptionFilterInNetconfsNamespaceAsNcclientSendsItFiltersToo() throws Exception {
        TestClient c = client();
        assertThat(c.rpc("<create-subscription xmlns='" + NOTIF + "'><filter xmlns='urn:ietf:params:xml:ns:netconf:base:1.0'"
                + " type='subtree'><vmRunning xmlns='" + VMM + "'/></filter></create-subscription>")).contains("<ok/>");
        c.rpc(edit("running", configTable(entry(1, "only-running", "")), ""));
        String first = c.next();
        assertThat(first).as("the config change is filtered out").contains("<vmRunning");
    }

    @Test
    void replayParametersAreChecked() throws Exception {
        TestClient c = client();
        String future = Instant.now().plusSeconds(3600).toString();
        assertThat(c.rpc("<create-subscription xmlns='" + NOTIF + "'><startTime>" + future + "</startTime></create-subscription>"))
                .contains("<error-tag>bad-element</error-tag>", "<bad-element>startTime</bad-element>");
        assertThat(c.rpc("<create-subscription xmlns='" + NOTIF + "'><stopTime>" + future + "</stopTime></create-subscription>"))
                .contains("<error-tag>missing-element</error-tag>");
        Instant now = Instant.now();
        assertThat(c.rpc("<create-subscription xmlns='" + NOTIF + "'><startTime>" + now + "</startTime><stopTime>"
                + now.minusSeconds(60) + "</stopTime></create-subscription>")).contains("<error-tag>bad-element</error-tag>",
                "<bad-element>stopTime</bad-element>");
        assertThat(c.rpc("<create-subscription xmlns='" + NOTIF + "'><startTime>yesterday</startTime></create-subscription>"))
                .contains("<error-tag>invalid-value</error-tag>");
        // None of them subscribed.
        assertThat(c.rpc("<create-subscription xmlns='" + NOTIF + "'/>")).contains("<ok/>");
    }

    @Test
    void theReplayLogOutlivesARestartAndStreamsNamesItsCreationTime() throws Exception {
        Instant before = Instant.now();
        TestClient c = client();
        c.rpc(edit("running", configTable(entry(1, "persisted", "")), ""));
        awaitState(1, OperState.RUNNING);
        String streams = c.rpc("<get><filter type='subtree'><netconf xmlns='urn:ietf:params:xml:ns:netmod:notification'/></filter></get>");
        assertThat(streams).contains("<name>NETCONF</name>", "<replaySupport>true</replaySupport>", "<replayLogCreationTime>");
        String created = tag(streams, "replayLogCreationTime");
        assertThat(Instant.parse(created)).isBeforeOrEqualTo(before);

        stopServer();
        startServer(LatencyProfile.NONE);
        TestClient after = client();
        assertThat(after.rpc("<create-subscription xmlns='" + NOTIF + "'><startTime>" + before + "</startTime></create-subscription>"))
                .contains("<ok/>");
        assertThat(String.join("\n", until(after, m -> m.contains("<replayComplete")))).contains("<vmName>persisted</vmName>");
        assertThat(tag(after.rpc("<get><filter type='subtree'><netconf xmlns='urn:ietf:params:xml:ns:netmod:notification'/></filter></get>"),
                "replayLogCreationTime")).isEqualTo(created);
    }

    // ------------------------------------------------------------------ monitoring and session notifications

    @Test
    void sessionsStartAndEndAsNotificationsWithTheirReasons() throws Exception {
        TestClient watcher = client();
        assertThat(watcher.rpc("<create-subscription xmlns='" + NOTIF + "'/>")).contains("<ok/>");
        TestClient closing = client();
        String start = watcher.next();
        assertThat(start).contains("<netconf-session-start xmlns=\"urn:ietf:params:xml:ns:yang:ietf-netconf-notifications\">",
                "<username>admin</username>", "<session-id>" + closing.session.id() + "</session-id>", "<source-host>127.0.0.1</source-host>");
        closing.rpc("<close-session/>");
        assertThat(watcher.next()).contains("<netconf-session-end", "<session-id>" + closing.session.id() + "</session-id>",
                "<termination-reason>closed</termination-reason>").doesNotContain("killed-by");

        TestClient victim = client();
        watcher.next();
        watcher.rpc("<kill-session><session-id>" + victim.session.id() + "</session-id></kill-session>");
        assertThat(watcher.next()).contains("<termination-reason>killed</termination-reason>",
                "<killed-by>" + watcher.session.id() + "</killed-by>");

        TestClient dropped = client();
        watcher.next();
        dropped.close();
        assertThat(watcher.next()).contains("<session-id>" + dropped.session.id() + "</session-id>",
                "<termination-reason>dropped</termination-reason>");
    }

    @Test
    void aChangeOfRunningIsNotifiedWithWhoMadeItAndTheEdits() throws Exception {
        TestClient watcher = client();
        watcher.rpc("<create-subscription xmlns='" + NOTIF + "'><filter type='subtree'><netconf-config-change"
                + " xmlns='urn:ietf:params:xml:ns:yang:ietf-netconf-notifications'/></filter></create-subscription>");
        TestClient c = client();
        String iface = "<vmNetworkConfigTable><vmNetworkConfigEntry><vmIndex>1</vmIndex><vmNetworkConfigIndex>1</vmNetworkConfigIndex>"
                + "<vmNetworkConfigParent>br0</vmNetworkConfigParent></vmNetworkConfigEntry></vmNetworkConfigTable>";
        c.rpc(edit("candidate", configTable(entry(1, "changed", "")) + iface, ""));
        assertThat(c.rpc("<commit/>")).contains("<ok/>");
        String entry = "/new-vmm-mib:NEW-VMM-MIB/new-vmm-mib:vmConfigTable/new-vmm-mib:vmConfigEntry[new-vmm-mib:vmIndex='1']";
        String created = watcher.next();
        assertThat(created).contains("<changed-by><username>admin</username><session-id>" + c.session.id()
                + "</session-id><source-host>127.0.0.1</source-host></changed-by><datastore>running</datastore>",
                "<edit><target xmlns:new-vmm-mib=\"" + VMM + "\">" + entry + "</target><operation>create</operation></edit>");
        assertThat(count(created, "<edit>")).isEqualTo(1);
        awaitState(1, OperState.RUNNING);

        c.rpc(edit("running", configTable(entry(1, "changed", "<vmConfigAutoStart>true</vmConfigAutoStart>"))
                + "<vmNetworkConfigTable><vmNetworkConfigEntry nc:operation='delete'><vmIndex>1</vmIndex>"
                + "<vmNetworkConfigIndex>1</vmNetworkConfigIndex></vmNetworkConfigEntry></vmNetworkConfigTable>", ""));
        String changed = watcher.next();
        assertThat(changed).contains(entry + "/new-vmm-mib:vmConfigAutoStart</target><operation>replace</operation>",
                "[new-vmm-mib:vmNetworkConfigIndex='1']</target><operation>delete</operation>");
        assertThat(count(changed, "<edit>")).isEqualTo(2);

        // A refused edit changes nothing and says nothing.
        assertThat(c.rpc(edit("running", configTable(entry(1, "changed", "<vmConfigMemory>8</vmConfigMemory>")), "")))
                .contains("rpc-error");
        c.rpc(edit("running", configTable("<vmConfigEntry nc:operation='delete'><vmIndex>1</vmIndex></vmConfigEntry>"), ""));
        String deleted = watcher.next();
        assertThat(deleted).contains("<target xmlns:new-vmm-mib=\"" + VMM + "\">" + entry + "</target><operation>delete</operation>");
    }

    @Test
    void statisticsCountSessionsRpcsErrorsAndNotificationsOfTheWholeServer() throws Exception {
        TestClient a = client();
        a.rpc("<get-config><source><running/></source></get-config>");
        a.rpc("<frobnicate/>");
        TestClient b = client();
        b.rpc("<create-subscription xmlns='" + NOTIF + "'/>");
        b.rpc(edit("running", configTable(entry(1, "counted", "")), ""));
        until(b, m -> m.contains("<vmRunning"));
        client().close();
        b.next();
        b.next();

        String stats = a.rpc("<get><filter type='subtree'><netconf-state xmlns='" + MON + "'><statistics/></netconf-state></filter></get>");
        assertThat(Instant.parse(tag(stats, "netconf-start-time"))).isBeforeOrEqualTo(Instant.now());
        assertThat(tag(stats, "in-sessions")).isEqualTo("3");
        assertThat(tag(stats, "dropped-sessions")).isEqualTo("1");
        assertThat(tag(stats, "in-bad-hellos")).isEqualTo("0");
        // a: get-config, frobnicate; b: create-subscription, edit-config; and this get.
        assertThat(tag(stats, "in-rpcs")).isEqualTo("5");
        assertThat(tag(stats, "in-bad-rpcs")).isEqualTo("1");
        assertThat(tag(stats, "out-rpc-errors")).isEqualTo("1");
        assertThat(tag(stats, "out-notifications")).as("config change, vmRunning, session start and end").isEqualTo("4");
    }
}
