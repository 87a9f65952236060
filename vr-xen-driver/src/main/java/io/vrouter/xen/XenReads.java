package io.vrouter.xen;

import com.fasterxml.jackson.databind.JsonNode;
import io.vrouter.core.driver.PowerState;
import io.vrouter.core.driver.VmRuntime;
import io.vrouter.core.model.Hypervisor;
import io.vrouter.core.model.InetAddressType;
import io.vrouter.core.model.VmCpuEntry;
import io.vrouter.core.model.VmEntry;
import io.vrouter.core.model.VmNetworkEntry;
import io.vrouter.core.model.VmStorageEntry;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The driver's reads (its {@code Observation} but for {@code list}, which also clears half-built VMs):
 * the host and each VR as the {@link XenCache} shows them, which the {@link XenEventFeed} keeps
 * current, so a read never waits for the host; and how XenAPI's values read (power states, dates,
 * a VIF's interface number).
 */
final class XenReads {
    static final long MIB = 1024L * 1024L;
    private static final DateTimeFormatter XAPI_DATE = DateTimeFormatter.ofPattern("yyyyMMdd'T'HH:mm:ss'Z'", Locale.ROOT);

    private final XenSettings settings;
    private final XenCache cache;
    private final long connectedMillis = System.currentTimeMillis();

    XenReads(XenSettings settings, XenCache cache) {
        this.settings = settings;
        this.cache = cache;
    }

    /** The vmHypervisor group, from the host object the feed keeps. */
    Hypervisor hypervisor() {
        Hypervisor h = new Hypervisor();
        Optional<JsonNode> host = cache.host();
        JsonNode sw = host.map(x -> x.path("software_version")).orElse(null);
        h.vmHvSoftware = sw == null ? "XenServer" : sw.path("product_brand").asText("XenServer");
        h.vmHvVersion = sw == null ? "" : sw.path("product_version").asText(sw.path("platform_version").asText(""));
        h.vmHvObjectID = "0.0";
        long bootMillis = host.map(x -> x.path("other_config").path("boot_time").asText(""))
                .filter(s -> !s.isEmpty()).map(s -> (long) (Double.parseDouble(s) * 1000)).orElse(connectedMillis);
        h.vmHvUpTime = Math.max(0, System.currentTimeMillis() - bootMillis) / 10;
        return h;
    }

    /** The VR as the cache shows it, or empty when the host has no VM of that vmIndex. */
    Optional<VmRuntime> inspect(int vmIndex) {
        return cache.vmRef(vmIndex).flatMap(ref -> cache.vm(ref).map(rec -> runtime(ref, rec)));
    }

