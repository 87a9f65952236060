package io.vrouter.netconf.protocol;

import static io.vrouter.netconf.protocol.NetconfSessionTest.configTable;
import static io.vrouter.netconf.protocol.NetconfSessionTest.edit;
import static io.vrouter.netconf.protocol.NetconfSessionTest.entry;
import static io.vrouter.netconf.protocol.NetconfSessionTest.tag;
import static io.vrouter.netconf.protocol.StandardsTest.NOTIF;
import static io.vrouter.netconf.protocol.StandardsTest.until;
import static io.vrouter.netconf.protocol.TenantsTest.ALICE;
import static io.vrouter.netconf.protocol.TenantsTest.BOB;
import static io.vrouter.netconf.protocol.TenantsTest.INP;
import static org.assertj.core.api.Assertions.assertThat;

import io.vrouter.core.config.Caller;
import io.vrouter.core.config.Credentials.Role;
import io.vrouter.core.model.OperState;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * NETCONF access control (RFC 8341) over the tenants: /nacm served, edited by the provider's
 * operators and kept across restarts, and each kind of rule (data node, operation, notification)
 * enforced, with its counter; tenants are groups named after them, the provider's operators the
 * group admin.
 */
class NacmTest extends ServerFixture {
    static final String NACM = "urn:ietf:params:xml:ns:yang:ietf-netconf-acm";
    static final String GET_NACM = "<get><filter type='subtree'><nacm xmlns='" + NACM + "'/></filter></get>";
    static final String DP = "/new-vmm-mib:NEW-VMM-MIB/new-vmm-mib:";

    @BeforeEach
    void tenants() {
        acmeAndBravo();
    }


    /** An edit-config of running merging {@code inner} into /nacm. */
    static String nacm(String inner) {
        return "<edit-config><target><running/></target><config><nacm xmlns='" + NACM + "'>" + inner
                + "</nacm></config></edit-config>";
    }

    static String denyRule(String group, String name, String what, String operations) {
        return "<rule-list><name>" + group + "-list</name><group>" + group + "</group><rule><name>" + name + "</name>" + what
                + "<access-operations>" + operations + "</access-operations><action>deny</action></rule></rule-list>";
    }

    long counter(TestClient c, String name) throws Exception {
        return Long.parseLong(tag(c.rpc("<get><filter type='subtree'><nacm xmlns='" + NACM + "'><" + name + "/></nacm>"
                + "</filter></get>"), name));
    }

    @Test
    void nacmIsReadAndWrittenByTheProvidersOperatorsAndKeptAcrossARestart() throws Exception {
        TestClient inp = as(INP);
        TestClient alice = as(ALICE);
        assertThat(inp.rpc(nacm("<groups><group><name>auditors</name><user-name>ann</user-name></group></groups>"
                + denyRule("acme", "no-memory", "<path>" + DP + "vmConfigTable/new-vmm-mib:vmConfigEntry/new-vmm-mib:vmConfigMemory</path>",
                "update")))).contains("<ok/>");
        assertThat(inp.rpc("<get-config><source><running/></source></get-config>"))
                .contains("<nacm xmlns=\"" + NACM + "\">", "<name>auditors</name>", "<user-name>ann</user-name>", "<name>no-memory</name>",
                        "<enable-nacm>true</enable-nacm>", "<write-default>permit</write-default>");
        // with-defaults (RFC 6243): the module's defaults trimmed or tagged
        String wd = "<get-config><source><running/></source><filter type='subtree'><nacm xmlns='" + NACM + "'/></filter>"
                + "<with-defaults xmlns='urn:ietf:params:xml:ns:yang:ietf-netconf-with-defaults'>%s</with-defaults></get-config>";
        assertThat(inp.rpc(String.format(wd, "trim"))).doesNotContain("<enable-nacm>", "<module-name>")
                .contains("<write-default>permit</write-default>", "<name>no-memory</name>");
        assertThat(inp.rpc(String.format(wd, "report-all-tagged"))).containsPattern("<enable-nacm [^>]*default=\"true\"[^>]*>true</enable-nacm>");
        // default-deny-all: a tenant's user neither reads nor writes /nacm.
        assertThat(alice.rpc("<get-config><source><running/></source></get-config>")).doesNotContain("<nacm");
        assertThat(alice.rpc(GET_NACM)).doesNotContain("auditors");
        assertThat(alice.rpc(nacm("<enable-nacm>false</enable-nacm>"))).contains("<error-tag>access-denied</error-tag>");
        assertThat(inp.rpc(GET_NACM)).contains("<enable-nacm>true</enable-nacm>");
        // On the candidate: refused, /nacm is the server's.
        assertThat(inp.rpc("<edit-config><target><candidate/></target><config><nacm xmlns='" + NACM
                + "'><enable-nacm>false</enable-nacm></nacm></config></edit-config>")).contains("operation-not-supported");
        // Bad rules are refused whole.
        assertThat(inp.rpc(nacm("<rule-list><name>bad</name><group>acme</group><rule><name>r</name><path>no-slash</path>"
                + "<action>deny</action></rule></rule-list>"))).contains("<error-tag>invalid-value</error-tag>");
        assertThat(inp.rpc(nacm("<rule-list><name>bad</name><group>acme</group><rule><name>r</name></rule></rule-list>")))
                .contains("<error-tag>data-missing</error-tag>");

        stopServer();
        startServer(io.vrouter.core.driver.sim.LatencyProfile.NONE);
        tenants();
        TestClient again = as(INP);
        assertThat(again.rpc(GET_NACM)).contains("<name>auditors</name>", "<name>no-memory</name>").doesNotContain("<name>bad</name>");
        // delete puts the factory configuration back
        assertThat(again.rpc("<edit-config><target><running/></target><config><nacm xmlns='" + NACM
                + "' xmlns:nc='urn:ietf:params:xml:ns:netconf:base:1.0' nc:operation='delete'/></config></edit-config>")).contains("<ok/>");
        assertThat(again.rpc(GET_NACM)).doesNotContain("auditors", "no-memory");
    }

