package io.vrouter.snmp;

import static org.assertj.core.api.Assertions.assertThat;

import io.vrouter.core.driver.sim.LatencyProfile;
import io.vrouter.core.driver.sim.SimulatedDriver;
import io.vrouter.core.metrics.VrMetrics;
import io.vrouter.core.model.OperState;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VrEvent;
import io.vrouter.core.persistence.ConfigStore;
import io.vrouter.core.service.SingleVr;
import io.vrouter.core.service.VirtualRouterService;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.snmp4j.agent.NotificationOriginator;
import org.snmp4j.agent.mo.snmp.SNMPv2MIB;
import org.snmp4j.smi.OID;
import org.snmp4j.smi.OctetString;
import org.snmp4j.smi.TimeTicks;
import org.snmp4j.smi.VariableBinding;

class NotifierTest {
    @TempDir
    Path dir;

    /**
     * The agent's originator only queues (NotificationQueues), so the notifier hands a VR's notification
     * over on the thread that delivers the event, with no thread of its own in between: by the time a
     * subscriber after it sees the event, the notification is with the originator, from that same thread.
     */
    @Test
    void aNotificationIsHandedOverOnTheThreadThatDeliversItsEvent() throws Exception {
        Map<OID, Thread> handedOver = new ConcurrentHashMap<>();
        NotificationOriginator queues = new NotificationOriginator() {
            @Override
            public Object notify(OctetString context, OID notificationId, VariableBinding[] vbs) {
                handedOver.put(notificationId, Thread.currentThread());
                return null;
            }

            @Override
            public Object notify(OctetString context, OID notificationId, TimeTicks sysUpTime, VariableBinding[] vbs) {
                return notify(context, notificationId, vbs);
            }
        };
        VirtualRouterService service = new VirtualRouterService(new SimulatedDriver(LatencyProfile.NONE),
                new ConfigStore(dir.resolve("config")), VrMetrics.inMemory());
        service.start();
        Map<String, Thread> sawRunning = new ConcurrentHashMap<>();
        Map<String, Boolean> alreadyHandedOver = new ConcurrentHashMap<>();
        try (Notifier notifier = new Notifier(service, queues, new SNMPv2MIB.SysUpTimeImpl());
             AutoCloseable after = service.events().subscribe((VrEvent e) -> {
                 if (e.type == VrEvent.Type.STATE_CHANGED && e.vmOperState == OperState.RUNNING) {
                     alreadyHandedOver.put("running", handedOver.containsKey(VmmMib.VM_RUNNING));
                     sawRunning.put("running", Thread.currentThread());
                 }
             })) {
            VmConfigEntry vr = new VmConfigEntry();
            vr.vmIndex = 7;
            vr.vmName = "prompt";
            assertThat(SingleVr.create(service, vr).await(Duration.ofSeconds(20)).flatMap(v -> v).orElseThrow().operState())
                    .isEqualTo(OperState.RUNNING);
            long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (!sawRunning.containsKey("running") && System.nanoTime() < end) Thread.sleep(5);

            assertThat(alreadyHandedOver).containsEntry("running", true);
            assertThat(handedOver.get(VmmMib.VM_RUNNING)).isSameAs(sawRunning.get("running"));
        } finally {
            service.close();
        }
    }
}
