package io.vrouter.gnmi;

import com.github.gnmi.proto.PathElem;
import io.vrouter.yang.DataNode;
import io.vrouter.yang.Ns;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Finds the nodes of a data tree (vr-yang's, as NETCONF and RESTCONF show it) that a gNMI path
 * names: names and key values, {@code *} for any one element or key value, {@code ...} for any
 * number of levels, a list without keys for all its entries. A table keyed by VR is asked for the
 * named VR alone.
 */
final class TreeMatch {
    /** A node found, with its path from the root: every list entry with all its keys. */
    record Match(List<PathElem> path, DataNode node) {
    }

    /** Calls {@code found} for every node of {@code root}'s tree (root included) that {@code path} names. */
    static void find(DataNode root, List<PathElem> path, Consumer<Match> found) {
        find(root, path, null, found);
    }

    /** As {@link #find(DataNode, List, Consumer)}, reading of the tables keyed by VR only the given VRs (all when null). */
    static void find(DataNode root, List<PathElem> path, Set<Integer> vrs, Consumer<Match> found) {
        find(List.of(root), path, vrs, found);
    }

    /** As {@link #find(DataNode, List, Set, Consumer)} in several trees (of several origins), whose tops are siblings. */
    static void find(List<DataNode> roots, List<PathElem> path, Set<Integer> vrs, Consumer<Match> found) {
        DataNode top = DataNode.lazy(Ns.VMM, "", roots::iterator);
        new TreeMatch(vrs).walk(top, path, 0, new ArrayList<>(), found);
    }

    private final Set<Integer> vrs;

    private TreeMatch(Set<Integer> vrs) {
        this.vrs = vrs;
    }

    private void walk(DataNode node, List<PathElem> want, int i, List<PathElem> at, Consumer<Match> found) {
        if (i == want.size()) {
            found.accept(new Match(List.copyOf(at), node));
            return;
        }
        PathElem e = want.get(i);
        if (GnmiPaths.name(e).equals(GnmiPaths.ANY_DEPTH)) {
            // Trailing "...": the node with everything below it, once.
            if (i == want.size() - 1) {
                found.accept(new Match(List.copyOf(at), node));
                return;
            }
            walk(node, want, i + 1, at, found);
            for (DataNode c : children(node, PathElem.getDefaultInstance())) {
                if (c.isLeaf()) continue;
                at.add(elem(c));
                walk(c, want, i, at, found);
                at.remove(at.size() - 1);
            }
            return;
        }
        for (DataNode c : children(node, e)) {
            if (!matches(c, e)) continue;
            at.add(elem(c));
            walk(c, want, i + 1, at, found);
            at.remove(at.size() - 1);
        }
    }

    /** The children to look at: of a table keyed by VR, only the named VR's entries. */
    private Iterable<DataNode> children(DataNode node, PathElem e) {
        String vrKey = node.vrKey();
        if (vrKey == null) return node.children();
        String vr = e.getKeyMap().get(vrKey);
        if (vr == null || vr.equals(GnmiPaths.ANY)) return vrs == null ? node.children() : node.children(vrs);
        try {
            Integer named = Integer.valueOf(vr);
            return vrs == null || vrs.contains(named) ? node.children(Set.of(named)) : List.of();
        } catch (NumberFormatException notAnIndex) {
            return List.of();
        }
    }

    static boolean matches(DataNode c, PathElem e) {
        String name = GnmiPaths.name(e);
        if (!name.equals(GnmiPaths.ANY) && !name.equals(c.name())) return false;
        for (Map.Entry<String, String> k : e.getKeyMap().entrySet()) {
            if (!c.keys().contains(k.getKey())) return false;
            if (k.getValue().equals(GnmiPaths.ANY)) continue;
            DataNode key = c.leaf(k.getKey());
            if (key == null || !k.getValue().equals(key.value())) return false;
        }
        return true;
    }

    /** The element naming {@code n}: its name, and all its keys when it is a list entry. */
    static PathElem elem(DataNode n) {
        PathElem.Builder b = PathElem.newBuilder().setName(n.name());
        for (String k : n.keys()) {
            DataNode key = n.leaf(k);
            if (key != null) b.putKey(k, key.value());
        }
        return b.build();
    }

    /**
     * Calls {@code leaf} for every leaf at or below {@code n}, with {@code at} (n's path) extended to
     * it; of the tables keyed by VR, only the entries of {@code vrs} (all when null).
     */
    static void leaves(DataNode n, List<PathElem> at, Set<Integer> vrs, Consumer<Match> leaf) {
        if (n.isLeaf()) {
            leaf.accept(new Match(List.copyOf(at), n));
            return;
        }
        for (DataNode c : n.vrKey() != null && vrs != null ? n.children(vrs) : n.children()) {
            at.add(elem(c));
            leaves(c, at, vrs, leaf);
            at.remove(at.size() - 1);
        }
    }
}
