package io.vrouter.snmp;

import static io.vrouter.snmp.VmmMib.*;

import io.vrouter.core.model.LinkStatus;
import io.vrouter.core.model.OperState;
import io.vrouter.core.model.Schema;
import io.vrouter.core.model.VmEntry;
import io.vrouter.core.model.VrEvent;
import io.vrouter.core.spi.VirtualRouters;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.snmp4j.agent.NotificationOriginator;
import org.snmp4j.agent.mo.snmp.SysUpTime;
import org.snmp4j.smi.Integer32;
import org.snmp4j.smi.OID;
import org.snmp4j.smi.OctetString;
import org.snmp4j.smi.TimeTicks;
import org.snmp4j.smi.VariableBinding;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns service events into RFC 7666-style notifications: a VR that reaches running, shutdown, paused,
 * suspended or crashed (or passes through shuttingdown, suspending, resuming, migrating) gives the
 * notification of that state; a VR that is gone gives vmDeleted; vmPerVMNotificationsEnabled switches
 * them off. Handed to the originator on the thread that delivers the event: the agent's originator
 * ({@link NotificationQueues}) only queues it for each target's sender and never waits for the network,
 * so a thread of this notifier's own in between was one more hand-off per notification (about 1-2% of
 * the server's CPU per VR created or removed, issue 22).
 *
 * <p>With vmBulkNotificationsEnabled, VRs that reach the same state within {@value #BULK_WINDOW_MILLIS} ms
 * (two or more of them) are also announced together by the bulk form (vmBulkRunning, ...), whose
 * vmAffectedVMs bitmap names them (VRs with a vmIndex up to {@value #MAX_BULK_INDEX}).
 */
final class Notifier implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Notifier.class);

    private final VirtualRouters service;
    private final NotificationOriginator originator;
    private final SysUpTime sysUpTime;
    static final long BULK_WINDOW_MILLIS = 1000;
    static final int MAX_BULK_INDEX = 8 * 1024;

    /** vmIndex values per per-VR notification, collected for the bulk form. */
    private final Map<OID, TreeSet<Integer>> bulk = new LinkedHashMap<>();
    private boolean bulkScheduled;
    /** Sends the bulk form when its window closes. */
    private final ScheduledThreadPoolExecutor bulkTimer = new ScheduledThreadPoolExecutor(1, r -> {
        Thread t = new Thread(r, "snmp-notifier");
        t.setDaemon(true);
        return t;
    });
    private final AutoCloseable subscription;
    /** Also send each notification RFC 7666 defines in its own form, under mib-2.236 (snmp.trap.vm-mib). */
    private final boolean alsoVmMib;

    Notifier(VirtualRouters service, NotificationOriginator originator, SysUpTime sysUpTime) {
        this(service, originator, sysUpTime, false);
    }

    Notifier(VirtualRouters service, NotificationOriginator originator, SysUpTime sysUpTime, boolean alsoVmMib) {
        this.service = service;
        this.originator = originator;
        this.sysUpTime = sysUpTime;
        this.alsoVmMib = alsoVmMib;
        this.bulkTimer.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
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
        if (e.type == VrEvent.Type.LINK_CHANGED) {
            if (service.perVmNotificationsEnabled()) sendLink(e);
            return;
        }
        OID trap;
        if (e.type == VrEvent.Type.DELETED) {
            trap = VM_DELETED;
        } else if (e.type == VrEvent.Type.STATE_CHANGED && e.vmOperState != e.previousOperState) {
            trap = notificationFor(e.vmOperState);
        } else {
            trap = null;
        }
        if (trap == null) return;
        if (service.perVmNotificationsEnabled()) send(e, trap);
        if (service.bulkNotificationsEnabled() && e.vmIndex <= MAX_BULK_INDEX) {
            synchronized (bulk) {
                bulk.computeIfAbsent(trap, k -> new TreeSet<>()).add(e.vmIndex);
                if (!bulkScheduled) {
                    bulkScheduled = true;
                    bulkTimer.schedule(this::flushBulk, BULK_WINDOW_MILLIS, TimeUnit.MILLISECONDS);
                }
            }
        }
    }

    /** RFC 7666 VirtualMachineList: octet 1 holds VRs 1..8, most significant bit first. */
    static OctetString vmList(Iterable<Integer> indices) {
        int max = 0;
        for (int i : indices) max = Math.max(max, i);
        byte[] bits = new byte[(max + 7) / 8];
        for (int i : indices) bits[(i - 1) / 8] |= (byte) (0x80 >>> ((i - 1) % 8));
        return new OctetString(bits);
    }

    private void flushBulk() {
        Map<OID, TreeSet<Integer>> batch;
        synchronized (bulk) {
            batch = new LinkedHashMap<>(bulk);
            bulk.clear();
            bulkScheduled = false;
        }
        batch.forEach((perVm, indices) -> {
            if (indices.size() < 2) return;
            OID bulkOid = new OID(perVm);
            bulkOid.set(bulkOid.size() - 1, perVm.last() + 10);
            try {
                notify(bulkOid, new VariableBinding[]{new VariableBinding(scalar(VM_AFFECTED_VMS), vmList(indices))});
            } catch (RuntimeException ex) {
                log.warn("could not send the bulk notification {}: {}", bulkOid, ex.toString());
            }
        });
    }

    /** vmLinkStatusChanged: vmName and the interface's vmNetworkLinkStatus, as the event's one change says. */
    private void sendLink(VrEvent e) {
        VrEvent.LeafChange c = e.changes.get(0);
        VariableBinding[] vbs = {
                new VariableBinding(cell(VM_CONFIG_ENTRY, VM_NAME, e.vmIndex), Codec.text(e.vmName)),
                new VariableBinding(cell(VM_NETWORK_ENTRY, Schema.Network.LINK_STATUS.snmpColumn(), e.vmIndex, c.networkIndex()),
                        new Integer32(((LinkStatus) c.after()).code()))};
        try {
            notify(VM_LINK_STATUS_CHANGED, vbs);
        } catch (RuntimeException ex) {
            log.warn("could not send the notification for {}: {}", e, ex.toString());
        }
    }

    /** Sends what the event carries, the VR's vmUUID when it happened among it (the VR may be gone by now). */
    private void send(VrEvent e, OID trap) {
        int i = e.vmIndex;
        VariableBinding[] vbs = varbinds(e, e.vmUUID);
        try {
            notify(trap, vbs);
            log.debug("sent {} for VR {}", trap, i);
        } catch (RuntimeException ex) {
            log.warn("could not send the notification for {}: {}", e, ex.toString());
        }
    }

    /**
     * Sends a NEW-VMM-MIB notification, and with snmp.trap.vm-mib the same in RFC 7666's VM-MIB
     * (vmMIB, mib-2.236: its notification and objects are NEW-VMM-MIB's under the other arc, vmName
     * vmTable's column 2 there) when RFC 7666 defines it (not vmLinkStatusChanged).
     */
    private void notify(OID trap, VariableBinding[] vbs) {
        originator.notify(new OctetString(), trap, Uptime.of(sysUpTime), vbs);
        OID rfcTrap = alsoVmMib ? Rfc7666Instrumentation.toRfc(trap) : null;
        if (rfcTrap == null) return;
        VariableBinding[] rfcVbs = new VariableBinding[vbs.length];
        for (int n = 0; n < vbs.length; n++) {
            rfcVbs[n] = new VariableBinding(Rfc7666Instrumentation.toRfc(vbs[n].getOid()), vbs[n].getVariable());
        }
        originator.notify(new OctetString(), rfcTrap, Uptime.of(sysUpTime), rfcVbs);
    }

    /**
     * The notification's OBJECTS, as NEW-VMM-MIB (and RFC 7666) lists them: vmName, vmUUID, vmOperState,
     * and for vmDeleted vmPersistent after them, with vmOperState the state the VR was in before.
     */
    private static VariableBinding[] varbinds(VrEvent e, String uuid) {
        int i = e.vmIndex;
        VariableBinding name = new VariableBinding(cell(VM_CONFIG_ENTRY, VM_NAME, i), Codec.text(e.vmName));
        VariableBinding id = new VariableBinding(cell(VM_ENTRY, VM_UUID, i), Codec.uuid(uuid));
        if (e.type != VrEvent.Type.DELETED) {
            return new VariableBinding[]{name, id, operState(i, e.vmOperState)};
        }
        return new VariableBinding[]{name, id, operState(i, e.previousOperState),
                new VariableBinding(cell(VM_ENTRY, VM_PERSISTENT, i), new Integer32(VmEntry.Persistent.PERSISTENT.code()))};
    }

    private static VariableBinding operState(int vmIndex, OperState state) {
        return new VariableBinding(cell(VM_ENTRY, VM_OPER_STATE, vmIndex),
                new Integer32((state == null ? OperState.UNKNOWN : state).code()));
    }

    /**
     * sysUpTime.0 as the notification carries it. snmp4j-agent writes every notification it sends into
     * a log message (built whether or not the level lets it out), and TimeTicks formats itself there
     * with a new {@link java.text.MessageFormat} each time: that was about a tenth of the server's CPU
     * per VR created or removed over SNMP (issue 16). The same text, formatted by hand.
     */
    static final class Uptime extends TimeTicks {
        Uptime(long ticks) {
            super(ticks);
        }

        static Uptime of(SysUpTime clock) {
            return new Uptime(clock.get().getValue());
        }

        @Override
        public Object clone() {
            return new Uptime(getValue());
        }

        /** [days,]h:mm:ss.hh, as {@link TimeTicks#toString()}. */
        @Override
        public String toString() {
            long t = getValue();
            long days = t / 8_640_000;
            StringBuilder b = new StringBuilder(24);
            if (days == 1) b.append("1 day, ");
            else if (days > 1) b.append(days).append(" days, ");
            b.append(t / 360_000 % 24).append(':');
            two(b, t / 6000 % 60).append(':');
            two(b, t / 100 % 60).append('.');
            return two(b, t % 100).toString();
        }

        private static StringBuilder two(StringBuilder b, long v) {
            return (v < 10 ? b.append('0') : b).append(v);
        }
    }

    @Override
    public void close() {
        try {
            subscription.close();
        } catch (Exception ignored) {
            // nothing to release
        }
        bulkTimer.shutdown();
        try {
            bulkTimer.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
