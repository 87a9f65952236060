package io.vrouter.core.migration;

import com.fasterxml.jackson.databind.JsonNode;
import io.vrouter.core.model.LinkType;
import io.vrouter.core.model.ModelJson;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import io.vrouter.core.spi.ChangeSet;
import io.vrouter.core.spi.ValidationException;
import io.vrouter.core.spi.VirtualRouters;
import io.vrouter.core.spi.VrException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The far ends of a moved VR's VXLAN links follow it (docs/adr/0023-backup-restore-and-migration.md):
 * the destination names, in its 201, its underlay address for each VXLAN interface of the VR it made;
 * the source then tells each of its peers "VNI v, underlay from (its own address) is now to (the
 * destination's)", and each peer rewrites, in one change set, the vmNetworkConfigRemote of its VRs'
 * VXLAN interfaces with that VNI and remote. A far end no peer had is named in the move's answer, for
 * the operator: the move itself stands (the VR runs on the destination).
 */
public final class FarEnds {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(FarEnds.class);

    /** The peers' side, on their REST interface (provider operators only, as {@link Migration#INCOMING}). */
    public static final String PATH = Migration.INCOMING + "/underlay";
    /** How long a peer may take to rewrite its ends (a VXLAN device re-made on a running VR). */
    static final Duration PEER_WAIT = Duration.ofSeconds(30);

    /**
     * The destination's underlay address for one VXLAN interface of the VR it made; or, when its far end
     * was a VR of the destination, the peer link it became there (joined, address null).
     */
    public record Underlay(int vmNetworkConfigIndex, int vni, String address, String joined) {
    }

    /** What the source tells its peers of one VXLAN interface: the far end of VNI vni at from is now at to. */
    public record Change(int vni, String from, String to) {
    }

    /** A peer's request: every change of one move, rewritten in one change set there. */
    public record Changes(List<Change> underlays) {
    }

    /** A far end a peer rewrote: which VR and interface, for which change. */
    public record Rewritten(int vni, String from, int vmIndex, String vmName, int vmNetworkConfigIndex) {
    }

    /** A peer's answer: the ends it rewrote (none: it has no far end of these). */
    public record Answer(List<Rewritten> rewritten) {
    }

    /**
     * What became of one VXLAN interface of the moved VR: the remote it has, the move told (from, to), the
     * peers that rewrote its far end, and, when none did, why (notTold; null when told).
     */
    public record FarEnd(int vmNetworkConfigIndex, int vni, String remote, String from, String to, List<String> toldOn,
                         String notTold, String joined) {
    }

    private FarEnds() {
    }

    private static boolean isVxlan(VmNetworkConfigEntry n) {
        return n.vmNetworkConfigLinkType == LinkType.VXLAN && n.vmNetworkConfigVni != null && n.vmNetworkConfigRemote != null;
    }

    /**
     * This router's address on the underlay device, of the remote's family (a VXLAN socket over the
     * device sends from it), or null when the device is not here or has none. The device is looked up in
     * the server's own network namespace, where the netns driver makes the VXLAN devices.
     */
    static String localAddress(String device, String remote) {
        if (device == null || remote == null) return null;
        try {
            NetworkInterface nic = NetworkInterface.getByName(device);
            if (nic == null) return null;
            boolean v4 = InetAddress.getByName(remote) instanceof Inet4Address;
            for (InetAddress a : Collections.list(nic.getInetAddresses())) {
                if ((a instanceof Inet4Address) == v4 && !a.isLinkLocalAddress()) return a.getHostAddress();
            }
            return null;
        } catch (SocketException | UnknownHostException e) {
            return null;
        }
    }

    /** The destination's side: its address for each VXLAN interface of the VR it made, for its 201. */
    public static List<Underlay> underlays(VmConfigEntry row) {
        List<Underlay> out = new ArrayList<>();
        for (VmNetworkConfigEntry n : row.interfaces()) {
            if (!isVxlan(n)) continue;
            String here = localAddress(n.vmNetworkConfigParent, n.vmNetworkConfigRemote);
            if (here != null) out.add(new Underlay(n.vmNetworkConfigIndex, n.vmNetworkConfigVni, here, null));
        }
        return out;
    }

