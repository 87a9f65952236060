package io.vrouter.netconf.protocol;

import io.vrouter.yang.datastore.Datastore;
import static io.vrouter.netconf.protocol.TestClient.VMM;
import static org.assertj.core.api.Assertions.assertThat;

import io.vrouter.core.driver.sim.LatencyProfile;
import io.vrouter.core.driver.sim.SimulatedDriver;
import io.vrouter.core.metrics.VrMetrics;
import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.OperState;
import io.vrouter.core.model.VirtualRouter;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.persistence.ConfigStore;
import io.vrouter.core.service.VirtualRouterService;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The protocol engine end to end on a real service (simulated driver), without SSH. */
class NetconfSessionTest {
    @TempDir
    Path dir;
    VirtualRouterService service;
    NetconfServerContext ctx;
    VrMetrics metrics;
    final List<TestClient> clients = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        service = new VirtualRouterService(new SimulatedDriver(LatencyProfile.NONE), new ConfigStore(dir), VrMetrics.inMemory());
        service.start();
        metrics = VrMetrics.inMemory();
        ctx = new NetconfServerContext(service, metrics, 1 << 20);
    }

    @AfterEach
    void stop() throws Exception {
        for (TestClient c : clients) c.close();
        service.close();
    }

    TestClient client(boolean base11) throws Exception {
        TestClient c = new TestClient(ctx, "admin", false, base11);
        clients.add(c);
        return c;
    }

    static String entry(int index, String name, String extra) {
        return "<vmConfigEntry><vmIndex>" + index + "</vmIndex><vmName>" + name + "</vmName>" + extra + "</vmConfigEntry>";
    }

    static String edit(String target, String tables, String options) {
        return "<edit-config><target><" + target + "/></target>" + options + "<config><NEW-VMM-MIB xmlns='" + VMM
                + "' xmlns:nc='urn:ietf:params:xml:ns:netconf:base:1.0'>" + tables + "</NEW-VMM-MIB></config></edit-config>";
    }

    static String configTable(String entries) {
        return "<vmConfigTable>" + entries + "</vmConfigTable>";
    }

    static String tag(String xml, String tag) {
        Matcher m = Pattern.compile("<" + tag + "[^>]*>([^<]*)</" + tag + ">").matcher(xml);
        return m.find() ? m.group(1) : null;
    }

    /** Waits up to 10 s for a condition (the assertion that follows says what failed). */
    static void awaitUntil(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!condition.getAsBoolean() && System.nanoTime() < deadline) Thread.sleep(10);
    }

    void awaitState(int vmIndex, OperState state) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() < deadline) {
            if (service.get(vmIndex).map(VirtualRouter::operState).orElse(null) == state) return;
            Thread.sleep(10);
        }
        throw new AssertionError("VR " + vmIndex + " did not reach " + state + ": " + service.get(vmIndex).map(VirtualRouter::operState));
    }

    @Test
    void helloAdvertisesTheCapabilitiesAndTheModuleAndBase11SwitchesToChunks() throws Exception {
        TestClient c = client(true);
        assertThat(c.serverHello).contains("urn:ietf:params:netconf:base:1.1",
                "urn:ietf:params:netconf:capability:candidate:1.0", "urn:ietf:params:netconf:capability:xpath:1.0",
                "urn:ietf:params:netconf:capability:notification:1.0", "urn:ietf:params:netconf:capability:interleave:1.0",
                "urn:ietf:params:netconf:capability:rollback-on-error:1.0",
                VMM + "?module=NEW-VMM-MIB&amp;revision=2026-11-28");
        assertThat(tag(c.serverHello, "session-id")).isEqualTo(String.valueOf(c.session.id()));
        // The client decodes chunks; an EOM-framed reply would not parse as one.
        assertThat(c.rpc("<get-config><source><running/></source></get-config>")).contains("<data");
    }

    @Test
    void createOnCandidateIsInvisibleUntilCommitThenTheServiceHasTheVrs() throws Exception {
        TestClient c = client(false);
        String reply = c.rpc(edit("candidate", configTable(entry(1, "edge1", "<vmConfigMemory>256</vmConfigMemory>")
                + entry(2, "edge2", "<vmAdminState>shutdown</vmAdminState>"))
                + "<vmNetworkConfigTable><vmNetworkConfigEntry><vmIndex>1</vmIndex><vmNetworkConfigIndex>1</vmNetworkConfigIndex>"
                + "<vmNetworkConfigParent>br0</vmNetworkConfigParent><vmNetworkConfigAddress>10.0.0.1</vmNetworkConfigAddress>"
                + "</vmNetworkConfigEntry></vmNetworkConfigTable>", ""));
        assertThat(reply).contains("<ok/>").contains("message-id=\"1\"");
        assertThat(service.indices()).isEmpty();
        String candidate = c.rpc("<get-config><source><candidate/></source></get-config>");
        assertThat(candidate).contains("<vmName>edge1</vmName>", "<vmConfigTemplate>vyos</vmConfigTemplate>",
                "<vmNetworkConfigAddress>10.0.0.1</vmNetworkConfigAddress>");
        assertThat(c.rpc("<get-config><source><running/></source></get-config>")).doesNotContain("edge1");

        assertThat(c.rpc("<commit/>")).contains("<ok/>");
        assertThat(service.indices()).containsExactly(1, 2);
        VmConfigEntry e1 = service.getConfig(1).orElseThrow();
        assertThat(e1.vmConfigMemory).isEqualTo(256);
        assertThat(e1.interfaces()).hasSize(1);
        assertThat(service.getConfig(2).orElseThrow().vmAdminState).isEqualTo(AdminState.SHUTDOWN);
        awaitState(1, OperState.RUNNING);
        awaitState(2, OperState.SHUTDOWN);

        // Read back with a subtree filter (content match on vmName) and with XPath.
        String byName = c.rpc("<get><filter type='subtree'><NEW-VMM-MIB xmlns='" + VMM + "'><vmConfigTable><vmConfigEntry>"
                + "<vmName>edge2</vmName></vmConfigEntry></vmConfigTable></NEW-VMM-MIB></filter></get>");
        assertThat(byName).contains("<vmName>edge2</vmName>").doesNotContain("edge1");
        String xpath = c.rpc("<get><filter type='xpath' xmlns:v='" + VMM + "' select=\"/v:NEW-VMM-MIB/v:vmTable/v:vmEntry[v:vmIndex=1]/v:vmOperState\"/></get>");
        assertThat(xpath).contains("<vmEntry><vmIndex>1</vmIndex><vmOperState>running</vmOperState></vmEntry>")
                .doesNotContain("vmUUID");
    }

    @Test
    void startStopAndDeleteOnRunning() throws Exception {
        TestClient c = client(true);
        assertThat(c.rpc(edit("running", configTable(entry(7, "r7", "")), ""))).contains("<ok/>");
        awaitState(7, OperState.RUNNING);
        assertThat(c.rpc(edit("running", configTable("<vmConfigEntry><vmIndex>7</vmIndex><vmAdminState>shutdown</vmAdminState></vmConfigEntry>"), "")))
                .contains("<ok/>");
        awaitState(7, OperState.SHUTDOWN);
        assertThat(c.rpc(edit("running", configTable("<vmConfigEntry nc:operation='delete'><vmIndex>7</vmIndex></vmConfigEntry>"), "")))
                .contains("<ok/>");
        awaitUntil(() -> service.get(7).isEmpty());
        assertThat(service.get(7)).isEmpty();
    }

    @Test
    void errorsCarryTagTypeAndPathAndTheSessionLivesOn() throws Exception {
        TestClient c = client(true);
        String malformed = c.rpc("<get><filter></get>");
        assertThat(malformed).contains("<error-tag>malformed-message</error-tag>", "<error-type>rpc</error-type>");

        String unknownOp = c.rpc("<frobnicate/>");
        assertThat(unknownOp).contains("<error-tag>operation-not-supported</error-tag>", "<bad-element>frobnicate</bad-element>");

        String unknownLeaf = c.rpc(edit("running", configTable(entry(3, "r3", "<vmColour>red</vmColour>")), ""));
        assertThat(unknownLeaf).contains("<error-type>application</error-type>", "<error-tag>unknown-element</error-tag>",
                "<bad-element>vmColour</bad-element>",
                "/new-vmm-mib:NEW-VMM-MIB/new-vmm-mib:vmConfigTable/new-vmm-mib:vmConfigEntry[new-vmm-mib:vmIndex='3']</error-path>");
        assertThat(service.indices()).isEmpty();

        String badValue = c.rpc(edit("running", configTable(entry(3, "r3", "<vmConfigMemory>lots</vmConfigMemory>")), ""));
        assertThat(badValue).contains("<error-tag>invalid-value</error-tag>", "new-vmm-mib:vmConfigMemory</error-path>");

        String state = c.rpc(edit("running", "<vmTable/>", ""));
        assertThat(state).contains("<error-tag>invalid-value</error-tag>", "state data");

        assertThat(c.rpc("<get/>").replace("<get/>", "")).contains("<rpc-reply").doesNotContain("<rpc-error>");

        c.send("<rpc xmlns='urn:ietf:params:xml:ns:netconf:base:1.0'><get/></rpc>");
        assertThat(c.next()).contains("<error-tag>missing-attribute</error-tag>", "<bad-attribute>message-id</bad-attribute>");

        assertThat(c.rpc(edit("running", configTable(entry(3, "r3", "")), ""))).contains("<ok/>");
        String exists = c.rpc(edit("running", configTable("<vmConfigEntry nc:operation='create'><vmIndex>3</vmIndex><vmName>x</vmName></vmConfigEntry>"), ""));
        assertThat(exists).contains("<error-tag>data-exists</error-tag>");
        String missing = c.rpc(edit("running", configTable("<vmConfigEntry nc:operation='delete'><vmIndex>99</vmIndex></vmConfigEntry>"), ""));
        assertThat(missing).contains("<error-tag>data-missing</error-tag>", "vmIndex='99'");
        String duplicate = c.rpc(edit("running", configTable(entry(4, "r3", "")), ""));
        assertThat(duplicate).contains("<error-tag>operation-failed</error-tag>", "<error-app-tag>data-not-unique</error-app-tag>");
        String running = c.rpc(edit("running", configTable("<vmConfigEntry><vmIndex>3</vmIndex><vmConfigCpuNumber>4</vmConfigCpuNumber></vmConfigEntry>"), ""));
        assertThat(running).contains("<error-tag>operation-failed</error-tag>", "new-vmm-mib:vmConfigCpuNumber</error-path>");
        String immutable = c.rpc(edit("running", configTable("<vmConfigEntry><vmIndex>3</vmIndex><vmConfigTemplate>other</vmConfigTemplate></vmConfigEntry>"), ""));
        assertThat(immutable).contains("<error-tag>operation-not-supported</error-tag>", "new-vmm-mib:vmConfigTemplate</error-path>");
        assertThat(service.indices()).containsExactly(3);
    }

    @Test
    void doctypesAndEntitiesAreRefused() throws Exception {
        Path secret = Files.writeString(dir.resolve("secret.txt"), "TOP-SECRET");
        TestClient c = client(false);
        c.send("<?xml version='1.0'?><!DOCTYPE rpc [<!ENTITY x SYSTEM '" + secret.toUri() + "'>]>"
                + "<rpc message-id='9' xmlns='urn:ietf:params:xml:ns:netconf:base:1.0'><get-config><source><running/></source>"
                + "<filter>&x;</filter></get-config></rpc>");
        String reply = c.next();
        assertThat(reply).contains("<error-tag>malformed-message</error-tag>").doesNotContain("TOP-SECRET");
    }

    @Test
    void errorOptionsDecideWhatOfAFailedEditIsApplied() throws Exception {
        TestClient c = client(false);
        String bad = "<vmConfigEntry><vmIndex>2</vmIndex><vmName>b</vmName><vmConfigCpuNumber>x</vmConfigCpuNumber></vmConfigEntry>";
        String three = configTable(entry(1, "a", "") + bad + entry(3, "c", ""));
        // test-then-set (the default): an edit with an error changes nothing, whatever the error-option.
        for (String option : List.of("stop-on-error", "continue-on-error", "rollback-on-error")) {
            String reply = c.rpc(edit("running", three, "<error-option>" + option + "</error-option>"));
            assertThat(reply).as(option).contains("<error-tag>invalid-value</error-tag>").doesNotContain("<ok/>");
            assertThat(service.indices()).as(option).isEmpty();
        }
        // set with rollback-on-error: nothing either.
        c.rpc(edit("running", three, "<test-option>set</test-option><error-option>rollback-on-error</error-option>"));
        assertThat(service.indices()).isEmpty();
        // set with stop-on-error: what came before the error.
        String stop = c.rpc(edit("running", three, "<test-option>set</test-option><error-option>stop-on-error</error-option>"));
        assertThat(stop).contains("<error-tag>invalid-value</error-tag>");
        assertThat(service.indices()).containsExactly(1);
        // set with continue-on-error: everything but the failed entry.
        String cont = c.rpc(edit("running", configTable(entry(4, "d", "") + bad + entry(5, "e", "")),
                "<test-option>set</test-option><error-option>continue-on-error</error-option>"));
        assertThat(cont).contains("<error-tag>invalid-value</error-tag>").doesNotContain("<ok/>");
        assertThat(service.indices()).containsExactly(1, 4, 5);

        String testOnly = c.rpc(edit("running", configTable(entry(6, "f", "")), "<test-option>test-only</test-option>"));
        assertThat(testOnly).contains("<ok/>");
        assertThat(service.indices()).containsExactly(1, 4, 5);
    }

    @Test
    void manyVrsInOneEditAreOneTransaction() throws Exception {
        TestClient c = client(true);
        assertThat(c.rpc(edit("running", configTable(entry(1, "taken", "")), ""))).contains("<ok/>");
        // The third entry reuses a name: none of the three is created.
        String reply = c.rpc(edit("running", configTable(entry(2, "t2", "") + entry(3, "t3", "") + entry(4, "taken", "")), ""));
        assertThat(reply).contains("<error-app-tag>data-not-unique</error-app-tag>");
        assertThat(service.indices()).containsExactly(1);
        // The same through the candidate: the commit creates all of them, in one service batch.
        StringBuilder many = new StringBuilder();
        for (int i = 10; i < 60; i++) many.append(entry(i, "batch-" + i, ""));
        assertThat(c.rpc(edit("candidate", configTable(many.toString()), ""))).contains("<ok/>");
        assertThat(c.rpc("<commit/>")).contains("<ok/>");
        assertThat(service.indices()).hasSize(51);
    }

    @Test
    void copyConfigBetweenDatastoresAndFromInlineConfig() throws Exception {
        TestClient c = client(true);
        c.rpc(edit("running", configTable(entry(1, "a", "")), ""));
        String inline = "<copy-config><target><candidate/></target><source><config><NEW-VMM-MIB xmlns='" + VMM + "'>"
                + configTable(entry(2, "b", "")) + "</NEW-VMM-MIB></config></source></copy-config>";
        assertThat(c.rpc(inline)).contains("<ok/>");
        String candidate = c.rpc("<get-config><source><candidate/></source></get-config>");
        assertThat(candidate).contains("<vmName>b</vmName>").doesNotContain("<vmName>a</vmName>");
        assertThat(c.rpc("<copy-config><target><running/></target><source><candidate/></source></copy-config>")).contains("<ok/>");
        awaitUntil(() -> !service.indices().contains(1));
        assertThat(service.indices()).containsExactly(2);
        c.rpc(edit("candidate", configTable(entry(3, "c", "")), ""));
        assertThat(c.rpc("<copy-config><target><candidate/></target><source><running/></source></copy-config>")).contains("<ok/>");
        assertThat(c.rpc("<get-config><source><candidate/></source></get-config>")).doesNotContain("<vmName>c</vmName>");
        assertThat(c.rpc("<delete-config><target><running/></target></delete-config>")).contains("<error-tag>operation-not-supported</error-tag>");
    }

    @Test
    void aFramingErrorEndsTheSession() throws Exception {
        TestClient c = client(true);
        assertThat(c.rpc("<get-config><source><running/></source></get-config>")).contains("<data");
        c.sendRaw("\n#abc\n<rpc/>\n##\n");
        assertThat(c.next()).isEqualTo("EOF");
        awaitUntil(() -> !ctx.sessions().containsKey(c.session.id()));
        assertThat(ctx.sessions()).doesNotContainKey(c.session.id());
    }

    @Test
    void largeRepliesLeaveInManyChunks() throws Exception {
        StringBuilder many = new StringBuilder();
        for (int i = 1; i <= 300; i++) many.append(entry(i, "large-" + i, ""));
        TestClient c = client(true);
        assertThat(c.rpc(edit("running", configTable(many.toString()), ""))).contains("<ok/>");
        long chunksBefore = c.chunksReceived();
        String reply = c.rpc("<get/>");
        assertThat(reply).contains("<vmName>large-1</vmName>", "<vmName>large-300</vmName>");
        // The reply is over 16 KiB and is sent as it is written, a chunk per 16 KiB buffer.
        assertThat(reply.length()).isGreaterThan(100_000);
        assertThat(c.chunksReceived() - chunksBefore).isGreaterThanOrEqualTo(reply.length() / 16384);
    }

    @Test
    void replaceRemoveAndDefaultOperationNone() throws Exception {
        TestClient c = client(false);
        c.rpc(edit("candidate", configTable(entry(1, "a", "") + entry(2, "b", "")), ""));
        // none: only the leaf with an explicit operation changes; entries must exist.
        String none = c.rpc(edit("candidate", configTable("<vmConfigEntry><vmIndex>1</vmIndex><vmAdminState nc:operation='merge'>shutdown</vmAdminState></vmConfigEntry>"),
                "<default-operation>none</default-operation>"));
        assertThat(none).contains("<ok/>");
        assertThat(c.rpc("<get-config><source><candidate/></source></get-config>")).contains("<vmAdminState>shutdown</vmAdminState>");
        String noneMissing = c.rpc(edit("candidate", configTable("<vmConfigEntry><vmIndex>9</vmIndex><vmName>z</vmName></vmConfigEntry>"),
                "<default-operation>none</default-operation>"));
        assertThat(noneMissing).contains("<error-tag>data-missing</error-tag>");
        // replace of the table: afterwards only entry 3.
        c.rpc(edit("candidate", "<vmConfigTable nc:operation='replace'>" + entry(3, "c", "") + "</vmConfigTable>", ""));
        String after = c.rpc("<get-config><source><candidate/></source></get-config>");
        assertThat(after).contains("<vmName>c</vmName>").doesNotContain("<vmName>a</vmName>", "<vmName>b</vmName>");
        // remove of an absent entry is fine.
        assertThat(c.rpc(edit("candidate", configTable("<vmConfigEntry nc:operation='remove'><vmIndex>42</vmIndex></vmConfigEntry>"), "")))
                .contains("<ok/>");
        assertThat(c.rpc("<discard-changes/>")).contains("<ok/>");
        assertThat(c.rpc("<get-config><source><candidate/></source></get-config>")).doesNotContain("vmName");
        assertThat(c.rpc("<validate><source><candidate/></source></validate>")).contains("<ok/>");
    }

    @Test
    void anEditOfRunningIsCheckedOnce(@TempDir Path counted) throws Exception {
        service.close();
        CheckCountingDriver host = new CheckCountingDriver();
        service = new VirtualRouterService(host, new ConfigStore(counted), VrMetrics.inMemory());
        service.start();
        ctx = new NetconfServerContext(service, metrics, 1 << 20);
        TestClient c = client(false);
        assertThat(c.rpc(edit("running", configTable(entry(1, "once", "") + entry(2, "twice", "")), ""))).contains("<ok/>");
        // one check of the change set: the host checks each of its two rows once
        assertThat(host.checks).hasValue(2);
        host.checks.set(0);
        assertThat(c.rpc(edit("candidate", configTable(entry(3, "three", "")), ""))).contains("<ok/>");
        assertThat(c.rpc("<commit/>")).contains("<ok/>");
        // the candidate's edit is checked when stored, the commit when applied
        assertThat(host.checks).hasValue(2);
    }

    @Test
    void locksExcludeOtherSessionsUntilReleased() throws Exception {
        TestClient a = client(true);
        TestClient b = client(false);
        assertThat(a.rpc("<lock><target><running/></target></lock>")).contains("<ok/>");
        String denied = b.rpc("<lock><target><running/></target></lock>");
        assertThat(denied).contains("<error-tag>lock-denied</error-tag>", "<session-id>" + a.session.id() + "</session-id>");
        assertThat(b.rpc(edit("running", configTable(entry(1, "a", "")), ""))).contains("<error-tag>in-use</error-tag>");
        assertThat(service.indices()).isEmpty();
        assertThat(a.rpc(edit("running", configTable(entry(1, "a", "")), ""))).contains("<ok/>");
        // The candidate lock is refused while the candidate has changes.
        assertThat(b.rpc(edit("candidate", configTable(entry(2, "b", "")), ""))).contains("<ok/>");
        assertThat(a.rpc("<lock><target><candidate/></target></lock>")).contains("<error-tag>lock-denied</error-tag>");
        assertThat(a.rpc("<close-session/>")).contains("<ok/>");
        assertThat(a.next()).isEqualTo("EOF");
        assertThat(b.rpc("<lock><target><running/></target></lock>")).contains("<ok/>");
        assertThat(b.rpc("<unlock><target><running/></target></unlock>")).contains("<ok/>");
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrder() throws Exception {
        TestClient c = client(true);
        StringBuilder burst = new StringBuilder();
        int n = 40;
        for (int i = 1; i <= n; i++) {
            String op = i % 3 == 0 ? edit("running", configTable(entry(i, "p" + i, "")), "")
                    : i % 3 == 1 ? "<get-config><source><running/></source></get-config>" : "<get/>";
            String msg = "<rpc message-id='m" + i + "' xmlns='urn:ietf:params:xml:ns:netconf:base:1.0'>" + op + "</rpc>";
            burst.append("\n#").append(msg.getBytes(java.nio.charset.StandardCharsets.UTF_8).length).append('\n').append(msg).append("\n##\n");
        }
        c.sendRaw(burst.toString());
        for (int i = 1; i <= n; i++) {
            String reply = c.next();
            assertThat(reply).contains("message-id=\"m" + i + "\"").doesNotContain("<rpc-error>");
        }
        assertThat(service.indices()).hasSize(n / 3);
    }

    @Test
    void aSubscriptionReceivesTheCreationAndDeletionNotificationsWhileRpcsGoOn() throws Exception {
        TestClient c = client(true);
        assertThat(c.rpc("<create-subscription xmlns='urn:ietf:params:xml:ns:netconf:notification:1.0'/>")).contains("<ok/>");
        assertThat(c.rpc(edit("running", configTable(entry(5, "notified", "")), ""))).contains("<ok/>");
        String running = null;
        for (int i = 0; i < 10 && running == null; i++) {
            String m = c.next();
            if (m.contains("<vmRunning")) running = m;
        }
        assertThat(running).isNotNull().contains("<eventTime>", "<vmName><vmIndex>5</vmIndex><vmName>notified</vmName></vmName>",
                "<vmOperState>running</vmOperState>", "xmlns=\"urn:ietf:params:xml:ns:netconf:notification:1.0\"");
        // Interleave: an rpc on the subscribed session still gets its reply.
        assertThat(c.rpc("<get-config><source><running/></source></get-config>")).contains("notified");
        c.rpc(edit("running", configTable("<vmConfigEntry nc:operation='delete'><vmIndex>5</vmIndex></vmConfigEntry>"), ""));
        String deleted = null;
        for (int i = 0; i < 10 && deleted == null; i++) {
            String m = c.next();
            if (m.contains("<vmDeleted")) deleted = m;
        }
        assertThat(deleted).contains("<vmName>notified</vmName>");
        assertThat(c.rpc("<create-subscription xmlns='urn:ietf:params:xml:ns:netconf:notification:1.0'/>")).contains("rpc-error");
    }

    @Test
    void aPeerLinkComingUpIsANotificationOfEachEnd() throws Exception {
        TestClient c = client(true);
        assertThat(c.rpc("<create-subscription xmlns='urn:ietf:params:xml:ns:netconf:notification:1.0'>"
                + "<filter type='subtree'><vmLinkStatusChanged xmlns='" + VMM + "'/></filter></create-subscription>")).contains("<ok/>");
        String link = "<vmNetworkConfigLinkType>peer</vmNetworkConfigLinkType><vmNetworkConfigPeerInterface>1</vmNetworkConfigPeerInterface>";
        assertThat(c.rpc(edit("running", configTable(entry(31, "left", "") + entry(32, "right", ""))
                + "<vmNetworkConfigTable>"
                + "<vmNetworkConfigEntry><vmIndex>31</vmIndex><vmNetworkConfigIndex>1</vmNetworkConfigIndex>" + link
                + "<vmNetworkConfigPeerRouter>32</vmNetworkConfigPeerRouter></vmNetworkConfigEntry>"
                + "<vmNetworkConfigEntry><vmIndex>32</vmIndex><vmNetworkConfigIndex>1</vmNetworkConfigIndex>" + link
                + "<vmNetworkConfigPeerRouter>31</vmNetworkConfigPeerRouter></vmNetworkConfigEntry>"
                + "</vmNetworkConfigTable>", ""))).contains("<ok/>");
        List<String> told = List.of(c.next(), c.next());
        // The YANG notification's leafs: the VR's name and the end's status, keyed by the end's VR and interface.
        assertThat(told).allSatisfy(n -> assertThat(n).contains("<vmLinkStatusChanged", "<vmNetworkLinkStatus>up</vmNetworkLinkStatus>"));
        assertThat(String.join("", told)).contains("<vmName>left</vmName>", "<vmName>right</vmName>");
    }

    @Test
    void theSessionWritesTheNotificationOfItsOwnEditItselfBeforeTheReply() throws Exception {
        // A hypervisor that takes its time, so that no event of the VR's creation comes first and has
        // the writer thread take the queue (then it writes the notification, in the same order).
        stop();
        clients.clear();
        service = new VirtualRouterService(new SimulatedDriver(LatencyProfile.PAPER), new ConfigStore(dir), VrMetrics.inMemory());
        service.start();
        ctx = new NetconfServerContext(service, metrics, 1 << 20);
        TestClient c = client(true);
        assertThat(c.rpc("<create-subscription xmlns='urn:ietf:params:xml:ns:netconf:notification:1.0'/>")).contains("<ok/>");
        assertThat(c.rpc(edit("running", configTable(entry(6, "own", "")), ""))).contains("<ok/>");
        assertThat(c.next()).contains("<netconf-config-change");
        List<TestClient.Flush> sent = c.sent;
        int change = -1;
        int reply = -1;
        for (int i = 0; i < sent.size(); i++) {
            if (sent.get(i).bytes().contains("<netconf-config-change")) change = i;
            if (sent.get(i).bytes().contains("<rpc-reply") && sent.get(i).bytes().contains("message-id=\"2\"")) reply = i;
        }
        assertThat(change).as("the netconf-config-change was sent").isGreaterThanOrEqualTo(0);
        // No hand-off to the subscription's writer thread and back: the session's thread wrote it, as
        // it writes the reply, once the edit was accepted and before the journal's flush it waits for.
        assertThat(sent.get(change).thread()).isEqualTo("test-netconf-" + c.session.id());
        assertThat(change).isLessThan(reply);
    }

    @Test
    void subscriptionFiltersAndTheNotificationSwitchDecideWhatIsSent() throws Exception {
        TestClient c = client(true);
        assertThat(c.rpc("<create-subscription xmlns='urn:ietf:params:xml:ns:netconf:notification:1.0'>"
                + "<filter type='subtree'><vmDeleted xmlns='" + VMM + "'/></filter></create-subscription>")).contains("<ok/>");
        assertThat(c.rpc(edit("running", configTable(entry(8, "filtered", "")), ""))).contains("<ok/>");
        awaitState(8, OperState.RUNNING);
        assertThat(c.poll(300)).as("vmRunning is filtered out").isNull();
        c.rpc(edit("running", configTable("<vmConfigEntry nc:operation='delete'><vmIndex>8</vmIndex></vmConfigEntry>"), ""));
        String deleted = c.next();
        // RFC 7666's vmDeleted objects, vmOperState the state before it was gone (a removal passes through shuttingdown).
        assertThat(deleted).contains("<vmDeleted", "<vmName>filtered</vmName>", "<vmOperState>shuttingdown</vmOperState>",
                "<vmPersistent>persistent</vmPersistent>");
        assertThat(deleted.indexOf("<vmOperState>")).as("vmOperState before vmPersistent, as the MIB lists them")
                .isLessThan(deleted.indexOf("<vmPersistent>"));

        TestClient all = client(false);
        all.rpc("<create-subscription xmlns='urn:ietf:params:xml:ns:netconf:notification:1.0'/>");
        service.setNotificationsEnabled(false, false);
        all.rpc(edit("running", configTable(entry(9, "quiet", "")), ""));
        awaitState(9, OperState.RUNNING);
        // The server's own netconf-config-change (RFC 6470) does not follow the MIB's switch.
        assertThat(all.poll(300)).contains("<netconf-config-change");
        assertThat(all.poll(300)).as("vmPerVMNotificationsEnabled is false").isNull();
        service.setNotificationsEnabled(true, true);
        all.rpc(edit("running", configTable("<vmConfigEntry><vmIndex>9</vmIndex><vmAdminState>shutdown</vmAdminState></vmConfigEntry>"), ""));
        // The change is told once accepted; the VR may have begun to stop by then.
        List<String> three = new ArrayList<>(List.of(all.next(), all.next(), all.next()));
        assertThat(three.removeIf(m -> m.contains("<netconf-config-change"))).isTrue();
        assertThat(three.get(0)).contains("<vmShuttingdown");
        assertThat(three.get(1)).contains("<vmShutdown", "<vmUUID><vmIndex>9</vmIndex><vmUUID>");
    }

    @Test
    void everyRpcIsTimedWithItsOperationAndOutcome() throws Exception {
        TestClient c = client(true);
        c.rpc("<get/>");
        c.rpc("<get/>");
        c.rpc("<frobnicate/>");
        var registry = metrics.registry();
        assertThat(registry.get(VrMetrics.REQUESTS).tags("interface", "netconf", "operation", "get", "outcome", "ok")
                .timer().count()).isEqualTo(2);
        assertThat(registry.get(VrMetrics.REQUESTS).tags("interface", "netconf", "operation", "frobnicate",
                "outcome", "operation-not-supported").timer().count()).isEqualTo(1);
    }

    @Test
    void getSchemaServesTheModuleAndMonitoringListsIt() throws Exception {
        TestClient c = client(true);
        String m = "urn:ietf:params:xml:ns:yang:ietf-netconf-monitoring";
        String schema = c.rpc("<get-schema xmlns='" + m + "'><identifier>NEW-VMM-MIB</identifier><version>2026-11-28</version><format>yang</format></get-schema>");
        assertThat(schema).contains("module NEW-VMM-MIB {", "container vmConfigTable");
        String imported = c.rpc("<get-schema xmlns='" + m + "'><identifier>ietf-yang-smiv2</identifier></get-schema>");
        assertThat(imported).contains("module ietf-yang-smiv2");
        assertThat(c.rpc("<get-schema xmlns='" + m + "'><identifier>NOPE</identifier></get-schema>")).contains("<error-tag>invalid-value</error-tag>");
        String list = c.rpc("<get><filter type='subtree'><netconf-state xmlns='" + m + "'><schemas/></netconf-state></filter></get>");
        assertThat(list).contains("<identifier>NEW-VMM-MIB</identifier>", "<version>2026-11-28</version>", "<location>NETCONF</location>");
    }

    @Test
    void readOnlyUsersCannotEditAndKillSessionEndsAnotherSession() throws Exception {
        TestClient viewer = new TestClient(ctx, "viewer", true, true);
        clients.add(viewer);
        assertThat(viewer.rpc(edit("running", configTable(entry(1, "a", "")), ""))).contains("<error-tag>access-denied</error-tag>");
        assertThat(viewer.rpc("<get/>")).contains("<data");
        TestClient admin = client(true);
        assertThat(admin.rpc("<kill-session><session-id>" + admin.session.id() + "</session-id></kill-session>"))
                .contains("<error-tag>invalid-value</error-tag>");
        assertThat(admin.rpc("<kill-session><session-id>" + viewer.session.id() + "</session-id></kill-session>")).contains("<ok/>");
        assertThat(viewer.next()).isEqualTo("EOF");
        assertThat(ctx.sessions()).doesNotContainKey(viewer.session.id());
    }
}
