package io.vrouter.netconf.protocol;

import static io.vrouter.netconf.protocol.NetconfSessionTest.configTable;
import static io.vrouter.netconf.protocol.NetconfSessionTest.edit;
import static io.vrouter.netconf.protocol.NetconfSessionTest.entry;
import static io.vrouter.netconf.protocol.StandardsTest.NOTIF;
import static io.vrouter.netconf.protocol.StandardsTest.until;
import static org.assertj.core.api.Assertions.assertThat;

import io.vrouter.core.config.Caller;
import io.vrouter.core.config.Credentials.Role;
import io.vrouter.core.model.OperState;
import java.time.Instant;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Tenants over NETCONF: a session holds the core's view of its user ({@code service.as(caller)}) for
 * every read, edit, commit, lock and notification, and its tenant's own candidate, so that tenant
 * bravo never sees, changes, commits or removes acme's VRs, committed or not.
 */
class TenantsTest extends ServerFixture {
    static final Caller INP = new Caller("inp", null, Role.OPERATOR, "netconf", "127.0.0.1");
    static final Caller ALICE = new Caller("alice", "acme", Role.OPERATOR, "netconf", "127.0.0.1");
    static final Caller ANN = new Caller("ann", "acme", Role.VIEWER, "netconf", "127.0.0.1");
    static final Caller BOB = new Caller("bob", "bravo", Role.OPERATOR, "netconf", "127.0.0.1");

    @BeforeEach
    void tenants() {
        acmeAndBravo();
    }


    static final String GET_CONFIG_RUNNING = "<get-config><source><running/></source></get-config>";
    static final String GET_CONFIG_CANDIDATE = "<get-config><source><candidate/></source></get-config>";

    @Test
    void aTenantReadsOnlyItsVrsEverywhereAndTheProviderReadsAll() throws Exception {
        TestClient alice = as(ALICE);
        TestClient bob = as(BOB);
        TestClient inp = as(INP);
        assertThat(alice.rpc(edit("running", configTable(entry(1, "acme-1", "")), ""))).contains("<ok/>");
        assertThat(bob.rpc(edit("running", configTable(entry(2, "bravo-1", "")), ""))).contains("<ok/>");
        awaitState(1, OperState.RUNNING);
        assertThat(service.getConfig(1).orElseThrow().vmConfigTenant).isEqualTo("acme");

        for (String read : new String[] {GET_CONFIG_RUNNING, GET_CONFIG_CANDIDATE, "<get/>",
                "<get-data xmlns='urn:ietf:params:xml:ns:yang:ietf-netconf-nmda' xmlns:ds='urn:ietf:params:xml:ns:yang:ietf-datastores'>"
                        + "<datastore>ds:operational</datastore></get-data>",
                "<get><filter type='xpath' select='/*[local-name()=\"NEW-VMM-MIB\"]/*[local-name()=\"vmConfigTable\"]'/></get>"}) {
            assertThat(bob.rpc(read)).as(read).contains("bravo-1").doesNotContain("acme-1");
            assertThat(alice.rpc(read)).as(read).contains("acme-1").doesNotContain("bravo-1");
            assertThat(inp.rpc(read)).as(read).contains("acme-1", "bravo-1");
        }
        // The counts of vmObjects are the tenant's.
        assertThat(bob.rpc("<get><filter type='subtree'><NEW-VMM-MIB xmlns='" + TestClient.VMM
                + "'><vmObjects><vmNumber/></vmObjects></NEW-VMM-MIB></filter></get>")).contains("<vmNumber>1</vmNumber>");
    }

