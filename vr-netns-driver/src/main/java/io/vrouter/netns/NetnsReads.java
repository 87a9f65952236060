package io.vrouter.netns;

import io.vrouter.core.driver.PowerState;
import io.vrouter.core.driver.VmRuntime;
import io.vrouter.core.model.InetAddressType;
import io.vrouter.core.model.VmCpuEntry;
import io.vrouter.core.model.VmEntry;
import io.vrouter.core.model.VmNetworkEntry;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A VR's state as the netns driver reports it ({@code inspect}, {@code list}), made from what it keeps
 * of the VR ({@link Vr}: its record, the {@link NetnsCache}'s view of its namespace and its host-side
 * links) and from the counters read at most once per netns.counter-max-age (sysfs, cgroups, the link
 * probes). Nothing here runs a process or changes the host.
 */
final class NetnsReads {
    private final NetnsSettings settings;
    private final Names names;
    private final Cgroups cgroups;
    private final HostLinks hostLinks;
    private final LinkProbes probes;

    NetnsReads(NetnsSettings settings, Names names, Cgroups cgroups, HostLinks hostLinks, LinkProbes probes) {
        this.settings = settings;
        this.names = names;
        this.cgroups = cgroups;
        this.hostLinks = hostLinks;
        this.probes = probes;
    }

    /** The VR as the driver last read it, in the given power state. */
    VmRuntime runtime(Vr v, PowerState power) {
        HostRecord r = v.record;
        NsView view = v.view;
        boolean up = power == PowerState.RUNNING || power == PowerState.PAUSED;
        Cgroups.Usage usage = usage(v);
        VmEntry e = new VmEntry();
        e.vmUUID = r.uuid().toString();
        e.vmOSType = r.template();
        e.vmAutoStart = r.autoStart() ? VmEntry.AutoStart.ENABLED : VmEntry.AutoStart.DISABLED;
        // A namespace does not outlive the host's next boot; vrouter then builds it again.
        e.vmPersistent = VmEntry.Persistent.TRANSIENT;
        e.vmCurCpuNumber = up ? r.cpus() : 0;
        e.vmMinCpuNumber = 1;
        e.vmMaxCpuNumber = r.cpus();
        e.vmMemUnit = 1024;
        e.vmCurMem = usage.memoryBytes() / 1024;
        e.vmMinMem = 0L;
        e.vmMaxMem = (long) r.memoryMib() * 1024;
        e.vmUpTime = up && r.startedAt() > 0 ? Math.max(0, System.currentTimeMillis() - r.startedAt()) / 10 : 0L;
        e.vmCpuTime = usage.cpuNanos() / 1000;
        e.vmFibEntries = view.fibEntries();
        e.vmRouteEntries = view.rib().map(Bird.Rib::routes).orElse(view.fibEntries());
        e.vmRoutingProtocols = view.rib().map(rib -> String.join(",", rib.protocols()))
                .orElse(view.routeProtocols().contains("boot") || view.routeProtocols().contains("static") ? "static" : "");
        String addr = view.rib().map(Bird.Rib::routerId).orElse(null);
        if (addr == null) addr = firstAddress(view, false);
        if (addr == null) addr = firstAddress(view, true);
        e.vmRouterAddrType = addr == null ? null : addr.contains(":") ? InetAddressType.IPV6 : InetAddressType.IPV4;
        e.vmRouterAddr = addr;

        List<VmCpuEntry> cpus = new ArrayList<>();
        long[] per = usage.perCpuNanos();
        for (int c = 0; c < per.length; c++) cpus.add(cpu(c + 1, per[c] / 1000, c + 1));
        if (per.length == 0) cpus.add(cpu(1, usage.cpuNanos() / 1000, 0));

        List<VmNetworkEntry> nets = new ArrayList<>();
        for (Map.Entry<Integer, String> i : r.interfaces().entrySet()) {
            int n = i.getKey();
            String h = names.hostVeth(v.vmIndex, n);
            if (NetnsDriver.hostless(i.getValue())) {
                nets.add(linkEntry(v, n, power));
                continue;
            }
            Optional<HostLinks.Link> host = Optional.ofNullable(v.links.get(n));
            VmNetworkEntry ne = new VmNetworkEntry();
            ne.vmNetworkIndex = n;
            ne.vmNetworkIfIndex = host.map(HostLinks.Link::ifindex).orElse(0);
            ne.vmNetworkParent = host.map(HostLinks.Link::master).orElse(i.getValue());
            ne.vmNetworkModel = "veth";
            NsView.Link inside = view.links().get(Names.vrSide(n));
            ne.vmNetworkPhysAddress = inside == null ? null : inside.mac();
            hostLinks.counters(h).ifPresent(c -> counters(ne, c, true));
            nets.add(ne);
        }
        return new VmRuntime(v.vmIndex, r.vmName(), power, e, cpus, List.of(), nets);
    }

