package io.vrouter.snmp;

import static io.vrouter.snmp.SnmpTestAgent.vb;
import static io.vrouter.snmp.VmmMib.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vrouter.core.config.Settings;
import io.vrouter.core.config.Tenants;
import io.vrouter.core.driver.sim.LatencyProfile;
import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.ConfigColumn;
import io.vrouter.core.model.OperState;
import io.vrouter.core.model.VrEvent;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.snmp4j.PDU;
import org.snmp4j.ScopedPDU;
import org.snmp4j.Target;
import org.snmp4j.security.AuthSHA;
import org.snmp4j.security.PrivAES128;
import org.snmp4j.security.UsmUser;
import org.snmp4j.smi.Gauge32;
import org.snmp4j.smi.Integer32;
import org.snmp4j.smi.Null;
import org.snmp4j.smi.OID;
import org.snmp4j.smi.OctetString;
import org.snmp4j.smi.SMIConstants;
import org.snmp4j.smi.UdpAddress;
import org.snmp4j.smi.Variable;
import org.snmp4j.smi.VariableBinding;

/**
 * Tenants over SNMPv3: each request is answered from the core's view of its user ({@code snmp.user.NAME
 * = ...:write@TENANT}), so a tenant's user walks, reads, changes and creates only its tenant's rows, in
 * every table, within its quota; the provider's user sees all. The real agent, a real snmp4j manager.
 */
class TenantsTest {
    private static final Map<String, String> SETTINGS = Map.of(
            "tenant.acme", "vrs=2",
            "tenant.bravo", "vrs=10",
            "snmp.user.inp", "SHA:inpauthpass:AES:inpprivpass:write",
            "snmp.user.alice", "SHA:aliceauthpass:AES:aliceprivpass:write@acme",
            "snmp.user.ann", "SHA:annauthpass1:AES:annprivpass1:read@acme",
            "snmp.user.bob", "SHA:bobauthpass:AES:bobprivpass:write@bravo",
            "tenant.capped", "vcpus=2, memory=1024",
            "snmp.user.carl", "SHA:carlauthpass:AES:carlprivpass:write@capped");
    private static final int A = 1;
    private static final int B = 2;
    private static final int P = 3;
    private static final int TENANT = ConfigColumn.VM_CONFIG_TENANT.snmpColumn();

    @TempDir
    Path dir;
    SnmpTestAgent a;

    @BeforeEach
    void start() throws Exception {
        a = new SnmpTestAgent(dir, LatencyProfile.NONE, SETTINGS);
        a.service.useTenants(Tenants.from(Settings.of(SETTINGS)));
        for (String user : List.of("inp", "alice", "ann", "bob", "carl")) {
            String auth = user.equals("ann") ? "annauthpass1" : user + "authpass";
            String priv = user.equals("ann") ? "annprivpass1" : user + "privpass";
            a.client.getUSM().addUser(new UsmUser(new OctetString(user), AuthSHA.ID, new OctetString(auth),
                    PrivAES128.ID, new OctetString(priv)));
        }
        assertNoError(create("alice", A, "a1"));
        assertNoError(create("bob", B, "b1"));
        assertNoError(create("inp", P, "p1"));
        for (int vm : new int[]{A, B, P}) awaitRunning(vm);
    }

    @AfterEach
    void stop() throws Exception {
        a.close();
    }

    private static OID cfg(int column, int vmIndex) {
        return cell(VM_CONFIG_ENTRY, column, vmIndex);
    }

    private static OID net(int column, int vmIndex, int netIndex) {
        return cell(VM_NETWORK_CONFIG_ENTRY, column, vmIndex, netIndex);
    }

    /** A VR with one interface, created by the user in one PDU. */
    private PDU create(String user, int vmIndex, String name) throws Exception {
        return a.send(a.v3(user), PDU.SET, vb(cfg(VM_CONFIG_ROW_STATUS, vmIndex), new Integer32(CREATE_AND_GO)),
                vb(cfg(VM_NAME, vmIndex), new OctetString(name)),
                vb(net(NET_ROW_STATUS, vmIndex, 1), new Integer32(CREATE_AND_GO)),
                vb(net(NET_PARENT, vmIndex, 1), new OctetString("xenbr0")));
    }