    /**
     * The source's side, once the destination answered 201 with its {@code underlays} and before the
     * copy here goes: tells every peer the new underlay of each VXLAN interface of {@code row}, one
     * request per peer. Never throws: a far end that could not be told is said in its {@link FarEnd}.
     */
    public static List<FarEnd> tell(VmConfigEntry row, String destinationAnswer, Map<String, PeerClient> peers, String destination) {
        try {
            return told(row, destinationAnswer, peers, destination);
        } catch (RuntimeException unexpected) {
            LOG.warn("VR {}: its VXLAN far ends could not be told", row.vmName, unexpected);
            // Whatever went wrong here, the VR runs on the destination: the move stands, and says so.
            return row.interfaces().stream().filter(FarEnds::isVxlan).map(n -> new FarEnd(n.vmNetworkConfigIndex,
                    n.vmNetworkConfigVni, n.vmNetworkConfigRemote, null, null, List.of(), "the far end could not be told (the"
                    + " server's log says why)", null)).toList();
        }
    }

    private static List<FarEnd> told(VmConfigEntry row, String destinationAnswer, Map<String, PeerClient> peers, String destination) {
        Map<Integer, String> there = new LinkedHashMap<>();
        Map<Integer, String> joined = new LinkedHashMap<>();
        try {
            for (JsonNode u : ModelJson.mapper().readTree(destinationAnswer).path("underlays")) {
                there.put(u.path("vmNetworkConfigIndex").asInt(), u.path("address").asText(null));
                if (u.hasNonNull("joined")) joined.put(u.path("vmNetworkConfigIndex").asInt(), u.path("joined").asText());
            }
        } catch (IOException | RuntimeException unreadable) {
            // then no interface has the destination's address: each is said not told below
        }
        List<VmNetworkConfigEntry> vxlans = row.interfaces().stream().filter(FarEnds::isVxlan).toList();
        if (vxlans.isEmpty()) return List.of();
        Map<VmNetworkConfigEntry, Change> changes = new LinkedHashMap<>();
        Map<VmNetworkConfigEntry, String> why = new LinkedHashMap<>();
        for (VmNetworkConfigEntry n : vxlans) {
            String from = localAddress(n.vmNetworkConfigParent, n.vmNetworkConfigRemote);
            String to = there.get(n.vmNetworkConfigIndex);
            if (joined.containsKey(n.vmNetworkConfigIndex)) continue; // the destination has both ends now
            if (from == null) why.put(n, "this router has no address on underlay device " + n.vmNetworkConfigParent);
            else if (to == null) why.put(n, "the destination named no underlay address for it");
            else if (from.equals(to)) why.put(n, "its underlay address is the same on the destination (" + to + ")");
            else changes.put(n, new Change(n.vmNetworkConfigVni, from, to));
        }
        Map<Change, List<String>> toldOn = new LinkedHashMap<>();
        List<String> unasked = new ArrayList<>();
        if (!changes.isEmpty()) {
            byte[] body;
            try {
                body = ModelJson.mapper().writeValueAsBytes(new Changes(List.copyOf(changes.values())));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            for (Map.Entry<String, PeerClient> peer : peers.entrySet()) {
                askPeer(peer.getKey(), peer.getValue(), body, changes, toldOn, unasked);
            }
        }
        List<FarEnd> out = new ArrayList<>();
        for (VmNetworkConfigEntry n : vxlans) {
            if (joined.containsKey(n.vmNetworkConfigIndex)) {
                out.add(new FarEnd(n.vmNetworkConfigIndex, n.vmNetworkConfigVni, n.vmNetworkConfigRemote, null, null,
                        List.of(destination), null, joined.get(n.vmNetworkConfigIndex)));
                continue;
            }
            Change c = changes.get(n);
            List<String> on = c == null ? List.of() : toldOn.getOrDefault(c, List.of());
            String notTold = null;
            if (c == null) {
                notTold = why.get(n) + ": the far end (the router at " + n.vmNetworkConfigRemote + ") was not told";
            } else if (on.isEmpty()) {
                notTold = "no peer of this router has a VR with VNI " + c.vni() + " to " + c.from()
                        + (unasked.isEmpty() ? "" : " among those that answered (" + String.join("; ", unasked) + ")")
                        + ": set vmNetworkConfigRemote " + c.to() + " on the far end, the router at " + n.vmNetworkConfigRemote;
            }
            out.add(new FarEnd(n.vmNetworkConfigIndex, n.vmNetworkConfigVni, n.vmNetworkConfigRemote,
                    c == null ? null : c.from(), c == null ? null : c.to(), List.copyOf(on), notTold, null));
        }
        return out;
    }

    /**
     * The destination's side, in the set that makes the moved VR: a VXLAN end of it whose remote is this
     * router's own address, with a VR here on its VNI (of the same owner), would be a VXLAN to oneself,
     * which Linux refuses: both ends become a peer link instead. The ends joined, for the 201.
     */
    static List<Underlay> joinHere(VirtualRouters view, Restore.Plan plan, ChangeSet.Builder set) {
        List<Underlay> joined = new ArrayList<>();
        for (VmConfigEntry made : plan.created()) {
            for (VmNetworkConfigEntry n : made.interfaces()) {
                if (!isVxlan(n) || !isOwnAddress(n.vmNetworkConfigRemote)) continue;
                for (int i : List.copyOf(view.indices())) {
                    VmConfigEntry here = view.getConfig(i).orElse(null);
                    if (here == null || !java.util.Objects.equals(owner(here), owner(made))) continue;
                    VmNetworkConfigEntry end = here.interfaces().stream()
                            .filter(m -> isVxlan(m) && m.vmNetworkConfigVni.equals(n.vmNetworkConfigVni)).findFirst().orElse(null);
                    if (end == null) continue;
                    int farIndex = end.vmNetworkConfigIndex;
                    joined.add(new Underlay(n.vmNetworkConfigIndex, n.vmNetworkConfigVni, null,
                            "a peer link with interface " + farIndex + " of VR " + here.vmName + " (vmIndex " + i + ")"));
                    int nearIndex = n.vmNetworkConfigIndex;
                    peer(n, i, farIndex);
                    set.edit(i, row -> row.interfaces().stream().filter(m -> m.vmNetworkConfigIndex == farIndex).findFirst()
                            .ifPresent(m -> peer(m, made.vmIndex, nearIndex)));
                    break;
                }
            }
        }
        return joined;
    }

    /** An end turned into one of a peer link to interface {@code farInterface} of VR {@code farVr}. */
    private static void peer(VmNetworkConfigEntry n, int farVr, int farInterface) {
        n.vmNetworkConfigLinkType = LinkType.PEER;
        n.vmNetworkConfigPeerRouter = farVr;
        n.vmNetworkConfigPeerInterface = farInterface;
        n.vmNetworkConfigVni = null;
        n.vmNetworkConfigRemote = null;
        n.vmNetworkConfigParent = null;
    }

    private static String owner(VmConfigEntry row) {
        return row.vmConfigTenant == null || row.vmConfigTenant.isEmpty() ? null : row.vmConfigTenant;
    }

    /** Whether the address is one of this router's own (the server's network namespace's). */
    private static boolean isOwnAddress(String address) {
        try {
            return NetworkInterface.getByInetAddress(address("remote", address)) != null;
        } catch (SocketException | ValidationException e) {
            return false;
        }
    }

    private static void askPeer(String name, PeerClient client, byte[] body, Map<VmNetworkConfigEntry, Change> changes,
                                Map<Change, List<String>> toldOn, List<String> unasked) {
        PeerClient.Answer a;
        try {
            a = client.post(PATH, body, PEER_WAIT.plusSeconds(10));
        } catch (PeerClient.Unreachable e) {
            unasked.add(e.getMessage());
            return;
        }
        if (a.status() != 200) {
            unasked.add("peer " + name + " refused: " + a.status() + " " + Migration.detail(a));
            return;
        }
        try {
            for (JsonNode r : ModelJson.mapper().readTree(a.body()).path("rewritten")) {
                for (Change c : changes.values()) {
                    if (c.vni() == r.path("vni").asInt() && c.from().equals(r.path("from").asText())) {
                        List<String> on = toldOn.computeIfAbsent(c, k -> new ArrayList<>());
                        if (!on.contains(name)) on.add(name);
                    }
                }
            }
        } catch (IOException e) {
            unasked.add("peer " + name + "'s answer is no JSON: " + a.body());
        }
    }

    /**
     * A peer's side: rewrites, in one change set through {@code view}, the remote of every VXLAN
     * interface here with a change's VNI and remote {@code from} to its {@code to}, and waits for the set
     * to be done. The ends rewritten; none when this router has no such far end.
     *
     * @throws ValidationException on a change without its VNI or with an address that is none
     * @throws VrException when the set is refused or fails on the host (undone whole)
     */
    public static List<Rewritten> rewrite(VirtualRouters view, Changes request) throws InterruptedException {
        if (request == null || request.underlays() == null || request.underlays().isEmpty()) {
            throw new ValidationException("underlays", "name the far ends to rewrite: {\"underlays\":[{\"vni\":V,\"from\":A,\"to\":B}]}");
        }
        for (Change c : request.underlays()) {
            if (c == null || c.vni() < 1) throw new ValidationException("vni", "each change names its VNI");
            address("from", c.from());
            address("to", c.to());
        }
        List<Rewritten> rewritten = new ArrayList<>();
        Map<Integer, List<int[]>> edits = new LinkedHashMap<>(); // vmIndex -> (interface, change) pairs
        for (int i : List.copyOf(view.indices())) {
            VmConfigEntry row = view.getConfig(i).orElse(null);
            if (row == null) continue;
            for (VmNetworkConfigEntry n : row.interfaces()) {
                if (!isVxlan(n)) continue;
                for (int k = 0; k < request.underlays().size(); k++) {
                    Change c = request.underlays().get(k);
                    if (c.vni() == n.vmNetworkConfigVni && address("remote", n.vmNetworkConfigRemote).equals(address("from", c.from()))) {
                        edits.computeIfAbsent(i, x -> new ArrayList<>()).add(new int[] {n.vmNetworkConfigIndex, k});
                        rewritten.add(new Rewritten(c.vni(), c.from(), i, row.vmName, n.vmNetworkConfigIndex));
                    }
                }
            }
        }
        if (edits.isEmpty()) return rewritten;
        ChangeSet.Builder set = ChangeSet.builder();
        edits.forEach((vmIndex, ends) -> set.edit(vmIndex, row -> {
            for (int[] end : ends) {
                for (VmNetworkConfigEntry n : row.interfaces()) {
                    if (n.vmNetworkConfigIndex == end[0]) n.vmNetworkConfigRemote = request.underlays().get(end[1]).to();
                }
            }
        }));
        try {
            view.apply(set.build()).completion().get(PEER_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof VrException failed) throw failed;
            throw new IllegalStateException("rewriting the far ends failed unexpectedly", e.getCause());
        } catch (TimeoutException e) {
            // accepted and journalled: the host's work goes on, and the ends are rewritten when it is done
        }
        return rewritten;
    }

    private static InetAddress address(String field, String text) {
        if (text == null || text.isBlank()) throw new ValidationException(field, "an underlay address is missing");
        try {
            // Literal addresses only: a name here is a mistake, not something to look up in DNS.
            if (!text.matches("[0-9.]+|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*")) throw new UnknownHostException(text);
            return InetAddress.getByName(text);
        } catch (UnknownHostException e) {
            throw new ValidationException(field, "'" + text + "' is no IPv4 or IPv6 address");
        }
    }
}