    /**
     * The interface's counters from a device's: the VR's own device counts as they are, the host side
     * of a veth counts what it sends as what the VR receives, and the other way round.
     */
    private static void counters(VmNetworkEntry ne, HostLinks.Counters c, boolean hostSide) {
        ne.vmNetworkInOctets = hostSide ? c.txBytes() : c.rxBytes();
        ne.vmNetworkInPkts = hostSide ? c.txPackets() : c.rxPackets();
        ne.vmNetworkOutOctets = hostSide ? c.rxBytes() : c.txBytes();
        ne.vmNetworkOutPkts = hostSide ? c.rxPackets() : c.txPackets();
        ne.vmNetworkInErrors = hostSide ? c.txErrors() : c.rxErrors();
        ne.vmNetworkInDiscards = hostSide ? c.txDropped() : c.rxDropped();
        ne.vmNetworkOutErrors = hostSide ? c.rxErrors() : c.txErrors();
        ne.vmNetworkOutDiscards = hostSide ? c.rxDropped() : c.txDropped();
    }

    /**
     * A peer or VXLAN link's end: no host side; its counters read in its namespace through the probe
     * (absent while the VR is not running), its health as the router's probe measures it.
     */
    private VmNetworkEntry linkEntry(Vr v, int n, PowerState power) {
        VmNetworkEntry ne = new VmNetworkEntry();
        ne.vmNetworkIndex = n;
        ne.vmNetworkIfIndex = 0;
        String mark = v.record.interfaces().get(n);
        ne.vmNetworkModel = VxlanLinks.isMark(mark) ? "vxlan" : MacvlanLinks.isMark(mark) ? "macvlan" : "veth";
        ne.vmNetworkParent = v.record.interfaces().get(n);
        NsView.Link inside = v.view.links().get(Names.vrSide(n));
        ne.vmNetworkPhysAddress = inside == null ? null : inside.mac();
        if (power == PowerState.RUNNING) probes.counters(v.vmIndex, n).ifPresent(c -> counters(ne, c, false));
        LinkProbes.Health health = power == PowerState.RUNNING ? probes.health(v.vmIndex, n) : LinkProbes.Health.UNKNOWN;
        ne.vmNetworkLinkStatus = health.status();
        ne.vmNetworkLinkDelay = health.delayMicros();
        ne.vmNetworkLinkLoss = health.lossPercent();
        return ne;
    }


    private static VmCpuEntry cpu(int index, long micros, int phys) {
        VmCpuEntry c = new VmCpuEntry();
        c.vmCpuIndex = index;
        c.vmCpuCoreTime = micros;
        c.vmCpuPhysIndex = phys;
        c.vmCpuAffinity = VmCpuEntry.Affinity.UNKNOWN;
        return c;
    }

    /** The first global address of the VR's interfaces (eth1, eth2, ...), IPv4 or IPv6. */
    private static String firstAddress(NsView view, boolean v6) {
        return view.links().values().stream()
                .filter(l -> Names.networkIndexOfVrSide(l.name()).isPresent())
                .sorted(Comparator.comparingInt(l -> Names.networkIndexOfVrSide(l.name()).getAsInt()))
                .flatMap(l -> l.addresses().stream())
                .filter(a -> a.contains(":") == v6)
                .map(a -> a.substring(0, a.indexOf('/')))
                .findFirst().orElse(null);
    }

    /** The VR's cgroup accounting, read at most once per netns.counter-max-age. */
    private Cgroups.Usage usage(Vr v) {
        if (System.nanoTime() - v.usageAt > settings.counterMaxAge().toNanos()) {
            v.usage = cgroups.usage(v.netns);
            v.usageAt = System.nanoTime();
        }
        return v.usage;
    }
}