    private void awaitRunning(int vmIndex) throws InterruptedException {
        long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < end) {
            if (a.service.get(vmIndex).map(v -> v.operState() == OperState.RUNNING).orElse(false)) return;
            Thread.sleep(20);
        }
        throw new AssertionError("VR " + vmIndex + " did not reach running: " + a.service.get(vmIndex));
    }

    private static void assertNoError(PDU r) {
        assertThat(r).as("an answer").isNotNull();
        assertThat(r.getErrorStatus()).as(r.toString()).isEqualTo(PDU.noError);
    }

    private Variable get(String user, OID oid) throws Exception {
        PDU r = a.send(a.v3(user), PDU.GET, new VariableBinding(oid));
        assertNoError(r);
        return r.get(0).getVariable();
    }

    private PDU set(String user, VariableBinding... vbs) throws Exception {
        PDU r = a.send(a.v3(user), PDU.SET, vbs);
        assertThat(r).as("an answer").isNotNull();
        return r;
    }

    /** Every instance of vmObjects the user reaches with GETBULKs of the given size, in order. */
    private TreeMap<OID, Variable> walk(String user, int maxRepetitions) throws Exception {
        TreeMap<OID, Variable> seen = new TreeMap<>();
        OID from = OBJECTS;
        Target<UdpAddress> target = a.v3(user);
        target.setTimeout(15_000);
        while (true) {
            PDU pdu = new ScopedPDU();
            pdu.setType(PDU.GETBULK);
            pdu.setMaxRepetitions(maxRepetitions);
            pdu.add(new VariableBinding(from));
            PDU r = a.client.send(pdu, target).getResponse();
            assertNoError(r);
            for (VariableBinding vb : r.getVariableBindings()) {
                if (vb.getVariable().getSyntax() == SMIConstants.EXCEPTION_END_OF_MIB_VIEW
                        || !vb.getOid().startsWith(OBJECTS)) {
                    return seen;
                }
                assertThat(seen.put(vb.getOid(), vb.getVariable())).as("walked once: " + vb.getOid()).isNull();
                from = vb.getOid();
            }
        }
    }

    /** Each table's rows (by the table's child number), as the vmIndex of each of its instances. */
    private static Map<Integer, TreeSet<Integer>> rowsByTable(TreeMap<OID, Variable> walk) {
        Map<Integer, TreeSet<Integer>> tables = new TreeMap<>();
        for (OID oid : walk.keySet()) {
            Integer vm = VmmInstrumentation.vmIndexOf(oid);
            if (vm != null) tables.computeIfAbsent(oid.get(OBJECTS.size()), t -> new TreeSet<>()).add(vm);
        }
        return tables;
    }

    /** The instances of one VR in each table, as the walk shows them. */
    private static List<OID> instancesOf(TreeMap<OID, Variable> walk, int vmIndex) {
        List<OID> out = new ArrayList<>();
        for (OID oid : walk.keySet()) {
            Integer vm = VmmInstrumentation.vmIndexOf(oid);
            if (vm != null && vm == vmIndex) out.add(oid);
        }
        return out;
    }

    @Test
    void aTenantsUserWalksItsOwnRowsInEveryTableAndTheProviderAllOfThem() throws Exception {
        TreeMap<OID, Variable> provider = walk("inp", 20);
        TreeMap<OID, Variable> alice = walk("alice", 20);
        // In passes on the bulk thread (more than 100 bindings asked): the same view of the user.
        TreeMap<OID, Variable> aliceInPasses = walk("alice", 500);
        TreeMap<OID, Variable> bob = walk("bob", 7);

        Map<Integer, TreeSet<Integer>> all = rowsByTable(provider);
        // Every table has rows here: vmTable, vmCpuTable, vmCpuAffinityTable, vmStorageTable, vmNetworkTable,
        // vmConfigTable, vmNetworkConfigTable; and the provider sees every tenant's and its own.
        assertThat(all.keySet()).containsExactly(4, 5, 6, 7, 8, 12, 13);
        all.values().forEach(vms -> assertThat(vms).containsExactly(A, B, P));
        Map<Integer, TreeSet<Integer>> mine = rowsByTable(alice);
        assertThat(mine.keySet()).isEqualTo(all.keySet());
        mine.values().forEach(vms -> assertThat(vms).containsExactly(A));
        // All of its rows: every instance of VR A the provider walks, alice walks too.
        assertThat(instancesOf(alice, A)).isEqualTo(instancesOf(provider, A));
        assertThat(aliceInPasses.keySet()).isEqualTo(alice.keySet());
        rowsByTable(bob).values().forEach(vms -> assertThat(vms).containsExactly(B));

        // The scalars count the user's VRs; the host's are the host's.
        assertThat(alice.get(scalar(VM_NUMBER))).isEqualTo(new Integer32(1));
        assertThat(alice.get(scalar(VM_CONFIGURED_VMS))).isEqualTo(new Gauge32(1));
        assertThat(alice.get(scalar(VM_ACTIVE_VMS))).isEqualTo(new Gauge32(1));
        assertThat(alice.get(scalar(VM_COMMITTED_CPUS))).isEqualTo(new Gauge32(1));
        assertThat(alice.get(scalar(VM_COMMITTED_MEMORY))).isEqualTo(new Gauge32(512));
        assertThat(provider.get(scalar(VM_NUMBER))).isEqualTo(new Integer32(3));
        assertThat(provider.get(scalar(VM_CONFIGURED_VMS))).isEqualTo(new Gauge32(3));
        assertThat(provider.get(scalar(VM_COMMITTED_CPUS))).isEqualTo(new Gauge32(3));
        assertThat(provider.get(scalar(VM_COMMITTED_MEMORY))).isEqualTo(new Gauge32(3 * 512));
        assertThat(alice).containsKeys(scalar(VM_HV_CPUS), scalar(VM_HV_MEMORY));

        // vmConfigTenant: the owner, empty for the provider's own VR.
        assertThat(provider.get(cfg(TENANT, A))).isEqualTo(new OctetString("acme"));
        assertThat(provider.get(cfg(TENANT, B))).isEqualTo(new OctetString("bravo"));
        assertThat(provider.get(cfg(TENANT, P))).isEqualTo(new OctetString(""));
        assertThat(alice.get(cfg(TENANT, A))).isEqualTo(new OctetString("acme"));
    }

    @Test
    void aTenantsUserGetsNoInstanceOfAnotherTenantsVr() throws Exception {
        for (OID oid : List.of(cfg(VM_NAME, B), cfg(VM_CONFIG_ROW_STATUS, B), cell(VM_ENTRY, VM_OPER_STATE, B),
                net(NET_PARENT, B, 1), cfg(VM_NAME, P), cfg(TENANT, B))) {
            assertThat(get("alice", oid)).as(oid.toString()).isEqualTo(Null.noSuchInstance);
            assertThat(get("inp", oid)).as(oid.toString()).isNotEqualTo(Null.noSuchInstance);
        }
        assertThat(get("alice", cfg(VM_NAME, A))).isEqualTo(new OctetString("a1"));
        assertThat(get("ann", cfg(VM_NAME, A))).isEqualTo(new OctetString("a1"));
        assertThat(get("ann", cfg(VM_NAME, B))).isEqualTo(Null.noSuchInstance);
        assertThat(get("bob", cfg(VM_NAME, A))).isEqualTo(Null.noSuchInstance);
        // GETNEXT from before B's row goes past it to the next row of the user's own (none: the next column).
        PDU next = a.send(a.v3("alice"), PDU.GETNEXT, new VariableBinding(cfg(VM_NAME, A)));
        assertThat(next.get(0).getOid()).isEqualTo(cfg(VM_ADMIN_STATE, A));
    }

    /**
     * A SET of another tenant's row (bravo's, or the provider's own) is answered byte for byte as the
     * same SET of a row that does not exist: the response PDU's error-status, error-index and
     * bindings, its request-id aside and the vmIndex in each OID translated. Only a creation at its
     * index is refused (noAccess): a missing index would be created, as vmIndex is one space for the host.
     */
    @Test
    void aSetOfAnotherTenantsRowIsAnsweredAsOfAMissingRowAndChangesNothing() throws Exception {
        int missing = 40;
        List<IntFunction<VariableBinding[]>> sets = List.of(
                vm -> new VariableBinding[]{vb(cfg(VM_ADMIN_STATE, vm), new Integer32(AdminState.SHUTDOWN.code()))},
                vm -> new VariableBinding[]{vb(cfg(VM_NAME, vm), new OctetString("mine"))},
                vm -> new VariableBinding[]{vb(cfg(VM_CONFIG_MEMORY, vm), new Integer32(1024)),
                        vb(cfg(VM_NAME, vm), new OctetString("mine"))},
                vm -> new VariableBinding[]{vb(cfg(VM_CONFIG_ROW_STATUS, vm), new Integer32(DESTROY))},
                vm -> new VariableBinding[]{vb(cfg(VM_CONFIG_ROW_STATUS, vm), new Integer32(ACTIVE))},
                vm -> new VariableBinding[]{vb(cfg(VM_CONFIG_ROW_STATUS, vm), new Integer32(NOT_IN_SERVICE))},
                vm -> new VariableBinding[]{vb(cfg(VM_NAME, vm), new OctetString("mine")),
                        vb(cfg(VM_CONFIG_ROW_STATUS, vm), new Integer32(ACTIVE))},
                vm -> new VariableBinding[]{vb(net(NET_PARENT, vm, 1), new OctetString("xenbr1"))},
                vm -> new VariableBinding[]{vb(net(NET_ROW_STATUS, vm, 1), new Integer32(DESTROY))},
                vm -> new VariableBinding[]{vb(net(NET_ROW_STATUS, vm, 1), new Integer32(ACTIVE))},
                vm -> new VariableBinding[]{vb(net(NET_ROW_STATUS, vm, 2), new Integer32(CREATE_AND_WAIT))},
                vm -> new VariableBinding[]{vb(net(NET_ROW_STATUS, vm, 2), new Integer32(CREATE_AND_GO)),
                        vb(net(NET_PARENT, vm, 2), new OctetString("xenbr0"))},
                vm -> new VariableBinding[]{vb(cell(VM_ENTRY, VM_OPER_STATE, vm), new Integer32(1))});
        for (int others : new int[]{B, P}) {
            for (IntFunction<VariableBinding[]> pdu : sets) {
                PDU hidden = set("alice", pdu.apply(others));
                PDU absent = set("alice", pdu.apply(missing));
                assertThat(absent.getErrorStatus()).as(absent.toString()).isNotEqualTo(PDU.noAccess);
                assertThat(HexFormat.of().formatHex(ber(hidden, others, missing))).as(hidden + " against " + absent)
                        .isEqualTo(HexFormat.of().formatHex(ber(absent, missing, missing)));
            }
        }
        List<VariableBinding[]> refused = List.of(
                new VariableBinding[]{vb(cfg(VM_CONFIG_ROW_STATUS, B), new Integer32(CREATE_AND_WAIT))},
                new VariableBinding[]{vb(cfg(VM_CONFIG_ROW_STATUS, B), new Integer32(CREATE_AND_GO)),
                        vb(cfg(VM_NAME, B), new OctetString("taken"))},
                // only the provider gives a VR to a tenant, and switches notifications
                new VariableBinding[]{vb(cfg(TENANT, A), new OctetString("bravo"))},
                new VariableBinding[]{vb(scalar(VM_PER_VM_NOTIFICATIONS_ENABLED), new Integer32(2))});
        for (VariableBinding[] vbs : refused) {
            PDU r = set("alice", vbs);
            assertThat(r.getErrorStatus()).as(List.of(vbs) + " -> " + r).isEqualTo(PDU.noAccess);
            assertThat(r.getErrorIndex()).isEqualTo(1);
        }
        assertThat(a.service.getConfig(B).orElseThrow().vmName).isEqualTo("b1");
        assertThat(a.service.getConfig(B).orElseThrow().vmAdminState).isEqualTo(AdminState.RUNNING);
        assertThat(a.service.getConfig(B).orElseThrow().interfaces()).hasSize(1);
        assertThat(a.service.getConfig(B).orElseThrow().interfaces().get(0).vmNetworkConfigParent).isEqualTo("xenbr0");
        assertThat(a.service.getConfig(A).orElseThrow().vmConfigTenant).isEqualTo("acme");
        assertThat(a.service.getConfig(P).orElseThrow().vmAdminState).isEqualTo(AdminState.RUNNING);
        assertThat(a.service.getConfig(P).orElseThrow().vmName).isEqualTo("p1");
        assertThat(a.service.perVmNotificationsEnabled()).isTrue();
        // No row waits for alice at B's index, nor at the missing one.
        assertThat(get("alice", cfg(VM_CONFIG_ROW_STATUS, B))).isEqualTo(Null.noSuchInstance);
        assertThat(get("alice", net(NET_ROW_STATUS, B, 2))).isEqualTo(Null.noSuchInstance);
        // A viewer of acme changes nothing, not even acme's.
        PDU viewer = set("ann", vb(cfg(VM_ADMIN_STATE, A), new Integer32(AdminState.SHUTDOWN.code())));
        assertThat(viewer.getErrorStatus()).isIn(PDU.noAccess, PDU.authorizationError);
        assertThat(a.service.getConfig(A).orElseThrow().vmAdminState).isEqualTo(AdminState.RUNNING);
    }

    /** The response PDU's BER encoding, its request-id 0, the vmIndex {@code from} in each binding's OID made {@code to}. */
    private static byte[] ber(PDU response, int from, int to) throws Exception {
        PDU copy = (PDU) response.clone();
        copy.setRequestID(new Integer32(0));
        for (VariableBinding vb : copy.getVariableBindings()) {
            OID oid = new OID(vb.getOid());
            int at = oid.startsWith(VM_NETWORK_CONFIG_ENTRY) ? oid.size() - 2 : oid.size() - 1;
            if (oid.get(at) == from) oid.set(at, to);
            vb.setOid(oid);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        copy.encodeBER(out);
        return out.toByteArray();
    }

    @Test
    void aTenantsUserChangesItsOwnCreatesForItsTenantAndItsQuotaRefusesTheNext() throws Exception {
        List<VrEvent> events = new CopyOnWriteArrayList<>();
        VrEvent renamed = null;
        try (AutoCloseable ignored = a.service.events().subscribe(events::add)) {
            assertNoError(set("alice", vb(cfg(VM_NAME, A), new OctetString("a1-renamed"))));
            long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (renamed == null && System.nanoTime() < end) {
                // Setup's own events (made by inp) may still be on their way: wait for the rename's.
                renamed = events.stream().filter(e -> e.vmIndex == A && "a1-renamed".equals(e.vmName)
                        && e.changedBy != null).findFirst().orElse(null);
                if (renamed == null) Thread.sleep(20);
            }
        }
        assertThat(a.service.getConfig(A).orElseThrow().vmName).isEqualTo("a1-renamed");
        // The audit names the SNMP user, its tenant, the interface and the manager's address.
        assertThat(renamed).as("an event of the rename with its author: " + events).isNotNull();
        assertThat(Arrays.asList(renamed.changedBy.user, renamed.changedBy.tenant, renamed.changedBy.iface,
                renamed.changedBy.source)).containsExactly("alice", "acme", "snmp", "127.0.0.1");
        // createAndWait, then active: the waiting row is alice's alone, the VR acme's.
        assertNoError(set("alice", vb(cfg(VM_CONFIG_ROW_STATUS, 10), new Integer32(CREATE_AND_WAIT))));
        assertThat(get("alice", cfg(VM_CONFIG_ROW_STATUS, 10))).isEqualTo(new Integer32(NOT_READY));
        assertThat(get("bob", cfg(VM_CONFIG_ROW_STATUS, 10))).isEqualTo(Null.noSuchInstance);
        // The provider sees every tenant's waiting rows, and whose they are; no one is offered their index.
        assertThat(get("inp", cfg(VM_CONFIG_ROW_STATUS, 10))).isEqualTo(new Integer32(NOT_READY));
        assertThat(get("inp", cfg(TENANT, 10))).isEqualTo(new OctetString("acme"));
        assertThat(walk("inp", 50)).containsKey(cfg(VM_CONFIG_ROW_STATUS, 10));
        assertThat(walk("bob", 50)).doesNotContainKey(cfg(VM_CONFIG_ROW_STATUS, 10));
        assertNoError(set("alice", vb(cfg(VM_CONFIG_ROW_STATUS, 4), new Integer32(CREATE_AND_WAIT))));
        for (String user : List.of("inp", "bob", "alice")) {
            assertThat(get(user, scalar(VM_CONFIG_NEXT_AVAILABLE_VM_INDEX))).as(user).isEqualTo(new Integer32(5));
        }
        assertNoError(set("alice", vb(cfg(VM_CONFIG_ROW_STATUS, 4), new Integer32(DESTROY))));
        assertNoError(set("alice", vb(cfg(VM_NAME, 10), new OctetString("a2")),
                vb(cfg(VM_CONFIG_ROW_STATUS, 10), new Integer32(ACTIVE))));
        assertThat(a.service.getConfig(10).orElseThrow().vmConfigTenant).isEqualTo("acme");
        assertThat(get("inp", cfg(TENANT, 10))).isEqualTo(new OctetString("acme"));

        // acme may have 2 VRs: a third is resourceUnavailable and nothing is created.
        PDU third = create("alice", 11, "a3");
        assertThat(third.getErrorStatus()).as(third.toString()).isEqualTo(PDU.resourceUnavailable);
        assertThat(a.service.getConfig(11)).isEmpty();
        assertThat(a.service.indices()).containsExactly(A, B, P, 10);
        // bravo's quota is bravo's.
        assertNoError(create("bob", 12, "b2"));
        assertThat(a.service.getConfig(12).orElseThrow().vmConfigTenant).isEqualTo("bravo");
    }

    @Test
    void aCommunityIsTheProvidersAndTheAuditNamesItByItsPlaceNotItsSecret() throws Exception {
        try (SnmpTestAgent v2c = new SnmpTestAgent(dir.resolve("v2c"))) {
            v2c.service.useTenants(Tenants.from(Settings.of(SETTINGS)));
            List<VrEvent> events = new CopyOnWriteArrayList<>();
            try (AutoCloseable ignored = v2c.service.events().subscribe(events::add)) {
                assertNoError(v2c.set(vb(cfg(VM_CONFIG_ROW_STATUS, 5), new Integer32(CREATE_AND_GO)),
                        vb(cfg(VM_NAME, 5), new OctetString("by-community")), vb(cfg(TENANT, 5), new OctetString("acme"))));
                long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                while (events.stream().noneMatch(e -> e.changedBy != null) && System.nanoTime() < end) Thread.sleep(20);
            }
            // The provider's: it may give a VR to a tenant. "private" is the second community (w1).
            assertThat(v2c.service.getConfig(5).orElseThrow().vmConfigTenant).isEqualTo("acme");
            VrEvent created = events.stream().filter(e -> e.changedBy != null).findFirst().orElseThrow();
            assertThat(Arrays.asList(created.changedBy.user, created.changedBy.iface)).containsExactly("v2c:w1", "snmp");
            assertThat(created.changedBy.tenant).isNull();
        }
    }

    @Test
    void theProviderGivesAVrToATenantAndTakesItBack() throws Exception {
        assertNoError(set("inp", vb(cfg(TENANT, P), new OctetString("bravo"))));
        assertThat(a.service.getConfig(P).orElseThrow().vmConfigTenant).isEqualTo("bravo");
        assertThat(get("bob", cfg(VM_NAME, P))).isEqualTo(new OctetString("p1"));
        assertThat(get("alice", cfg(VM_NAME, P))).isEqualTo(Null.noSuchInstance);
        assertNoError(set("inp", vb(cfg(TENANT, P), new OctetString(""))));
        assertThat(a.service.getConfig(P).orElseThrow().vmConfigTenant).isNull();
        assertThat(get("bob", cfg(VM_NAME, P))).isEqualTo(Null.noSuchInstance);
        // The provider creates a VR for a tenant, which counts against its quota.
        assertNoError(a.send(a.v3("inp"), PDU.SET, vb(cfg(VM_CONFIG_ROW_STATUS, 20), new Integer32(CREATE_AND_GO)),
                vb(cfg(VM_NAME, 20), new OctetString("for-acme")), vb(cfg(TENANT, 20), new OctetString("acme"))));
        assertThat(get("alice", cfg(VM_NAME, 20))).isEqualTo(new OctetString("for-acme"));
        assertThat(create("alice", 21, "a-over").getErrorStatus()).isEqualTo(PDU.resourceUnavailable);
    }

    /**
     * SNMP has no field for the text REST, RESTCONF and NETCONF give with a refusal; what it has says
     * which limit it was: resourceUnavailable against the varbind of the column the limit is about
     * (vmConfigCpuNumber: vCPUs, vmConfigMemory: memory, the RowStatus: the number of VRs). The
     * README's table says so.
     */
    @Test
    void aRefusedQuotaIsTheVarbindOfTheColumnItLimits() throws Exception {
        PDU cpus = set("carl", vb(cfg(VM_CONFIG_ROW_STATUS, 30), new Integer32(CREATE_AND_GO)),
                vb(cfg(VM_NAME, 30), new OctetString("c1")), vb(cfg(VM_CONFIG_MEMORY, 30), new Integer32(512)),
                vb(cfg(VM_CONFIG_CPU_NUMBER, 30), new Integer32(4)));
        assertThat(cpus.getErrorStatus()).as(cpus.toString()).isEqualTo(PDU.resourceUnavailable);
        assertThat(cpus.getErrorIndex()).as("vmConfigCpuNumber").isEqualTo(4);
        PDU memory = set("carl", vb(cfg(VM_CONFIG_ROW_STATUS, 30), new Integer32(CREATE_AND_GO)),
                vb(cfg(VM_CONFIG_MEMORY, 30), new Integer32(2048)), vb(cfg(VM_NAME, 30), new OctetString("c1")));
        assertThat(memory.getErrorStatus()).as(memory.toString()).isEqualTo(PDU.resourceUnavailable);
        assertThat(memory.getErrorIndex()).as("vmConfigMemory").isEqualTo(2);
        // acme's number of VRs: its RowStatus.
        assertNoError(create("alice", 31, "a2"));
        PDU vrs = set("alice", vb(cfg(VM_NAME, 32), new OctetString("a3")),
                vb(cfg(VM_CONFIG_ROW_STATUS, 32), new Integer32(CREATE_AND_GO)));
        assertThat(vrs.getErrorStatus()).as(vrs.toString()).isEqualTo(PDU.resourceUnavailable);
        assertThat(vrs.getErrorIndex()).as("vmConfigRowStatus").isEqualTo(2);
        assertThat(a.service.indices()).containsExactly(A, B, P, 31);
    }

    @Test
    void aBindingNamesADeclaredTenantAndCommunitiesAreTheProvidersOnly() {
        Map<String, String> undeclared = new HashMap<>(Map.of("snmp.user.carol", "SHA:carolauth:AES:carolpriv:write@nobody"));
        assertThatThrownBy(() -> SnmpConfig.from(Settings.of(undeclared)))
                .hasMessageContaining("snmp.user.carol").hasMessageContaining("tenant 'nobody' is not declared");
        undeclared.put("tenant.nobody", "");
        assertThat(SnmpConfig.from(Settings.of(undeclared)).users().get(0).tenant()).isEqualTo("nobody");
        assertThatThrownBy(() -> SnmpConfig.from(Settings.of(Map.of("snmp.user.carol",
                "SHA:carolauth:AES:carolpriv:admin@acme", "tenant.acme", "")))).hasMessageContaining("read or write");
        assertThatThrownBy(() -> SnmpConfig.from(Settings.of(Map.of("snmp.community.write", "acmerw@acme",
                "tenant.acme", "")))).hasMessageContaining("snmp.community.write").hasMessageContaining("SNMPv3 user");
        // v3 notifications tell of every tenant's VRs: a tenant's user's keys do not protect them.
        Map<String, String> v3Traps = new HashMap<>(SETTINGS);
        v3Traps.put("snmp.trap.version", "v3");
        v3Traps.put("snmp.trap.user", "alice");
        assertThatThrownBy(() -> SnmpConfig.from(Settings.of(v3Traps))).hasMessageContaining("snmp.trap.user")
                .hasMessageContaining("without @TENANT");
        v3Traps.remove("snmp.trap.user");
        assertThat(SnmpConfig.from(Settings.of(v3Traps)).trapUser()).isEqualTo("inp");
        // A reload cannot take away the tenant of a running user (users change with a restart).
        Map<String, String> withoutAcme = new HashMap<>(SETTINGS);
        withoutAcme.keySet().removeAll(List.of("tenant.acme", "snmp.user.alice", "snmp.user.ann"));
        assertThatThrownBy(() -> a.snmp.reload(Settings.of(withoutAcme))).hasMessageContaining("tenant 'acme'")
                .hasMessageContaining("'alice'");
        SnmpConfig c = SnmpConfig.from(Settings.of(SETTINGS));
        assertThat(c.users()).filteredOn(u -> u.name().equals("inp")).extracting(SnmpConfig.User::tenant)
                .containsOnlyNulls();
        assertThat(c.users()).filteredOn(u -> u.name().equals("ann")).singleElement()
                .satisfies(u -> assertThat(u.write()).isFalse()).satisfies(u -> assertThat(u.tenant()).isEqualTo("acme"));
    }
}
