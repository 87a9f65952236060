package io.vrouter.netns;

import io.vrouter.core.driver.ConfigRefusedException;
import io.vrouter.core.driver.CpuWeights;
import io.vrouter.core.driver.KeptUuids;
import io.vrouter.core.driver.Links;
import io.vrouter.core.driver.RateLimits;
import io.vrouter.core.driver.DriverException;
import io.vrouter.core.driver.DriverListener;
import io.vrouter.core.driver.HypervisorDriver;
import io.vrouter.core.driver.Interfaces;
import io.vrouter.core.driver.PowerStates;
import io.vrouter.core.driver.VmRuntime;
import io.vrouter.core.model.AdminState;
import io.vrouter.netns.Vr.Observed;
import io.vrouter.core.model.Hypervisor;
import io.vrouter.core.model.LinkType;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * VRs as Linux network namespaces, the way OpenStack Neutron's L3 agent builds its routers: each VR
 * is a namespace {@code PREFIX<vmIndex>} whose interfaces are veth pairs, the host side a port of the
 * Linux bridge named by vmNetworkConfigParent; the kernel forwards between them, and the template's
 * routing daemon (none for {@code kernel}, BIRD for {@code bird}) runs inside, in a cgroup of the VR.
 *
 * <p>Every step is idempotent and checks before it acts, so that a step re-driven after a crash is
 * safe. What the driver did is recorded in {@link HostRecord} (the marker); reads come from a cache
 * ({@link NetnsCache}) kept current by {@link HostMonitor}'s netlink events, sysfs and bounded polls,
 * never from a process per read, and are made into a VR's state by {@link NetnsReads}. This class is
 * the driver's lifecycle, power states, interfaces and the tc shaping of rates and weights.
 */
public final class NetnsDriver implements HypervisorDriver, PowerStates, Interfaces, Links, RateLimits, CpuWeights, KeptUuids {
    private static final Logger log = LoggerFactory.getLogger(NetnsDriver.class);
    public static final String KERNEL = "kernel";
    static final int CAP_NET_ADMIN = 12;
    static final int CAP_SYS_ADMIN = 21;
    private static final Path BR_NETFILTER = Path.of("/proc/sys/net/bridge/bridge-nf-call-iptables");
    static final String STATIC_ROUTES = "static-routes";
    /** VR i's namespace has nsid NSID_BASE + i, so that the monitor's events name it without a lookup. */
    static final int NSID_BASE = 1 << 24;

    private final NetnsSettings settings;
    private final Names names;
    private final Commands commands;
    private final Cgroups cgroups;
    private final Bird bird;
    private final List<String> templates;
    private final KeptUuids.Told keptUuids = new KeptUuids.Told();
    private final HostLinks hostLinks;
    private final String bridgeAlias;
    private final String version;
    private final ScheduledExecutorService timers;
    /** Its VRs and what it knows of them, kept current by the monitor's events and bounded polls. */
    private final NetnsCache cache;
    private final NetnsReads reads;
    private final Map<String, Object> bridgeLocks = new ConcurrentHashMap<>();
    /** Told the parent each time one has been looked up on the host, before the look is acted on: tests hold races open here. */
    volatile Consumer<String> parentLookedUp = parent -> { };
    private final HostMonitor monitor;
    private final PeerLinks peerLinks;
    private final VxlanLinks vxlanLinks;
    private final MacvlanLinks macvlanLinks;
    private final LinkProbes probes;

    private NetnsDriver(NetnsSettings settings, Cgroups cgroups) {
        this.settings = settings;
        this.names = new Names(settings.prefix());
        this.cgroups = cgroups;
        this.timers = Executors.newScheduledThreadPool(1, daemonThreads("netns-timer"));
        this.commands = new Commands(settings.ip(), settings.commandTimeout(), timers);
        this.peerLinks = new PeerLinks(names, commands);
        MovedIn movedIn = new MovedIn(names, commands);
        this.vxlanLinks = new VxlanLinks(movedIn);
        this.macvlanLinks = new MacvlanLinks(movedIn);
        this.bird = new Bird(settings.bird(), commands, settings.stopTimeout());
        // Reads namespaces one at a time: events never turn into a burst of processes.
        this.cache = new NetnsCache(settings, names, commands, cgroups, bird,
                Executors.newSingleThreadScheduledExecutor(daemonThreads("netns-refresh")));
        this.probes = new LinkProbes(settings.ip(), settings.counterMaxAge(), timers, (vm, n, now) -> {
            DriverListener l = cache.listener();
            if (l != null) l.linkChanged(vm, n, now);
        });
        this.templates = bird.installed() ? List.of(KERNEL, Bird.TEMPLATE) : List.of(KERNEL);
        this.hostLinks = new HostLinks(settings.counterMaxAge());
        this.bridgeAlias = "vrouter:" + settings.prefix();
        this.version = kernelRelease();
        this.reads = new NetnsReads(settings, names, cgroups, hostLinks, probes);
        this.monitor = new HostMonitor(settings.ip(), cache.new Events());
    }

    private static java.util.concurrent.ThreadFactory daemonThreads(String name) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, name + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    /**
     * Checks that this process may do what the driver does (root, or CAP_NET_ADMIN and
     * CAP_SYS_ADMIN), that iproute2 and the cgroup controllers are there, and starts following
     * the host.
     */
    public static NetnsDriver open(NetnsSettings settings) throws DriverException {
        List<String> missing = missingCapabilities();
        if (!missing.isEmpty()) {
            throw new DriverException("NOT_PERMITTED", "--driver netns needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN);"
                    + " this process lacks " + String.join(" and ", missing));
        }
        return open(settings, Cgroups.detect(settings.cgroupParent()));
    }

