package io.vrouter.snmp;

import static io.vrouter.snmp.VmmMib.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.vrouter.core.model.VmConfigEntry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.snmp4j.CommandResponder;
import org.snmp4j.CommandResponderEvent;
import org.snmp4j.PDU;
import org.snmp4j.Snmp;
import org.snmp4j.mp.SnmpConstants;
import org.snmp4j.smi.OID;
import org.snmp4j.smi.UdpAddress;
import org.snmp4j.transport.DefaultUdpTransportMapping;

/** A VR removed while its notification is being built: the notification still goes out (issue 12). */
class NotifierRaceTest {
    @TempDir
    Path dir;

    @Test
    void aVrRemovedWhileItsNotificationIsBuiltStillGetsIt() throws Exception {
        BlockingQueue<PDU> traps = new LinkedBlockingQueue<>();
        HoldingDriver driver = new HoldingDriver();
        try (Snmp receiver = new Snmp(new DefaultUdpTransportMapping(new UdpAddress("127.0.0.1/0")))) {
            receiver.addCommandResponder(new CommandResponder() {
                @Override
                public <A extends org.snmp4j.smi.Address> void processPdu(CommandResponderEvent<A> e) {
                    traps.add(e.getPDU());
                }
            });
            receiver.listen();
            int port = ((UdpAddress) receiver.getMessageDispatcher().getTransportMappings().iterator().next()
                    .getListenAddress()).getPort();
            try (SnmpTestAgent a = new SnmpTestAgent(dir, driver, Map.of("snmp-trap-target", "udp:127.0.0.1:" + port,
                    "snmp.trap.community", "public"))) {
                a.service.setNotificationsEnabled(true, false);
                VmConfigEntry c = new VmConfigEntry();
                c.vmName = "racer";
                int i = a.service.create(c).await(Duration.ofSeconds(10)).orElseThrow().orElseThrow().vmIndex;
                PDU running = next(traps, VM_RUNNING);
                String uuid = running.getVariable(cell(VM_ENTRY, VM_UUID, i)).toString();

                CountDownLatch release = new CountDownLatch(1);
                driver.hold("snmp-notifier"::equals, release);
                var removal = a.service.remove(i);
                assertThat(driver.held.await(10, TimeUnit.SECONDS)).isTrue();
                // The VR goes while the notifier is reading it for vmShuttingdown.
                removal.await(Duration.ofSeconds(10));
                assertThat(a.service.get(i)).isEmpty();
                release.countDown();

                PDU shuttingDown = next(traps, VM_SHUTTINGDOWN);
                assertThat(shuttingDown.getVariable(cell(VM_CONFIG_ENTRY, VM_NAME, i)).toString()).isEqualTo("racer");
                assertThat(shuttingDown.getVariable(cell(VM_ENTRY, VM_UUID, i)).toString()).isEqualTo(uuid);
                next(traps, VM_DELETED);
            }
        }
    }

    private static PDU next(BlockingQueue<PDU> traps, OID trapOid) throws InterruptedException {
        long end = System.nanoTime() + 5_000_000_000L;
        while (System.nanoTime() < end) {
            PDU p = traps.poll(100, TimeUnit.MILLISECONDS);
            if (p != null && trapOid.equals(p.getVariable(SnmpConstants.snmpTrapOID))) return p;
        }
        throw new AssertionError("no notification " + trapOid);
    }
}
