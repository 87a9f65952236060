package io.vrouter.gnmi;

import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.OperState;
import io.vrouter.core.model.VirtualRouter;
import io.vrouter.core.model.VmNetworkEntry;
import io.vrouter.core.spi.VirtualRouters;
import io.vrouter.yang.DataNode;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Origin {@code openconfig}: the VRs' interfaces as {@code openconfig-interfaces} (version 3.5.0)
 * shows interfaces, for collectors that subscribe to {@code /interfaces/interface/state/counters} out
 * of the box. One {@code interface} per row of vmNetworkTable, named as the host names it (the host
 * interface whose ifindex is the row's vmNetworkIfIndex), or {@code vr<vmIndex>-<vmNetworkIndex>} while
 * the host has none (a VR not running, the simulated hypervisor, Xen); the VR is in its description.
 * Built from the same model as the NEW-VMM-MIB tree, a VR at a time, so that ON_CHANGE reads only the
 * VR an event is about.
 */
final class OpenConfigInterfaces {
    static final String ORIGIN = "openconfig";
    static final String MODULE = "openconfig-interfaces";
    static final String NS = "http://openconfig.net/yang/interfaces";
    /** The module's oc-ext:openconfig-version whose leaves (a subset) are served. */
    static final String VERSION = "3.5.0";
    static final String ORGANIZATION = "OpenConfig working group";
    private static final Path HOST_INTERFACES = Path.of("/sys/class/net");

    /** What a read wants: configuration, state or both (gNMI's Get type). */
    enum Part { CONFIG, STATE, ALL }

    private OpenConfigInterfaces() {
    }

    /** The {@code interfaces} container; each walk of it reads the VRs again. */
    static DataNode interfaces(VirtualRouters service, Part part) {
        HostNames names = new HostNames(HOST_INTERFACES);
        return DataNode.byVr(NS, "interfaces", service::indices,
                vmIndex -> service.get(vmIndex).map(vr -> interfacesOf(vr, part, names)).orElse(List.of()));
    }

    static List<DataNode> interfacesOf(VirtualRouter vr, Part part, HostNames names) {
        if (vr.vmNetworkTable == null) return List.of();
        int vm = vr.vmIndex;
        String up = vr.vmAdminState == AdminState.RUNNING ? "UP" : "DOWN";
        List<DataNode> out = new ArrayList<>(vr.vmNetworkTable.size());
        for (VmNetworkEntry n : vr.vmNetworkTable) {
            String name = name(vm, n, names);
            String description = "VR " + vr.vmName + " (vmIndex " + vm + ") interface " + n.vmNetworkIndex;
            DataNode.Inner entry = DataNode.inner(NS, "interface", "name").add(Leaf.text("name", name, vm));
            if (part != Part.STATE) {
                entry.add(common(DataNode.inner(NS, "config"), name, description, up, vm));
            }
            if (part != Part.CONFIG) {
                DataNode.Inner state = common(DataNode.inner(NS, "state"), name, description, up, vm);
                if (n.vmNetworkIfIndex != null && n.vmNetworkIfIndex > 0) {
                    state.add(new Leaf("ifindex", n.vmNetworkIfIndex.toString(), Values.Kind.UINT, DataNode.Json.NUMBER, false, vm));
                }
                state.add(Leaf.text("admin-status", up, vm)).add(Leaf.text("oper-status", operStatus(vr.operState()), vm));
                DataNode.Inner counters = DataNode.inner(NS, "counters");
                counters(n).forEach((leaf, value) -> counters.add(
                        new Leaf(leaf, Long.toUnsignedString(value), Values.Kind.UINT, DataNode.Json.STRING, true, vm)));
                entry.add(state.add(counters));
            }
            out.add(entry);
        }
        return out;
    }

    private static DataNode.Inner common(DataNode.Inner c, String name, String description, String up, int vm) {
        return c.add(Leaf.text("name", name, vm)).add(Leaf.text("type", "iana-if-type:ethernetCsmacd", vm))
                .add(Leaf.text("description", description, vm))
                .add(new Leaf("enabled", Boolean.toString(up.equals("UP")), Values.Kind.BOOL, DataNode.Json.BOOLEAN, false, vm));
    }

    /**
     * The counters of vmNetworkTable by openconfig's names (uint64 counters; a packet count is all the
     * hypervisor gives, so in-pkts and out-pkts, not the unicast ones). A counter the hypervisor does
     * not count is left out.
     */
    static Map<String, Long> counters(VmNetworkEntry n) {
        Map<String, Long> c = new LinkedHashMap<>();
        c.put("in-octets", n.vmNetworkInOctets);
        c.put("in-pkts", n.vmNetworkInPkts);
        c.put("out-octets", n.vmNetworkOutOctets);
        c.put("out-pkts", n.vmNetworkOutPkts);
        c.put("in-errors", n.vmNetworkInErrors);
        c.put("out-errors", n.vmNetworkOutErrors);
        c.put("in-discards", n.vmNetworkInDiscards);
        c.put("out-discards", n.vmNetworkOutDiscards);
        c.values().removeIf(java.util.Objects::isNull);
        return c;
    }

    /** The host's name of the interface, or {@code vr<vmIndex>-<vmNetworkIndex>} while the host has none. */
    static String name(int vmIndex, VmNetworkEntry n, HostNames names) {
        String host = n.vmNetworkIfIndex == null || n.vmNetworkIfIndex <= 0 ? null : names.of(n.vmNetworkIfIndex);
        return host != null ? host : "vr" + vmIndex + "-" + n.vmNetworkIndex;
    }

    /** RFC 7666's operational state as openconfig's oper-status: running is UP, unknown UNKNOWN, the rest DOWN. */
    static String operStatus(OperState s) {
        if (s == OperState.RUNNING) return "UP";
        if (s == null || s == OperState.UNKNOWN || s == OperState.OTHER) return "UNKNOWN";
        return "DOWN";
    }

    /** The host's interface names by ifindex, read from {@code /sys/class/net} at most once per walk, and only when asked. */
    static final class HostNames {
        private final Path dir;
        private Map<Integer, String> byIndex;

        HostNames(Path dir) {
            this.dir = dir;
        }

        synchronized String of(int ifIndex) {
            if (byIndex == null) byIndex = read(dir);
            return byIndex.get(ifIndex);
        }

        private static Map<Integer, String> read(Path dir) {
            Map<Integer, String> m = new HashMap<>();
            try (DirectoryStream<Path> links = Files.newDirectoryStream(dir)) {
                for (Path link : links) {
                    try {
                        m.put(Integer.valueOf(Files.readString(link.resolve("ifindex")).trim()), link.getFileName().toString());
                    } catch (IOException | NumberFormatException gone) {
                        // an interface removed meanwhile: it has no name to give
                    }
                }
            } catch (IOException noSysfs) {
                // not Linux: every interface keeps vrouter's own name
            }
            return m;
        }
    }

    /** A leaf of this module: its PROTO kind, whether it is a counter (TARGET_DEFINED samples these) and its VR. */
    static final class Leaf extends DataNode.Leaf {
        final Values.Kind kind;
        final boolean counter;
        final int vmIndex;

        Leaf(String name, String value, Values.Kind kind, Json json, boolean counter, int vmIndex) {
            super(NS, name, value, json, false);
            this.kind = kind;
            this.counter = counter;
            this.vmIndex = vmIndex;
        }

        /** (Inside this class a bare Leaf names DataNode.Leaf, inherited.) */
        static OpenConfigInterfaces.Leaf text(String name, String value, int vmIndex) {
            return new OpenConfigInterfaces.Leaf(name, value, Values.Kind.STRING, Json.STRING, false, vmIndex);
        }
    }
}