    @Test
    void aTenantsCandidateIsItsOwnAndACommitNeverTakesOrRemovesAnotherTenantsRows() throws Exception {
        TestClient alice = as(ALICE);
        TestClient bob = as(BOB);
        TestClient inp = as(INP);
        assertThat(inp.rpc(edit("running", configTable(entry(9, "provider-9", "")), ""))).contains("<ok/>");
        assertThat(alice.rpc(edit("running", configTable(entry(1, "acme-1", "")), ""))).contains("<ok/>");
        // acme's uncommitted row
        assertThat(alice.rpc(edit("candidate", configTable(entry(3, "acme-pending", "")), ""))).contains("<ok/>");
        assertThat(bob.rpc(GET_CONFIG_CANDIDATE)).doesNotContain("acme-pending", "acme-1", "provider-9");
        assertThat(inp.rpc(GET_CONFIG_CANDIDATE)).doesNotContain("acme-pending");

        // bravo replaces its whole table in its candidate and commits: acme's and the provider's VRs stay,
        // and acme's candidate row is neither committed nor lost.
        assertThat(bob.rpc("<edit-config><target><candidate/></target><default-operation>replace</default-operation><config>"
                + "<NEW-VMM-MIB xmlns='" + TestClient.VMM + "'>" + configTable(entry(2, "bravo-2", "")) + "</NEW-VMM-MIB>"
                + "</config></edit-config>")).contains("<ok/>");
        assertThat(bob.rpc("<commit/>")).contains("<ok/>");
        assertThat(service.getConfig(2)).isPresent();
        assertThat(service.getConfig(1)).as("acme's VR").isPresent();
        assertThat(service.getConfig(9)).as("the provider's VR").isPresent();
        assertThat(service.getConfig(3)).as("acme's uncommitted row").isEmpty();
        assertThat(alice.rpc(GET_CONFIG_CANDIDATE)).contains("acme-pending");

        // The same on running: a replace of bravo's table leaves the others alone.
        assertThat(bob.rpc("<copy-config><target><running/></target><source><config><NEW-VMM-MIB xmlns='" + TestClient.VMM
                + "'/></config></source></copy-config>")).contains("<ok/>");
        NetconfSessionTest.awaitUntil(() -> service.getConfig(2).isEmpty());
        assertThat(service.getConfig(2)).as("bravo emptied its own table").isEmpty();
        assertThat(service.getConfig(1)).isPresent();
        assertThat(service.getConfig(9)).isPresent();

        assertThat(alice.rpc("<commit/>")).contains("<ok/>");
        assertThat(service.getConfig(3).orElseThrow().vmConfigTenant).isEqualTo("acme");
    }

    /**
     * An edit of another tenant's VR is answered as the same edit of a VR that does not exist, on
     * running and through the candidate, word for word (message-id and index aside), and changes
     * nothing; only a creation at its index is access-denied (vmIndex is one space for the host).
     */
    @Test
    void anEditOfAnotherTenantsVrIsAnsweredAsOfAMissingOneAndChangesNothing() throws Exception {
        TestClient alice = as(ALICE);
        TestClient bob = as(BOB);
        assertThat(alice.rpc(edit("running", configTable(entry(1, "acme-1", "")), ""))).contains("<ok/>");
        awaitState(1, OperState.RUNNING);
        String[] edits = {
            configTable("<vmConfigEntry nc:operation='delete'><vmIndex>%d</vmIndex></vmConfigEntry>"),
            configTable("<vmConfigEntry nc:operation='remove'><vmIndex>%d</vmIndex></vmConfigEntry>"),
            configTable("<vmConfigEntry><vmIndex>%d</vmIndex><vmAdminState>shutdown</vmAdminState></vmConfigEntry>"),
            configTable("<vmConfigEntry><vmIndex>%d</vmIndex><vmName nc:operation='delete'/></vmConfigEntry>"),
            configTable("<vmConfigEntry><vmIndex>%d</vmIndex><vmConfigTenant>bravo</vmConfigTenant></vmConfigEntry>"),
            "<vmNetworkConfigTable><vmNetworkConfigEntry><vmIndex>%d</vmIndex><vmNetworkConfigIndex>1</vmNetworkConfigIndex>"
                    + "</vmNetworkConfigEntry></vmNetworkConfigTable>",
            "<vmNetworkConfigTable><vmNetworkConfigEntry nc:operation='delete'><vmIndex>%d</vmIndex>"
                    + "<vmNetworkConfigIndex>1</vmNetworkConfigIndex></vmNetworkConfigEntry></vmNetworkConfigTable>",
        };
        int missing = 7;
        for (String e : edits) {
            for (String target : new String[] {"running", "candidate"}) {
                String hidden = answer(bob, target, e.formatted(1));
                String absent = answer(bob, target, e.formatted(missing));
                assertThat(hidden).as(target + ": " + e).doesNotContain("acme-1")
                        .isEqualTo(absent.replace(">" + missing + "<", ">1<").replace("=" + missing + "]", "=1]")
                                .replace("vmIndex " + missing, "vmIndex 1").replace("'" + missing + "'", "'1'"));
            }
        }
        assertThat(service.getConfig(missing)).isEmpty();
        // a creation at its index: the index is taken, and the answer is access-denied, not the VR
        String create = configTable("<vmConfigEntry nc:operation='create'><vmIndex>1</vmIndex><vmName>taken</vmName></vmConfigEntry>");
        for (String target : new String[] {"running", "candidate"}) {
            assertThat(answer(bob, target, create)).as(target).contains("<error-tag>access-denied</error-tag>")
                    .doesNotContain("acme-1");
        }
        assertThat(service.getConfig(1).orElseThrow().vmName).isEqualTo("acme-1");
        assertThat(service.getConfig(1).orElseThrow().vmConfigTenant).isEqualTo("acme");
        assertThat(service.get(1).orElseThrow().operState()).isEqualTo(OperState.RUNNING);
    }