    /** The same, on the given cgroups (tests look in between). */
    static NetnsDriver open(NetnsSettings settings, Cgroups cgroups) throws DriverException {
        NetnsDriver d = new NetnsDriver(settings, cgroups);
        try {
            d.commands.ip("-V");
        } catch (DriverException e) {
            d.close();
            throw new DriverException("NO_IPROUTE2", "--driver netns needs iproute2's ip command ('" + settings.ip()
                    + "'): " + e.getMessage(), e);
        }
        try {
            Files.createDirectories(settings.runDir());
            d.monitor.start();
        } catch (IOException e) {
            d.close();
            throw new DriverException("NOT_PERMITTED", "--driver netns cannot use " + settings.runDir() + " or "
                    + HostMonitor.NETNS_DIR + ": " + e.getMessage(), e);
        }
        d.timers.scheduleWithFixedDelay(d.cache::checkDaemons, settings.daemonCheckInterval().toMillis(),
                settings.daemonCheckInterval().toMillis(), TimeUnit.MILLISECONDS);
        d.timers.scheduleWithFixedDelay(d.cache::resync, settings.resyncInterval().toMillis(),
                settings.resyncInterval().toMillis(), TimeUnit.MILLISECONDS);
        if (Cgroups.read(BR_NETFILTER).equals("1")) {
            log.warn("br_netfilter is on (net.bridge.bridge-nf-call-iptables=1, as Docker sets it): traffic between VRs"
                    + " on a bridge crosses the host's iptables FORWARD chain and is dropped where its policy is DROP;"
                    + " vr-netns-driver/README.md says how to let it through");
        }
        log.info("netns driver: VRs as namespaces {}<vmIndex>, records in {}, {}, templates {}", settings.prefix(),
                settings.runDir(), cgroups.describe(), d.templates);
        return d;
    }

