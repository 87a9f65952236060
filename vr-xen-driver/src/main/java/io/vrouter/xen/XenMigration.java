package io.vrouter.xen;

import com.fasterxml.jackson.databind.JsonNode;
import io.vrouter.core.driver.DriverException;
import io.vrouter.core.driver.LiveMigration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the Xen driver's {@link LiveMigration} does: XenServer moves the running VM. Between pools (one vrouter
 * per pool, the usual case) the destination's {@code host.migrate_receive} gives the token the
 * source's {@code VM.migrate_send} needs, with storage motion of the VM's disks to the destination's SR
 * and each VIF onto the destination's network of the same name-label; within one pool
 * {@code VM.pool_migrate} moves it to the destination's host. The destination then finds it by its
 * name on its host, running, and marks it with its own vmIndex.
 */
final class XenMigration {
    private static final Logger log = LoggerFactory.getLogger(XenMigration.class);
    /** What the destination's answer holds: its pool's and host's UUIDs, the SR for the disks, networks by name-label, the token. */
    static final String POOL = "xen.pool";
    static final String HOST = "xen.host";
    static final String SR = "xen.sr";
    static final String NETWORK = "xen.network:";
    static final String TOKEN = "xen.receive.";

    /** Runs a XenAPI call as a task and waits for it (the driver's). */
    interface Tasks {
        String run(String method, Object... args) throws XenApiException;
    }

    private final XenSettings settings;
    private final XenApiClient api;
    private final Tasks tasks;
    private final LiveMigration.Arrivals arrivals = new LiveMigration.Arrivals();
    /** VRs whose VM XenServer moved to another host of this pool: their removal here must not touch it. */
    private final Set<Integer> movedAway = ConcurrentHashMap.newKeySet();

    XenMigration(XenSettings settings, XenApiClient api, Tasks tasks) {
        this.settings = settings;
        this.api = api;
        this.tasks = tasks;
    }

    Map<String, String> expectArrival(int vmIndex, String vmName) throws DriverException {
        try {
            String pool = pool();
            String host = host(pool);
            Map<String, String> out = new LinkedHashMap<>();
            out.put(POOL, api.call("pool.get_uuid", pool).asText());
            out.put(HOST, api.call("host.get_uuid", host).asText());
            out.put(SR, settings.sr().isPresent() ? findSr(settings.sr().get()) : api.call("pool.get_default_SR", pool).asText());
            JsonNode networks = api.call("network.get_all_records");
            networks.fields().forEachRemaining(e -> out.put(NETWORK + e.getValue().path("name_label").asText(), e.getKey()));
            JsonNode token = api.call("host.migrate_receive", host, migrationNetwork(networks), Map.of());
            token.fields().forEachRemaining(e -> out.put(TOKEN + e.getKey(), e.getValue().asText()));
            movedAway.remove(vmIndex);
            arrivals.expect(vmIndex, vmName);
            return out;
        } catch (XenApiException e) {
            throw new DriverException(e.code(), "XenAPI cannot receive VR " + vmName + ": " + e.getMessage(), e);
        }
    }

    void expectAgain(int vmIndex, String vmName) {
        arrivals.expect(vmIndex, vmName);
    }

    /**
     * Where the VM {@code vm}, marked as a VR of this router, is: leaving while xapi migrates it (its
     * current operations), gone when it no longer exists or runs on another host of the pool, else here.
     */
    LiveMigration.Whereabouts whereabouts(String vm) throws DriverException {
        try {
            JsonNode v = api.call("VM.get_record", vm);
            for (JsonNode op : v.path("current_operations")) {
                if (op.asText().equals("migrate_send") || op.asText().equals("pool_migrate")) return LiveMigration.Whereabouts.LEAVING;
            }
            String residentOn = v.path("resident_on").asText();
            boolean elsewhere = "Running".equals(v.path("power_state").asText()) && !residentOn.equals(host(pool()));
            return elsewhere ? LiveMigration.Whereabouts.GONE : LiveMigration.Whereabouts.HERE;
        } catch (XenApiException e) {
            if (e.code().equals("HANDLE_INVALID")) return LiveMigration.Whereabouts.GONE;
            throw new DriverException(e.code(), "XenAPI: " + e.getMessage(), e);
        }
    }

    void cancelArrival(int vmIndex) {
        arrivals.cancel(vmIndex);
    }