    /** A VM's record and its metrics, VIFs and disks from the cache, as a VR's state. */
    VmRuntime runtime(String ref, JsonNode vm) {
        int vmIndex = XenCache.vmIndexOf(vm).orElse(0);
        PowerState power = power(vm);
        boolean up = power == PowerState.RUNNING || power == PowerState.PAUSED;
        JsonNode metrics = cache.get("vm_metrics", vm.path("metrics").asText()).orElse(null);
        long uptimeMillis = 0;
        if (up && metrics != null) {
            Instant started = parseDate(metrics.path("start_time").asText(""));
            if (started != null && started.toEpochMilli() > 0) uptimeMillis = Math.max(0, System.currentTimeMillis() - started.toEpochMilli());
        }
        int vcpusMax = vm.path("VCPUs_max").asInt(1);
        int vcpus = up && metrics != null ? metrics.path("VCPUs_number").asInt(vm.path("VCPUs_at_startup").asInt(1)) : 0;

        VmEntry e = new VmEntry();
        e.vmUUID = vm.path("uuid").asText();
        e.vmOSType = vm.path("other_config").path(XenDriver.TEMPLATE_KEY).asText("");
        e.vmAutoStart = "true".equals(vm.path("other_config").path("auto_poweron").asText())
                ? VmEntry.AutoStart.ENABLED : VmEntry.AutoStart.DISABLED;
        e.vmPersistent = VmEntry.Persistent.PERSISTENT;
        e.vmCurCpuNumber = vcpus;
        e.vmMinCpuNumber = 1;
        e.vmMaxCpuNumber = vcpusMax;
        e.vmMemUnit = (int) MIB;
        e.vmCurMem = up && metrics != null ? metrics.path("memory_actual").asLong() / MIB : 0L;
        e.vmMinMem = vm.path("memory_dynamic_min").asLong() / MIB;
        e.vmMaxMem = vm.path("memory_static_max").asLong() / MIB;
        e.vmUpTime = uptimeMillis / 10;

        // VM_metrics carries each vCPU's utilisation (0..1), not a CPU-time counter: CPU time is
        // estimated as utilisation times uptime.
        List<VmCpuEntry> cpus = new ArrayList<>();
        long total = 0;
        for (int i = 0; i < Math.max(vcpus, 0); i++) {
            double util = metrics == null ? 0 : metrics.path("VCPUs_utilisation").path(Integer.toString(i)).asDouble(0);
            VmCpuEntry c = new VmCpuEntry();
            c.vmCpuIndex = i + 1;
            c.vmCpuCoreTime = (long) (util * uptimeMillis * 1000);
            total += c.vmCpuCoreTime;
            String phys = metrics == null ? "" : metrics.path("VCPUs_CPU").path(Integer.toString(i)).asText("");
            c.vmCpuPhysIndex = phys.isEmpty() ? 0 : Integer.parseInt(phys) + 1;
            c.vmCpuAffinity = VmCpuEntry.Affinity.UNKNOWN;
            cpus.add(c);
        }
        e.vmCpuTime = total;

        List<VmNetworkEntry> nets = new ArrayList<>();
        String routerAddr = null;
        for (JsonNode vif : cache.vifsOf(ref)) {
            VmNetworkEntry n = new VmNetworkEntry();
            n.vmNetworkIndex = nicIndex(vif);
            n.vmNetworkIfIndex = 0;
            String net = cache.get("network", vif.path("network").asText()).map(x -> x.path("name_label").asText()).orElse("");
            n.vmNetworkParent = settings.parentFor(net);
            n.vmNetworkModel = "xen-netfront";
            n.vmNetworkPhysAddress = vif.path("MAC").asText();
            if (vif.path("other_config").has(XenLinks.PEER_END)) {
                n.vmNetworkLinkStatus = XenLinks.status(vif, cache.vifsOn(vif.path("network").asText()));
            }
            nets.add(n);
            String addr = vif.path("other_config").path(XenDriver.NIC_ADDRESS).asText("");
            if (routerAddr == null && !addr.isEmpty() && !addr.contains(":")) routerAddr = addr;
        }
        nets.sort(Comparator.comparingInt(n -> n.vmNetworkIndex));
        e.vmRouteEntries = 0L;
        e.vmFibEntries = 0L;
        e.vmRoutingProtocols = "";
        e.vmRouterAddrType = routerAddr == null ? null : InetAddressType.IPV4;
        e.vmRouterAddr = routerAddr;

        List<VmStorageEntry> disks = new ArrayList<>();
        for (JsonNode vbd : cache.vbdsOf(ref)) {
            VmStorageEntry s = new VmStorageEntry();
            String dev = vbd.path("userdevice").asText("0");
            s.vmStorageIndex = dev.chars().allMatch(Character::isDigit) && !dev.isEmpty() ? Integer.parseInt(dev) + 1 : disks.size() + 1;
            s.vmStorageParent = 0;
            Optional<JsonNode> vdi = cache.get("vdi", vbd.path("VDI").asText());
            s.vmStorageSourceType = vdi.isPresent() ? VmStorageEntry.SourceType.BLOCK : VmStorageEntry.SourceType.UNKNOWN;
            s.vmStorageSourceTypeString = vdi.map(v -> v.path("type").asText("")).orElse("");
            s.vmStorageResourceID = vdi.map(v -> v.path("uuid").asText("")).orElse("");
            s.vmStorageAccess = "RO".equals(vbd.path("mode").asText())
                    ? VmStorageEntry.Access.READONLY : VmStorageEntry.Access.READWRITE;
            boolean cd = "CD".equals(vbd.path("type").asText());
            s.vmStorageMediaType = cd ? VmStorageEntry.MediaType.OPTICAL_DISK : VmStorageEntry.MediaType.HARD_DISK;
            s.vmStorageMediaTypeString = cd ? "opticalDisk" : "hardDisk";
            s.vmStorageSizeUnit = (int) MIB;
            s.vmStorageDefinedSize = vdi.map(v -> v.path("virtual_size").asLong() / MIB).orElse(0L);
            s.vmStorageAllocatedSize = vdi.map(v -> v.path("physical_utilisation").asLong() / MIB).orElse(0L);
            s.vmStorageReadIOs = 0L;
            s.vmStorageWriteIOs = 0L;
            s.vmStorageReadOctets = 0L;
            s.vmStorageWriteOctets = 0L;
            s.vmStorageReadLatency = 0L;
            s.vmStorageWriteLatency = 0L;
            disks.add(s);
        }
        disks.sort(Comparator.comparingInt(s -> s.vmStorageIndex));
        return new VmRuntime(vmIndex, vm.path("name_label").asText(), power, e, cpus, disks, nets);
    }

    static PowerState power(JsonNode vm) {
        return parsePower(vm.path("power_state").asText("Halted"));
    }

    static PowerState parsePower(String s) {
        try {
            return PowerState.valueOf(s.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            return PowerState.HALTED;
        }
    }

    static int nicIndex(JsonNode vif) {
        String marked = vif.path("other_config").path(XenDriver.NIC_MARKER).asText("");
        if (!marked.isEmpty()) return Integer.parseInt(marked);
        return vif.path("device").asInt(0) + 1;
    }

    static Instant parseDate(String s) {
        if (s.isEmpty()) return null;
        try {
            return LocalDateTime.parse(s, XAPI_DATE).toInstant(ZoneOffset.UTC);
        } catch (DateTimeParseException e) {
            try {
                return Instant.parse(s);
            } catch (DateTimeParseException again) {
                return null;
            }
        }
    }
}
