package io.vrouter.xen;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vrouter.core.driver.CpuWeights;
import io.vrouter.core.model.LinkStatus;
import io.vrouter.core.model.LinkType;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Links, rates and CPU weights as XenAPI has them (docs/adr/0018-links.md):
 * <ul>
 *   <li>a peer link is a private network (one with no PIF, so nothing of the host's NICs is on it) with
 *       the two ends' VIFs on it. The end declared first makes it, the other finds it by its
 *       name-label, and the end that leaves last destroys it;</li>
 *   <li>a rate is the VIF's {@code qos_algorithm_type=ratelimit} with {@code qos_algorithm_params:kbps},
 *       which XenServer reads in kilobytes per second and enforces on what the guest sends (netback's
 *       credit scheduler): there is no ingress limit. xapi passes it to the backend when the VIF is
 *       plugged, so a running VIF is re-plugged for a new rate to take;</li>
 *   <li>a CPU weight is {@code VCPUs_params:weight} of the credit scheduler (1 to 65535, 256 the
 *       default), set on a running VM with {@code VM.add_to_VCPUs_params_live}.</li>
 * </ul>
 * VXLAN is not offered: XenAPI's {@code tunnel} makes the bridge of a tunnel network, but its far end
 * and key are set by an SDN controller over OpenFlow, which XenAPI does not expose.
 */
final class XenLinks {
    /** The other_config key of a private network of ours: the link it carries. */
    static final String PEER_NETWORK = "vrouter-peer";
    /** The other_config key of a VIF on a peer link: its far end, "vmIndex.interface". */
    static final String PEER_END = "vrouter-peer-end";
    /** XenServer's credit scheduler default weight, what vrouter's default weight 100 maps to. */
    static final int XEN_DEFAULT_WEIGHT = 256;
    static final String VXLAN_REFUSED = "the Xen driver offers no VXLAN links: XenAPI's tunnel takes its far end "
            + "and VNI from an SDN controller, which vrouter does not run; use a peer link, or the netns driver";

    private final XenApiClient api;
    /** One lock per link, so that an end joining and the other leaving never make or drop its network twice. */
    private final Map<String, Object> locks = new ConcurrentHashMap<>();

    XenLinks(XenApiClient api) {
        this.api = api;
    }

    /** The name-label of the private network of the link between (vm, n) and (farVm, farIf), the same from either end. */
    static String peerNetworkName(int vm, int n, int farVm, int farIf) {
        String a = vm + "." + n, b = farVm + "." + farIf;
        boolean first = vm < farVm || (vm == farVm && n < farIf);
        return "vrouter-peer-" + (first ? a + "-" + b : b + "-" + a);
    }

    private Object lock(String network) {
        return locks.computeIfAbsent(network, k -> new Object());
    }

    /** The network an interface's VIF goes on: its parent's, or its peer link's private network, made if missing. */
    interface NetworkOfParent {
        String find(String parent) throws XenApiException;
    }

    /** Interface n's VIF record made on its network, under the link's lock when it is a peer's. */
    interface VifMaker {
        void make(String network) throws XenApiException;
    }

    void createOn(int vmIndex, VmNetworkConfigEntry n, NetworkOfParent byParent, VifMaker make) throws XenApiException {
        switch (LinkType.of(n)) {
            case PEER -> {
                String name = peerNetworkName(vmIndex, n.vmNetworkConfigIndex, n.vmNetworkConfigPeerRouter, n.vmNetworkConfigPeerInterface);
                synchronized (lock(name)) {
                    make.make(peerNetwork(name));
                }
            }
            case BRIDGE -> make.make(byParent.find(n.vmNetworkConfigParent));
            default -> throw new XenApiException("NOT_SUPPORTED", List.of(VXLAN_REFUSED));
        }
    }

    private String peerNetwork(String name) throws XenApiException {
        for (JsonNode ref : api.call("network.get_by_name_label", name)) return ref.asText();
        ObjectNode rec = api.json().createObjectNode();
        rec.put("name_label", name);
        rec.put("name_description", "a peer link between two VRs, made by vrouter");
        rec.put("MTU", 1500);
        rec.putObject("other_config").put(PEER_NETWORK, name);
        return api.call("network.create", rec).asText();
    }

    /** Destroys the VIF's network when it is a peer link's and the VIF was its last (call after destroying the VIF). */
    void dropIfUnused(String network) throws XenApiException {
        JsonNode rec;
        try {
            rec = api.call("network.get_record", network);
        } catch (XenApiException e) {
            if ("HANDLE_INVALID".equals(e.code())) return;
            throw e;
        }
        String name = rec.path("other_config").path(PEER_NETWORK).asText("");
        if (name.isEmpty()) return;
        synchronized (lock(name)) {
            if (api.call("network.get_VIFs", network).isEmpty()) api.call("network.destroy", network);
        }
    }

    /** What a new VIF record says of its link and rate. */
    static void describe(ObjectNode vif, VmNetworkConfigEntry n) {
        if (LinkType.of(n) == LinkType.PEER) {
            ((ObjectNode) vif.get("other_config")).put(PEER_END, n.vmNetworkConfigPeerRouter + "." + n.vmNetworkConfigPeerInterface);
        }
        vif.put("qos_algorithm_type", n.vmNetworkConfigRateOut == null ? "" : "ratelimit");
        ObjectNode params = vif.putObject("qos_algorithm_params");
        if (n.vmNetworkConfigRateOut != null) params.put("kbps", Long.toString(kbytesPerSecond(n.vmNetworkConfigRateOut)));
    }

    /** vrouter's kbit/s as XenServer's kbps parameter, which is kilobytes per second, rounded up. */
    static long kbytesPerSecond(int kbits) {
        return (kbits + 7L) / 8;
    }

    /**
     * Sets the VIF's rate limit (null: none), and re-plugs a plugged VIF so that the backend takes it.
     * Safe to run again.
     */
    void setRate(String vif, Integer kbits) throws XenApiException {
        api.call("VIF.set_qos_algorithm_type", vif, kbits == null ? "" : "ratelimit");
        api.call("VIF.remove_from_qos_algorithm_params", vif, "kbps");
        if (kbits != null) api.call("VIF.add_to_qos_algorithm_params", vif, "kbps", Long.toString(kbytesPerSecond(kbits)));
        if (api.call("VIF.get_currently_attached", vif).asBoolean()) {
            api.call("VIF.unplug", vif);
            api.call("VIF.plug", vif);
        }
    }

    /** The VR's weight (vrouter's scale, 100 the default) on the credit scheduler's (256 the default). */
    static int xenWeight(VmConfigEntry c) {
        int w = c.vmConfigCpuWeight == null ? CpuWeights.DEFAULT : c.vmConfigCpuWeight;
        return (int) Math.max(1, Math.min(65_535, (long) w * XEN_DEFAULT_WEIGHT / CpuWeights.DEFAULT));
    }

    /** Sets the VM's weight ("" removes it), on the running domain too when it runs. */
    void setWeight(String vm, String weight, boolean running) throws XenApiException {
        if (running && !weight.isEmpty()) {
            api.call("VM.add_to_VCPUs_params_live", vm, "weight", weight);
            return;
        }
        api.call("VM.remove_from_VCPUs_params", vm, "weight");
        if (!weight.isEmpty()) api.call("VM.add_to_VCPUs_params", vm, "weight", weight);
    }

    /**
     * A peer end's status as XenAPI shows it: up while its VIF and another VIF on its private network
     * are plugged (both VMs run), down while only its own is, unknown while its VM does not run.
     * XenAPI sees no packets, so delay and loss stay unmeasured.
     */
    static LinkStatus status(JsonNode vif, List<JsonNode> onItsNetwork) {
        if (!vif.path("currently_attached").asBoolean()) return LinkStatus.UNKNOWN;
        String self = vif.path("uuid").asText();
        boolean far = onItsNetwork.stream().anyMatch(o -> !o.path("uuid").asText().equals(self) && o.path("currently_attached").asBoolean());
        return far ? LinkStatus.UP : LinkStatus.DOWN;
    }
}
