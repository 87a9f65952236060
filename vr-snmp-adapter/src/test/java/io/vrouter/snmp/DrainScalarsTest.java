package io.vrouter.snmp;

import static io.vrouter.snmp.DrainScalars.instance;
import static io.vrouter.snmp.SnmpTestAgent.vb;
import static io.vrouter.snmp.VmmMib.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.vrouter.core.config.Settings;
import io.vrouter.core.config.Tenants;
import io.vrouter.core.driver.sim.LatencyProfile;
import io.vrouter.core.model.OperState;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.snmp4j.PDU;
import org.snmp4j.security.AuthSHA;
import org.snmp4j.security.PrivAES128;
import org.snmp4j.security.UsmUser;
import org.snmp4j.smi.Gauge32;
import org.snmp4j.smi.Integer32;
import org.snmp4j.smi.Null;
import org.snmp4j.smi.OID;
import org.snmp4j.smi.OctetString;
import org.snmp4j.smi.Variable;
import org.snmp4j.smi.VariableBinding;

/**
 * vmDrain on the real agent with a real snmp4j manager: a SET of vmDrainState drained(2) is answered
 * while the drain still runs (here to a peer that takes the connection and never answers), the state
 * reads draining and a second drain, an open or a creation are resourceUnavailable; when the peer goes,
 * the drain ends with the VR not moved and says why, the router stays drained until open(1). Every
 * refusal is SNMP's own error status and changes nothing. (The drain that moves VRs, between servers,
 * is DrainSnmpIT's.)
 */
class DrainScalarsTest {
    private static final int VR = 1;
    private static final OID STATE = instance(DrainScalars.STATE);

    @TempDir
    Path dir;
    SnmpTestAgent a;
    /** A peer that accepts connections and never answers: a drain to it runs until it closes. */
    ServerSocket silent;
    final List<Socket> held = new CopyOnWriteArrayList<>();
    Thread accepting;

    @BeforeEach
    void start() throws Exception {
        silent = new ServerSocket(0);
        accepting = new Thread(() -> {
            try {
                while (true) held.add(silent.accept());
            } catch (IOException closed) {
                // the test closed it
            }
        });
        accepting.setDaemon(true);
        accepting.start();
        Map<String, String> settings = Map.of(
                "peer.silent", "http://127.0.0.1:" + silent.getLocalPort(),
                "peer.silent.user", "admin", "peer.silent.password", "admin",
                "tenant.acme", "vrs=2",
                "snmp.community.read", "public",
                "snmp.community.write", "private",
                "snmp.user.alice", "SHA:aliceauthpass:AES:aliceprivpass:write@acme");
        a = new SnmpTestAgent(dir.resolve("a"), LatencyProfile.NONE, settings);
        a.service.useTenants(Tenants.from(Settings.of(settings)));
        a.client.getUSM().addUser(new UsmUser(new OctetString("alice"), AuthSHA.ID, new OctetString("aliceauthpass"),
                PrivAES128.ID, new OctetString("aliceprivpass")));
        assertStatus(createAndGo(VR, "mover"), PDU.noError);
        await(() -> a.service.get(VR).map(v -> v.operState() == OperState.RUNNING).orElse(false), "VR running");
    }

    @AfterEach
    void stop() throws Exception {
        closeSilentPeer();
        a.close();
    }

    /** Closes the peer and every connection it took, one taken just before the close included. */
    private void closeSilentPeer() throws Exception {
        silent.close();
        accepting.join(10_000);
        for (Socket s : held) s.close();
    }

    private PDU createAndGo(int vmIndex, String name) throws IOException {
        return a.set(vb(cell(VM_CONFIG_ENTRY, VM_CONFIG_ROW_STATUS, vmIndex), new Integer32(CREATE_AND_GO)),
                vb(cell(VM_CONFIG_ENTRY, VM_NAME, vmIndex), new OctetString(name)));
    }

