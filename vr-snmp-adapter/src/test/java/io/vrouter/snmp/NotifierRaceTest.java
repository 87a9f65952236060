package io.vrouter.snmp;

import static io.vrouter.snmp.VmmMib.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.vrouter.core.driver.DriverException;
import io.vrouter.core.driver.DriverListener;
import io.vrouter.core.driver.HypervisorDriver;
import io.vrouter.core.driver.VmRuntime;
import io.vrouter.core.driver.sim.LatencyProfile;
import io.vrouter.core.driver.sim.SimulatedDriver;
import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.Hypervisor;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
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

    /** The simulated host, whose inspect() holds the notifier's thread until the test lets it go. */
    static final class HoldingDriver implements HypervisorDriver {
        final SimulatedDriver host = new SimulatedDriver(LatencyProfile.NONE);
        volatile CountDownLatch hold;
        final CountDownLatch held = new CountDownLatch(1);

        @Override
        public Optional<VmRuntime> inspect(int vmIndex) {
            Optional<VmRuntime> vm = host.inspect(vmIndex);
            CountDownLatch h = hold;
            if (h != null && Thread.currentThread().getName().equals("snmp-notifier")) {
                hold = null;
                held.countDown();
                try {
                    h.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return vm;
        }

        @Override public String name() { return host.name(); }
        @Override public Hypervisor hypervisor() { return host.hypervisor(); }
        @Override public List<String> templates() { return host.templates(); }
        @Override public Set<AdminState> adminStates() { return host.adminStates(); }
        @Override public void provision(VmConfigEntry c) throws DriverException { host.provision(c); }
        @Override public void reconfigure(VmConfigEntry c) throws DriverException { host.reconfigure(c); }
        @Override public void start(int i) throws DriverException { host.start(i); }
        @Override public void stop(int i) throws DriverException { host.stop(i); }
        @Override public void suspend(int i, AdminState how) throws DriverException { host.suspend(i, how); }
        @Override public void destroy(int i) throws DriverException { host.destroy(i); }
        @Override public void addInterface(int i, VmNetworkConfigEntry n) throws DriverException { host.addInterface(i, n); }
        @Override public void removeInterface(int i, int n) throws DriverException { host.removeInterface(i, n); }
        @Override public List<VmRuntime> list() throws DriverException { return host.list(); }
        @Override public void setListener(DriverListener l) { host.setListener(l); }
        @Override public void close() { host.close(); }
    }

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
                driver.hold = release;
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
