package io.vrouter.netconf.protocol;

import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import io.vrouter.core.service.ConflictException;
import io.vrouter.core.service.NotFoundException;
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
 * to create (one atomic batch), admin state and interface changes, and the VRs to remove (last, as
 * a removal cannot be undone). With rollback-on-error the steps already done are undone in reverse
 * when one fails.
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
            EditConfig.completeExisting(old, c);
            if (old.vmAdminState != c.vmAdminState) {
                AdminState was = old.vmAdminState;
                AdminState now = c.vmAdminState;
                int i = c.vmIndex;
                p.updates.add(new Step() {
                    public void run(VirtualRouterService s) {
                        s.setAdminState(i, now);
                    }

                    public void undo(VirtualRouterService s) {
                        s.setAdminState(i, was);
                    }

                    public String path() {
                        return Paths.child(Paths.entry(i), "vmAdminState");
                    }
                });
            }
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
            String p = c.field() == null ? path : Paths.child(path, c.field());
            return new RpcError(Type.APPLICATION, "operation-failed", c.field() == null ? null : "data-not-unique", p,
                    e.getMessage());
        }
        if (e instanceof NotFoundException) {
            return new RpcError(Type.APPLICATION, "data-missing", null, path, e.getMessage());
        }
        return new RpcError(Type.APPLICATION, "operation-failed", null, path, e.getMessage());
    }
}
