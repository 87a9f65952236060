package io.vrouter.snmp;

import static io.vrouter.snmp.SnmpTestAgent.vb;
import static io.vrouter.snmp.VmmMib.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.vrouter.core.driver.sim.LatencyProfile;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.snmp4j.PDU;
import org.snmp4j.ScopedPDU;
import org.snmp4j.Snmp;
import org.snmp4j.TransportStateReference;
import org.snmp4j.mp.MPv3;
import org.snmp4j.smi.Integer32;
import org.snmp4j.smi.OctetString;
import org.snmp4j.smi.UdpAddress;
import org.snmp4j.transport.DefaultUdpTransportMapping;

/**
 * A captured authPriv SET sent again within the time window (issue 12): carried out twice unless
 * snmp.v3.replay-protection (the default) drops it.
 */
class ReplayTest {
    @TempDir
    Path dir;

    /** The manager's transport, keeping the last message it sent, as someone on the path could. */
    static final class Recording extends DefaultUdpTransportMapping {
        volatile byte[] last;

        Recording() throws java.io.IOException {
            super();
        }

        @Override
        public void sendMessage(UdpAddress to, byte[] message, TransportStateReference state, long timeout, int retries)
                throws java.io.IOException {
            last = message.clone();
            super.sendMessage(to, message, state, timeout, retries);
        }
    }

    private static boolean replayCreates(Path dir, Map<String, String> settings) throws Exception {
        try (SnmpTestAgent a = new SnmpTestAgent(dir, LatencyProfile.NONE, settings)) {
            Recording wire = new Recording();
            try (Snmp manager = new Snmp(wire)) {
                manager.listen();
                var target = a.v3("admin");
                target.setTimeout(5_000);
                ScopedPDU create = new ScopedPDU();
                create.setType(PDU.SET);
                create.add(vb(cell(VM_CONFIG_ENTRY, VM_CONFIG_ROW_STATUS, 7), new Integer32(CREATE_AND_GO)));
                create.add(vb(cell(VM_CONFIG_ENTRY, VM_NAME, 7), new OctetString("replayed")));
                PDU created = manager.send(create, target).getResponse();
                assertThat(created.getErrorStatus()).isEqualTo(PDU.noError);
                byte[] captured = wire.last;
                // The operator removes the VR; then the captured creation comes again.
                PDU removed = a.set(vb(cell(VM_CONFIG_ENTRY, VM_CONFIG_ROW_STATUS, 7), new Integer32(DESTROY)));
                assertThat(removed.getErrorStatus()).isEqualTo(PDU.noError);
                awaitGone(a, 7);
                try (DatagramSocket attacker = new DatagramSocket()) {
                    attacker.send(new DatagramPacket(captured, captured.length, InetAddress.getLoopbackAddress(), a.port));
                    attacker.setSoTimeout(2_000);
                    byte[] buf = new byte[65_535];
                    try {
                        attacker.receive(new DatagramPacket(buf, buf.length));
                    } catch (java.net.SocketTimeoutException dropped) {
                        // no answer: dropped
                    }
                }
                return a.service.getConfig(7).isPresent();
            }
        }
    }

    private static void awaitGone(SnmpTestAgent a, int vmIndex) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (a.service.getConfig(vmIndex).isPresent() && System.nanoTime() < deadline) Thread.sleep(10);
        assertThat(a.service.getConfig(vmIndex)).isEmpty();
    }

    @Test
    void aReplayedSetIsDroppedByDefault() throws Exception {
        assertThat(replayCreates(dir.resolve("protected"), Map.of())).isFalse();
    }

    /**
     * Two managers of one user that happen on the same msgID (processes forked from one that had used
     * Net-SNMP's library send the same sequence; the benchmark's SNMPv3 clients did): different SETs,
     * both carried out.
     */
    @Test
    void twoManagersOnTheSameMsgIdAreBothCarriedOut() throws Exception {
        try (SnmpTestAgent a = new SnmpTestAgent(dir.resolve("twins"), LatencyProfile.NONE, Map.of())) {
            for (int vmIndex : new int[] {8, 9}) {
                try (Snmp manager = new Snmp(new DefaultUdpTransportMapping())) {
                    manager.listen();
                    var target = a.v3("admin");
                    target.setTimeout(3_000);
                    target.setRetries(0);
                    ScopedPDU read = new ScopedPDU();
                    read.add(new org.snmp4j.smi.VariableBinding(cell(VM_CONFIG_ENTRY, VM_NAME, vmIndex)));
                    assertThat(manager.send(read, target).getResponse()).isNotNull(); // the engine discovered
                    ((MPv3) manager.getMessageDispatcher().getMessageProcessingModel(MPv3.ID)).setCurrentMsgID(4242);
                    ScopedPDU create = new ScopedPDU();
                    create.setType(PDU.SET);
                    create.add(vb(cell(VM_CONFIG_ENTRY, VM_CONFIG_ROW_STATUS, vmIndex), new Integer32(CREATE_AND_GO)));
                    create.add(vb(cell(VM_CONFIG_ENTRY, VM_NAME, vmIndex), new OctetString("twin-" + vmIndex)));
                    PDU created = manager.send(create, target).getResponse();
                    assertThat(created).as("answer to manager %d's SET", vmIndex).isNotNull();
                    assertThat(created.getErrorStatus()).isEqualTo(PDU.noError);
                }
            }
            assertThat(a.service.getConfig(8)).isPresent();
            assertThat(a.service.getConfig(9)).isPresent();
        }
    }

    @Test
    void withoutTheProtectionTheReplayCreatesTheVrAgain() throws Exception {
        assertThat(replayCreates(dir.resolve("open"), Map.of("snmp.v3.replay-protection", "false"))).isTrue();
    }
}