    /** The reply to an edit of running, or of the candidate then its commit; message-ids left out, the candidate discarded after. */
    private static String answer(TestClient client, String target, String config) throws Exception {
        String reply = client.rpc(edit(target, config, ""));
        if (target.equals("candidate") && !reply.contains("rpc-error")) reply = client.rpc("<commit/>");
        client.rpc("<discard-changes/>");
        return reply.replaceAll("message-id=\"[^\"]*\"", "");
    }

    /**
     * Who made a change (the audit, RFC 6470's changed-by): the session's user, its tenant, the
     * interface and the client's address, in the core's event and in netconf-config-change.
     */
    @Test
    void aChangeIsRecordedAsTheSessionsUsersWithItsSourceAddress() throws Exception {
        java.util.List<io.vrouter.core.model.VrEvent> events = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (AutoCloseable sub = service.events().subscribe(events::add)) {
            TestClient alice = as(ALICE);
            assertThat(alice.rpc("<create-subscription xmlns='" + NOTIF + "'/>")).contains("<ok/>");
            assertThat(alice.rpc(edit("running", configTable(entry(1, "acme-1", "")), ""))).contains("<ok/>");
            String change = String.join("\n", until(alice, m -> m.contains("<netconf-config-change")));
            assertThat(change).contains("<changed-by><username>alice</username><session-id>" + alice.session.id()
                    + "</session-id><source-host>127.0.0.1</source-host></changed-by>");
            NetconfSessionTest.awaitUntil(() -> !events.isEmpty());
            io.vrouter.core.model.VrEvent.ChangedBy by = events.get(0).changedBy;
            assertThat(by.user).isEqualTo("alice");
            assertThat(by.tenant).isEqualTo("acme");
            assertThat(by.iface).isEqualTo("netconf");
            assertThat(by.source).isEqualTo("127.0.0.1");
        }
    }

