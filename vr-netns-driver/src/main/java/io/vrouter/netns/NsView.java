package io.vrouter.netns;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * What is inside a VR's namespace, as one {@code ip -j -batch} with {@code addr show} and
 * {@code route show table all} (both families) last printed it, plus the routing daemon's RIB.
 *
 * @param links      the namespace's interfaces by name
 * @param fibEntries routes in the main table, IPv4 and IPv6
 * @param routeProtocols where the main table's routes came from ({@code kernel}, {@code boot}, {@code bird}, ...)
 * @param staticRoutes   the routes added by hand ({@code ip route add}: protocol boot or static), as
 *                       {@code ip} lines that add them again
 */
record NsView(Map<String, Link> links, long fibEntries, List<String> routeProtocols, List<String> staticRoutes,
              Optional<Bird.Rib> rib) {
    static final NsView EMPTY = new NsView(Map.of(), 0, List.of(), List.of(), Optional.empty());
    private static final Pattern PREFIX = Pattern.compile("default|[0-9a-fA-F.:]{2,45}(/\\d{1,3})?");
    private static final Pattern ADDRESS = Pattern.compile("[0-9a-fA-F.:]{2,45}");
    private static final Pattern DEV = Pattern.compile("lo|eth[1-9][0-9]{0,4}");
    /** The two commands a batch ends with, so that its last two outputs are the view. */
    static final List<String> QUERY = List.of("addr show", "route show table all");

    /** One interface: its flags, MAC and global addresses ({@code 192.0.2.1/24}). */
    record Link(String name, int ifindex, boolean up, String mac, List<String> addresses) {
    }

    NsView withRib(Optional<Bird.Rib> rib) {
        return new NsView(links, fibEntries, routeProtocols, staticRoutes, rib);
    }

    /** Whether every VR interface (eth1, eth2, ...) is up: only then does the table hold all its routes. */
    boolean interfacesUp() {
        return links.values().stream().filter(l -> Names.networkIndexOfVrSide(l.name()).isPresent()).allMatch(Link::up);
    }

    /**
     * The line that adds the route again, for the simple routes a hand adds (a prefix, a gateway, a
     * device, a metric); none for others (multipath, ...), and none unless every field is what the
     * kernel prints for it.
     */
    static Optional<String> staticRoute(JsonNode r) {
        String dst = r.path("dst").asText("");
        String via = r.path("gateway").asText(null);
        String dev = r.path("dev").asText(null);
        if (!PREFIX.matcher(dst).matches() || (via != null && !ADDRESS.matcher(via).matches())
                || (dev != null && !DEV.matcher(dev).matches()) || (via == null && dev == null) || r.has("nexthops")) {
            return Optional.empty();
        }
        StringBuilder line = new StringBuilder("route replace ").append(dst);
        if (via != null) line.append(" via ").append(via);
        if (dev != null) line.append(" dev ").append(dev);
        if (r.has("metric")) line.append(" metric ").append(r.path("metric").asLong());
        return Optional.of(line.toString());
    }

    /** Reads the last two JSON arrays a batch printed: the addresses, then the routes. */
    static NsView parse(ObjectMapper json, String output) throws IOException {
        List<JsonNode> arrays = new ArrayList<>();
        // One array per command; read one root value at a time (a MappingIterator would unwrap the first).
        try (JsonParser p = json.getFactory().createParser(output)) {
            while (p.nextToken() != null) arrays.add(json.readTree(p));
        }
        if (arrays.size() < 2) throw new IOException("ip printed " + arrays.size() + " JSON values, not the view");
        JsonNode addrs = arrays.get(arrays.size() - 2);
        JsonNode routes = arrays.get(arrays.size() - 1);
        Map<String, Link> links = new TreeMap<>();
        for (JsonNode l : addrs) {
            List<String> flags = new ArrayList<>();
            l.path("flags").forEach(f -> flags.add(f.asText()));
            List<String> global = new ArrayList<>();
            for (JsonNode a : l.path("addr_info")) {
                if (a.path("scope").asText().equals("global")) global.add(a.path("local").asText() + "/" + a.path("prefixlen").asInt());
            }
            String name = l.path("ifname").asText();
            links.put(name, new Link(name, l.path("ifindex").asInt(), flags.contains("UP"), l.path("address").asText(null), global));
        }
        long fib = 0;
        TreeSet<String> protocols = new TreeSet<>();
        List<String> hand = new ArrayList<>();
        for (JsonNode r : routes) {
            String table = r.path("table").asText("main");
            String type = r.path("type").asText("unicast");
            if (!table.equals("main") || !type.equals("unicast")) continue;
            fib++;
            String protocol = r.path("protocol").asText("boot");
            protocols.add(protocol);
            if (protocol.equals("boot") || protocol.equals("static")) staticRoute(r).ifPresent(hand::add);
        }
        return new NsView(links, fib, new ArrayList<>(protocols), hand, Optional.empty());
    }
}
