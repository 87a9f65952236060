package io.vrouter.xen;

import static io.vrouter.xen.XenReads.nicIndex;
import static io.vrouter.xen.XenReads.parsePower;
import static io.vrouter.xen.XenReads.power;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vrouter.core.driver.CpuWeights;
import io.vrouter.core.driver.DriverException;
import io.vrouter.core.driver.DriverListener;
import io.vrouter.core.driver.HypervisorDriver;
import io.vrouter.core.driver.Interfaces;
import io.vrouter.core.driver.Links;
import io.vrouter.core.driver.LiveMigration;
import io.vrouter.core.driver.PowerStates;
import io.vrouter.core.driver.PowerState;
import io.vrouter.core.driver.RateLimits;
import io.vrouter.core.driver.VmRuntime;
import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.Hypervisor;
import io.vrouter.core.model.InetAddressType;
import io.vrouter.core.model.LinkType;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.OptionalInt;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * VRs as XenServer (XCP-ng) VMs, through XenAPI's JSON-RPC endpoint: the driver's lifecycle, power
 * states and interfaces are here; its reads are {@link XenReads}, and the host's objects they read are
 * a {@link XenCache} that the {@link XenEventFeed} keeps current.
 *
 * <p>A VR's VM is a clone (or, with {@code xen.sr}, a copy) of a template, marked as ours by the
 * key {@value #MARKER} in its other_config. Long operations run as XenAPI tasks ({@code Async.*})
 * with a timeout. What {@link #inspect} reports comes from a cache of the host's objects that a
 * thread keeps current with {@code event.from}; the same feed tells the {@link DriverListener} of
 * power changes and deletions made outside vrouter.
 */
public final class XenDriver implements HypervisorDriver, PowerStates, Interfaces, Links, RateLimits, CpuWeights, LiveMigration {
    private static final Logger log = LoggerFactory.getLogger(XenDriver.class);
    /** The other_config key that marks a VM as a VR and holds its vmIndex. */
    public static final String MARKER = "vrouter-vmIndex";
    /** The other_config key of a VIF that holds its vmNetworkConfigIndex. */
    public static final String NIC_MARKER = "vrouter-networkIndex";
    static final String NIC_ADDRESS = "vrouter-address";
    static final String TEMPLATE_KEY = "vrouter-template";
    /** Set on a VM from its clone until its provisioning is complete: a VM still carrying it is half built. */
    public static final String PROVISIONING = "vrouter-provisioning";
    private static final long MIB = XenReads.MIB;

    private final XenSettings settings;
    private final XenApiClient api;
    private final XenCache cache = new XenCache();
    private final XenLinks links;
    private final XenEventFeed feed;
    private final XenReads reads;
    private final XenMigration migration;

    private XenDriver(XenSettings settings, XenApiClient api) {
        this.settings = settings;
        this.api = api;
        this.links = new XenLinks(api);
        this.feed = new XenEventFeed(settings, api, cache);
        this.reads = new XenReads(settings, cache);
        this.migration = new XenMigration(settings, api, this::taskRef);
    }

    /** Logs in, loads the host's objects and starts following its events. */
    public static XenDriver connect(XenSettings settings) throws DriverException {
        XenApiClient api = new XenApiClient(settings.url(), settings.username(), settings.password(),
                settings.callTimeout(), settings.retries(), settings.retryBackoff(), settings.tls());
        XenDriver d = new XenDriver(settings, api);
        try {
            api.login();
            d.feed.start();
        } catch (XenApiException e) {
            api.close();
            throw new DriverException(e.code(), "cannot connect to XenAPI at " + api.endpoint() + ": " + e.getMessage(), e);
        }
        log.info("connected to XenAPI at {}: {} {}, {} VMs of ours", api.endpoint(), d.hypervisor().vmHvSoftware,
                d.hypervisor().vmHvVersion, d.cache.markedVms().size());
        return d;
    }

    @Override
    public String name() {
        return "xen";
    }

    /**
     * The default {@code vyos} first (made from {@code xen.template}), then, by name-label, the
     * templates of the host an operator made, as the event feed last showed them: a template added
     * on the host can be used at once, without a restart.
     */
    @Override
    public List<String> templates() {
        java.util.Set<String> names = new java.util.LinkedHashSet<>();
        names.add(VmConfigEntry.Defaults.TEMPLATE);
        names.addAll(cache.operatorTemplates());
        return List.copyOf(names);
    }

    /** The client, for tests that look at its session. */
    XenApiClient client() {
        return api;
    }

    // ---------------------------------------------------------------- observation: XenReads, XenEventFeed

    @Override
    public Hypervisor hypervisor() {
        return reads.hypervisor();
    }

    @Override
    public Optional<VmRuntime> inspect(int vmIndex) {
        return reads.inspect(vmIndex);
    }

    @Override
    public Optional<String> problem() {
        return feed.problem();
    }

    @Override
    public void setListener(DriverListener listener) {
        feed.setListener(listener);
    }

    private void settle(int vmIndex, String vm, Predicate<JsonNode> done) {
        feed.settle(vmIndex, vm, done);
    }

    // ---------------------------------------------------------------- lifecycle

    private interface Op {
        void run() throws DriverException;
    }

    /** Runs an operation of vrouter's on a VR, whose changes the listener is then not told of. */
    private void ours(int vmIndex, Op op) throws DriverException {
        cache.busy(vmIndex);
        try {
            op.run();
        } finally {
            cache.idle(vmIndex);
        }
    }

    @Override
    public void provision(VmConfigEntry config) throws DriverException {
        ours(config.vmIndex, () -> doProvision(config));
    }

    private void doProvision(VmConfigEntry config) throws DriverException {
        if (migration.expected(config.vmIndex, config.vmName)) {
            // moved here by XenServer (LiveMigration): the VM is adopted, not made
            String vm = migration.adopt(config.vmIndex, config.vmName);
            settle(config.vmIndex, vm, rec -> XenCache.vmIndexOf(rec).orElse(-1) == config.vmIndex);
            return;
        }
        Optional<JsonNode> existing = cache.vmRef(config.vmIndex).flatMap(cache::vm);
        if (existing.isPresent()) {
            // A re-run (the service re-drives a step cut short) finds its VM made; another VR's is refused.
            JsonNode vm = existing.get();
            if (vm.path("name_label").asText().equals(config.vmName) && !vm.path("other_config").has(PROVISIONING)) return;
            throw new DriverException("VM_EXISTS", "a VM marked vmIndex " + config.vmIndex + " exists already");
        }
        String templateName = templateFor(config.vmConfigTemplate);
        String template = step("find template", () -> findTemplate(templateName));
        String vm = step("clone", () -> settings.sr().isPresent()
                ? taskRef("VM.copy", template, config.vmName, findSr(settings.sr().get()))
                : taskRef("VM.clone", template, config.vmName));
        try {
            api.call("VM.add_to_other_config", vm, MARKER, Integer.toString(config.vmIndex));
            api.call("VM.add_to_other_config", vm, PROVISIONING, "true");
            api.call("VM.add_to_other_config", vm, TEMPLATE_KEY, config.vmConfigTemplate == null ? templateName : config.vmConfigTemplate);
            runTask(settings.taskTimeout(), "VM.provision", vm);
            api.call("VM.set_is_a_template", vm, false);
            setCpus(vm, config.vmConfigCpuNumber == null ? VmConfigEntry.Defaults.CPU_NUMBER : config.vmConfigCpuNumber);
            setMemory(vm, (config.vmConfigMemory == null ? VmConfigEntry.Defaults.MEMORY_MIB : config.vmConfigMemory) * MIB);
            links.setWeight(vm, Integer.toString(XenLinks.xenWeight(config)), false);
            if (Boolean.TRUE.equals(config.vmConfigAutoStart)) api.call("VM.add_to_other_config", vm, "auto_poweron", "true");
            // The template's own interfaces are not the VR's.
            for (JsonNode vif : api.call("VM.get_VIFs", vm)) api.call("VIF.destroy", vif.asText());
            for (VmNetworkConfigEntry n : config.interfaces()) createVif(config.vmIndex, vm, n, false);
            // The disks carry the marker too, so that one left behind by a failed removal is found again.
            for (String vdi : ownedDisks(vm)) {
                api.call("VDI.remove_from_other_config", vdi, MARKER);
                api.call("VDI.add_to_other_config", vdi, MARKER, Integer.toString(config.vmIndex));
            }
            api.call("VM.remove_from_other_config", vm, PROVISIONING);
        } catch (XenApiException e) {
            log.warn("provisioning VR {} ({}) failed at {}: removing what was built", config.vmIndex, config.vmName, e.getMessage());
            removeVm(vm);
            throw failure("provision", e);
        }
        java.util.Set<Integer> nics = new java.util.HashSet<>();
        config.interfaces().forEach(n -> nics.add(n.vmNetworkConfigIndex));
        settle(config.vmIndex, vm, rec -> XenCache.vmIndexOf(rec).isPresent() && !rec.path("other_config").has(PROVISIONING)
                && cache.vifsOf(vm).stream().map(XenReads::nicIndex).collect(java.util.stream.Collectors.toSet()).equals(nics));
    }

    @Override
    public void reconfigure(VmConfigEntry config) throws DriverException {
        ours(config.vmIndex, () -> doReconfigure(config));
    }

    /** One call reconfigure makes on the host, and the call that puts back what it replaced. */
    private record Change(String what, HostCall apply, HostCall putBack) {
    }

    private interface HostCall {
        void run() throws XenApiException;
    }

    /**
     * Changes only what differs from the VM as the host holds it now (read with one call, not from
     * the cache): a rename is {@code VM.set_name_label} alone, which XenServer allows on a running
     * VM, whereas it refuses CPU and memory changes unless the VM is halted. When a call fails, what
     * this reconfiguration changed before it is put back, so that the host is as it was when the
     * failure is reported (the service then keeps the row it had: the two agree).
     */
    private void doReconfigure(VmConfigEntry config) throws DriverException {
        String vm = requireVm(config.vmIndex);
        JsonNode was = step("reconfigure", () -> api.call("VM.get_record", vm));
        List<Change> changes = new ArrayList<>();
        int cpus = config.vmConfigCpuNumber;
        int maxWas = was.path("VCPUs_max").asInt(), atStartupWas = was.path("VCPUs_at_startup").asInt();
        if (maxWas != cpus || atStartupWas != cpus) {
            Change atStartup = new Change("VCPUs_at_startup", () -> api.call("VM.set_VCPUs_at_startup", vm, cpus),
                    () -> api.call("VM.set_VCPUs_at_startup", vm, atStartupWas));
            Change max = new Change("VCPUs_max", () -> api.call("VM.set_VCPUs_max", vm, cpus),
                    () -> api.call("VM.set_VCPUs_max", vm, maxWas));
            // at_startup may never exceed max, neither here nor while putting back (in reverse).
            changes.addAll(cpus <= maxWas ? List.of(atStartup, max) : List.of(max, atStartup));
        }
        long bytes = config.vmConfigMemory * MIB;
        long[] memWas = {was.path("memory_static_min").asLong(), was.path("memory_static_max").asLong(),
                was.path("memory_dynamic_min").asLong(), was.path("memory_dynamic_max").asLong()};
        if (memWas[1] != bytes || memWas[2] != bytes || memWas[3] != bytes) {
            changes.add(new Change("memory", () -> api.call("VM.set_memory_limits", vm, Math.min(memWas[0], bytes), bytes, bytes, bytes),
                    () -> api.call("VM.set_memory_limits", vm, memWas[0], memWas[1], memWas[2], memWas[3])));
        }
        String nameWas = was.path("name_label").asText();
        if (!nameWas.equals(config.vmName)) {
            changes.add(new Change("name", () -> api.call("VM.set_name_label", vm, config.vmName),
                    () -> api.call("VM.set_name_label", vm, nameWas)));
        }
        boolean autoStartWas = "true".equals(was.path("other_config").path("auto_poweron").asText());
        boolean autoStart = Boolean.TRUE.equals(config.vmConfigAutoStart);
        if (autoStartWas != autoStart) {
            HostCall on = () -> api.call("VM.add_to_other_config", vm, "auto_poweron", "true");
            HostCall off = () -> api.call("VM.remove_from_other_config", vm, "auto_poweron");
            if (was.path("other_config").has("auto_poweron")) changes.add(new Change("auto-start", off, () -> api.call(
                    "VM.add_to_other_config", vm, "auto_poweron", was.path("other_config").path("auto_poweron").asText())));
            if (autoStart) changes.add(new Change("auto-start", on, off));
        }
        String weight = Integer.toString(XenLinks.xenWeight(config));
        String weightWas = was.path("VCPUs_params").path("weight").asText("");
        if (!weight.equals(weightWas)) {
            boolean running = power(was) == PowerState.RUNNING;
            changes.add(new Change("CPU weight", () -> links.setWeight(vm, weight, running), () -> links.setWeight(vm, weightWas, running)));
        }
        List<Change> made = new ArrayList<>();
        for (Change c : changes) {
            try {
                c.apply().run();
                made.add(0, c);
            } catch (XenApiException e) {
                String notPutBack = putBack(config.vmIndex, vm, made);
                DriverException f = failure("reconfigure (" + c.what() + ")", e);
                throw notPutBack.isEmpty() ? f : new DriverException(f.code(), f.getMessage() + "; " + notPutBack, e);
            }
        }
        if (!made.isEmpty()) settle(config.vmIndex, vm, rec -> rec.path("name_label").asText().equals(config.vmName));
    }

    /** Puts back the changes made (latest first), best effort; says what could not be put back, or nothing. */
    private String putBack(int vmIndex, String vm, List<Change> made) {
        List<String> failed = new ArrayList<>();
        for (Change c : made) {
            try {
                c.putBack().run();
            } catch (XenApiException e) {
                log.error("VR {}: putting back the {} of VM {} after a failed reconfiguration failed: {}", vmIndex, c.what(), vm,
                        e.getMessage());
                failed.add(c.what() + " (" + e.code() + ")");
            }
        }
        return failed.isEmpty() ? "" : "putting back its " + String.join(", ", failed) + " failed too";
    }

    @Override
    public void start(int vmIndex) throws DriverException {
        ours(vmIndex, () -> doStart(vmIndex));
    }

    private void doStart(int vmIndex) throws DriverException {
        String vm = requireVm(vmIndex);
        PowerState power = powerOf(vmIndex);
        step("start", () -> {
            switch (power) {
                case RUNNING: return null;
                case PAUSED: api.call("VM.unpause", vm); return null;
                case SUSPENDED: runTask(settings.taskTimeout(), "VM.resume", vm, false, false); return null;
                case CRASHED:
                    runTask(settings.taskTimeout(), "VM.hard_shutdown", vm);
                    runTask(settings.taskTimeout(), "VM.start", vm, false, false);
                    return null;
                default: runTask(settings.taskTimeout(), "VM.start", vm, false, false); return null;
            }
        });
        settle(vmIndex, vm, rec -> power(rec) == PowerState.RUNNING);
    }

    @Override
    public void stop(int vmIndex) throws DriverException {
        ours(vmIndex, () -> doStop(vmIndex));
    }

    private void doStop(int vmIndex) throws DriverException {
        String vm = requireVm(vmIndex);
        PowerState power = powerOf(vmIndex);
        if (power == PowerState.HALTED) return;
        step("stop", () -> {
            if (power == PowerState.RUNNING) {
                try {
                    runTask(settings.shutdownTimeout(), "VM.clean_shutdown", vm);
                    return null;
                } catch (XenApiException e) {
                    if ("VM_BAD_POWER_STATE".equals(e.code()) && currentPower(vm) == PowerState.HALTED) return null;
                    log.warn("clean shutdown of VR {} did not finish ({}): forcing it", vmIndex, e.getMessage());
                }
            }
            runTask(settings.taskTimeout(), "VM.hard_shutdown", vm);
            return null;
        });
        settle(vmIndex, vm, rec -> power(rec) == PowerState.HALTED);
    }

    @Override
    public void suspend(int vmIndex, AdminState how) throws DriverException {
        ours(vmIndex, () -> doSuspend(vmIndex, how));
    }

    private void doSuspend(int vmIndex, AdminState how) throws DriverException {
        String vm = requireVm(vmIndex);
        PowerState power = powerOf(vmIndex);
        PowerState target = how == AdminState.PAUSED ? PowerState.PAUSED : PowerState.SUSPENDED;
        if (power == target) return;
        step(how.label(), () -> {
            if (target == PowerState.PAUSED) {
                if (power == PowerState.SUSPENDED) runTask(settings.taskTimeout(), "VM.resume", vm, true, false);
                else api.call("VM.pause", vm);
            } else {
                if (power == PowerState.PAUSED) api.call("VM.unpause", vm);
                runTask(settings.taskTimeout(), "VM.suspend", vm);
            }
            return null;
        });
        settle(vmIndex, vm, rec -> power(rec) == target);
    }

    @Override
    public void destroy(int vmIndex) throws DriverException {
        ours(vmIndex, () -> doDestroy(vmIndex));
    }

    private void doDestroy(int vmIndex) throws DriverException {
        if (migration.movedAway(vmIndex)) return;
        Optional<String> ref = cache.vmRef(vmIndex);
        if (ref.isEmpty()) ref = step("find VM", () -> findMarked(vmIndex));
        if (ref.isPresent()) {
            String vm = ref.get();
            step("destroy", () -> {
                try {
                    if (currentPower(vm) != PowerState.HALTED) runTask(settings.taskTimeout(), "VM.hard_shutdown", vm);
                    destroyVmAndDisks(vm);
                } catch (XenApiException e) {
                    // Gone already (the feed had not said so yet): what is left to do is its disks.
                    if (!"HANDLE_INVALID".equals(e.code()) || !e.params().contains(vm)) throw e;
                }
                return null;
            });
            cache.awaitGone(vm, settings.callTimeout().toMillis());
            cache.forget(vm);
        }
        step("destroy disks", () -> {
            destroyLeftDisks(vmIndex);
            return null;
        });
    }

    @Override
    public void addInterface(int vmIndex, VmNetworkConfigEntry iface) throws DriverException {
        ours(vmIndex, () -> doAddInterface(vmIndex, iface));
    }

    private void doAddInterface(int vmIndex, VmNetworkConfigEntry iface) throws DriverException {
        String vm = requireVm(vmIndex);
        boolean running = powerOf(vmIndex) == PowerState.RUNNING;
        step("addInterface", () -> {
            Optional<String> old = findVif(vm, iface.vmNetworkConfigIndex);
            if (old.isPresent()) destroyVif(old.get());
            createVif(vmIndex, vm, iface, running);
            return null;
        });
        settle(vmIndex, vm, rec -> cache.vifsOf(vm).stream().anyMatch(v -> nicIndex(v) == iface.vmNetworkConfigIndex));
    }

    @Override
    public void removeInterface(int vmIndex, int networkIndex) throws DriverException {
        ours(vmIndex, () -> doRemoveInterface(vmIndex, networkIndex));
    }

    private void doRemoveInterface(int vmIndex, int networkIndex) throws DriverException {
        String vm = requireVm(vmIndex);
        step("removeInterface", () -> {
            Optional<String> vif = findVif(vm, networkIndex);
            if (vif.isPresent()) destroyVif(vif.get());
            return null;
        });
        settle(vmIndex, vm, rec -> cache.vifsOf(vm).stream().noneMatch(v -> nicIndex(v) == networkIndex));
    }

    // ---------------------------------------------------------------- behaviour: live migration (XenMigration)

    @Override
    public Map<String, String> expectArrival(VmConfigEntry config) throws DriverException {
        return migration.expectArrival(config.vmIndex, config.vmName);
    }

    @Override
    public void cancelArrival(int vmIndex) {
        migration.cancelArrival(vmIndex);
    }

    @Override
    public Whereabouts whereabouts(int vmIndex) throws DriverException {
        Optional<String> vm = cache.vmRef(vmIndex);
        return vm.isEmpty() ? Whereabouts.GONE : migration.whereabouts(vm.get());
    }

    @Override
    public void expectAgain(int vmIndex, String vmName) {
        migration.expectAgain(vmIndex, vmName);
    }

    @Override
    public void migrate(int vmIndex, Map<String, String> destination) throws DriverException {
        // ours: the VM leaving this host is not a vanishing to tell the service of
        ours(vmIndex, () -> {
            String vm = requireVm(vmIndex);
            if (migration.migrate(vmIndex, vm, destination)) {
                cache.awaitGone(vm, settings.callTimeout().toMillis());
                cache.forget(vm);
            }
        });
    }

    // ---------------------------------------------------------------- behaviours: links, rates, CPU weights (XenLinks)

    @Override
    public Set<LinkType> linkTypes() {
        return EnumSet.of(LinkType.PEER);
    }

    /** XenServer's ratelimit holds back what the guest sends; nothing limits what it receives. */
    @Override
    public boolean limitsIngress(LinkType type) {
        return false;
    }

    @Override
    public void setRates(int vmIndex, VmNetworkConfigEntry iface) throws DriverException {
        int index = iface.vmNetworkConfigIndex;
        ours(vmIndex, () -> {
            if (iface.vmNetworkConfigRateIn != null) {
                throw new DriverException("NOT_SUPPORTED", "XenServer limits only what a VR sends on an interface "
                        + "(vmNetworkConfigRateOut), not what it receives (vmNetworkConfigRateIn)");
            }
            String vm = requireVm(vmIndex);
            String vif = step("setRates", () -> findVif(vm, index)).orElseThrow(() ->
                    new DriverException("NO_SUCH_INTERFACE", "VR " + vmIndex + " has no interface " + index));
            step("setRates", () -> {
                links.setRate(vif, iface.vmNetworkConfigRateOut);
                return null;
            });
            String kbps = iface.vmNetworkConfigRateOut == null ? "" : Long.toString(XenLinks.kbytesPerSecond(iface.vmNetworkConfigRateOut));
            settle(vmIndex, vm, rec -> cache.vifsOf(vm).stream().anyMatch(v -> nicIndex(v) == index
                    && v.path("qos_algorithm_params").path("kbps").asText("").equals(kbps)));
        });
    }

    // ---------------------------------------------------------------- reconciliation: what is ours on the host

    @Override
    public List<VmRuntime> list() throws DriverException {
        JsonNode all = step("list", () -> api.call("VM.get_all_records"));
        List<VmRuntime> out = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = all.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            OptionalInt index = XenCache.vmIndexOf(e.getValue());
            if (index.isEmpty()) continue;
            if (e.getValue().path("other_config").has(PROVISIONING)) {
                // vrouter stopped while provisioning it: remove it, so that it is provisioned again whole.
                log.warn("VM '{}' (vmIndex {}) was left half built: removing it", e.getValue().path("name_label").asText(), index.getAsInt());
                removeVm(e.getKey());
                step("destroy disks", () -> {
                    destroyLeftDisks(index.getAsInt());
                    return null;
                });
                continue;
            }
            cache.putVm(e.getKey(), (ObjectNode) e.getValue());
            out.add(reads.runtime(e.getKey(), e.getValue()));
        }
        out.sort(Comparator.comparingInt(VmRuntime::vmIndex));
        return out;
    }

    // ---------------------------------------------------------------- helpers

    private String templateFor(String vmConfigTemplate) {
        String t = vmConfigTemplate == null ? VmConfigEntry.Defaults.TEMPLATE : vmConfigTemplate;
        return t.equals(VmConfigEntry.Defaults.TEMPLATE) ? settings.template() : t;
    }

    private String findTemplate(String nameLabel) throws XenApiException {
        for (JsonNode ref : api.call("VM.get_by_name_label", nameLabel)) {
            if (api.call("VM.get_is_a_template", ref.asText()).asBoolean()) return ref.asText();
        }
        throw new XenApiException("TEMPLATE_NOT_FOUND", List.of(nameLabel));
    }

    private String findSr(String nameOrUuid) throws XenApiException {
        for (JsonNode ref : api.call("SR.get_by_name_label", nameOrUuid)) return ref.asText();
        return api.call("SR.get_by_uuid", nameOrUuid).asText();
    }

    private String findNetwork(String parent) throws XenApiException {
        String label = settings.networkFor(parent);
        for (JsonNode ref : api.call("network.get_by_name_label", label)) return ref.asText();
        throw new XenApiException("NETWORK_NOT_FOUND", List.of(label));
    }

    private Optional<String> findMarked(int vmIndex) throws XenApiException {
        JsonNode all = api.call("VM.get_all_records");
        for (Iterator<Map.Entry<String, JsonNode>> it = all.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (XenCache.vmIndexOf(e.getValue()).orElse(-1) == vmIndex) return Optional.of(e.getKey());
        }
        return Optional.empty();
    }

    private Optional<String> findVif(String vm, int networkIndex) throws XenApiException {
        for (JsonNode ref : api.call("VM.get_VIFs", vm)) {
            if (nicIndex(api.call("VIF.get_record", ref.asText())) == networkIndex) return Optional.of(ref.asText());
        }
        return Optional.empty();
    }

    private void createVif(int vmIndex, String vm, VmNetworkConfigEntry n, boolean plug) throws XenApiException {
        links.createOn(vmIndex, n, this::findNetwork, network -> createVif(vm, n, network, plug));
    }

    private void createVif(String vm, VmNetworkConfigEntry n, String network, boolean plug) throws XenApiException {
        ObjectNode rec = api.json().createObjectNode();
        rec.put("device", Integer.toString(n.vmNetworkConfigIndex - 1));
        rec.put("network", network);
        rec.put("VM", vm);
        rec.put("MAC", n.vmNetworkConfigPhysAddress == null ? "" : n.vmNetworkConfigPhysAddress.toLowerCase(Locale.ROOT));
        rec.put("MTU", 1500);
        ObjectNode oc = rec.putObject("other_config");
        oc.put(NIC_MARKER, Integer.toString(n.vmNetworkConfigIndex));
        if (n.vmNetworkConfigAddress != null) oc.put(NIC_ADDRESS, n.vmNetworkConfigAddress);
        XenLinks.describe(rec, n);
        String vif = api.call("VIF.create", rec).asText();
        if (plug) api.call("VIF.plug", vif);
    }

    private void destroyVif(String vif) throws XenApiException {
        String network = api.call("VIF.get_network", vif).asText();
        if (api.call("VIF.get_currently_attached", vif).asBoolean()) api.call("VIF.unplug", vif);
        api.call("VIF.destroy", vif);
        links.dropIfUnused(network);
    }

    private void setCpus(String vm, int n) throws XenApiException {
        int atStartup = api.call("VM.get_VCPUs_at_startup", vm).asInt(1);
        if (n >= atStartup) {
            api.call("VM.set_VCPUs_max", vm, n);
            api.call("VM.set_VCPUs_at_startup", vm, n);
        } else {
            api.call("VM.set_VCPUs_at_startup", vm, n);
            api.call("VM.set_VCPUs_max", vm, n);
        }
    }

    private void setMemory(String vm, long bytes) throws XenApiException {
        long staticMin = Math.min(api.call("VM.get_memory_static_min", vm).asLong(bytes), bytes);
        api.call("VM.set_memory_limits", vm, staticMin, bytes, bytes, bytes);
    }

    /** The VM's own disks: VDIs of its Disk VBDs that no other VM uses and that are not read-only. */
    private List<String> ownedDisks(String vm) throws XenApiException {
        List<String> owned = new ArrayList<>();
        for (JsonNode vbdRef : api.call("VM.get_VBDs", vm)) {
            JsonNode vbd = api.call("VBD.get_record", vbdRef.asText());
            String vdi = vbd.path("VDI").asText("");
            if (!"Disk".equals(vbd.path("type").asText()) || vdi.isEmpty() || vdi.equals("OpaqueRef:NULL")) continue;
            JsonNode v = api.call("VDI.get_record", vdi);
            if (v.path("read_only").asBoolean() || v.path("sharable").asBoolean() || v.path("VBDs").size() > 1) continue;
            owned.add(vdi);
        }
        return owned;
    }

    /** Destroys the disks marked with the vmIndex that no VM uses any more (left by a failed removal). */
    private void destroyLeftDisks(int vmIndex) throws XenApiException {
        JsonNode all = api.call("VDI.get_all_records");
        for (Iterator<Map.Entry<String, JsonNode>> it = all.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode v = e.getValue();
            if (!Integer.toString(vmIndex).equals(v.path("other_config").path(MARKER).asText()) || v.path("VBDs").size() > 0) continue;
            log.info("destroying disk {} left by VR {}", v.path("uuid").asText(), vmIndex);
            try {
                api.call("VDI.destroy", e.getKey());
            } catch (XenApiException x) {
                if (!"HANDLE_INVALID".equals(x.code())) throw x;
            }
        }
    }

    /** Destroys the VM and its own disks. */
    private void destroyVmAndDisks(String vm) throws XenApiException {
        List<String> owned = ownedDisks(vm);
        List<String> networks = new ArrayList<>();
        for (JsonNode vif : api.call("VM.get_VIFs", vm)) networks.add(api.call("VIF.get_network", vif.asText()).asText());
        api.call("VM.destroy", vm);
        // VM.destroy takes the VIFs with it; a peer link's network goes with its last end.
        for (String network : networks) links.dropIfUnused(network);
        for (String vdi : owned) {
            try {
                api.call("VDI.destroy", vdi);
            } catch (XenApiException e) {
                if (!"HANDLE_INVALID".equals(e.code())) throw e;
            }
        }
    }

    /** Cleans up after a failed provisioning, best effort: nothing half built stays on the host. */
    private void removeVm(String vm) {
        try {
            if (currentPower(vm) != PowerState.HALTED) api.call("VM.hard_shutdown", vm);
            destroyVmAndDisks(vm);
        } catch (XenApiException e) {
            if (!"HANDLE_INVALID".equals(e.code())) {
                log.error("could not remove the half-built VM {}: {}; remove it by hand", vm, e.getMessage());
            }
        }
        cache.forget(vm);
    }

    private PowerState currentPower(String vm) throws XenApiException {
        return parsePower(api.call("VM.get_power_state", vm).asText());
    }

    private String requireVm(int vmIndex) throws DriverException {
        return cache.vmRef(vmIndex).orElseThrow(() ->
                new DriverException("HANDLE_INVALID", "no VM on the host is marked vmIndex " + vmIndex));
    }

    private PowerState powerOf(int vmIndex) {
        return cache.vmRef(vmIndex).flatMap(cache::vm).map(XenReads::power).orElse(PowerState.HALTED);
    }

    /**
     * Runs {@code Async.METHOD} and waits for its task; on timeout cancels the task and fails with
     * {@code TIMEOUT}. Returns the task's result with its XML-RPC value wrapping removed.
     */
    private String runTask(Duration timeout, String method, Object... args) throws XenApiException {
        String task = api.call("Async." + method, args).asText();
        long deadline = System.nanoTime() + timeout.toNanos();
        long pause = 10;
        try {
            while (true) {
                JsonNode t = api.call("task.get_record", task);
                switch (t.path("status").asText()) {
                    case "success":
                        return t.path("result").asText("").replaceAll("</?value>", "").trim();
                    case "failure":
                    case "cancelled": {
                        List<String> info = new ArrayList<>();
                        t.path("error_info").forEach(x -> info.add(x.asText()));
                        String code = info.isEmpty() ? "TASK_CANCELLED" : info.remove(0);
                        throw new XenApiException(code, info);
                    }
                    default:
                        break;
                }
                if (System.nanoTime() > deadline) {
                    try {
                        api.call("task.cancel", task);
                    } catch (XenApiException e) {
                        log.debug("cancelling {} failed: {}", task, e.getMessage());
                    }
                    throw new XenApiException(XenApiException.TIMEOUT, List.of(method, "not done in " + timeout.toMillis() + " ms"));
                }
                Thread.sleep(pause);
                pause = Math.min(pause * 2, 500);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new XenApiException(XenApiException.TRANSPORT, method + " interrupted", e);
        } finally {
            try {
                api.call("task.destroy", task);
            } catch (XenApiException e) {
                log.debug("destroying {} failed: {}", task, e.getMessage());
            }
        }
    }

    private String taskRef(String method, Object... args) throws XenApiException {
        return runTask(settings.taskTimeout(), method, args);
    }

    private interface Step<T> {
        T run() throws XenApiException;
    }

    private <T> T step(String operation, Step<T> s) throws DriverException {
        try {
            return s.run();
        } catch (XenApiException e) {
            throw failure(operation, e);
        }
    }

    private static DriverException failure(String operation, XenApiException e) {
        return new DriverException(e.code(), "XenAPI " + operation + ": " + e.getMessage(), e);
    }

    @Override
    public void close() {
        feed.close();
        api.close();
    }
}