    @Test
    void aDataRuleDeniesWritesAndHidesReadsOfItsNodesToItsGroup() throws Exception {
        TestClient inp = as(INP);
        TestClient alice = as(ALICE);
        TestClient bob = as(BOB);
        assertThat(alice.rpc(edit("running", configTable(entry(1, "acme-1", "<vmAdminState>shutdown</vmAdminState>")), "")))
                .contains("<ok/>");
        assertThat(inp.rpc(nacm(denyRule("acme", "no-memory", "<path>" + DP + "vmConfigTable/new-vmm-mib:vmConfigEntry/"
                + "new-vmm-mib:vmConfigMemory</path>", "update")
                + "<rule-list><name>acme-reads</name><group>acme</group><rule><name>no-vm-table</name><module-name>NEW-VMM-MIB</module-name>"
                + "<path>" + DP + "vmTable</path><access-operations>read</access-operations><action>deny</action></rule></rule-list>")))
                .contains("<ok/>");

        String resize = edit("running", configTable("<vmConfigEntry><vmIndex>1</vmIndex><vmConfigMemory>1024</vmConfigMemory></vmConfigEntry>"), "");
        assertThat(alice.rpc(resize)).contains("<error-tag>access-denied</error-tag>",
                DP + "vmConfigTable/new-vmm-mib:vmConfigEntry[new-vmm-mib:vmIndex='1']/new-vmm-mib:vmConfigMemory</error-path>");
        assertThat(service.getConfig(1).orElseThrow().vmConfigMemory).isNotEqualTo(1024L);
        // through the candidate too
        assertThat(alice.rpc(resize.replace("<running/>", "<candidate/>"))).contains("<error-tag>access-denied</error-tag>");
        assertThat(counter(inp, "denied-data-writes")).isEqualTo(2);
        // what the rule does not cover is written
        assertThat(alice.rpc(edit("running", configTable("<vmConfigEntry><vmIndex>1</vmIndex><vmName>renamed</vmName></vmConfigEntry>"), "")))
                .contains("<ok/>");
        // another group is not concerned
        assertThat(bob.rpc(edit("running", configTable(entry(2, "bravo-2", "<vmConfigMemory>1024</vmConfigMemory>")), "")))
                .contains("<ok/>");

        String get = alice.rpc("<get/>");
        assertThat(get).as("vmTable is omitted, silently").doesNotContain("<vmTable>", "<rpc-error>").contains("<vmConfigTable>", "renamed");
        assertThat(inp.rpc("<get/>")).contains("<vmTable>");
    }

    @Test
    void aDataRuleWithAKeyCoversThatEntryOnly() throws Exception {
        TestClient inp = as(INP);
        TestClient alice = as(ALICE);
        alice.rpc(edit("running", configTable(entry(1, "acme-1", "") + entry(2, "acme-2", "")), ""));
        assertThat(inp.rpc(nacm(denyRule("acme", "keep-1", "<path>" + DP + "vmConfigTable/new-vmm-mib:vmConfigEntry"
                + "[new-vmm-mib:vmIndex='1']</path>", "read delete")))).contains("<ok/>");
        String del = "<vmConfigEntry xmlns:nc='urn:ietf:params:xml:ns:netconf:base:1.0' nc:operation='delete'><vmIndex>%d</vmIndex></vmConfigEntry>";
        assertThat(alice.rpc(edit("running", configTable(String.format(del, 1)), ""))).contains("<error-tag>access-denied</error-tag>");
        assertThat(alice.rpc("<get-config><source><running/></source></get-config>")).contains("acme-2").doesNotContain("acme-1");
        assertThat(alice.rpc(edit("running", configTable(String.format(del, 2)), ""))).contains("<ok/>");
        assertThat(service.getConfig(1)).isPresent();
    }

