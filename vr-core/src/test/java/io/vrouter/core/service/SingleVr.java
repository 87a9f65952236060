package io.vrouter.core.service;

import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import io.vrouter.core.spi.Accepted;
import io.vrouter.core.spi.ChangeSet;
import io.vrouter.core.spi.ValidationException;
import java.util.List;

/**
 * Writes of one VR at a time, for tests: each builds a one-change {@link ChangeSet} and applies it.
 * The service itself only takes change sets; the adapters build their own (issue 22). Shared with
 * the other modules' tests through vr-core's test-jar.
 */
public final class SingleVr {
    private SingleVr() {
    }

    /** Creates one VR. */
    public static Accepted create(VirtualRouterService service, VmConfigEntry request) {
        if (request == null) throw new ValidationException("body", "a VR description is required");
        return service.apply(ChangeSet.builder().create(request).build()).only();
    }

    /** Creates several VRs as one transaction: either all are accepted or none is. */
    public static List<Accepted> createAll(VirtualRouterService service, List<VmConfigEntry> requests) {
        ChangeSet.Builder b = ChangeSet.builder();
        for (VmConfigEntry r : requests) b.create(r);
        return service.apply(b.build()).routers();
    }

    /** Removes a VR: shuts it down, destroys it on the host, and forgets it. */
    public static Accepted remove(VirtualRouterService service, int vmIndex) {
        return service.apply(ChangeSet.builder().remove(vmIndex).build()).only();
    }

    /** Changes what the operator wants the VR to be: running, shutdown, suspended or paused. */
    public static Accepted setAdminState(VirtualRouterService service, int vmIndex, AdminState target) {
        if (target == null) throw new ValidationException("vmAdminState", "is required");
        return service.apply(ChangeSet.builder().edit(vmIndex, row -> row.vmAdminState = target).build()).only();
    }

    /**
     * Changes columns of a VR's row (null columns stay as they are): vmName, vmConfigCpuNumber,
     * vmConfigMemory (while shut down), vmConfigAutoStart. vmAdminState and the interfaces have calls
     * of their own here; a change set does all at once.
     */
    public static Accepted reconfigure(VirtualRouterService service, int vmIndex, VmConfigEntry changes) {
        if (changes == null) throw new ValidationException("body", "the columns to change are required");
        if (changes.vmAdminState != null) {
            throw new ValidationException("vmAdminState", "is changed by starting, stopping, suspending or pausing the VR");
        }
        if (changes.vmNetworkConfigTable != null && !changes.vmNetworkConfigTable.isEmpty()) {
            throw new ValidationException("vmNetworkConfigTable", "interfaces are added and removed one at a time");
        }
        return service.apply(ChangeSet.builder().edit(vmIndex, ChangeSet.columns(changes)).build()).only();
    }

    /**
     * Adds an interface (a vmNetworkConfigTable row) to a VR. When the request has no
     * vmNetworkConfigIndex, the lowest free one is chosen and set on the request.
     */
    public static Accepted addInterface(VirtualRouterService service, int vmIndex, VmNetworkConfigEntry request) {
        if (request == null) throw new ValidationException("body", "an interface description is required");
        return service.apply(ChangeSet.builder().edit(vmIndex, ChangeSet.addInterface(request)).build()).only();
    }

    /** Removes an interface from a VR. */
    public static Accepted removeInterface(VirtualRouterService service, int vmIndex, int networkIndex) {
        return service.apply(ChangeSet.builder().edit(vmIndex, ChangeSet.removeInterface(networkIndex)).build()).only();
    }
}
