package io.vrouter.yang;

import io.vrouter.core.model.LinkStatus;
import io.vrouter.core.model.OperState;
import io.vrouter.core.model.VrEvent;
import io.vrouter.core.spi.VirtualRouters;
import java.util.Locale;
import java.util.Optional;

/**
 * VR events as the per-VM notifications of NEW-VMM-MIB (those of RFC 7666 that SNMP sends too):
 * a state change to running is vmRunning, to shutdown vmShutdown, and so on; a removal is vmDeleted.
 * Transitions to preparing and configuration changes have no notification of their own. As over
 * SNMP, notifications follow the vmPerVMNotificationsEnabled switch, and vmDeleted carries vmName,
 * vmUUID (the event's: the VR's when it happened), vmOperState (the state before) and vmPersistent. A link
 * going up or down is vmLinkStatusChanged, with vmName and the interface's vmNetworkLinkStatus. NETCONF's
 * stream and RESTCONF's carry them.
 */
public final class Notifications {
    private Notifications() {
    }

    /** The notification's name for an event, or empty when the event has none. */
    public static Optional<String> name(VrEvent e) {
        if (e.type == VrEvent.Type.DELETED) return Optional.of("vmDeleted");
        if (e.type == VrEvent.Type.LINK_CHANGED) return Optional.of("vmLinkStatusChanged");
        if (e.type != VrEvent.Type.STATE_CHANGED || e.vmOperState == null || e.vmOperState == e.previousOperState) {
            return Optional.empty();
        }
        OperState s = e.vmOperState;
        switch (s) {
            case RUNNING: case SHUTTINGDOWN: case SHUTDOWN: case PAUSED: case SUSPENDING: case SUSPENDED:
            case RESUMING: case MIGRATING: case CRASHED:
                String l = s.label();
                return Optional.of("vm" + l.substring(0, 1).toUpperCase(Locale.ROOT) + l.substring(1));
            default:
                return Optional.empty();
        }
    }

    /** The notification's content element (what follows eventTime), or empty. */
    public static Optional<DataNode> content(VrEvent e, VirtualRouters service) {
        if (!service.perVmNotificationsEnabled()) return Optional.empty();
        if (e.type == VrEvent.Type.LINK_CHANGED) {
            VrEvent.LeafChange c = e.changes.get(0);
            DataNode.Inner body = DataNode.inner(Ns.VMM, "vmLinkStatusChanged");
            body.add(DataNode.inner(Ns.VMM, "vmName").add("vmIndex", e.vmIndex).add("vmName", e.vmName));
            body.add(DataNode.inner(Ns.VMM, "vmNetworkLinkStatus").add("vmIndex", e.vmIndex)
                    .add("vmNetworkIndex", c.networkIndex()).add("vmNetworkLinkStatus", ((LinkStatus) c.after()).label()));
            return Optional.of(body);
        }
        return name(e).map(n -> {
            // the VR's vmUUID when the event happened, as SNMP's notification carries it: live or replayed, VR there or gone
            String uuid = e.vmUUID;
            DataNode.Inner body = DataNode.inner(Ns.VMM, n);
            body.add(DataNode.inner(Ns.VMM, "vmName").add("vmIndex", e.vmIndex).add("vmName", e.vmName));
            if (uuid != null) body.add(DataNode.inner(Ns.VMM, "vmUUID").add("vmIndex", e.vmIndex).add("vmUUID", uuid));
            // vmDeleted's vmOperState is the state the VR was in before (RFC 7666).
            OperState state = e.type == VrEvent.Type.DELETED ? e.previousOperState : e.vmOperState;
            body.add(DataNode.inner(Ns.VMM, "vmOperState").add("vmIndex", e.vmIndex)
                    .add("vmOperState", (state == null ? OperState.UNKNOWN : state).label()));
            if (e.type == VrEvent.Type.DELETED) {
                // The VRs vrouter makes are persistent (their configuration survives a restart).
                body.add(DataNode.inner(Ns.VMM, "vmPersistent").add("vmIndex", e.vmIndex).add("vmPersistent", "persistent"));
            }
            return body;
        });
    }
}