    @Test
    void anOperationRuleDeniesTheRpcToItsGroup() throws Exception {
        TestClient inp = as(INP);
        TestClient alice = as(ALICE);
        TestClient bob = as(BOB);
        assertThat(inp.rpc(nacm(denyRule("acme", "no-edits", "<module-name>ietf-netconf</module-name><rpc-name>edit-config</rpc-name>",
                "exec")))).contains("<ok/>");
        assertThat(alice.rpc(edit("running", configTable(entry(1, "acme-1", "")), ""))).contains("<error-tag>access-denied</error-tag>");
        assertThat(service.getConfig(1)).isEmpty();
        assertThat(alice.rpc("<get-config><source><running/></source></get-config>")).doesNotContain("rpc-error");
        assertThat(alice.rpc("<close-session/>")).as("close-session is always permitted").contains("<ok/>");
        assertThat(bob.rpc(edit("running", configTable(entry(2, "bravo-2", "")), ""))).contains("<ok/>");
        assertThat(counter(inp, "denied-operations")).isEqualTo(1);
        // default-deny-all: kill-session is the provider's operators' unless a rule permits it
        assertThat(bob.rpc("<kill-session><session-id>" + inp.session.id() + "</session-id></kill-session>"))
                .contains("<error-tag>access-denied</error-tag>");
        assertThat(counter(inp, "denied-operations")).isEqualTo(2);
    }

    @Test
    void aNotificationRuleKeepsTheNotificationFromItsGroup() throws Exception {
        TestClient inp = as(INP);
        TestClient alice = as(ALICE);
        assertThat(inp.rpc(nacm(denyRule("acme", "quiet", "<module-name>NEW-VMM-MIB</module-name>"
                + "<notification-name>vmRunning</notification-name>", "read")))).contains("<ok/>");
        assertThat(alice.rpc("<create-subscription xmlns='" + NOTIF + "'/>")).contains("<ok/>");
        assertThat(alice.rpc(edit("running", configTable(entry(1, "acme-1", "")), ""))).contains("<ok/>");
        awaitState(1, OperState.RUNNING);
        assertThat(alice.rpc(edit("running", configTable("<vmConfigEntry><vmIndex>1</vmIndex><vmAdminState>shutdown"
                + "</vmAdminState></vmConfigEntry>"), ""))).contains("<ok/>");
        String told = String.join("\n", until(alice, m -> m.contains("<vmShutdown")));
        assertThat(told).doesNotContain("<vmRunning").contains("<vmShuttingdown");
        assertThat(counter(inp, "denied-notifications")).isGreaterThanOrEqualTo(1);
    }

    /** The README's worked example for tenant acme, sent as the README prints it, does what the README says. */
    @Test
    void theReadmesWorkedExampleDoesWhatItSays() throws Exception {
        String readme = java.nio.file.Files.readString(java.nio.file.Path.of("README.md"));
        int at = readme.indexOf("```xml", readme.indexOf("**Worked example: tenant acme.**"));
        String example = readme.substring(readme.indexOf('\n', at) + 1, readme.indexOf("```", at + 6));
        TestClient inp = as(INP);
        TestClient alice = as(ALICE);
        TestClient carol = as(new Caller("carol", null, Role.OPERATOR, "netconf", "127.0.0.1"));
        assertThat(alice.rpc(edit("running", configTable(entry(1, "acme-1", "<vmAdminState>shutdown</vmAdminState>")), "")))
                .contains("<ok/>");
        assertThat(inp.rpc(example)).contains("<ok/>");

        assertThat(alice.rpc(edit("running", configTable("<vmConfigEntry><vmIndex>1</vmIndex><vmConfigMemory>1024"
                + "</vmConfigMemory></vmConfigEntry>"), ""))).contains("<error-tag>access-denied</error-tag>", "vmConfigMemory</error-path>");
        assertThat(alice.rpc(edit("running", configTable("<vmConfigEntry><vmIndex>1</vmIndex><vmName>acme-one</vmName>"
                + "</vmConfigEntry>"), ""))).contains("<ok/>");
        assertThat(alice.rpc("<get/>")).doesNotContain("<vmTable>").contains("acme-one");
        assertThat(carol.rpc("<get><filter type='subtree'><NEW-VMM-MIB xmlns='" + TestClient.VMM + "'/></filter></get>"))
                .contains("<vmTable>", "acme-one");
        assertThat(carol.rpc(edit("running", configTable("<vmConfigEntry><vmIndex>1</vmIndex><vmName>carols</vmName>"
                + "</vmConfigEntry>"), ""))).contains("<error-tag>access-denied</error-tag>");
        assertThat(inp.rpc(edit("running", configTable("<vmConfigEntry><vmIndex>1</vmIndex><vmName>inps</vmName>"
                + "</vmConfigEntry>"), ""))).as("the provider's other operators are admin").contains("<ok/>");
    }

