package io.vrouter.netconf.protocol;

import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import io.vrouter.core.service.ConflictException;
import io.vrouter.core.service.NotFoundException;
import io.vrouter.core.service.NotSupportedException;
import io.vrouter.core.service.ValidationException;
import io.vrouter.core.service.VirtualRouterService;
import io.vrouter.core.service.VrException;
import io.vrouter.netconf.protocol.RpcError.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The service calls that turn one configuration into another, as the paper's flow has it: the VRs
 * to create (one atomic batch), per existing VR its reconfiguration (one reconfigure with every
 * changed column; after a stop, before any other admin state change, as REST's PATCH) and its
 * interface changes, and the VRs to remove (last, as a removal cannot be undone). With
 * rollback-on-error the steps already done are undone in reverse when one fails (a reconfigure by
 * one with the old values).
 */
final class Plan {
    private final List<VmConfigEntry> creates = new ArrayList<>();
    private final List<Step> updates = new ArrayList<>();
    private final List<Integer> removals = new ArrayList<>();

    /** One undoable service call. */
    private interface Step {
        void run(VirtualRouterService s);

        void undo(VirtualRouterService s);

        String path();
    }

    /** The plan that turns {@code from} into {@code to}; refuses changes the service cannot make. */
    static Plan between(Map<Integer, VmConfigEntry> from, Map<Integer, VmConfigEntry> to) throws RpcError {
        Plan p = new Plan();
        for (VmConfigEntry c : to.values()) {
            VmConfigEntry old = from.get(c.vmIndex);
            if (old == null) {
                p.creates.add(c);
                continue;
            }
            VmConfigEntry now = EditConfig.completeExisting(old, c);
            int i = c.vmIndex;
            Step admin = old.vmAdminState != now.vmAdminState ? adminState(i, old.vmAdminState, now.vmAdminState) : null;
            VmConfigEntry changes = EditConfig.reconfiguration(old, now);
            Step reconfigure = null;
            if (changes != null) {
                if (changes.vmName != null) renameFree(from, i, changes.vmName);
                reconfigure = reconfigure(i, changes, EditConfig.reconfiguration(now, old));
            }
            // As REST's PATCH: a stop before the reconfiguration (a resize needs the VR shut down),
            // any other admin state after it.
            if (admin != null && now.vmAdminState == AdminState.SHUTDOWN) p.updates.add(admin);
            if (reconfigure != null) p.updates.add(reconfigure);
            if (admin != null && now.vmAdminState != AdminState.SHUTDOWN) p.updates.add(admin);
            for (VmNetworkConfigEntry n : old.interfaces()) {
                VmNetworkConfigEntry m = find(c, n.vmNetworkConfigIndex);
                if (m == null || !EditConfig.sameInterface(n, m)) p.updates.add(removeInterface(c.vmIndex, n));
            }
            for (VmNetworkConfigEntry n : c.interfaces()) {
                VmNetworkConfigEntry m = find(old, n.vmNetworkConfigIndex);
                if (m == null || !EditConfig.sameInterface(n, m)) p.updates.add(addInterface(c.vmIndex, n));
            }
        }
        for (Integer i : from.keySet()) {
            if (!to.containsKey(i)) p.removals.add(i);
        }
        return p;
    }

    boolean isEmpty() {
        return creates.isEmpty() && updates.isEmpty() && removals.isEmpty();
    }

    private static VmNetworkConfigEntry find(VmConfigEntry c, int index) {
        for (VmNetworkConfigEntry n : c.interfaces()) {
            if (Objects.equals(n.vmNetworkConfigIndex, index)) return n;
        }
        return null;
    }

    /**
     * Refuses, before anything is applied, a rename to a name another VR still has when the rename
     * runs: the renames of one edit are applied one by one, before removals, so a name given up by
     * another rename or a removal of the same edit is not free yet.
     */
    private static void renameFree(Map<Integer, VmConfigEntry> from, int vmIndex, String name) throws RpcError {
        for (VmConfigEntry o : from.values()) {
            if (o.vmIndex != vmIndex && name.equals(o.vmName)) {
                throw new RpcError(Type.APPLICATION, "operation-failed", "data-not-unique",
                        Paths.child(Paths.entry(vmIndex), "vmName"), "vmName '" + name + "' is still used by vmIndex "
                        + o.vmIndex + " when VR " + vmIndex + " is renamed: give the name up in an earlier edit")
                        .info("non-unique", Paths.child(Paths.entry(o.vmIndex), "vmName"));
            }
        }
    }

    private static Step adminState(int vmIndex, AdminState was, AdminState now) {
        return new Step() {
            public void run(VirtualRouterService s) {
                s.setAdminState(vmIndex, now);
            }

            public void undo(VirtualRouterService s) {
                s.setAdminState(vmIndex, was);
            }

            public String path() {
                return Paths.child(Paths.entry(vmIndex), "vmAdminState");
            }
        };
    }

    /** One reconfigure with all the changed columns; undone by one with their old values. */
    private static Step reconfigure(int vmIndex, VmConfigEntry changes, VmConfigEntry undo) {
        return new Step() {
            public void run(VirtualRouterService s) {
                s.reconfigure(vmIndex, changes.copy());
            }

            public void undo(VirtualRouterService s) {
                s.reconfigure(vmIndex, undo.copy());
            }

            public String path() {
                return Paths.entry(vmIndex);
            }
        };
    }

    private static Step addInterface(int vmIndex, VmNetworkConfigEntry n) {
        return new Step() {
            public void run(VirtualRouterService s) {
                s.addInterface(vmIndex, n);
            }

            public void undo(VirtualRouterService s) {
                s.removeInterface(vmIndex, n.vmNetworkConfigIndex);
            }

            public String path() {
                return Paths.networkEntry(vmIndex, n.vmNetworkConfigIndex);
            }
        };
    }

    private static Step removeInterface(int vmIndex, VmNetworkConfigEntry n) {
        return new Step() {
            public void run(VirtualRouterService s) {
                s.removeInterface(vmIndex, n.vmNetworkConfigIndex);
            }

            public void undo(VirtualRouterService s) {
                s.addInterface(vmIndex, n);
            }

            public String path() {
                return Paths.networkEntry(vmIndex, n.vmNetworkConfigIndex);
            }
        };
    }

    /** Runs the plan; returns the errors (empty when everything was accepted). */
    List<RpcError> apply(VirtualRouterService service, EditConfig.ErrorOption option) {
        List<RpcError> errors = new ArrayList<>();
        List<Integer> created = new ArrayList<>();
        List<Step> done = new ArrayList<>();
        if (!creates.isEmpty()) {
            try {
                service.createAll(creates).forEach(a -> created.add(a.accepted().vmIndex));
            } catch (VrException e) {
                errors.add(toRpcError(e, creates.size() == 1 ? Paths.entry(creates.get(0).vmIndex) : Paths.CONFIG_TABLE));
                if (option != EditConfig.ErrorOption.CONTINUE_ON_ERROR) return errors;
            }
        }
        for (Step s : updates) {
            try {
                s.run(service);
                done.add(s);
            } catch (VrException e) {
                errors.add(toRpcError(e, s.path()));
                if (option == EditConfig.ErrorOption.CONTINUE_ON_ERROR) continue;
                if (option == EditConfig.ErrorOption.ROLLBACK_ON_ERROR) rollback(service, done, created);
                return errors;
            }
        }
        for (Integer i : removals) {
            try {
                service.remove(i);
            } catch (NotFoundException e) {
                // Gone already (removed over another interface meanwhile): the goal is reached.
            } catch (VrException e) {
                errors.add(toRpcError(e, Paths.entry(i)));
                if (option == EditConfig.ErrorOption.CONTINUE_ON_ERROR) continue;
                if (option == EditConfig.ErrorOption.ROLLBACK_ON_ERROR) rollback(service, done, created);
                return errors;
            }
        }
        return errors;
    }

    private static void rollback(VirtualRouterService service, List<Step> done, List<Integer> created) {
        for (int k = done.size() - 1; k >= 0; k--) {
            try {
                done.get(k).undo(service);
            } catch (VrException ignored) {
                // Best effort: the state is reported by get.
            }
        }
        for (Integer i : created) {
            try {
                service.remove(i);
            } catch (VrException ignored) {
                // Best effort.
            }
        }
    }

    static RpcError toRpcError(VrException e, String path) {
        if (e instanceof ValidationException v) {
            String p = v.field() == null ? path : Paths.child(path, v.field());
            return new RpcError(Type.APPLICATION, "invalid-value", null, p, e.getMessage());
        }
        if (e instanceof ConflictException c) {
            String f = c.field();
            String p = f == null ? path : Paths.child(path, f);
            if ("vmConfigTemplate".equals(f)) {
                return new RpcError(Type.APPLICATION, "operation-not-supported", null, p, e.getMessage())
                        .info("bad-element", f);
            }
            if ("vmConfigMemory".equals(f) || "vmConfigCpuNumber".equals(f)) {
                return new RpcError(Type.APPLICATION, "operation-failed", EditConfig.NOT_SHUT_DOWN, p, e.getMessage())
                        .info("bad-element", f);
            }
            return new RpcError(Type.APPLICATION, "operation-failed", f == null ? null : "data-not-unique", p,
                    e.getMessage());
        }
        if (e instanceof NotFoundException) {
            return new RpcError(Type.APPLICATION, "data-missing", null, path, e.getMessage());
        }
        if (e instanceof NotSupportedException n) {
            // The driver cannot do it (suspend on the netns driver): nothing changed.
            String p = n.field() == null ? path : Paths.child(path, n.field());
            return new RpcError(Type.APPLICATION, "operation-not-supported", null, p, e.getMessage());
        }
        return new RpcError(Type.APPLICATION, "operation-failed", null, path, e.getMessage());
    }
}