    /**
     * A change of running made over another interface is told as RFC 6470's netconf-config-change
     * too, changed-by its author from the core's event (session-id 0: no NETCONF session), to the
     * sessions that may see the VR only; so is the provider's NETCONF change of a tenant's VR.
     */
    @Test
    void aChangeMadeOverAnotherInterfaceIsToldWithItsAuthor() throws Exception {
        TestClient alice = as(ALICE);
        TestClient bob = as(BOB);
        assertThat(alice.rpc("<create-subscription xmlns='" + NOTIF + "'/>")).contains("<ok/>");
        assertThat(bob.rpc("<create-subscription xmlns='" + NOTIF + "'/>")).contains("<ok/>");
        Caller overRest = new Caller("carol", "acme", Role.OPERATOR, "rest", "192.0.2.7");
        io.vrouter.core.model.VmConfigEntry row = new io.vrouter.core.model.VmConfigEntry();
        row.vmIndex = 4;
        row.vmName = "acme-4";
        service.as(overRest).apply(io.vrouter.core.spi.ChangeSet.builder().create(row).build());
        String change = String.join("\n", until(alice, m -> m.contains("<netconf-config-change")));
        assertThat(change).contains("<changed-by><username>carol</username><session-id>0</session-id>"
                + "<source-host>192.0.2.7</source-host></changed-by>", "<operation>create</operation>",
                "new-vmm-mib:vmConfigEntry[new-vmm-mib:vmIndex='4']");
        awaitState(4, OperState.RUNNING);
        // The provider's NETCONF change of acme's VR is told to acme's sessions too.
        assertThat(as(INP).rpc(edit("running", configTable("<vmConfigEntry><vmIndex>4</vmIndex><vmConfigDescription>by the"
                + " provider</vmConfigDescription></vmConfigEntry>"), ""))).contains("<ok/>");
        String byProvider = String.join("\n", until(alice, m -> m.contains("<netconf-config-change")));
        assertThat(byProvider).contains("<username>inp</username>", "new-vmm-mib:vmConfigDescription", "<operation>replace</operation>");
        assertThat(bob.poll(300)).as("bravo is told nothing of acme's VR").isNull();
    }

    @Test
    void aTenantsViewerReadsItsVrsAndChangesNothing() throws Exception {
        as(ALICE).rpc(edit("running", configTable(entry(1, "acme-1", "")), ""));
        TestClient ann = as(ANN);
        assertThat(ann.rpc(GET_CONFIG_RUNNING)).contains("acme-1");
        assertThat(ann.rpc(edit("running", configTable(entry(2, "ann-2", "")), ""))).contains("<error-tag>access-denied</error-tag>");
        assertThat(service.getConfig(2)).isEmpty();
    }

    @Test
    void locksAndConfirmedCommitsOfOneTenantNeverStandInAnothersWay() throws Exception {
        TestClient alice = as(ALICE);
        TestClient bob = as(BOB);
        assertThat(alice.rpc("<lock><target><candidate/></target></lock>")).contains("<ok/>");
        assertThat(alice.rpc("<lock><target><running/></target></lock>")).contains("<ok/>");
        assertThat(bob.rpc("<lock><target><candidate/></target></lock>")).contains("<ok/>");
        assertThat(bob.rpc(edit("candidate", configTable(entry(2, "bravo-2", "")), ""))).contains("<ok/>");
        assertThat(bob.rpc("<commit><confirmed/></commit>")).contains("<ok/>");
        assertThat(alice.rpc(edit("candidate", configTable(entry(1, "acme-1", "")), ""))).contains("<ok/>");
        assertThat(alice.rpc("<commit/>")).as("bravo's pending confirmed commit is bravo's").contains("<ok/>");
        assertThat(bob.rpc("<cancel-commit/>")).contains("<ok/>");
        NetconfSessionTest.awaitUntil(() -> service.getConfig(2).isEmpty());
        assertThat(service.getConfig(2)).as("bravo's commit went back").isEmpty();
        assertThat(service.getConfig(1)).as("acme's commit stays").isPresent();
    }