    private static void assertStatus(PDU r, int status) {
        assertThat(r).as("an answer").isNotNull();
        assertThat(r.getErrorStatus()).as(r.toString()).isEqualTo(status);
    }

    private static void await(BooleanSupplier done, String what) throws InterruptedException {
        long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > end) throw new AssertionError("not reached: " + what);
            Thread.sleep(20);
        }
    }

    private void awaitValue(OID oid, Variable expected, String what) throws InterruptedException {
        await(() -> {
            try {
                return expected.equals(a.get(oid));
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }, what);
    }

    @Test
    void aSetIsAnsweredWhileTheDrainRunsAndTheScalarsReportIt() throws Exception {
        assertThat(a.get(STATE)).isEqualTo(new Integer32(DrainScalars.OPEN));
        assertThat(a.get(instance(DrainScalars.TOTAL))).isEqualTo(new Gauge32(0));
        assertThat(a.get(instance(DrainScalars.RESULT))).isEqualTo(new OctetString(""));

        // Answered at once: the peer never answers, so a SET that waited for the drain would time out here.
        assertStatus(a.set(vb(STATE, new Integer32(DrainScalars.DRAINED))), PDU.noError);
        assertThat(a.get(STATE)).isEqualTo(new Integer32(DrainScalars.DRAINING));
        assertThat(a.get(instance(DrainScalars.TOTAL))).isEqualTo(new Gauge32(1));
        assertThat(a.service.drainedSince()).isPresent();

        // One drain at a time; no open while it runs; the router takes no new VR.
        assertStatus(a.set(vb(STATE, new Integer32(DrainScalars.DRAINED))), PDU.resourceUnavailable);
        assertStatus(a.set(vb(STATE, new Integer32(DrainScalars.OPEN))), PDU.resourceUnavailable);
        assertStatus(createAndGo(2, "latecomer"), PDU.resourceUnavailable);
        assertThat(a.service.getConfig(2)).isEmpty();

        // The peer goes away: the drain ends, the VR not moved (it runs here), and says why; still drained.
        closeSilentPeer();
        awaitValue(STATE, new Integer32(DrainScalars.DRAINED), "the drain ended");
        assertThat(a.get(instance(DrainScalars.MOVED))).isEqualTo(new Gauge32(0));
        assertThat(a.get(instance(DrainScalars.NOT_MOVED))).isEqualTo(new Gauge32(1));
        assertThat(a.get(instance(DrainScalars.RESULT)).toString()).startsWith("drained to silent: 0 of 1 VRs moved, 1 not; 1 mover: ")
                .contains("peer silent");
        assertThat(a.service.get(VR).orElseThrow().operState()).isEqualTo(OperState.RUNNING);
        assertStatus(createAndGo(2, "latecomer"), PDU.resourceUnavailable);

        // Opened: it takes VRs again.
        assertStatus(a.set(vb(STATE, new Integer32(DrainScalars.OPEN))), PDU.noError);
        assertThat(a.get(STATE)).isEqualTo(new Integer32(DrainScalars.OPEN));
        assertThat(a.service.drainedSince()).isEmpty();
        assertStatus(createAndGo(2, "latecomer"), PDU.noError);
    }

    @Test
    void aRefusedSetIsSnmpsOwnErrorAndChangesNothing() throws Exception {
        assertStatus(a.set(vb(STATE, new Integer32(DrainScalars.DRAINING))), PDU.wrongValue);
        assertStatus(a.set(vb(STATE, new Integer32(7))), PDU.wrongValue);
        assertStatus(a.set(vb(STATE, new OctetString("drained"))), PDU.wrongType);
        assertStatus(a.set(vb(instance(DrainScalars.TOTAL), new Gauge32(3))), PDU.notWritable);
        assertStatus(a.set(vb(instance(DrainScalars.RESULT), new OctetString("x"))), PDU.notWritable);
        // a drain cannot be undone, so it is asked alone
        assertStatus(a.set(vb(STATE, new Integer32(DrainScalars.DRAINED)), vb(cell(VM_CONFIG_ENTRY, VM_NAME, VR),
                new OctetString("other"))), PDU.inconsistentValue);
        assertStatus(a.set(vb(STATE, new Integer32(DrainScalars.DRAINED)), vb(cell(MigrationTable.ENTRY, MigrationTable.PEER, VR),
                new OctetString("silent"))), PDU.inconsistentValue);
        // a tenant's user: the drain is the provider's
        PDU tenant = a.send(a.v3("alice"), PDU.SET, new VariableBinding(STATE, new Integer32(DrainScalars.DRAINED)));
        assertStatus(tenant, PDU.noAccess);
        PDU read = a.send(a.v3("alice"), PDU.GET, new VariableBinding(STATE));
        assertThat(read.get(0).getVariable()).isEqualTo(Null.noSuchInstance);
        PDU walk = a.send(a.v3("alice"), PDU.GETNEXT, new VariableBinding(DrainScalars.DRAIN));
        assertThat(walk.get(0).getOid().startsWith(DrainScalars.DRAIN)).as(walk.toString()).isFalse();

        assertThat(a.get(STATE)).isEqualTo(new Integer32(DrainScalars.OPEN));
        assertThat(a.service.drainedSince()).isEmpty();
        assertThat(held).as("no peer was asked").isEmpty();
        assertThat(a.service.getConfig(VR).orElseThrow().vmName).isEqualTo("mover");
    }

    @Test
    void drainedWithNoVrLeftIsInconsistentValue() throws Exception {
        assertStatus(a.set(vb(cell(VM_CONFIG_ENTRY, VM_CONFIG_ROW_STATUS, VR), new Integer32(DESTROY))), PDU.noError);
        await(() -> a.service.getConfig(VR).isEmpty(), "VR removed");
        assertStatus(a.set(vb(STATE, new Integer32(DrainScalars.DRAINED))), PDU.noError);
        awaitValue(STATE, new Integer32(DrainScalars.DRAINED), "the empty drain ended");
        assertThat(a.get(instance(DrainScalars.RESULT)).toString()).isEqualTo("drained to silent: 0 of 0 VRs moved");
        assertStatus(a.set(vb(STATE, new Integer32(DrainScalars.DRAINED))), PDU.inconsistentValue);
        assertThat(a.get(STATE)).isEqualTo(new Integer32(DrainScalars.DRAINED));
    }

    @Test
    void aRouterWithoutPeersCannotBeDrained(@TempDir Path other) throws Exception {
        try (SnmpTestAgent alone = new SnmpTestAgent(other, LatencyProfile.NONE, Map.of("snmp.community.read", "public",
                "snmp.community.write", "private"))) {
            assertStatus(alone.set(vb(STATE, new Integer32(DrainScalars.DRAINED))), PDU.inconsistentValue);
            assertThat(alone.get(STATE)).isEqualTo(new Integer32(DrainScalars.OPEN));
            assertThat(alone.service.drainedSince()).isEmpty();
            // opening an open router changes nothing and is no error
            assertStatus(alone.set(vb(STATE, new Integer32(DrainScalars.OPEN))), PDU.noError);
        }
    }

    @Test
    void aWalkGoesFromVmMigrationTableThroughTheScalarsAndOn() throws Exception {
        PDU from = a.send(a.v2c("public"), PDU.GETNEXT,
                new VariableBinding(cell(MigrationTable.ENTRY, MigrationTable.RESULT, VR)),
                new VariableBinding(STATE), new VariableBinding(instance(DrainScalars.RESULT)));
        assertThat(from.get(0).getOid()).isEqualTo(STATE);
        assertThat(from.get(1).getOid()).isEqualTo(instance(DrainScalars.TOTAL));
        assertThat(from.get(2).getOid().startsWith(VmmMib.ROOT)).as(from.get(2).toString()).isFalse();
    }
}
