package io.vrouter.it.snmp;

import static org.assertj.core.api.Assertions.assertThat;

import io.vrouter.it.ServerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.snmp4j.CommandResponder;
import org.snmp4j.CommandResponderEvent;
import org.snmp4j.PDU;
import org.snmp4j.Snmp;
import org.snmp4j.mp.SnmpConstants;
import org.snmp4j.smi.Address;
import org.snmp4j.smi.OID;
import org.snmp4j.smi.UdpAddress;
import org.snmp4j.transport.DefaultUdpTransportMapping;

/**
 * An inform target that never answers holds back nothing (issue 23): the server starts, an SNMPv3
 * request with a wrong privacy key gets its Report PDU and a correct one its answer, all while the
 * coldStart and authenticationFailure informs to that target still wait for their acknowledgement.
 * That they still wait is seen on the wire: the agent sends them again after the answers came. Before,
 * the agent waited out each inform's retries (45 s) on the thread that answers requests.
 */
class SnmpInformQueueIT {
    @TempDir
    Path dir;

    /** A notification receiver that never answers: records each inform it gets (resent ones too), in order. */
    private static final class SilentReceiver implements AutoCloseable {
        record Received(int requestId, OID notification) {
        }

        final Snmp snmp;
        private final List<Received> received = new ArrayList<>();

        SilentReceiver() throws Exception {
            snmp = new Snmp(new DefaultUdpTransportMapping(new UdpAddress("127.0.0.1/0")));
            snmp.addCommandResponder(new CommandResponder() {
                @Override
                public <A extends Address> void processPdu(CommandResponderEvent<A> e) {
                    e.setProcessed(true);
                    PDU pdu = e.getPDU();
                    if (pdu.getType() != PDU.INFORM) return;
                    synchronized (received) {
                        received.add(new Received(pdu.getRequestID().getValue(),
                                (OID) pdu.getVariable(SnmpConstants.snmpTrapOID)));
                        received.notifyAll();
                    }
                }
            });
            snmp.listen();
        }

        String target() {
            return "udp:127.0.0.1:" + ((UdpAddress) snmp.getMessageDispatcher().getTransportMappings().iterator().next()
                    .getListenAddress()).getPort();
        }

        int count() {
            synchronized (received) {
                return received.size();
            }
        }

        /** The first inform of this notification received from position {@code from} on (60 s at most). */
        Received await(OID notification, int from) throws InterruptedException {
            return await(r -> r.notification().equals(notification), from, "an inform " + notification);
        }

        /** The inform with this request-id received again, from position {@code from} on (60 s at most). */
        Received awaitAgain(Received inform, int from) throws InterruptedException {
            return await(r -> r.equals(inform), from, "the inform " + inform + " sent again");
        }

        private Received await(java.util.function.Predicate<Received> wanted, int from, String what)
                throws InterruptedException {
            long end = System.nanoTime() + 60_000_000_000L;
            synchronized (received) {
                while (true) {
                    for (Received r : received.subList(Math.min(from, received.size()), received.size())) {
                        if (wanted.test(r)) return r;
                    }
                    long left = (end - System.nanoTime()) / 1_000_000;
                    if (left <= 0) throw new AssertionError("never received " + what + "; received " + received);
                    received.wait(left);
                }
            }
        }

        @Override
        public void close() throws Exception {
            snmp.close();
        }
    }

    /** snmpget of sysUpTime as admin with this privacy passphrase; a minute before it gives up. */
    private static ServerProcess.Result v3get(ServerProcess server, String privPass) throws Exception {
        return ServerProcess.run(List.of("snmpget", "-v3", "-l", "authPriv", "-u", "admin", "-a", "SHA", "-A",
                "adminauthpass", "-x", "AES", "-X", privPass, "-t", "60", "-r", "0", SnmpCliIT.agent(server),
                "1.3.6.1.2.1.1.3.0"));
    }

    @Test
    void anInformTargetThatNeverAnswersHoldsBackNeitherStartUpNorRequests() throws Exception {
        Path config = dir.resolve("vrouter.properties");
        Files.writeString(config, "snmp.trap.type=inform\n");
        try (SilentReceiver dead = new SilentReceiver();
             ServerProcess server = ServerProcess.start(dir.resolve("server"), "--config", config.toString(),
                     "--snmp-trap-target", dead.target())) {
            int ready = dead.count();
            SilentReceiver.Received coldStart = dead.await(SnmpConstants.coldStart, 0);

            ServerProcess.Result wrongPriv = v3get(server, "not-the-priv-pass");
            assertThat(wrongPriv.err()).as(wrongPriv.toString()).contains("Decryption error");
            SilentReceiver.Received authenticationFailure = dead.await(SnmpConstants.authenticationFailure, 0);
            ServerProcess.Result right = v3get(server, "adminprivpass");
            assertThat(right.exit()).as(right.toString()).isZero();
            assertThat(right.out()).contains("Timeticks");
            int answered = dead.count();

            // Sent again after the answers: they were waiting for their acknowledgement all along.
            dead.awaitAgain(authenticationFailure, answered);
            dead.awaitAgain(coldStart, Math.max(ready, answered));
            assertThat(server.metrics()).contains("vrouter_snmp_notifications_dropped_total{target=\""
                    + dead.target() + "\"} 0.0");
        }
    }
}