    /**
     * Sends the VM {@code vm} of VR {@code vmIndex} to the destination (see {@link LiveMigration#migrate});
     * true when it left this pool, false when it moved to another host of it.
     */
    boolean migrate(int vmIndex, String vm, Map<String, String> destination) throws DriverException {
        String operation = "VM.migrate_send";
        try {
            String pool = pool();
            if (api.call("pool.get_uuid", pool).asText().equals(destination.get(POOL))) {
                operation = "VM.pool_migrate";
                String host = api.call("host.get_by_uuid", require(destination, HOST)).asText();
                tasks.run(operation, vm, host, Map.of("live", "true"));
                movedAway.add(vmIndex);
                return false;
            }
            Map<String, String> vdis = new LinkedHashMap<>();
            for (JsonNode vbd : api.call("VM.get_VBDs", vm)) {
                String vdi = api.call("VBD.get_VDI", vbd.asText()).asText();
                if (!vdi.equals("OpaqueRef:NULL")) vdis.put(vdi, require(destination, SR));
            }
            Map<String, String> vifs = new LinkedHashMap<>();
            for (JsonNode vif : api.call("VM.get_VIFs", vm)) {
                String label = api.call("network.get_name_label", api.call("VIF.get_network", vif.asText()).asText()).asText();
                String there = destination.get(NETWORK + label);
                if (there == null) {
                    throw new DriverException("VIF_NOT_IN_MAP", "the destination pool has no network '" + label
                            + "' for VR " + vmIndex + "'s interface; the VR stays here");
                }
                vifs.put(vif.asText(), there);
            }
            Map<String, String> token = new LinkedHashMap<>();
            destination.forEach((k, v) -> {
                if (k.startsWith(TOKEN)) token.put(k.substring(TOKEN.length()), v);
            });
            tasks.run(operation, vm, token, true, vdis, vifs, Map.of(), Map.of());
            return true;
        } catch (XenApiException e) {
            // xapi's migration is one task: when it fails, the VM still runs here
            throw new DriverException(e.code(), "XenAPI " + operation + " of VR " + vmIndex + " failed, the VM runs here still: "
                    + e.getMessage(), e);
        }
    }

    /** Whether the provisioning of this VR is to adopt its arriving VM. */
    boolean expected(int vmIndex, String vmName) {
        return arrivals.expected(vmIndex, vmName);
    }

    /** Whether the VR's VM was moved to another host of this pool: its removal here is then only forgetting it. */
    boolean movedAway(int vmIndex) {
        return movedAway.remove(vmIndex);
    }

    /**
     * The destination's provisioning of an expected VR: waits for its VM to run on this host, then
     * marks it (and its disks) with this router's vmIndex. Returns the VM.
     */
    String adopt(int vmIndex, String vmName) throws DriverException {
        String host;
        try {
            host = host(pool());
        } catch (XenApiException e) {
            throw new DriverException(e.code(), "XenAPI: " + e.getMessage(), e);
        }
        String vm = arrivals.await(vmIndex, settings.taskTimeout(), () -> arrived(vmName, host));
        try {
            api.call("VM.remove_from_other_config", vm, XenDriver.MARKER);
            api.call("VM.add_to_other_config", vm, XenDriver.MARKER, Integer.toString(vmIndex));
            for (JsonNode vbd : api.call("VM.get_VBDs", vm)) {
                String vdi = api.call("VBD.get_VDI", vbd.asText()).asText();
                if (vdi.equals("OpaqueRef:NULL")) continue;
                api.call("VDI.remove_from_other_config", vdi, XenDriver.MARKER);
                api.call("VDI.add_to_other_config", vdi, XenDriver.MARKER, Integer.toString(vmIndex));
            }
        } catch (XenApiException e) {
            throw new DriverException(e.code(), "XenAPI: marking the arrived VM of VR " + vmName + " failed: " + e.getMessage(), e);
        }
        log.info("VR {} ({}) arrived by XenAPI migration as {}", vmIndex, vmName, vm);
        return vm;
    }

    /** The VM named vmName running on host, if it has arrived. */
    private Optional<String> arrived(String vmName, String host) throws DriverException {
        try {
            for (JsonNode ref : api.call("VM.get_by_name_label", vmName)) {
                JsonNode v = api.call("VM.get_record", ref.asText());
                if (host.equals(v.path("resident_on").asText()) && "Running".equals(v.path("power_state").asText())) {
                    return Optional.of(ref.asText());
                }
            }
            return Optional.empty();
        } catch (XenApiException e) {
            throw new DriverException(e.code(), "XenAPI: " + e.getMessage(), e);
        }
    }

    private String pool() throws XenApiException {
        for (JsonNode p : api.call("pool.get_all")) return p.asText();
        throw new XenApiException("HANDLE_INVALID", List.of("pool"));
    }

    /** This router's host of the pool: {@code xen.host}, else the pool's master. */
    private String host(String pool) throws XenApiException {
        if (settings.host().isPresent()) {
            for (JsonNode h : api.call("host.get_by_name_label", settings.host().get())) return h.asText();
            throw new XenApiException("HOST_NOT_FOUND", List.of(settings.host().get()));
        }
        return api.call("pool.get_master", pool).asText();
    }

    private String migrationNetwork(JsonNode networks) throws XenApiException {
        for (var it = networks.fields(); it.hasNext(); ) {
            var e = it.next();
            String label = e.getValue().path("name_label").asText();
            if (settings.migrationNetwork().map(label::equals).orElse(e.getValue().path("PIFs").size() > 0)) return e.getKey();
        }
        throw new XenApiException("NETWORK_NOT_FOUND", List.of(settings.migrationNetwork().orElse("a network with a PIF")));
    }

    private String findSr(String nameOrUuid) throws XenApiException {
        for (JsonNode ref : api.call("SR.get_by_name_label", nameOrUuid)) return ref.asText();
        return api.call("SR.get_by_uuid", nameOrUuid).asText();
    }

    private static String require(Map<String, String> destination, String key) throws DriverException {
        String v = destination.get(key);
        if (v == null) throw new DriverException("INVALID_DESTINATION", "the destination's answer names no " + key);
        return v;
    }
}