    @Test
    void theDefaultsDecideWhatNoRuleCoversAndTheProvidersOperatorsAreAdmin() throws Exception {
        TestClient inp = as(INP);
        TestClient alice = as(ALICE);
        TestClient providerViewer = as(new Caller("pat", null, Role.VIEWER, "netconf", "127.0.0.1"));
        assertThat(inp.rpc(nacm("<write-default>deny</write-default><read-default>deny</read-default>"))).contains("<ok/>");
        assertThat(alice.rpc(edit("running", configTable(entry(1, "acme-1", "")), ""))).contains("<error-tag>access-denied</error-tag>");
        assertThat(alice.rpc("<get-config><source><running/></source></get-config>")).doesNotContain("NEW-VMM-MIB");
        assertThat(providerViewer.rpc("<get-config><source><running/></source></get-config>")).doesNotContain("NEW-VMM-MIB");
        assertThat(inp.rpc(edit("running", configTable(entry(2, "inp-2", "")), ""))).contains("<ok/>");
        assertThat(inp.rpc("<get-config><source><running/></source></get-config>")).contains("inp-2");
        // a permit rule for the tenant's group
        assertThat(inp.rpc(nacm("<rule-list><name>acme-ok</name><group>acme</group><rule><name>vrs</name>"
                + "<module-name>NEW-VMM-MIB</module-name><action>permit</action></rule></rule-list>"))).contains("<ok/>");
        assertThat(alice.rpc(edit("running", configTable(entry(1, "acme-1", "")), ""))).contains("<ok/>");
        // enable-nacm false: nothing is denied
        assertThat(inp.rpc(nacm("<enable-nacm>false</enable-nacm>"))).contains("<ok/>");
        assertThat(providerViewer.rpc("<get-config><source><running/></source></get-config>")).contains("inp-2");
    }

    @Test
    void withoutExternalGroupsOnlyTheGroupsOfNacmCount() throws Exception {
        TestClient inp = as(INP);
        assertThat(inp.rpc(nacm("<groups><group><name>ops</name><user-name>inp</user-name></group></groups>"
                + "<rule-list><name>ops</name><group>ops</group><rule><name>nacm</name><module-name>ietf-netconf-acm</module-name>"
                + "<action>permit</action></rule></rule-list><enable-external-groups>false</enable-external-groups>")))
                .contains("<ok/>");
        // inp is no longer in admin, but ops may still edit /nacm; the tenants' groups are gone too.
        assertThat(inp.rpc(nacm("<exec-default>deny</exec-default>"))).contains("<ok/>");
        TestClient alice = as(ALICE);
        assertThat(alice.rpc("<get-config><source><running/></source></get-config>")).contains("<error-tag>access-denied</error-tag>");
        assertThat(inp.rpc("<get-config><source><running/></source></get-config>")).contains("<error-tag>access-denied</error-tag>");
    }

    @Test
    void theRecoveryPathNetconfNacmFalseEnforcesNothing() throws Exception {
        TestClient inp = as(INP);
        assertThat(inp.rpc(nacm("<exec-default>deny</exec-default><enable-external-groups>false</enable-external-groups>")))
                .contains("<ok/>");
        assertThat(inp.rpc("<get-config><source><running/></source></get-config>")).as("locked out")
                .contains("<error-tag>access-denied</error-tag>");
        stopServer();
        service = new io.vrouter.core.service.VirtualRouterService(new io.vrouter.core.driver.sim.SimulatedDriver(
                io.vrouter.core.driver.sim.LatencyProfile.NONE), new io.vrouter.core.persistence.ConfigStore(dir),
                io.vrouter.core.metrics.VrMetrics.inMemory());
        service.start();
        ctx = new NetconfServerContext(service, io.vrouter.core.metrics.VrMetrics.inMemory(), 1 << 20,
                io.vrouter.netconf.transport.MessageMemory.quarterOfHeap(), dir, new io.vrouter.yang.nacm.Nacm(dir, false));
        TestClient recovery = as(INP);
        assertThat(recovery.rpc(nacm("<exec-default>permit</exec-default><enable-external-groups>true</enable-external-groups>")))
                .contains("<ok/>");
        assertThat(recovery.rpc(GET_NACM)).contains("<exec-default>permit</exec-default>");
    }
}
