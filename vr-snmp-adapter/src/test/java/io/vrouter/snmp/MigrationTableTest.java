package io.vrouter.snmp;

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
import org.snmp4j.smi.Integer32;
import org.snmp4j.smi.Null;
import org.snmp4j.smi.OID;
import org.snmp4j.smi.OctetString;
import org.snmp4j.smi.VariableBinding;

/**
 * vmMigrationTable on the real agent with a real snmp4j manager: a SET of vmMigrationPeer is answered
 * while the move still runs (here to a peer that takes the connection and never answers), the VR is
 * migrating meanwhile and a second move or a change of it is resourceUnavailable; when the peer goes,
 * the move ends failed with why, and the VR runs here as before. Every refusal of the SET is SNMP's
 * own error status and changes nothing. (The move that succeeds, between two servers, is MigrationSnmpIT's.)
 */
class MigrationTableTest {
    private static final int VR = 1;

    @TempDir
    Path dir;
    SnmpTestAgent a;
    /** A peer that accepts connections and never answers: a move to it stays migrating until it closes. */
    ServerSocket silent;
    final List<Socket> held = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws Exception {
        silent = new ServerSocket(0);
        Thread accepting = new Thread(() -> {
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
        a = new SnmpTestAgent(dir, LatencyProfile.NONE, settings);
        a.service.useTenants(Tenants.from(Settings.of(settings)));
        a.client.getUSM().addUser(new UsmUser(new OctetString("alice"), AuthSHA.ID, new OctetString("aliceauthpass"),
                PrivAES128.ID, new OctetString("aliceprivpass")));
        assertStatus(a.set(vb(cell(VM_CONFIG_ENTRY, VM_CONFIG_ROW_STATUS, VR), new Integer32(CREATE_AND_GO)),
                vb(cell(VM_CONFIG_ENTRY, VM_NAME, VR), new OctetString("mover"))), PDU.noError);
        await(() -> a.service.get(VR).map(v -> v.operState() == OperState.RUNNING).orElse(false), "VR running");
    }

    @AfterEach
    void stop() throws Exception {
        silent.close();
        for (Socket s : held) s.close();
        a.close();
    }

    private static OID col(int column, int vmIndex) {
        return cell(MigrationTable.ENTRY, column, vmIndex);
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

    @Test
    void aSetIsAnsweredWhileTheMoveRunsAndTheStatusTellsItsEnd() throws Exception {
        assertThat(a.get(col(MigrationTable.STATUS, VR))).isEqualTo(new Integer32(1)); // none
        assertThat(a.get(col(MigrationTable.PEER, VR))).isEqualTo(new OctetString(""));

        // Answered at once: the peer never answers, so a SET that waited for the move would time out here.
        assertStatus(a.set(vb(col(MigrationTable.PEER, VR), new OctetString("silent"))), PDU.noError);
        assertThat(a.get(col(MigrationTable.STATUS, VR))).isEqualTo(new Integer32(2)); // migrating
        assertThat(a.get(col(MigrationTable.PEER, VR))).isEqualTo(new OctetString("silent"));
        await(() -> a.service.get(VR).map(v -> v.operState() == OperState.MIGRATING).orElse(false), "VR migrating");

        // Held while it moves: a second move and a change of it are resourceUnavailable.
        assertStatus(a.set(vb(col(MigrationTable.PEER, VR), new OctetString("silent"))), PDU.resourceUnavailable);
        assertStatus(a.set(vb(cell(VM_CONFIG_ENTRY, VM_NAME, VR), new OctetString("renamed"))), PDU.resourceUnavailable);

        // The peer goes away: the move fails, says why, and the VR runs here as before.
        silent.close();
        for (Socket s : held) s.close();
        await(() -> {
            try {
                return new Integer32(5).equals(a.get(col(MigrationTable.STATUS, VR))); // failed
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }, "the move failed");
        assertThat(a.get(col(MigrationTable.RESULT, VR)).toString()).contains("peer silent", "stays here");
        assertThat(a.get(col(MigrationTable.PEER_VM_INDEX, VR))).isEqualTo(new Integer32(0));
        await(() -> a.service.get(VR).map(v -> v.operState() == OperState.RUNNING).orElse(false), "VR running again");
        assertThat(a.service.getConfig(VR).orElseThrow().vmName).isEqualTo("mover");
    }

    @Test
    void aRefusedSetIsSnmpsOwnErrorAndChangesNothing() throws Exception {
        OID peer = col(MigrationTable.PEER, VR);
        assertStatus(a.set(vb(peer, new OctetString("nope"))), PDU.wrongValue);
        assertStatus(a.set(vb(peer, new OctetString(""))), PDU.wrongValue);
        assertStatus(a.set(vb(peer, new OctetString("x".repeat(65)))), PDU.wrongLength);
        assertStatus(a.set(vb(peer, new Integer32(1))), PDU.wrongType);
        assertStatus(a.set(vb(col(MigrationTable.PEER, 9), new OctetString("silent"))), PDU.inconsistentName);
        assertStatus(a.set(vb(col(MigrationTable.STATUS, VR), new Integer32(2))), PDU.notWritable);
        // a move cannot be undone, so it is asked alone
        assertStatus(a.set(vb(peer, new OctetString("silent")), vb(cell(VM_CONFIG_ENTRY, VM_NAME, VR),
                new OctetString("other"))), PDU.inconsistentValue);
        // a tenant's user: its VR or not, the table is the provider's
        PDU tenant = a.send(a.v3("alice"), PDU.SET, new VariableBinding(peer, new OctetString("silent")));
        assertStatus(tenant, PDU.noAccess);
        PDU read = a.send(a.v3("alice"), PDU.GET, new VariableBinding(col(MigrationTable.STATUS, VR)));
        assertThat(read.get(0).getVariable()).isEqualTo(Null.noSuchInstance);
        PDU walk = a.send(a.v3("alice"), PDU.GETNEXT, new VariableBinding(MigrationTable.TABLE));
        assertThat(walk.get(0).getOid().startsWith(MigrationTable.TABLE)).as(walk.toString()).isFalse();

        assertThat(a.get(col(MigrationTable.STATUS, VR))).isEqualTo(new Integer32(1));
        assertThat(held).as("no peer was asked").isEmpty();
        assertThat(a.service.get(VR).orElseThrow().operState()).isEqualTo(OperState.RUNNING);
        assertThat(a.service.getConfig(VR).orElseThrow().vmName).isEqualTo("mover");
    }

    @Test
    void aWalkGivesEachColumnOfEveryVrsRow() throws Exception {
        assertStatus(a.set(vb(cell(VM_CONFIG_ENTRY, VM_CONFIG_ROW_STATUS, 4), new Integer32(CREATE_AND_GO)),
                vb(cell(VM_CONFIG_ENTRY, VM_NAME, 4), new OctetString("second"))), PDU.noError);
        OID at = MigrationTable.TABLE;
        List<OID> seen = new java.util.ArrayList<>();
        while (true) {
            PDU r = a.send(a.v2c("public"), PDU.GETNEXT, new VariableBinding(at));
            at = r.get(0).getOid();
            if (!at.startsWith(MigrationTable.TABLE)) break;
            seen.add(at);
        }
        assertThat(seen).containsExactly(col(1, 1), col(1, 4), col(2, 1), col(2, 4), col(3, 1), col(3, 4), col(4, 1), col(4, 4));
        // from within a row, or below an instance: the next row of the column, then the next column
        OID below = VmmMib.sub(col(1, 1), 5);
        PDU from = a.send(a.v2c("public"), PDU.GETNEXT, new VariableBinding(below), new VariableBinding(col(2, 4)),
                new VariableBinding(VmmMib.sub(MigrationTable.ENTRY, 3)));
        assertThat(List.of(from.get(0).getOid(), from.get(1).getOid(), from.get(2).getOid()))
                .containsExactly(col(1, 4), col(3, 1), col(3, 1));
        // and the walk goes on from vmObjects 20 into it, and on past it
        PDU before = a.send(a.v2c("public"), PDU.GETNEXT, new VariableBinding(VmmMib.scalar(VM_COMMITTED_MEMORY)));
        assertThat(before.get(0).getOid()).isEqualTo(col(1, 1));
    }
}
