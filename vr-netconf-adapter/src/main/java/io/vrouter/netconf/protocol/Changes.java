package io.vrouter.netconf.protocol;

import io.vrouter.core.model.NetworkColumn;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.service.ChangeSet;
import io.vrouter.core.spi.VirtualRouters;
import io.vrouter.core.service.VrException;
import io.vrouter.netconf.protocol.RpcError.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A configuration edited (a candidate, or running edited by an edit-config) handed to the service as
 * the change set from the configuration it started from, and the service's one error as an
 * rpc-error: error-path at the VR's entry (or interface) and the column's leaf, error-tag and
 * error-app-tag by the reason.
 */
final class Changes {
    /** The error-app-tag of a resize refused because the VR is not shut down. */
    static final String NOT_SHUT_DOWN = "vr-not-shut-down";

    private Changes() {
    }

    /**
     * Checks with the service the change from {@code base} to {@code edited}: at the first refusal it
     * stops, or, with {@code dropRefused}, puts the refused VR back in {@code edited} as it is in
     * {@code base} and checks the rest again, so that what is left can be applied. The rows left in
     * {@code edited} are completed as the service would make them (defaults filled in). Returns the
     * refusals.
     */
    static List<RpcError> check(VirtualRouters service, ConfigData base, ConfigData edited, boolean dropRefused) {
        List<RpcError> errors = new ArrayList<>();
        while (true) {
            ChangeSet set = between(base, edited);
            try {
                for (VmConfigEntry row : service.validate(set)) edited.put(row);
                return errors;
            } catch (VrException e) {
                errors.add(error(e));
                Integer i = e.vmIndex();
                if (!dropRefused || i == null || !differs(base, edited, i)) return errors;
                if (base.get(i) == null) edited.remove(i); else edited.put(base.get(i));
            }
        }
    }

    private static boolean differs(ConfigData base, ConfigData edited, int vmIndex) {
        return base.get(vmIndex) != edited.get(vmIndex);
    }

    /** The change set from {@code base} to {@code edited}, found among the rows edited. */
    static ChangeSet between(ConfigData base, ConfigData edited) {
        return ChangeSet.between(edited.changedFrom(base), base::get, edited::get);
    }

    /**
     * What {@link #apply} did: the service's refusal, if any, when the hypervisor work of the change
     * is over, and what makes it durable: the caller calls {@link #awaitDurable} before it replies,
     * once it has let go of the datastores' lock, so that sessions editing at once share one flush of
     * the journal.
     */
    record Applied(List<RpcError> errors, CompletableFuture<?> work, Runnable durable) {
        static Applied nothing(List<RpcError> errors) {
            return new Applied(errors, CompletableFuture.completedFuture(null), () -> { });
        }

        void awaitDurable() {
            durable.run();
        }
    }

    /** Accepts the change from {@code base} to {@code edited} (durable once {@link Applied#awaitDurable} returns). */
    static Applied apply(VirtualRouters service, ConfigData base, ConfigData edited) {
        ChangeSet set = between(base, edited);
        if (set.isEmpty()) return Applied.nothing(List.of());
        try {
            io.vrouter.core.service.Applied accepted = service.accept(set);
            return new Applied(List.of(), accepted.completion(), accepted::awaitDurable);
        } catch (VrException e) {
            return Applied.nothing(List.of(error(e)));
        }
    }

    /** The service's error in NETCONF's terms. */
    static RpcError error(VrException e) {
        String field = e.field();
        String path = path(e.vmIndex(), e.networkIndex(), field);
        RpcError r = switch (e.reason()) {
            case INVALID -> RpcError.invalidValue(path, e.getMessage());
            case MISSING -> new RpcError(Type.APPLICATION, "data-missing", "mandatory", path, e.getMessage());
            case NOT_FOUND -> new RpcError(Type.APPLICATION, "data-missing", null, path, e.getMessage());
            case EXISTS -> new RpcError(Type.APPLICATION, "data-exists", null, path, e.getMessage());
            case NOT_UNIQUE -> new RpcError(Type.APPLICATION, "operation-failed", "data-not-unique", path, e.getMessage());
            case NOT_SHUT_DOWN -> new RpcError(Type.APPLICATION, "operation-failed", NOT_SHUT_DOWN, path, e.getMessage());
            // The operation (changing a template, suspending on this host) is what cannot be done, whatever the value.
            case FIXED, NOT_SUPPORTED -> new RpcError(Type.APPLICATION, "operation-not-supported", null, path, e.getMessage());
            case STATE, FAILED, CHANGED -> new RpcError(Type.APPLICATION, "operation-failed", null, path, e.getMessage());
            case UNAVAILABLE -> new RpcError(Type.APPLICATION, "resource-denied", null, path, e.getMessage());
        };
        return field == null || field.equals("body") ? r : r.info("bad-element", field);
    }

    /** The instance the error is about: the VR's entry or interface, down to the leaf when there is one. */
    private static String path(Integer vmIndex, Integer networkIndex, String field) {
        boolean networkField = field != null && field.startsWith("vmNetworkConfig");
        boolean leaf = field != null && (NetworkColumn.ofField(field) != null || !networkField) && !field.equals("body");
        if (vmIndex == null) return networkField ? Paths.NETWORK_TABLE : Paths.CONFIG_TABLE;
        if (networkIndex != null) {
            String entry = Paths.networkEntry(vmIndex, networkIndex);
            return leaf && networkField ? Paths.child(entry, field) : entry;
        }
        if (networkField) return Paths.NETWORK_TABLE;
        return leaf ? Paths.child(Paths.entry(vmIndex), field) : Paths.entry(vmIndex);
    }
}