    /** The capabilities of CAP_NET_ADMIN and CAP_SYS_ADMIN this process does not have. */
    static List<String> missingCapabilities() {
        long eff = 0;
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("CapEff:")) eff = Long.parseUnsignedLong(line.substring(7).trim(), 16);
            }
        } catch (IOException e) {
            return List.of("CAP_NET_ADMIN", "CAP_SYS_ADMIN");
        }
        return missingCapabilities(eff);
    }

    static List<String> missingCapabilities(long effective) {
        List<String> missing = new ArrayList<>();
        if ((effective & (1L << CAP_NET_ADMIN)) == 0) missing.add("CAP_NET_ADMIN");
        if ((effective & (1L << CAP_SYS_ADMIN)) == 0) missing.add("CAP_SYS_ADMIN");
        return missing;
    }

    private static String kernelRelease() {
        return Cgroups.read(Path.of("/proc/sys/kernel/osrelease"));
    }

    @Override
    public String name() {
        return "netns";
    }

    @Override
    public List<String> templates() {
        return templates;
    }

    @Override
    public Set<AdminState> suspendStates() {
        // A namespace has no memory image to save to disk: pause (the freezer) yes, suspend no.
        return EnumSet.of(AdminState.PAUSED);
    }

    @Override
    public Hypervisor hypervisor() {
        Hypervisor h = new Hypervisor();
        h.vmHvSoftware = "Linux network namespaces";
        h.vmHvVersion = version;
        h.vmHvObjectID = "0.0";
        String up = Cgroups.read(Path.of("/proc/uptime"));
        h.vmHvUpTime = up.isEmpty() ? 0L : (long) (Double.parseDouble(up.split(" ")[0]) * 100);
        io.vrouter.core.driver.HostResources.fill(h);
        return h;
    }

    @Override
    public Optional<String> problem() {
        return cache.problem();
    }

    @Override
    public void setListener(DriverListener listener) {
        cache.setListener(listener);
    }

    // ---------------------------------------------------------------- lifecycle

    private interface Op {
        void run(Vr vr) throws DriverException, IOException;
    }

    /** Runs an operation of vrouter's on a VR: the listener is not told of what it changes. */
    private void ours(Vr vr, String operation, Op op) throws DriverException {
        synchronized (vr) {
            vr.busy.incrementAndGet();
            vr.operations++;
        }
        try {
            op.run(vr);
        } catch (IOException e) {
            throw new DriverException(Commands.FAILED, operation + " of VR " + vr.vmIndex + ": " + e.getMessage(), e);
        } finally {
            // Settled before it stops being ours, so that no event in between is taken for an outside change.
            NetnsCache.Look now = cache.look(vr);
            synchronized (vr) {
                vr.links = now.links();
                vr.reported = now.observed();
                vr.operations++;
                vr.busy.decrementAndGet();
            }
        }
    }

    private Vr vr(int vmIndex) {
        return cache.vr(vmIndex);
    }

    private Vr require(int vmIndex) throws DriverException {
        Vr vr = cache.get(vmIndex).orElse(null);
        if (vr == null || vr.record == null) {
            throw new DriverException("NO_SUCH_VR", "VR " + vmIndex + " has no namespace on this host");
        }
        return vr;
    }

    /**
     * One interface as it will be built, every operator string checked (docs/adr/0018-links.md): on a
     * bridge (the parent); a peer link's end, its far end {@code farVm}'s interface {@code farIf}; or a
     * VXLAN device to {@code remote} on {@code vni} over the underlay device (the parent).
     */
    private record Plan(int index, LinkType type, String parent, String hostVeth, String mac, String address,
                        int farVm, int farIf, int vni, String remote, Integer rateIn, Integer rateOut) {
        boolean bridged() {
            return type == LinkType.BRIDGE;
        }

        /** What the host record keeps of the interface: its bridge, or what its link leads to. */
        String mark() {
            return switch (type) {
                case PEER -> PeerLinks.mark(farVm, farIf);
                case VXLAN -> VxlanLinks.mark(vni, remote, parent);
                case MACVLAN -> MacvlanLinks.mark(parent);
                default -> parent;
            };
        }
    }

    /** Whether a host record's entry is a link with no host side (peer, VXLAN, macvlan), not a bridge. */
    static boolean hostless(String mark) {
        return PeerLinks.isMark(mark) || VxlanLinks.isMark(mark) || MacvlanLinks.isMark(mark);
    }

    private Plan plan(int vmIndex, VmNetworkConfigEntry n) throws DriverException {
        try {
            checkInterface(vmIndex, n);
            LinkType type = LinkType.of(n);
            String hostVeth = names.hostVeth(vmIndex, n.vmNetworkConfigIndex);
            if (type == LinkType.PEER) {
                return new Plan(n.vmNetworkConfigIndex, type, null, hostVeth, Names.mac(n), Names.address(n),
                        n.vmNetworkConfigPeerRouter, n.vmNetworkConfigPeerInterface, 0, null,
                        n.vmNetworkConfigRateIn, n.vmNetworkConfigRateOut);
            }
            if (type == LinkType.MACVLAN) {
                if (!HostLinks.exists(n.vmNetworkConfigParent) || HostLinks.isBridge(n.vmNetworkConfigParent)) {
                    throw new ConfigRefusedException("vmNetworkConfigParent", "there is no NIC '" + n.vmNetworkConfigParent
                            + "' on this host for a macvlan link" + (HostLinks.isBridge(n.vmNetworkConfigParent)
                            ? " ('" + n.vmNetworkConfigParent + "' is a bridge: attach as a bridge link)" : ""));
                }
                return new Plan(n.vmNetworkConfigIndex, type, n.vmNetworkConfigParent, hostVeth, Names.mac(n), Names.address(n),
                        0, 0, 0, null, n.vmNetworkConfigRateIn, n.vmNetworkConfigRateOut);
            }
            if (type == LinkType.VXLAN) {
                if (!HostLinks.exists(n.vmNetworkConfigParent)) {
                    throw new ConfigRefusedException("vmNetworkConfigParent", "there is no device '" + n.vmNetworkConfigParent
                            + "' on this host to carry the VXLAN link");
                }
                return new Plan(n.vmNetworkConfigIndex, type, n.vmNetworkConfigParent, hostVeth, Names.mac(n), Names.address(n),
                        0, 0, n.vmNetworkConfigVni, n.vmNetworkConfigRemote, n.vmNetworkConfigRateIn, n.vmNetworkConfigRateOut);
            }
            // One read: a bridge that a removal of ours deletes meanwhile is made again by attach, never taken for a foreign interface.
            boolean foreign = HostLinks.isNonBridge(n.vmNetworkConfigParent);
            parentLookedUp.accept(n.vmNetworkConfigParent);
            if (foreign) {
                throw new ConfigRefusedException("vmNetworkConfigParent", "'" + n.vmNetworkConfigParent
                        + "' is an interface of the host that is not a bridge");
            }
            return new Plan(n.vmNetworkConfigIndex, type, n.vmNetworkConfigParent, hostVeth, Names.mac(n), Names.address(n),
                    0, 0, 0, null, n.vmNetworkConfigRateIn, n.vmNetworkConfigRateOut);
        } catch (ConfigRefusedException e) {
            throw new DriverException(Names.CODE, e.field() + ": " + e.getMessage());
        }
    }

    /** What provisioning an interface would refuse that the row alone tells. */
    private void checkInterface(int vmIndex, VmNetworkConfigEntry n) throws ConfigRefusedException {
        try {
            names.checkFits(vmIndex, n.vmNetworkConfigIndex);
            if (LinkType.of(n) == LinkType.PEER) {
                // The far end waits on the host under its own name while this end is not declared.
                names.checkFits(n.vmNetworkConfigPeerRouter, n.vmNetworkConfigPeerInterface);
            } else if (LinkType.of(n).usesHostNic()) {
                names.checkDevice(n.vmNetworkConfigParent);
            } else {
                names.checkBridge(n.vmNetworkConfigParent);
            }
            Names.mac(n);
            Names.address(n);
        } catch (ConfigRefusedException e) {
            throw e.about(n.vmNetworkConfigIndex);
        }
    }

    /**
     * Everything {@link #provision} and {@link #addInterface} check of a row before touching the host,
     * but whether a parent that exists is a bridge (that is the host's, and can change before the
     * work runs): the names the host would be given, the parents, MACs and addresses. The template
     * is the service's to check, against {@link #templates}.
     */
    @Override
    public void check(VmConfigEntry proposed) throws ConfigRefusedException {
        for (VmNetworkConfigEntry n : proposed.interfaces()) checkInterface(proposed.vmIndex, n);
    }

    @Override
    public void provision(VmConfigEntry config) throws DriverException {
        int i = config.vmIndex;
        String template = config.vmConfigTemplate == null ? KERNEL : config.vmConfigTemplate;
        if (!templates.contains(template)) {
            throw new DriverException(Names.CODE, "template '" + template + "' is not one of this host's: " + templates);
        }
        List<Plan> plans = new ArrayList<>();
        for (VmNetworkConfigEntry n : config.interfaces()) plans.add(plan(i, n));
        Vr vr = vr(i);
        ours(vr, "provisioning", v -> {
            HostRecord rec = v.record;
            if (rec == null && Files.exists(v.dir.resolve(HostRecord.FILE))) rec = HostRecord.read(v.dir);
            TreeMap<Integer, String> ifaces = new TreeMap<>();
            plans.forEach(p -> ifaces.put(p.index, p.mark()));
            if (rec == null) {
                UUID kept = keptUuids.take(i, config.vmName);
                rec = new HostRecord(i, config.vmName, template, kept != null ? kept : UUID.randomUUID(), true, HostRecord.HALTED, 0, ifaces,
                        cpus(config), memory(config), Boolean.TRUE.equals(config.vmConfigAutoStart));
            }
            // Written first: whatever is built after it is found again if vrouter stops half-way.
            rec = new HostRecord(i, config.vmName, template, rec.uuid(), true, HostRecord.HALTED, 0, ifaces,
                    cpus(config), memory(config), Boolean.TRUE.equals(config.vmConfigAutoStart));
            rec.write(v.dir);
            v.record = rec;
            try {
                build(v, plans, config);
                v.record = v.record.provisioned();
                v.record.write(v.dir);
            } catch (DriverException | IOException | RuntimeException e) {
                log.warn("provisioning VR {} failed: {}; removing what was built", i, e.getMessage());
                try {
                    teardown(v);
                } catch (DriverException | RuntimeException again) {
                    log.error("VR {}: removing the half-built VR failed too: {}", i, again.getMessage());
                }
                v.record = null;
                throw e;
            }
        });
    }

    private static int cpus(VmConfigEntry c) {
        return c.vmConfigCpuNumber == null ? VmConfigEntry.Defaults.CPU_NUMBER : c.vmConfigCpuNumber;
    }

    private static int weight(VmConfigEntry c) {
        return c.vmConfigCpuWeight == null ? CpuWeights.DEFAULT : c.vmConfigCpuWeight;
    }

    private static int memory(VmConfigEntry c) {
        return c.vmConfigMemory == null ? VmConfigEntry.Defaults.MEMORY_MIB : c.vmConfigMemory;
    }

    /** Builds the namespace, its interfaces, its cgroup and its daemon's configuration, each step only when missing. */
    private void build(Vr v, List<Plan> plans, VmConfigEntry config) throws DriverException, IOException {
        cgroups.create(v.netns, cpus(config), memory(config));
        cgroups.weight(v.netns, weight(config));
        List<String> namespace = new ArrayList<>();
        boolean fresh = !Files.exists(HostMonitor.NETNS_DIR.resolve(v.netns));
        if (fresh) {
            namespace.add("netns add " + v.netns);
            // An nsid makes the namespace's events reach the monitor; a fixed one names the VR in them.
            namespace.add("netns set " + v.netns + " " + nsidOf(v.vmIndex));
        }
        try {
            attach(v, plans, namespace);
        } catch (DriverException e) {
            // The fixed nsid may be another namespace's: then the namespace has none yet, and gets any.
            if (!fresh || !Files.exists(HostMonitor.NETNS_DIR.resolve(v.netns))) throw e;
            try {
                commands.ip("netns", "set", v.netns, "auto");
            } catch (DriverException hadOne) {
                throw e;
            }
            log.info("VR {}: nsid {} is taken, its namespace got another", v.vmIndex, nsidOf(v.vmIndex));
            cache.readNsids();
            attach(v, plans, List.of());
        }
        commands.run(List.of(settings.ip(), "netns", "exec", v.netns, "sysctl", "-q", "-w",
                "net.ipv4.ip_forward=1", "net.ipv6.conf.all.forwarding=1"), null);
        List<String> inside = new ArrayList<>(List.of("link set dev lo up"));
        for (Plan p : plans) inside.addAll(configureInside(p, false));
        cache.read(v, inside);
        for (Plan p : plans) shapeNew(v, p);
        if (v.record.template().equals(Bird.TEMPLATE)) Bird.writeConfig(v.dir, v.vmIndex, routerId(v.vmIndex, plans));
    }

    /** The nsid the driver gives VR i's namespace (the host's own numbers stay far below), or auto. */
    static String nsidOf(int vmIndex) {
        return vmIndex <= Integer.MAX_VALUE - NSID_BASE ? Integer.toString(NSID_BASE + vmIndex) : "auto";
    }

    /** The lines that give the VR side of an interface its address and state. */
    private static List<String> configureInside(Plan p, boolean up) {
        List<String> lines = new ArrayList<>();
        String dev = Names.vrSide(p.index);
        if (p.address != null) lines.add("addr replace " + p.address + " dev " + dev);
        lines.add("link set dev " + dev + (up ? " up" : " down"));
        return lines;
    }

    /** BIRD's router id: the VR's first IPv4 address, or its vmIndex as a dotted quad. */
    private static String routerId(int vmIndex, List<Plan> plans) {
        for (Plan p : plans) {
            if (p.address != null && !p.address.contains(":")) return p.address.substring(0, p.address.indexOf('/'));
        }
        return (vmIndex >>> 24) + "." + ((vmIndex >>> 16) & 255) + "." + ((vmIndex >>> 8) & 255) + "." + (vmIndex & 255);
    }

    /**
     * Creates the missing bridges and veth pairs of the interfaces and plugs the host sides into their
     * bridges, in one batch after the {@code first} lines, holding the bridges' locks so that no
     * removal takes a bridge away meanwhile.
     */
    private void attach(Vr v, List<Plan> plans, List<String> first) throws DriverException {
        List<Plan> bridged = plans.stream().filter(Plan::bridged).toList();
        List<String> bridges = bridged.stream().map(Plan::parent).distinct().sorted().toList();
        withBridges(bridges, () -> {
            List<String> lines = new ArrayList<>(first);
            for (String br : bridges) {
                if (HostLinks.exists(br)) continue;
                lines.add("link add name " + br + " type bridge");
                lines.add("link set dev " + br + " alias " + bridgeAlias + " addrgenmode none up");
            }
            for (Plan p : bridged) {
                if (!HostLinks.exists(p.hostVeth)) {
                    lines.add("link add name " + p.hostVeth + " type veth peer name " + Names.vrSide(p.index)
                            + (p.mac == null ? "" : " address " + p.mac) + " netns " + v.netns);
                }
                // A bridge port is layer 2 only: no IPv6 link-local address of its own.
                lines.add("link set dev " + p.hostVeth + " addrgenmode none master " + p.parent + " up");
            }
            commands.batch(null, false, lines);
        });
        for (Plan p : plans) {
            if (p.type == LinkType.PEER) peerLinks.join(v.netns, v.vmIndex, p.index, p.farVm, p.farIf, p.mac);
            if (p.type == LinkType.VXLAN) vxlanLinks.join(v.netns, v.vmIndex, p.index, p.vni, p.remote, p.parent, p.mac);
            if (p.type == LinkType.MACVLAN) macvlanLinks.join(v.netns, v.vmIndex, p.index, p.parent, p.mac);
            // A link's two ends are all its link has, their MACs unique (the service sees to it): duplicate
            // address detection would only keep the link-local address, and so the probe, waiting 1 to 2 s.
            if (!p.bridged()) {
                commands.run(List.of(settings.ip(), "netns", "exec", v.netns, "sysctl", "-q", "-w",
                        "net.ipv6.conf." + Names.vrSide(p.index) + ".accept_dad=0"), null);
            }
        }
    }

    private interface BridgeWork {
        void run() throws DriverException;
    }

    /** Runs work holding the locks of the bridges (taken in name order, so two runs never wait on each other). */
    private void withBridges(List<String> sorted, BridgeWork work) throws DriverException {
        if (sorted.isEmpty()) {
            work.run();
            return;
        }
        Object lock = bridgeLocks.computeIfAbsent(sorted.get(0), b -> new Object());
        synchronized (lock) {
            withBridges(sorted.subList(1, sorted.size()), work);
        }
    }

    /** Removes a bridge vrouter created (it carries our alias) once no port is left on it. */
    private void removeBridgeIfUnused(String bridge) throws DriverException {
        withBridges(List.of(bridge), () -> {
            if (HostLinks.isBridge(bridge) && HostLinks.alias(bridge).equals(bridgeAlias) && HostLinks.ports(bridge).isEmpty()) {
                commands.ip("link", "del", "dev", bridge);
                log.info("removed bridge {}: vrouter created it and nothing uses it any more", bridge);
            }
        });
    }

    @Override
    public void reconfigure(VmConfigEntry config) throws DriverException {
        Vr vr = require(config.vmIndex);
        ours(vr, "reconfiguring", v -> {
            cgroups.limit(v.netns, cpus(config), memory(config));
            cgroups.weight(v.netns, weight(config));
            v.record = v.record.withConfig(config.vmName, cpus(config), memory(config), Boolean.TRUE.equals(config.vmConfigAutoStart));
            v.record.write(v.dir);
        });
    }

    @Override
    public void start(int vmIndex) throws DriverException {
        Vr vr = require(vmIndex);
        ours(vr, "starting", v -> {
            requireNetns(v);
            if (cgroups.frozen(v.netns)) cgroups.freeze(v.netns, false);
            List<String> host = new ArrayList<>();
            List<String> inside = new ArrayList<>(List.of("link set dev lo up"));
            for (Map.Entry<Integer, String> e : v.record.interfaces().entrySet()) {
                if (hostless(e.getValue())) {
                    inside.add("link set dev " + Names.vrSide(e.getKey()) + " up");
                    continue;
                }
                String h = names.hostVeth(vmIndex, e.getKey());
                if (!HostLinks.exists(h)) {
                    throw new DriverException("INTERFACE_GONE", "interface " + e.getKey() + " (" + h
                            + ") was deleted from the host: remove it from the VR and add it again");
                }
                HostLinks.Link l = HostLinks.read(h).orElse(null);
                // Only what was changed behind vrouter's back is repaired: usually nothing.
                if (l == null || !l.up() || !e.getValue().equals(l.master())) host.add("link set dev " + h + " master " + e.getValue() + " up");
                inside.add("link set dev " + Names.vrSide(e.getKey()) + " up");
            }
            if (!host.isEmpty()) {
                withBridges(v.record.interfaces().values().stream().filter(b -> !hostless(b)).distinct().sorted().toList(),
                        () -> commands.batch(null, false, host));
            }
            cache.read(v, inside);
            probeLinks(v);
            // Links coming down took the routes through them; the ones added by hand come back.
            if (!v.staticRoutes.isEmpty()) cache.read(v, v.staticRoutes, true);
            if (v.record.template().equals(Bird.TEMPLATE) && Bird.pid(v.dir).isEmpty()) {
                long pid = bird.start(v.netns, v.dir, cgroups, v.netns);
                log.debug("VR {}: bird runs as pid {}", vmIndex, pid);
                cache.refreshRib(v);
            }
            boolean wasUp = !v.record.power().equals(HostRecord.HALTED) && v.record.startedAt() > 0;
            v.record = v.record.withPower(HostRecord.RUNNING, wasUp ? v.record.startedAt() : System.currentTimeMillis());
            v.record.write(v.dir);
        });
    }

    @Override
    public void stop(int vmIndex) throws DriverException {
        Vr vr = require(vmIndex);
        ours(vr, "stopping", v -> {
            requireNetns(v);
            stopProcesses(v, true);
            probes.stopAll(vmIndex);
            List<String> inside = new ArrayList<>();
            for (int n : v.record.interfaces().keySet()) inside.add("link set dev " + Names.vrSide(n) + " down");
            cache.read(v, inside);
            v.view = v.view.withRib(Optional.empty());
            v.record = v.record.withPower(HostRecord.HALTED, 0);
            v.record.write(v.dir);
        });
    }

    @Override
    public void suspend(int vmIndex, AdminState how) throws DriverException {
        if (how != AdminState.PAUSED) {
            throw new DriverException("NOT_SUPPORTED", "the netns driver cannot suspend a VR: a namespace has no memory"
                    + " image to save; pause it instead");
        }
        Vr vr = require(vmIndex);
        ours(vr, "pausing", v -> {
            requireNetns(v);
            List<String> inside = new ArrayList<>();
            for (int n : v.record.interfaces().keySet()) inside.add("link set dev " + Names.vrSide(n) + " down");
            probes.stopAll(vmIndex);
            cache.read(v, inside);
            cgroups.freeze(v.netns, true);
            v.record = v.record.withPower(HostRecord.PAUSED, v.record.startedAt());
            v.record.write(v.dir);
        });
    }

    @Override
    public void destroy(int vmIndex) throws DriverException {
        Vr vr = vr(vmIndex);
        try {
            ours(vr, "removing", this::teardown);
        } finally {
            if (vr.record == null) {
                cache.forget(vr);
            }
        }
    }

    /**
     * Removes everything of the VR from the host, whatever state it is in, found by name: its
     * processes, host interfaces, namespace, cgroup, the bridges vrouter created that nothing else
     * uses any more, and last its record. Every step runs even when one fails; the first failure is
     * then reported.
     */
    private void teardown(Vr v) throws DriverException {
        List<Exception> failures = new ArrayList<>();
        Set<String> bridges = new LinkedHashSet<>();
        HostRecord rec = v.record;
        if (rec == null && Files.exists(v.dir.resolve(HostRecord.FILE))) {
            try {
                rec = HostRecord.read(v.dir);
            } catch (IOException e) {
                log.warn("VR {}: {}", v.vmIndex, e.getMessage());
            }
        }
        probes.stopAll(v.vmIndex);
        if (rec != null) rec.interfaces().values().stream().filter(b -> !hostless(b)).forEach(bridges::add);
        if (rec != null && Files.exists(HostMonitor.NETNS_DIR.resolve(v.netns))) {
            // Deleting the namespace would delete the far end of each joined peer link with it: hand those back first.
            for (Map.Entry<Integer, String> i : rec.interfaces().entrySet()) {
                if (!PeerLinks.isMark(i.getValue())) continue;
                int[] far = PeerLinks.far(i.getValue());
                step(failures, () -> peerLinks.leave(v.netns, v.vmIndex, i.getKey(), far[0], far[1]));
            }
        }
        try {
            stopProcesses(v, false);
        } catch (DriverException | IOException | RuntimeException e) {
            failures.add(e);
        }
        List<String> hostSides = HostLinks.matching(n -> names.networkIndexOfHostVeth(n, v.vmIndex).isPresent());
        for (String h : hostSides) HostLinks.read(h).map(HostLinks.Link::master).ifPresent(bridges::add);
        // Deleting the namespace takes its veths with it, in the kernel's own batched cleanup, which
        // is cheaper than deleting each (every deletion waits for an RCU grace period).
        if (Files.exists(HostMonitor.NETNS_DIR.resolve(v.netns))) step(failures, () -> commands.ip("netns", "del", v.netns));
        if (!awaitGone(hostSides, 1000)) {
            // Something still holds the namespace (a shell of the operator's in it): delete them here.
            List<String> lines = hostSides.stream().filter(HostLinks::exists).map(h -> "link del dev " + h).toList();
            step(failures, () -> commands.batchForce(null, lines));
            if (!awaitGone(hostSides, 2000)) {
                failures.add(new DriverException(Commands.FAILED, "host interfaces "
                        + hostSides.stream().filter(HostLinks::exists).toList() + " of VR " + v.vmIndex + " remain"));
            }
        }
        try {
            cgroups.remove(v.netns);
        } catch (IOException | RuntimeException e) {
            failures.add(e);
        }
        for (String br : bridges) step(failures, () -> removeBridgeIfUnused(br));
        if (failures.isEmpty()) {
            try {
                deleteTree(v.dir);
                v.record = null;
                v.view = NsView.EMPTY;
                v.staticRoutes = List.of();
                v.links = Map.of();
            } catch (IOException e) {
                failures.add(e);
            }
        }
        if (!failures.isEmpty()) {
            Exception first = failures.get(0);
            throw first instanceof DriverException d ? d
                    : new DriverException(Commands.FAILED, "removing VR " + v.vmIndex + ": " + first.getMessage(), first);
        }
    }

    private static boolean awaitGone(List<String> links, long millis) {
        long deadline = System.nanoTime() + millis * 1_000_000;
        while (links.stream().anyMatch(HostLinks::exists)) {
            if (System.nanoTime() > deadline) return false;
            Cgroups.sleep(5);
        }
        return true;
    }

    private interface Step {
        void run() throws DriverException;
    }

    private static void step(List<Exception> failures, Step s) {
        try {
            s.run();
        } catch (DriverException | RuntimeException e) {
            failures.add(e);
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) return;
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                // The record goes last: until then the VR is found again by list().
                if (!p.equals(dir) && !p.equals(dir.resolve(HostRecord.FILE))) Files.deleteIfExists(p);
            }
        }
        Files.deleteIfExists(dir.resolve(HostRecord.FILE));
        Files.deleteIfExists(dir);
    }

    /**
     * Stops the VR's processes: thawed first (a frozen process cannot die), then SIGTERM and, after
     * netns.stop-timeout, SIGKILL; or SIGKILL at once when {@code graceful} is false.
     */
    private void stopProcesses(Vr v, boolean graceful) throws DriverException, IOException {
        Set<Long> pids = new HashSet<>(cgroups.pids(v.netns));
        Bird.pid(v.dir).ifPresent(pids::add);
        if (cgroups.exists(v.netns) && cgroups.frozen(v.netns)) cgroups.freeze(v.netns, false);
        if (pids.isEmpty()) return;
        signal(pids, graceful);
        if (!awaitExit(pids, graceful ? settings.stopTimeout().toMillis() : 2000) && graceful) {
            log.warn("VR {}: processes {} did not stop in {} ms: killing them", v.vmIndex, pids, settings.stopTimeout().toMillis());
            signal(pids, false);
            awaitExit(pids, 2000);
        }
        Set<Long> left = new HashSet<>(cgroups.pids(v.netns));
        if (!left.isEmpty()) throw new DriverException("DAEMON_FAILED", "processes " + left + " of VR " + v.vmIndex + " do not stop");
    }

    private static void signal(Set<Long> pids, boolean term) {
        for (long pid : pids) ProcessHandle.of(pid).ifPresent(ph -> {
            if (term) ph.destroy();
            else ph.destroyForcibly();
        });
    }

    private static boolean awaitExit(Set<Long> pids, long millis) {
        long deadline = System.nanoTime() + millis * 1_000_000;
        while (pids.stream().anyMatch(Procs::alive)) {
            if (System.nanoTime() > deadline) return false;
            Cgroups.sleep(5);
        }
        return true;
    }

    private static void requireNetns(Vr v) throws DriverException {
        if (!Files.exists(HostMonitor.NETNS_DIR.resolve(v.netns))) {
            throw new DriverException("NO_SUCH_VR", "namespace " + v.netns + " of VR " + v.vmIndex + " is gone from the host");
        }
    }

    @Override
    public void addInterface(int vmIndex, VmNetworkConfigEntry iface) throws DriverException {
        Plan p = plan(vmIndex, iface);
        Vr vr = require(vmIndex);
        ours(vr, "adding an interface", v -> {
            v.record = v.record.withInterface(p.index, p.mark());
            v.record.write(v.dir);
            try {
                attach(v, List.of(p), List.of());
                cache.read(v, configureInside(p, v.record.power().equals(HostRecord.RUNNING)));
                shapeNew(v, p);
                if (!p.bridged() && v.record.power().equals(HostRecord.RUNNING)) {
                    probes.probe(vmIndex, p.index, v.netns);
                    if (p.type == LinkType.PEER) probes.again(p.farVm, p.farIf);
                }
            } catch (DriverException | RuntimeException e) {
                log.warn("adding interface {} to VR {} failed: {}; removing what was built", p.index, vmIndex, e.getMessage());
                detach(v, p.index);
                throw e;
            }
        });
    }

    @Override
    public void removeInterface(int vmIndex, int networkIndex) throws DriverException {
        Vr vr = require(vmIndex);
        ours(vr, "removing an interface", v -> {
            detach(v, networkIndex);
            cache.read(v, List.of());
        });
    }

    /** Deletes an interface's veth pair, its bridge when vrouter made it and it is now unused, and its record entry. */
    private void detach(Vr v, int n) throws DriverException {
        String mark = v.record.interfaces().get(n);
        if (mark != null && hostless(mark)) {
            probes.stop(v.vmIndex, n);
            if (PeerLinks.isMark(mark)) {
                int[] far = PeerLinks.far(mark);
                peerLinks.leave(v.netns, v.vmIndex, n, far[0], far[1]);
            } else {
                // A VXLAN or macvlan device is the VR's alone: deleting it is all.
                vxlanLinks.leave(v.netns, n);
            }
            v.record = v.record.withInterface(n, null);
            try {
                v.record.write(v.dir);
            } catch (IOException e) {
                throw new DriverException(Commands.FAILED, "VR " + v.vmIndex + ": " + e.getMessage(), e);
            }
            return;
        }
        String h = names.hostVeth(v.vmIndex, n);
        Set<String> bridges = new LinkedHashSet<>();
        HostLinks.read(h).map(HostLinks.Link::master).ifPresent(bridges::add);
        Optional.ofNullable(v.record.interfaces().get(n)).ifPresent(bridges::add);
        if (HostLinks.exists(h)) commands.ip("link", "del", "dev", h);
        for (String br : bridges) removeBridgeIfUnused(br);
        v.record = v.record.withInterface(n, null);
        try {
            v.record.write(v.dir);
        } catch (IOException e) {
            throw new DriverException(Commands.FAILED, "VR " + v.vmIndex + ": " + e.getMessage(), e);
        }
    }

    // ---------------------------------------------------------------- reads

    @Override
    public Optional<VmRuntime> inspect(int vmIndex) {
        Vr vr = cache.get(vmIndex).orElse(null);
        if (vr == null || vr.record == null) return Optional.empty();
        Observed o;
        synchronized (vr) {
            o = vr.reported;
        }
        if (o.gone()) return Optional.empty();
        return Optional.of(reads.runtime(vr, o.power()));
    }

    /** As {@link #inspect} reports it, from the record alone: every event asks for it. */
    @Override
    public Optional<String> uuid(int vmIndex) {
        Vr vr = cache.get(vmIndex).orElse(null);
        HostRecord rec = vr == null ? null : vr.record;
        if (rec == null) return Optional.empty();
        synchronized (vr) {
            if (vr.reported.gone()) return Optional.empty();
        }
        return Optional.of(rec.uuid().toString());
    }

    @Override
    public List<VmRuntime> list() throws DriverException {
        List<VmRuntime> out = new ArrayList<>();
        List<Path> dirs;
        try (Stream<Path> s = Files.list(settings.runDir())) {
            dirs = s.filter(Files::isDirectory).sorted().toList();
        } catch (IOException e) {
            throw new DriverException(Commands.FAILED, "cannot list " + settings.runDir() + ": " + e.getMessage(), e);
        }
        cache.readNsids();
        for (Path dir : dirs) {
            OptionalInt index = names.vmIndexOfNetns(dir.getFileName().toString());
            if (index.isEmpty() || !Files.exists(dir.resolve(HostRecord.FILE))) continue;
            Vr v = vr(index.getAsInt());
            HostRecord rec;
            try {
                rec = HostRecord.read(dir);
            } catch (IOException e) {
                log.warn("{}: clearing the VR it names", e.getMessage());
                teardownQuietly(v);
                continue;
            }
            if (rec.provisioning()) {
                log.warn("VR {} ({}) was left half built: removing it", rec.vmIndex(), rec.vmName());
                teardownQuietly(v);
                continue;
            }
            if (!Files.exists(HostMonitor.NETNS_DIR.resolve(v.netns))) {
                log.warn("VR {} ({}): its namespace {} is gone: clearing what is left of it", rec.vmIndex(), rec.vmName(), v.netns);
                teardownQuietly(v);
                continue;
            }
            v.record = rec;
            v.staticRoutes = NetnsCache.readStaticRoutes(v.dir);
            try {
                cache.read(v, List.of());
            } catch (DriverException e) {
                log.warn("VR {}: reading its namespace failed: {}", v.vmIndex, e.getMessage());
            }
            if (rec.template().equals(Bird.TEMPLATE)) cache.refreshRib(v);
            if (rec.power().equals(HostRecord.RUNNING)) probeLinks(v);
            NetnsCache.Look now = cache.look(v);
            synchronized (v) {
                v.links = now.links();
                v.reported = now.observed();
            }
            out.add(reads.runtime(v, now.observed().power()));
        }
        return out;
    }

    private void teardownQuietly(Vr v) {
        try {
            teardown(v);
        } catch (DriverException e) {
            log.error("VR {}: {}", v.vmIndex, e.getMessage());
        }
        cache.forget(v);
    }

    /**
     * Starts probing the VR's peer and VXLAN links (those probed already go on), and has the far ends of
     * its peer links probe again at once: they had no answer while this end was down.
     */
    private void probeLinks(Vr v) {
        for (Map.Entry<Integer, String> i : v.record.interfaces().entrySet()) {
            if (hostless(i.getValue())) probes.probe(v.vmIndex, i.getKey(), v.netns);
            if (PeerLinks.isMark(i.getValue())) {
                int[] far = PeerLinks.far(i.getValue());
                probes.again(far[0], far[1]);
            }
        }
    }

    // ---------------------------------------------------------------- behaviours: links, rates, CPU weights

    @Override
    public void keepUuid(int vmIndex, String vmName, UUID uuid) {
        keptUuids.put(vmIndex, vmName, uuid);
    }

    @Override
    public Set<LinkType> linkTypes() {
        return EnumSet.of(LinkType.PEER, LinkType.VXLAN, LinkType.MACVLAN);
    }

    /** A peer or VXLAN link has no host side to shape what the VR receives: the far end's rate out does. */
    @Override
    public boolean limitsIngress(LinkType type) {
        return type == LinkType.BRIDGE;
    }

    @Override
    public void setRates(int vmIndex, VmNetworkConfigEntry iface) throws DriverException {
        Vr vr = require(vmIndex);
        ours(vr, "setting rates", v -> {
            String mark = v.record.interfaces().get(iface.vmNetworkConfigIndex);
            if (mark == null) throw new DriverException("NO_SUCH_INTERFACE", "VR " + vmIndex + " has no interface " + iface.vmNetworkConfigIndex);
            applyRates(v, iface.vmNetworkConfigIndex, hostless(mark), iface.vmNetworkConfigRateIn, iface.vmNetworkConfigRateOut);
        });
    }

    /** A new interface has no shaper: only a rate set makes one (a tc process per interface otherwise). */
    private void shapeNew(Vr v, Plan p) throws DriverException {
        if (p.rateIn != null || p.rateOut != null) applyRates(v, p.index, !p.bridged(), p.rateIn, p.rateOut);
    }

    /**
     * Shapes the interface with tbf (this kernel has tbf, no htb or policers): what the VR sends on the
     * egress of its own end, what it receives on the egress of the host side (bridged interfaces).
     * An absent rate removes the shaper.
     */
    private void applyRates(Vr v, int n, boolean hostless, Integer rateIn, Integer rateOut) throws DriverException {
        shape(v.netns, Names.vrSide(n), rateOut);
        if (!hostless) shape(null, names.hostVeth(v.vmIndex, n), rateIn);
    }

    private void shape(String netns, String dev, Integer kbits) throws DriverException {
        List<String> argv = new ArrayList<>();
        if (netns != null) argv.addAll(List.of(settings.ip(), "netns", "exec", netns));
        argv.add(settings.tc());
        if (kbits == null) {
            // Replacing the root qdisc with the default one removes a shaper and is a no-op without one.
            argv.addAll(List.of("qdisc", "replace", "dev", dev, "root", "pfifo_fast"));
        } else {
            argv.addAll(List.of("qdisc", "replace", "dev", dev, "root", "tbf", "rate", kbits + "kbit",
                    "burst", Long.toString(tbfBurst(kbits)), "latency", "50ms"));
        }
        commands.run(argv, null);
    }

    /**
     * A bucket of 20 ms at the rate, and at least ten full-size frames, so that the rate is kept without
     * starving TCP, also when the host is busy and the qdisc is served late (10 ms kept 88 % of 50 Mbit/s
     * with the host's two cores loaded).
     */
    static long tbfBurst(int kbits) {
        return Math.max(kbits * 1000L / 8 / 50, 15_140);
    }

    @Override
    public void close() {
        monitor.close();
        probes.close();
        cache.close();
        timers.shutdownNow();
    }
}
