package io.vrouter.libvirt;

import io.vrouter.core.driver.DriverException;
import io.vrouter.core.driver.PowerState;
import io.vrouter.core.driver.VmRuntime;
import io.vrouter.core.model.InetAddressType;
import io.vrouter.core.model.LinkStatus;
import io.vrouter.core.model.VmCpuEntry;
import io.vrouter.core.model.VmEntry;
import io.vrouter.core.model.VmNetworkEntry;
import io.vrouter.core.model.VmStorageEntry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.libvirt.Connect;
import org.libvirt.Domain;
import org.libvirt.DomainBlockInfo;
import org.libvirt.DomainBlockStats;
import org.libvirt.DomainInfo;
import org.libvirt.DomainInterfaceStats;
import org.libvirt.LibvirtException;
import org.libvirt.MemoryStatistic;
import org.libvirt.VcpuInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The libvirt driver's reads and the cache they are served from: each VR as libvirt last showed it
 * (its definition, state, vCPUs, balloon, taps' and disk's counters), read through the driver's
 * connection ({@link LibvirtDriver#call}) in the background every libvirt.refresh-interval, after each
 * of the driver's operations and at each domain event, so that a slow or hung libvirtd never holds up
 * an SNMP or REST read.
 */
final class LibvirtReads implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LibvirtReads.class);
    private static final long MIB = 1024 * 1024;
    /** VIR_DOMAIN_MEMORY_STAT_ACTUAL_BALLOON: the balloon's current size, KiB; and how many statistics there are. */
    private static final int STAT_ACTUAL_BALLOON = 6;
    private static final int STAT_NR = 13;

    private final LibvirtSettings settings;
    private final Pattern ourName;
    /** The driver, whose connection the reads use. */
    private final LibvirtDriver libvirt;
    /**
     * Every VR as libvirt last showed it, what reads are served from: refreshed in the background every
     * refresh interval, after each of vrouter's operations on the VR and at each of its domain events,
     * so that a slow or hung libvirtd never holds up an SNMP or REST read.
     */
    private final Map<Integer, Seen> seen = new ConcurrentHashMap<>();
    private final ScheduledExecutorService refresher = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "libvirt-refresh");
        t.setDaemon(true);
        return t;
    });
    /** When the background refresh now under way began (System.nanoTime), or 0 when none is. */
    private volatile long refreshingSince;

    /** A VR as read at readAt (System.nanoTime, taken before the read), null when it had no domain. */
    private record Seen(long readAt, VmRuntime vm) {
    }

    LibvirtReads(LibvirtSettings settings, Pattern ourName, LibvirtDriver libvirt) {
        this.settings = settings;
        this.ourName = ourName;
        this.libvirt = libvirt;
    }

    /** Reads every VR now, then again every libvirt.refresh-interval. */
    void start() {
        refreshAll();
        long every = settings.refreshInterval().toMillis();
        refresher.scheduleWithFixedDelay(this::refreshAll, every, every, TimeUnit.MILLISECONDS);
    }

    /** How long the background refresh now under way has waited for libvirt, in seconds; 0 when none is. */
    long refreshingForSeconds() {
        long since = refreshingSince;
        return since == 0 ? 0 : (System.nanoTime() - since) / 1_000_000_000L;
    }

    /** The VR as libvirt last showed it: from the cache, never a call to libvirt. */
    Optional<VmRuntime> inspect(int vmIndex) {
        Seen s = seen.get(vmIndex);
        return s == null ? Optional.empty() : Optional.ofNullable(s.vm());
    }

    /** Every VR read again from libvirt (at start-up, for reconciliation), the cache with them. */
    List<VmRuntime> list() throws DriverException {
        long at = System.nanoTime();
        List<VmRuntime> all = readAll();
        Set<Integer> found = new TreeSet<>();
        for (VmRuntime vm : all) {
            remember(vm.vmIndex(), at, vm);
            found.add(vm.vmIndex());
        }
        for (Integer gone : seen.keySet()) if (!found.contains(gone)) remember(gone, at, null);
        // What was gone before this read is forgotten: absent and unknown read alike.
        seen.values().removeIf(s -> s.vm() == null && s.readAt() < at);
        return all;
    }

    /** Keeps the newer of two reads of a VR: a read that began before another ended never overwrites it. */
    private void remember(int vmIndex, long readAt, VmRuntime vm) {
        seen.merge(vmIndex, new Seen(readAt, vm), (old, now) -> now.readAt() >= old.readAt() ? now : old);
    }

    /** Reads one VR into the cache, on the caller's thread (an operation's, the events'). */
    void refresh(int vmIndex) {
        long at = System.nanoTime();
        try {
            Optional<Domain> d = libvirt.lookup(vmIndex);
            remember(vmIndex, at, d.isEmpty() ? null : runtime(d.get()));
        } catch (DriverException e) {
            log.debug("reading VR {}: {}", vmIndex, e.getMessage());
        }
    }

    /** The background refresh: every VR read again; a failure leaves the cache as it was and is the problem. */
    private void refreshAll() {
        refreshingSince = System.nanoTime();
        try {
            list();
        } catch (DriverException | RuntimeException e) {
            log.debug("refreshing the VRs from libvirt: {}", e.getMessage());
        } finally {
            refreshingSince = 0;
        }
    }

    private List<VmRuntime> readAll() throws DriverException {
        Set<String> names = new TreeSet<>();
        Connect c = libvirt.connection();
        libvirt.call("list", () -> {
            for (int id : c.listDomains()) {
                try {
                    names.add(c.domainLookupByID(id).getName());
                } catch (LibvirtException gone) {
                    // stopped between the two calls: listed again below if defined
                }
            }
            names.addAll(List.of(c.listDefinedDomains()));
            return null;
        });
        List<VmRuntime> out = new ArrayList<>();
        for (String n : names) {
            var m = ourName.matcher(n);
            if (!m.matches()) continue;
            libvirt.lookup(Integer.parseInt(m.group(1))).map(this::runtimeUnchecked).ifPresent(out::add);
        }
        return out;
    }

    /** The VR as libvirt shows it, or null when the domain is not vrouter's. */
    private VmRuntime runtime(Domain d) throws DriverException {
        DomainXml.Parsed p = libvirt.parsed(d);
        if (p == null) return null;
        DomainInfo info = libvirt.info(d);
        PowerState power = powerOf(d, info);
        boolean up = power == PowerState.RUNNING || power == PowerState.PAUSED;
        String name = settings.domainName(p.vmIndex());
        VmEntry e = new VmEntry();
        e.vmUUID = libvirt.call("uuid", d::getUUIDString);
        e.vmOSType = p.template();
        e.vmAutoStart = libvirt.call("autostart", d::getAutostart) ? VmEntry.AutoStart.ENABLED : VmEntry.AutoStart.DISABLED;
        e.vmPersistent = VmEntry.Persistent.PERSISTENT;
        e.vmCurCpuNumber = up ? info.nrVirtCpu : 0;
        e.vmMinCpuNumber = 1;
        e.vmMaxCpuNumber = p.vcpus();
        e.vmMemUnit = 1024;
        e.vmCurMem = up ? balloonKib(d, info.memory) : 0L;
        e.vmMinMem = 0L;
        e.vmMaxMem = info.maxMem;
        e.vmUpTime = up ? uptimeCentiseconds(name) : 0L;
        e.vmCpuTime = info.cpuTime / 1000;
        String addr = p.nics().stream().map(DomainXml.Nic::address).filter(a -> a != null)
                .map(a -> a.substring(0, a.indexOf('/'))).findFirst().orElse(null);
        e.vmRouterAddr = addr;
        e.vmRouterAddrType = addr == null ? null : addr.contains(":") ? InetAddressType.IPV6 : InetAddressType.IPV4;

        List<VmCpuEntry> cpus = new ArrayList<>();
        VcpuInfo[] vcpus = up ? libvirt.call("vcpus", d::getVcpusInfo) : new VcpuInfo[0];
        for (VcpuInfo v : vcpus) {
            VmCpuEntry c = new VmCpuEntry();
            c.vmCpuIndex = v.number + 1;
            c.vmCpuCoreTime = v.cpuTime / 1000;
            c.vmCpuPhysIndex = v.cpu + 1;
            c.vmCpuAffinity = VmCpuEntry.Affinity.UNKNOWN;
            cpus.add(c);
        }
        // The VR's interfaces are the definition's; the running domain names the tap of each NIC plugged in.
        Map<String, String> taps = up ? DomainXml.hostDevices(libvirt.call("xml", () -> d.getXMLDesc(0))) : Map.of();
        List<VmNetworkEntry> nets = new ArrayList<>();
        for (DomainXml.Nic n : p.nics()) {
            String tap = taps.get(n.mac());
            VmNetworkEntry ne = new VmNetworkEntry();
            ne.vmNetworkIndex = n.index();
            ne.vmNetworkIfIndex = tap == null ? 0 : ifIndex(tap);
            ne.vmNetworkParent = n.peer() == null ? n.bridge() : n.peer().mark();
            if (n.peer() != null) ne.vmNetworkLinkStatus = up ? peerStatus(p.vmIndex(), n) : LinkStatus.UNKNOWN;
            ne.vmNetworkModel = "virtio";
            ne.vmNetworkPhysAddress = n.mac();
            if (tap != null) {
                try {
                    // libvirt turns a tap's counters round: these are the guest's.
                    DomainInterfaceStats s = d.interfaceStats(tap);
                    ne.vmNetworkInOctets = s.rx_bytes;
                    ne.vmNetworkInPkts = s.rx_packets;
                    ne.vmNetworkOutOctets = s.tx_bytes;
                    ne.vmNetworkOutPkts = s.tx_packets;
                    ne.vmNetworkInErrors = s.rx_errs;
                    ne.vmNetworkOutErrors = s.tx_errs;
                    ne.vmNetworkInDiscards = s.rx_drop;
                    ne.vmNetworkOutDiscards = s.tx_drop;
                } catch (LibvirtException gone) {
                    // stopped meanwhile
                }
            }
            nets.add(ne);
        }
        List<VmStorageEntry> storage = p.disk() == null ? List.of() : List.of(storage(d, p.disk(), up));
        return new VmRuntime(p.vmIndex(), p.vmName(), power, e, cpus, storage, nets);
    }

    /**
     * A running peer end's status: up while its far end's domain runs with an end naming this one, the two
     * sockets then sending to each other. QEMU's UDP netdev has no carrier and libvirt no counters for it,
     * so the link is told from the two domains' states, its delay and loss unmeasured.
     */
    private LinkStatus peerStatus(int vmIndex, DomainXml.Nic n) throws DriverException {
        Optional<Domain> far = libvirt.lookup(n.peer().farVm());
        if (far.isEmpty() || !libvirt.active(far.get())) return LinkStatus.DOWN;
        DomainXml.Parsed fp = libvirt.parsed(far.get());
        boolean namesUs = fp != null && fp.nics().stream().anyMatch(f -> f.index() == n.peer().farIf() && f.peer() != null
                && f.peer().farVm() == vmIndex && f.peer().farIf() == n.index());
        return namesUs ? LinkStatus.UP : LinkStatus.DOWN;
    }

    /** The balloon's current size (KiB) from the guest's memory statistics, else libvirt's current allocation. */
    private static long balloonKib(Domain d, long otherwise) {
        try {
            for (MemoryStatistic s : d.memoryStats(STAT_NR)) if (s.getTag() == STAT_ACTUAL_BALLOON) return s.getValue();
        } catch (LibvirtException stopped) {
            // stopped meanwhile, or no balloon
        }
        return otherwise;
    }

    /** vmStorageTable's row of the VR's disk: its sizes from the overlay, its I/O from QEMU while it runs. */
    private static VmStorageEntry storage(Domain d, String disk, boolean up) {
        VmStorageEntry s = new VmStorageEntry();
        s.vmStorageIndex = 1;
        s.vmStorageParent = 0;
        s.vmStorageSourceType = VmStorageEntry.SourceType.SPARSE;
        s.vmStorageSourceTypeString = "qcow2 overlay";
        s.vmStorageResourceID = disk;
        s.vmStorageAccess = VmStorageEntry.Access.READWRITE;
        s.vmStorageMediaType = VmStorageEntry.MediaType.HARD_DISK;
        s.vmStorageMediaTypeString = "hardDisk";
        s.vmStorageSizeUnit = (int) MIB;
        try {
            DomainBlockInfo b = d.blockInfo(disk);
            s.vmStorageDefinedSize = b.getCapacity() / MIB;
            s.vmStorageAllocatedSize = b.getAllocation() / MIB;
        } catch (LibvirtException unreadable) {
            // the overlay gone meanwhile: sizes unknown
        }
        if (up) {
            try {
                DomainBlockStats io = d.blockStats(DomainXml.DISK_TARGET);
                s.vmStorageReadIOs = io.rd_req;
                s.vmStorageReadOctets = io.rd_bytes;
                s.vmStorageWriteIOs = io.wr_req;
                s.vmStorageWriteOctets = io.wr_bytes;
            } catch (LibvirtException stopped) {
                // stopped meanwhile
            }
        }
        return s;
    }

    /** The power state, a shut-off domain with a managed save image being suspended. */
    private PowerState powerOf(Domain d, DomainInfo info) throws DriverException {
        if (info.state == DomainInfo.DomainState.VIR_DOMAIN_SHUTOFF && libvirt.call("managed save image", d::hasManagedSaveImage) == 1) {
            return PowerState.SUSPENDED;
        }
        return power(info.state);
    }

    static PowerState power(DomainInfo.DomainState s) {
        return switch (s) {
            case VIR_DOMAIN_RUNNING, VIR_DOMAIN_BLOCKED, VIR_DOMAIN_SHUTDOWN -> PowerState.RUNNING;
            case VIR_DOMAIN_PAUSED -> PowerState.PAUSED;
            case VIR_DOMAIN_CRASHED -> PowerState.CRASHED;
            case VIR_DOMAIN_SHUTOFF, VIR_DOMAIN_NOSTATE -> PowerState.HALTED;
        };
    }

    /** Since QEMU started: its pid file, which libvirt writes at start, is as old as the guest. */
    private long uptimeCentiseconds(String domainName) {
        try {
            long started = Files.getLastModifiedTime(Path.of("/run/libvirt/qemu", domainName + ".pid")).toMillis();
            return Math.max(0, System.currentTimeMillis() - started) / 10;
        } catch (IOException e) {
            return 0L;
        }
    }

    private static int ifIndex(String dev) {
        try {
            return Integer.parseInt(Files.readString(Path.of("/sys/class/net", dev, "ifindex")).strip());
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    private VmRuntime runtimeUnchecked(Domain d) {
        try {
            return runtime(d);
        } catch (DriverException e) {
            log.warn("cannot read domain: {}", e.getMessage());
            return null;
        }
    }

    @Override
    public void close() {
        refresher.shutdownNow();
    }
}
