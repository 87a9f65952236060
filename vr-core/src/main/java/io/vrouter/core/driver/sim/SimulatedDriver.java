package io.vrouter.core.driver.sim;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vrouter.core.config.Build;
import io.vrouter.core.driver.DriverException;
import io.vrouter.core.driver.DriverListener;
import io.vrouter.core.driver.HypervisorDriver;
import io.vrouter.core.driver.Interfaces;
import io.vrouter.core.driver.PowerStates;
import io.vrouter.core.driver.PowerState;
import io.vrouter.core.driver.VmRuntime;
import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.Hypervisor;
import io.vrouter.core.model.InetAddressType;
import io.vrouter.core.model.ModelJson;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.spi.StorageUnavailableException;
import io.vrouter.core.model.VmCpuEntry;
import io.vrouter.core.model.VmEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import io.vrouter.core.model.VmNetworkEntry;
import io.vrouter.core.model.LinkStatus;
import io.vrouter.core.model.LinkType;
import io.vrouter.core.driver.CpuWeights;
import io.vrouter.core.driver.KeptUuids;
import io.vrouter.core.driver.Links;
import io.vrouter.core.driver.RateLimits;
import io.vrouter.core.model.VmStorageEntry;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A hypervisor simulated in-process: deterministic, instant by default, or with the paper's XenServer
 * latencies. It keeps its VMs in a host journal in the data directory, so that, like a real host,
 * they outlive a restart of vrouter and reconciliation has something to adopt. The state tables get
 * plausible values: CPU time grows while a VM runs (2% of each virtual CPU), so does uptime.
 *
 * <p>VM names are unique on the host. Tests can make an operation fail with {@link #failOn}.
 */
public final class SimulatedDriver implements HypervisorDriver, PowerStates, Interfaces, Links, RateLimits, CpuWeights, KeptUuids {
    private static final Logger log = LoggerFactory.getLogger(SimulatedDriver.class);

    /** One simulated VM. Mutated only by the driver call that owns its vmIndex. */
    private static final class SimVm {
        public int vmIndex;
        public String name;
        public String template;
        public int cpus;
        public int memoryMiB;
        public boolean autoStart;
        /** Recorded only: a simulated VM takes no CPU. */
        public Integer cpuWeight;
        /** Never changed in place, replaced whole: inspect reads it while a VR's work changes it. */
        public volatile List<VmNetworkConfigEntry> interfaces = List.of();
        public PowerState power = PowerState.HALTED;
        /** Wall-clock millis of the last boot, while running. */
        public long bootMillis;
        /** CPU microseconds accumulated in earlier runs. */
        public long cpuMicros;
        /**
         * The VM's UUID, chosen at provisioning and kept across renames as a host keeps it. Null in a
         * journal written before it was stored: derived once from the vmIndex and name, as it was then.
         */
        public String uuid;

        String uuid() {
            String u = uuid;
            if (u == null) {
                u = UUID.nameUUIDFromBytes(("vrouter-sim/" + vmIndex + "/" + name).getBytes(StandardCharsets.UTF_8)).toString();
                uuid = u;
            }
            return u;
        }
    }

    private final LatencyProfile latency;
    private final KeptUuids.Told keptUuids = new KeptUuids.Told();
    private final Path journal;
    private final ObjectMapper json = ModelJson.mapper();
    private final ConcurrentSkipListMap<Integer, SimVm> vms = new ConcurrentSkipListMap<>();
    /** VM name to vmIndex: names are unique on the host, and claiming one must not scan every VM. */
    private final ConcurrentHashMap<String, Integer> names = new ConcurrentHashMap<>();
    private final Map<String, String> failures = new ConcurrentHashMap<>();
    private final long startMillis = System.currentTimeMillis();
    private Writer journalOut;
    private volatile DriverListener listener;

    /** An in-memory host that starts empty and forgets everything when closed. */
    public SimulatedDriver(LatencyProfile latency) {
        this(latency, null);
    }

    /** A host that keeps its VMs in the given journal file. */
    public SimulatedDriver(LatencyProfile latency, Path journal) {
        this.latency = latency;
        this.journal = journal;
        if (journal != null) load();
    }

    private volatile Set<AdminState> adminStates = EnumSet.allOf(AdminState.class);

    @Override
    public String name() {
        return "sim";
    }

    /** Makes the host offer only these admin states, as a driver that cannot suspend does. */
    public void limitAdminStates(Set<AdminState> states) {
        this.adminStates = EnumSet.copyOf(states);
    }

    /** The pause and suspend the host offers; none left, it offers no {@link PowerStates} at all. */
    @Override
    public Set<AdminState> suspendStates() {
        Set<AdminState> states = EnumSet.of(AdminState.PAUSED, AdminState.SUSPENDED);
        states.retainAll(adminStates);
        return states;
    }

    @Override
    public <B> Optional<B> behaviour(Class<B> type) {
        if (type == PowerStates.class && suspendStates().isEmpty()) return Optional.empty();
        return HypervisorDriver.super.behaviour(type);
    }

    /** Records every link type; a peer link is up while both ends are declared and their VMs run. */
    @Override
    public Set<LinkType> linkTypes() {
        return EnumSet.of(LinkType.PEER, LinkType.VXLAN, LinkType.MACVLAN);
    }

    @Override
    public void setRates(int vmIndex, VmNetworkConfigEntry iface) throws DriverException {
        SimVm vm = require(vmIndex);
        step("setRates", vm.name, Duration.ZERO);
        if (vm.interfaces.stream().noneMatch(n -> n.vmNetworkConfigIndex.equals(iface.vmNetworkConfigIndex))) {
            throw new DriverException("NO_SUCH_INTERFACE", "VM " + vm.name + " has no interface " + iface.vmNetworkConfigIndex);
        }
        List<VmNetworkConfigEntry> ifs = new ArrayList<>(vm.interfaces);
        ifs.replaceAll(n -> n.vmNetworkConfigIndex.equals(iface.vmNetworkConfigIndex) ? iface : n);
        plug(vm, ifs);
        record(vm);
    }

    /** A peer link's status as a probe would find it: up while the far end names this one back and both VMs run. */
    private LinkStatus peerStatus(SimVm vm, VmNetworkConfigEntry n) {
        if (vm.power != PowerState.RUNNING) return LinkStatus.UNKNOWN;
        SimVm far = vms.get(n.vmNetworkConfigPeerRouter);
        boolean joined = far != null && far.power == PowerState.RUNNING && far.interfaces.stream().anyMatch(f ->
                f.vmNetworkConfigIndex.equals(n.vmNetworkConfigPeerInterface) && LinkType.of(f) == LinkType.PEER
                        && Integer.valueOf(vm.vmIndex).equals(f.vmNetworkConfigPeerRouter)
                        && n.vmNetworkConfigIndex.equals(f.vmNetworkConfigPeerInterface));
        return joined ? LinkStatus.UP : LinkStatus.DOWN;
    }

    /** Two router images a XenServer host commonly has as templates, vyos the default. */
    @Override
    public List<String> templates() {
        return List.of(VmConfigEntry.Defaults.TEMPLATE, "openwrt");
    }

    /**
     * Makes every later call of the operation (provision, start, stop, suspend, destroy,
     * addInterface, removeInterface) on the named VM, or on any VM when vmName is "*", fail with the
     * message, until {@link #clearFailures()}.
     */
    public void failOn(String operation, String vmName, String message) {
        failures.put(operation + "/" + vmName, message);
    }

    public void clearFailures() {
        failures.clear();
    }

    private volatile Integer hostCpus;
    private volatile Integer hostMemoryMib;

    /**
     * Makes the simulated host report these CPUs and this memory (MiB), which the core then lets the
     * VRs commit; null (the default): it reports none, and the host limits nothing.
     */
    public void setHostResources(Integer cpus, Integer memoryMib) {
        this.hostCpus = cpus;
        this.hostMemoryMib = memoryMib;
    }

    @Override
    public Hypervisor hypervisor() {
        Hypervisor h = new Hypervisor();
        h.vmHvCpus = hostCpus;
        h.vmHvMemory = hostMemoryMib;
        h.vmHvSoftware = "vrouter simulated hypervisor";
        // The simulated hypervisor is vrouter's own: its version is this build's.
        h.vmHvVersion = Build.describe();
        h.vmHvObjectID = "0.0";
        h.vmHvUpTime = (System.currentTimeMillis() - startMillis) / 10;
        return h;
    }

    @Override
    public void provision(VmConfigEntry config) throws DriverException {
        step("provision", config.vmName, latency.provision());
        SimVm existing = vms.get(config.vmIndex);
        if (existing != null) {
            // A re-run (the service re-drives a step cut short) finds its VM made; another VR's is refused.
            if (existing.name.equals(config.vmName)) return;
            throw new DriverException("VM_EXISTS", "a VM with vmIndex " + config.vmIndex + " exists already");
        }
        claimName(config.vmName, config.vmIndex);
        SimVm vm = new SimVm();
        vm.vmIndex = config.vmIndex;
        vm.name = config.vmName;
        vm.template = config.vmConfigTemplate;
        vm.cpus = config.vmConfigCpuNumber;
        vm.memoryMiB = config.vmConfigMemory;
        vm.autoStart = Boolean.TRUE.equals(config.vmConfigAutoStart);
        vm.cpuWeight = config.vmConfigCpuWeight;
        UUID kept = keptUuids.take(config.vmIndex, config.vmName);
        if (kept != null) vm.uuid = kept.toString();
        vm.uuid();
        synchronized (vms) {
            plug(vm, config.interfaces());
            vms.put(vm.vmIndex, vm);
        }
        record(vm);
    }

    @Override
    public void reconfigure(VmConfigEntry config) throws DriverException {
        SimVm vm = require(config.vmIndex);
        step("reconfigure", config.vmName, Duration.ZERO);
        if (!vm.name.equals(config.vmName)) {
            claimName(config.vmName, config.vmIndex);
            names.remove(vm.name, vm.vmIndex);
        }
        vm.name = config.vmName;
        vm.cpus = config.vmConfigCpuNumber;
        vm.memoryMiB = config.vmConfigMemory;
        vm.autoStart = Boolean.TRUE.equals(config.vmConfigAutoStart);
        vm.cpuWeight = config.vmConfigCpuWeight;
        record(vm);
    }

    @Override
    public void start(int vmIndex) throws DriverException {
        SimVm vm = require(vmIndex);
        step("start", vm.name, vm.power == PowerState.PAUSED ? Duration.ZERO : latency.start());
        if (vm.power == PowerState.RUNNING) return;
        if (vm.power != PowerState.PAUSED) vm.bootMillis = System.currentTimeMillis();
        vm.power = PowerState.RUNNING;
        record(vm);
    }

    @Override
    public void stop(int vmIndex) throws DriverException {
        SimVm vm = require(vmIndex);
        step("stop", vm.name, latency.stop());
        if (vm.power == PowerState.HALTED) return;
        vm.cpuMicros = cpuMicros(vm, System.currentTimeMillis());
        vm.power = PowerState.HALTED;
        record(vm);
    }

    @Override
    public void suspend(int vmIndex, AdminState how) throws DriverException {
        if (!adminStates.contains(how)) {
            throw new DriverException("NOT_SUPPORTED", "this simulated host offers no " + how.label());
        }
        SimVm vm = require(vmIndex);
        step(how.label(), vm.name, how == AdminState.PAUSED ? Duration.ZERO : latency.suspend());
        if (vm.power == PowerState.HALTED) {
            throw new DriverException("VM_BAD_POWER_STATE", "VM " + vm.name + " is halted");
        }
        vm.power = how == AdminState.PAUSED ? PowerState.PAUSED : PowerState.SUSPENDED;
        record(vm);
    }

    @Override
    public void destroy(int vmIndex) throws DriverException {
        SimVm vm = vms.get(vmIndex);
        step("destroy", vm == null ? "?" : vm.name, latency.destroy());
        SimVm gone = vms.remove(vmIndex);
        if (gone != null) {
            names.remove(gone.name, vmIndex);
            append("{\"destroy\":" + vmIndex + "}");
            linked.remove(vmIndex);
            tellLinks();
        }
    }

    @Override
    public void addInterface(int vmIndex, VmNetworkConfigEntry iface) throws DriverException {
        SimVm vm = require(vmIndex);
        step("addInterface", vm.name, Duration.ZERO);
        List<VmNetworkConfigEntry> ifs = new ArrayList<>(vm.interfaces);
        ifs.removeIf(n -> n.vmNetworkConfigIndex.equals(iface.vmNetworkConfigIndex));
        ifs.add(iface);
        ifs.sort((a, b) -> Integer.compare(a.vmNetworkConfigIndex, b.vmNetworkConfigIndex));
        plug(vm, ifs);
        record(vm);
    }

    @Override
    public void removeInterface(int vmIndex, int networkIndex) throws DriverException {
        SimVm vm = require(vmIndex);
        step("removeInterface", vm.name, Duration.ZERO);
        List<VmNetworkConfigEntry> ifs = new ArrayList<>(vm.interfaces);
        ifs.removeIf(n -> n.vmNetworkConfigIndex == networkIndex);
        plug(vm, ifs);
        record(vm);
    }

    @Override
    public Optional<VmRuntime> inspect(int vmIndex) {
        SimVm vm = vms.get(vmIndex);
        return vm == null ? Optional.empty() : Optional.of(runtime(vm, System.currentTimeMillis()));
    }

    @Override
    public Optional<String> uuid(int vmIndex) {
        SimVm vm = vms.get(vmIndex);
        return vm == null ? Optional.empty() : Optional.of(vm.uuid());
    }

    @Override
    public List<VmRuntime> list() {
        long now = System.currentTimeMillis();
        List<VmRuntime> out = new ArrayList<>(vms.size());
        for (SimVm vm : vms.values()) out.add(runtime(vm, now));
        return out;
    }

    @Override
    public void setListener(DriverListener listener) {
        this.listener = listener;
    }

    /** Removes a VM as another tool on the host would; the host's event feed reports it. For tests. */
    public void deleteBehindTheBack(int vmIndex) {
        SimVm gone = vms.remove(vmIndex);
        if (gone != null) names.remove(gone.name, vmIndex);
        if (gone != null && listener != null) listener.vmVanished(vmIndex);
        tellLinks();
    }

    /** Changes a VM's power state as another tool on the host would. For tests. */
    public void setPowerBehindTheBack(int vmIndex, PowerState power) {
        SimVm vm = vms.get(vmIndex);
        if (vm == null) return;
        vm.power = power;
        if (listener != null) listener.powerStateChanged(vmIndex, power);
        tellLinks();
    }

    /** VM names are unique on this host, as domain or namespace names are on others. */
    private void claimName(String name, int vmIndex) throws DriverException {
        Integer other = names.putIfAbsent(name, vmIndex);
        if (other != null && other != vmIndex) {
            throw new DriverException("VM_NAME_TAKEN", "VM " + other + " is named '" + name + "' already");
        }
    }

    private SimVm require(int vmIndex) throws DriverException {
        SimVm vm = vms.get(vmIndex);
        if (vm == null) throw new DriverException("HANDLE_INVALID", "no VM with vmIndex " + vmIndex);
        return vm;
    }

    private void step(String operation, String vmName, Duration delay) throws DriverException {
        if (!delay.isZero()) {
            try {
                Thread.sleep(delay.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new DriverException("INTERRUPTED", operation + " interrupted");
            }
        }
        String failure = failures.getOrDefault(operation + "/" + vmName, failures.get(operation + "/*"));
        if (failure != null) throw new DriverException("SIM_INJECTED_FAILURE", failure);
    }

    private static long cpuMicros(SimVm vm, long now) {
        long running = vm.power == PowerState.RUNNING || vm.power == PowerState.PAUSED
                ? Math.max(0, now - vm.bootMillis) : 0;
        return vm.cpuMicros + running * 20L * vm.cpus;
    }

    private VmRuntime runtime(SimVm vm, long now) {
        boolean up = vm.power == PowerState.RUNNING || vm.power == PowerState.PAUSED;
        long uptimeMillis = up ? Math.max(0, now - vm.bootMillis) : 0;
        long cpu = cpuMicros(vm, now);
        VmEntry e = new VmEntry();
        e.vmUUID = vm.uuid();
        e.vmOSType = vm.template;
        e.vmAutoStart = vm.autoStart ? VmEntry.AutoStart.ENABLED : VmEntry.AutoStart.DISABLED;
        e.vmPersistent = VmEntry.Persistent.PERSISTENT;
        e.vmCurCpuNumber = up ? vm.cpus : 0;
        e.vmMinCpuNumber = 1;
        e.vmMaxCpuNumber = vm.cpus;
        e.vmMemUnit = 1024 * 1024;
        e.vmCurMem = up ? (long) vm.memoryMiB : 0L;
        e.vmMinMem = (long) vm.memoryMiB;
        e.vmMaxMem = (long) vm.memoryMiB;
        e.vmUpTime = uptimeMillis / 10;
        e.vmCpuTime = cpu;
        long connected = vm.interfaces.stream().filter(n -> n.vmNetworkConfigAddress != null).count();
        e.vmRouteEntries = up ? connected + 1 : 0L;
        e.vmFibEntries = e.vmRouteEntries;
        e.vmRoutingProtocols = up ? "connected,static" : "";
        String routerId = vm.interfaces.stream()
                .filter(n -> n.vmNetworkConfigAddressType == InetAddressType.IPV4 && n.vmNetworkConfigAddress != null)
                .map(n -> n.vmNetworkConfigAddress).findFirst().orElse(null);
        e.vmRouterAddrType = routerId == null ? null : InetAddressType.IPV4;
        e.vmRouterAddr = routerId;

        List<VmCpuEntry> cpus = new ArrayList<>(vm.cpus);
        for (int i = 1; i <= vm.cpus; i++) {
            VmCpuEntry c = new VmCpuEntry();
            c.vmCpuIndex = i;
            c.vmCpuCoreTime = cpu / vm.cpus;
            // Each vCPU on its own physical CPU, so vmCpuAffinityTable has rows (RFC 7666: 1 and up).
            c.vmCpuPhysIndex = i;
            c.vmCpuAffinity = VmCpuEntry.Affinity.UNKNOWN;
            cpus.add(c);
        }
        VmStorageEntry disk = new VmStorageEntry();
        disk.vmStorageIndex = 1;
        disk.vmStorageParent = 0;
        disk.vmStorageSourceType = VmStorageEntry.SourceType.SPARSE;
        disk.vmStorageSourceTypeString = "sparse";
        disk.vmStorageResourceID = "sim-sr/" + vm.name + "-disk0";
        disk.vmStorageAccess = VmStorageEntry.Access.READWRITE;
        disk.vmStorageMediaType = VmStorageEntry.MediaType.HARD_DISK;
        disk.vmStorageMediaTypeString = "hardDisk";
        disk.vmStorageSizeUnit = 1024 * 1024;
        disk.vmStorageDefinedSize = 2048L;
        disk.vmStorageAllocatedSize = 512L;
        disk.vmStorageReadIOs = uptimeMillis / 100;
        disk.vmStorageWriteIOs = uptimeMillis / 250;
        disk.vmStorageReadOctets = disk.vmStorageReadIOs * 4096;
        disk.vmStorageWriteOctets = disk.vmStorageWriteIOs * 4096;
        disk.vmStorageReadLatency = disk.vmStorageReadIOs * 100;
        disk.vmStorageWriteLatency = disk.vmStorageWriteIOs * 150;

        List<VmNetworkConfigEntry> ifs = vm.interfaces;
        List<VmNetworkEntry> nets = new ArrayList<>(ifs.size());
        for (VmNetworkConfigEntry n : ifs) {
            VmNetworkEntry ne = new VmNetworkEntry();
            ne.vmNetworkIndex = n.vmNetworkConfigIndex;
            ne.vmNetworkIfIndex = 0;
            ne.vmNetworkParent = n.vmNetworkConfigParent;
            ne.vmNetworkModel = "virtio";
            ne.vmNetworkPhysAddress = n.vmNetworkConfigPhysAddress;
            // Traffic as the disk's I/O: it grows while the VM is up, 50 packets of 512 octets a second each way, none lost.
            ne.vmNetworkInPkts = uptimeMillis / 20;
            ne.vmNetworkOutPkts = ne.vmNetworkInPkts;
            ne.vmNetworkInOctets = ne.vmNetworkInPkts * 512;
            ne.vmNetworkOutOctets = ne.vmNetworkInOctets;
            ne.vmNetworkInErrors = 0L;
            ne.vmNetworkOutErrors = 0L;
            ne.vmNetworkInDiscards = 0L;
            ne.vmNetworkOutDiscards = 0L;
            if (LinkType.of(n) == LinkType.PEER) {
                ne.vmNetworkLinkStatus = peerStatus(vm, n);
                if (ne.vmNetworkLinkStatus == LinkStatus.UP) {
                    ne.vmNetworkLinkDelay = 40L;
                    ne.vmNetworkLinkLoss = 0L;
                }
            } else {
                ne.vmNetworkLinkStatus = LinkStatus.UNKNOWN;
            }
            nets.add(ne);
        }
        return new VmRuntime(vm.vmIndex, vm.name, vm.power, e, cpus, List.of(disk), nets);
    }

    // ---------------------------------------------------------------- MACs

    /** The 46 bits of a locally administered unicast MAC that are free. */
    private static final long MAC_BITS = (1L << 46) - 1;

    /**
     * Plugs the VM's interfaces, each with a MAC: the one asked for, else the one the VM has for that
     * interface, else a new one, which the service records in the row. Under one lock for the whole
     * host, so that two VMs plugged at once never take the same new MAC.
     */
    private void plug(SimVm vm, List<VmNetworkConfigEntry> ifs) {
        synchronized (vms) {
            Set<String> used = new HashSet<>();
            for (SimVm other : vms.values()) {
                for (VmNetworkConfigEntry n : other.interfaces) if (n.vmNetworkConfigPhysAddress != null) used.add(mac(n));
            }
            for (VmNetworkConfigEntry n : ifs) if (n.vmNetworkConfigPhysAddress != null) used.add(mac(n));
            List<VmNetworkConfigEntry> plugged = new ArrayList<>(ifs.size());
            for (VmNetworkConfigEntry n : ifs) {
                if (n.vmNetworkConfigPhysAddress != null) {
                    plugged.add(n);
                    continue;
                }
                VmNetworkConfigEntry withMac = n.copy();
                withMac.vmNetworkConfigPhysAddress = had(vm, n.vmNetworkConfigIndex)
                        .orElseGet(() -> newMac(vm.vmIndex, n.vmNetworkConfigIndex, used));
                used.add(withMac.vmNetworkConfigPhysAddress);
                plugged.add(withMac);
            }
            vm.interfaces = List.copyOf(plugged);
        }
    }

    private static String mac(VmNetworkConfigEntry n) {
        return n.vmNetworkConfigPhysAddress.toLowerCase(Locale.ROOT);
    }

    private static Optional<String> had(SimVm vm, int networkIndex) {
        return vm.interfaces.stream().filter(n -> n.vmNetworkConfigIndex == networkIndex && n.vmNetworkConfigPhysAddress != null)
                .map(SimulatedDriver::mac).findFirst();
    }

    /**
     * A MAC no interface of this host has, for the service refuses a MAC another interface has:
     * 02:00 then the vmIndex's low 24 bits and the interface index's low 8 (the MACs of earlier
     * releases), the vmIndex's next 6 bits in the first octet's free bits and the interface index's
     * high 8 in the second, so that VRs below 2^30 and every interface index have MACs of their own;
     * the next free one for any that is taken (a MAC given to another interface, a VR above 2^30).
     */
    private static String newMac(int vmIndex, int networkIndex, Set<String> used) {
        long bits = ((long) ((vmIndex >> 24) & 0x3f) << 40) | ((long) ((networkIndex >> 8) & 0xff) << 32)
                | ((long) (vmIndex & 0xffffff) << 8) | (networkIndex & 0xff);
        while (true) {
            String mac = String.format("%02x:%02x:%02x:%02x:%02x:%02x", ((bits >> 38) & 0xfc) | 0x02, (bits >> 32) & 0xff,
                    (bits >> 24) & 0xff, (bits >> 16) & 0xff, (bits >> 8) & 0xff, bits & 0xff);
            if (!used.contains(mac)) return mac;
            bits = (bits + 1) & MAC_BITS;
        }
    }

    // ---------------------------------------------------------------- the host journal

    private void record(SimVm vm) {
        if (vm.interfaces.stream().anyMatch(n -> LinkType.of(n) == LinkType.PEER)) linked.add(vm.vmIndex);
        else linked.remove(vm.vmIndex);
        tellLinks();
        if (journal == null) return;
        append(line(vm));
    }

    /** The status last told of each running VM's peer link ends, by "vmIndex/interface"; absent: down. */
    private final Map<String, LinkStatus> toldLinks = new HashMap<>();
    /** The VMs with a peer link end: only they are looked at, so that a host of 10,000 unlinked VMs pays nothing. */
    private final Set<Integer> linked = ConcurrentHashMap.newKeySet();

    /**
     * Tells the listener of each peer link end of a running VM whose status changed, as a host's probe
     * would: up once the far end names it back and runs, down when that stops. Not running, an end is
     * not probed, and nothing is told of it.
     */
    private synchronized void tellLinks() {
        if (linked.isEmpty() && toldLinks.isEmpty()) return;
        Map<String, LinkStatus> now = new HashMap<>();
        for (int i : linked) {
            SimVm vm = vms.get(i);
            if (vm == null || vm.power != PowerState.RUNNING) continue;
            for (VmNetworkConfigEntry n : vm.interfaces) {
                if (LinkType.of(n) == LinkType.PEER) now.put(vm.vmIndex + "/" + n.vmNetworkConfigIndex, peerStatus(vm, n));
            }
        }
        DriverListener l = listener;
        for (Map.Entry<String, LinkStatus> e : now.entrySet()) {
            if (e.getValue() == toldLinks.getOrDefault(e.getKey(), LinkStatus.DOWN)) continue;
            String[] at = e.getKey().split("/");
            if (l != null) l.linkChanged(Integer.parseInt(at[0]), Integer.parseInt(at[1]), e.getValue());
        }
        toldLinks.clear();
        toldLinks.putAll(now);
    }

    private String line(SimVm vm) {
        try {
            return "{\"vm\":" + json.writeValueAsString(vm) + "}";
        } catch (IOException e) {
            throw new UncheckedIOException("cannot encode a VM of the simulated host", e);
        }
    }

    private synchronized void append(String line) {
        if (journal == null) return;
        try {
            if (journalOut == null) startCompactJournal();
            journalOut.write(line);
            journalOut.write('\n');
            journalOut.flush();
        } catch (IOException e) {
            // The simulated host keeps its VMs in the data directory: its failure is the directory's.
            log.error("cannot write the simulated host's journal {}: {}", journal, e.toString());
            throw new StorageUnavailableException(e);
        }
    }

    /**
     * Replaces the journal read at start-up by one holding just the VMs that exist (renamed over it
     * whole), and goes on appending to it. Done at the first change, not at start-up, so that a start
     * refused later (a damaged file elsewhere in the data directory) leaves the journal as it was.
     */
    private void startCompactJournal() throws IOException {
        Files.createDirectories(journal.getParent());
        Path compact = journal.resolveSibling(journal.getFileName() + ".tmp");
        Writer out = Files.newBufferedWriter(compact, StandardCharsets.UTF_8);
        try {
            for (SimVm vm : vms.values()) {
                out.write(line(vm));
                out.write('\n');
            }
            out.flush();
            Files.move(compact, journal, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException | RuntimeException e) {
            out.close();
            throw e;
        }
        journalOut = out;
    }

    /** Reads the journal; writes nothing (see {@link #startCompactJournal}). */
    private void load() {
        try {
            if (Files.exists(journal)) {
                try (BufferedReader in = Files.newBufferedReader(journal, StandardCharsets.UTF_8)) {
                    String line;
                    while ((line = in.readLine()) != null) {
                        if (line.isBlank()) continue;
                        ObjectNode node;
                        try {
                            node = (ObjectNode) json.readTree(line);
                        } catch (IOException torn) {
                            break;
                        }
                        if (node.has("destroy")) {
                            SimVm gone = vms.remove(node.get("destroy").asInt());
                            if (gone != null) names.remove(gone.name, gone.vmIndex);
                        } else {
                            SimVm vm = json.treeToValue(node.get("vm"), SimVm.class);
                            vm.uuid();
                            SimVm was = vms.put(vm.vmIndex, vm);
                            if (was != null) names.remove(was.name, was.vmIndex);
                            names.put(vm.name, vm.vmIndex);
                        }
                    }
                }
            }
            // A journal of an earlier release holds no generated MACs: they are chosen now, as they were then.
            for (SimVm vm : vms.values()) plug(vm, vm.interfaces);
            if (!vms.isEmpty()) log.info("simulated host has {} VMs from {}", vms.size(), journal);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the simulated host's journal " + journal, e);
        }
    }

    @Override
    public synchronized void close() {
        if (journalOut != null) {
            try {
                journalOut.close();
            } catch (IOException e) {
                log.warn("closing {} failed", journal, e);
            }
        }
    }

    @Override
    public void keepUuid(int vmIndex, String vmName, UUID uuid) {
        keptUuids.put(vmIndex, vmName, uuid);
    }
}