    @Test
    void aTenantsPendingConfirmedCommitIsKeptAsItsOwnAndPutBackAfterARestart() throws Exception {
        TestClient alice = as(ALICE);
        assertThat(alice.rpc(edit("candidate", configTable(entry(1, "acme-1", "")), ""))).contains("<ok/>");
        assertThat(alice.rpc("<commit><confirmed/><persist>acme-p</persist></commit>")).contains("<ok/>");
        awaitState(1, OperState.RUNNING);
        java.nio.file.Path kept = dir.resolve("netconf-confirmed-commit@acme.json");
        assertThat(kept).exists();
        assertThat(dir.resolve("netconf-confirmed-commit.json")).as("the provider's has nothing pending").doesNotExist();

        stopServer();
        startServer(io.vrouter.core.driver.sim.LatencyProfile.NONE);
        NetconfSessionTest.awaitUntil(() -> service.getConfig(1).isEmpty());
        assertThat(service.getConfig(1)).as("acme's unconfirmed commit went back").isEmpty();
        assertThat(kept).doesNotExist();
    }

    @Test
    void sessionsOfAnotherTenantCanNeitherBeSeenNorKilled() throws Exception {
        TestClient alice = as(ALICE);
        TestClient bob = as(BOB);
        TestClient inp = as(INP);
        String monitoring = "<get><filter type='subtree'><netconf-state xmlns='urn:ietf:params:xml:ns:yang:ietf-netconf-monitoring'>"
                + "<sessions/></netconf-state></filter></get>";
        assertThat(bob.rpc(monitoring)).contains("<username>bob</username>").doesNotContain("alice", "inp");
        assertThat(inp.rpc(monitoring)).contains("<username>bob</username>", "<username>alice</username>");
        String kill = "<kill-session><session-id>" + alice.session.id() + "</session-id></kill-session>";
        // NACM denies kill-session to all but the provider's operators (default-deny-all) ...
        assertThat(bob.rpc(kill)).contains("<error-tag>access-denied</error-tag>");
        // ... and where a rule permits it, another tenant's session is still none of bob's.
        assertThat(inp.rpc(NacmTest.nacm("<rule-list><name>kill</name><group>*</group><rule><name>kill</name>"
                + "<rpc-name>kill-session</rpc-name><action>permit</action></rule></rule-list>"))).contains("<ok/>");
        assertThat(bob.rpc(kill)).contains("<error-tag>invalid-value</error-tag>", "no session");
        assertThat(alice.rpc(GET_CONFIG_RUNNING)).as("alice's session lives on").contains("<data");
    }

    @Test
    void notificationsAndReplaysTellATenantOfItsOwnVrsAndSessionsOnly() throws Exception {
        Instant before = Instant.now();
        TestClient alice = as(ALICE);
        assertThat(alice.rpc(edit("running", configTable(entry(1, "acme-1", "")), ""))).contains("<ok/>");
        awaitState(1, OperState.RUNNING);

        TestClient bob = as(BOB);
        assertThat(bob.rpc("<create-subscription xmlns='" + NOTIF + "'><startTime>" + before + "</startTime></create-subscription>"))
                .contains("<ok/>");
        String replayed = String.join("\n", until(bob, m -> m.contains("<replayComplete")));
        assertThat(replayed).doesNotContain("acme-1");
        // Live: acme's changes, VR notifications and sessions are not bravo's business; bravo's own are.
        assertThat(alice.rpc(edit("running", configTable("<vmConfigEntry><vmIndex>1</vmIndex><vmAdminState>shutdown"
                + "</vmAdminState></vmConfigEntry>"), ""))).contains("<ok/>");
        awaitState(1, OperState.SHUTDOWN);
        as(ALICE).rpc("<close-session/>");
        assertThat(bob.rpc(edit("running", configTable(entry(2, "bravo-2", "")), ""))).contains("<ok/>");
        String live = String.join("\n", until(bob, m -> m.contains("<vmRunning")));
        assertThat(live).contains("bravo-2", "<username>bob</username>")
                .doesNotContain("acme-1", "alice", "<vmShutdown", "<vmIndex>1</vmIndex>");

        TestClient inp = as(INP);
        assertThat(inp.rpc("<create-subscription xmlns='" + NOTIF + "'><startTime>" + before + "</startTime></create-subscription>"))
                .contains("<ok/>");
        assertThat(String.join("\n", until(inp, m -> m.contains("<replayComplete")))).contains("acme-1", "bravo-2");
    }
}
