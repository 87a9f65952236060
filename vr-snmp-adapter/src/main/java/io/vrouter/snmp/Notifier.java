package io.vrouter.snmp;

import static io.vrouter.snmp.VmmMib.*;

import io.vrouter.core.model.OperState;
import io.vrouter.core.model.VirtualRouter;
import io.vrouter.core.model.VrEvent;
import io.vrouter.core.service.VirtualRouterService;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.snmp4j.agent.NotificationOriginator;
import org.snmp4j.smi.Integer32;
import org.snmp4j.smi.OID;
import org.snmp4j.smi.OctetString;
import org.snmp4j.smi.VariableBinding;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns service events into RFC 7666-style notifications: a VR that reaches running, shutdown, paused,
 * suspended or crashed (or passes through shuttingdown, suspending, resuming, migrating) gives the
 * notification of that state; a VR that is gone gives vmDeleted. Sent on a thread of its own, so the
 * service's workers never wait for the network; vmPerVMNotificationsEnabled switches them off.
 */
final class Notifier implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Notifier.class);

    private final VirtualRouterService service;
    private final NotificationOriginator originator;
    private final ExecutorService sender = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "snmp-notifier");
        t.setDaemon(true);
        return t;
    });
    /** The last known vmUUID of each VR, for vmDeleted, which is sent when the VR is gone. */
    private final Map<Integer, String> uuids = new ConcurrentHashMap<>();
    private final AutoCloseable subscription;

    Notifier(VirtualRouterService service, NotificationOriginator originator) {
        this.service = service;
        this.originator = originator;
        this.subscription = service.events().subscribe(this::onEvent);
    }

    static OID notificationFor(OperState state) {
        if (state == null) return null;
        return switch (state) {
            case RUNNING -> VM_RUNNING;
            case SHUTTINGDOWN -> VM_SHUTTINGDOWN;
            case SHUTDOWN -> VM_SHUTDOWN;
            case PAUSED -> VM_PAUSED;
            case SUSPENDING -> VM_SUSPENDING;
            case SUSPENDED -> VM_SUSPENDED;
            case RESUMING -> VM_RESUMING;
            case MIGRATING -> VM_MIGRATING;
            case CRASHED -> VM_CRASHED;
            default -> null;
        };
    }

    private void onEvent(VrEvent e) {
        if (!service.perVmNotificationsEnabled()) return;
        OID trap;
        if (e.type == VrEvent.Type.DELETED) {
            trap = VM_DELETED;
        } else if (e.type == VrEvent.Type.STATE_CHANGED && e.vmOperState != e.previousOperState) {
            trap = notificationFor(e.vmOperState);
        } else {
            trap = null;
        }
        if (trap == null) return;
        sender.execute(() -> send(e, trap));
    }

    private void send(VrEvent e, OID trap) {
        try {
            int i = e.vmIndex;
            String uuid;
            if (e.type == VrEvent.Type.DELETED) {
                uuid = uuids.remove(i);
            } else {
                uuid = service.get(i).map(VirtualRouter::operState).isPresent()
                        ? service.get(i).get().vmEntry.vmUUID : null;
                if (uuid != null) uuids.put(i, uuid);
            }
            VariableBinding[] vbs = e.type == VrEvent.Type.DELETED
                    ? new VariableBinding[]{
                            new VariableBinding(cell(VM_CONFIG_ENTRY, VM_NAME, i), Codec.text(e.vmName)),
                            new VariableBinding(cell(VM_ENTRY, VM_UUID, i), Codec.uuid(uuid)),
                            new VariableBinding(cell(VM_ENTRY, VM_PERSISTENT, i), new Integer32(2))}
                    : new VariableBinding[]{
                            new VariableBinding(cell(VM_CONFIG_ENTRY, VM_NAME, i), Codec.text(e.vmName)),
                            new VariableBinding(cell(VM_ENTRY, VM_UUID, i), Codec.uuid(uuid)),
                            new VariableBinding(cell(VM_ENTRY, VM_OPER_STATE, i), new Integer32(e.vmOperState.code()))};
            originator.notify(new OctetString(), trap, vbs);
            log.debug("sent {} for VR {}", trap, i);
        } catch (RuntimeException ex) {
            log.warn("could not send the notification for {}: {}", e, ex.toString());
        }
    }

    @Override
    public void close() {
        try {
            subscription.close();
        } catch (Exception ignored) {
            // nothing to release
        }
        sender.shutdown();
        try {
            sender.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
