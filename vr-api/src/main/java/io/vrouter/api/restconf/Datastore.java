package io.vrouter.api.restconf;

import io.vrouter.core.spi.ReplayLog;
import io.vrouter.core.spi.VirtualRouters;
import io.vrouter.yang.DataNode;
import io.vrouter.yang.DataGuard;
import io.vrouter.yang.ModelTree;
import io.vrouter.yang.nacm.Nacm;
import io.vrouter.yang.Ns;
import io.vrouter.yang.Schemas;
import io.vrouter.yang.WithDefaults;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The datastore resource's tree (RFC 8040 section 3.5.3) and how a path finds a node in it:
 * NEW-VMM-MIB as NETCONF's {@link ModelTree} builds it, the YANG library and
 * {@code ietf-restconf-monitoring:restconf-state}. Nothing of it is held: each request builds the
 * tree lazily and walks the VRs it names.
 */
final class Datastore {
    /** RFC 8040 section 4.8.1's {@code content}. */
    enum Content { CONFIG, NONCONFIG, ALL }

    /** The stream of VR notifications, as NETCONF names it (RFC 8040 section 6.2). */
    static final String STREAM = "NETCONF";

    /** The capabilities of section 9.1.1 this server has, and RFC 8072's. */
    static final List<String> CAPABILITIES = List.of(
            "urn:ietf:params:restconf:capability:defaults:1.0?basic-mode=" + WithDefaults.BASIC.label,
            "urn:ietf:params:restconf:capability:depth:1.0",
            "urn:ietf:params:restconf:capability:fields:1.0",
            "urn:ietf:params:restconf:capability:with-defaults:1.0",
            "urn:ietf:params:restconf:capability:replay:1.0",
            "urn:ietf:params:restconf:capability:yang-patch:1.0");

    private Datastore() {
    }

    /**
     * The whole datastore as {@code content} and {@code with-defaults} show it, with the access
     * control's {@code /nacm} (its counters with the state); {@code base} is the RESTCONF root URL.
     */
    static DataNode root(VirtualRouters service, DataGuard guard, Content content, WithDefaults wd, String base) {
        return DataNode.lazy(Ns.RESTCONF, "data", () -> {
            List<Supplier<DataNode>> top = new ArrayList<>(4);
            top.add(() -> wd.apply(switch (content) {
                case CONFIG -> ModelTree.config(ModelTree.running(service));
                case NONCONFIG -> ModelTree.state(service);
                case ALL -> ModelTree.all(service);
            }));
            if (guard instanceof Nacm nacm && content != Content.NONCONFIG) top.add(() -> nacm.tree(content == Content.ALL, wd));
            if (content != Content.CONFIG) {
                top.add(() -> library(base));
                top.add(() -> Schemas.modulesState(Schemas.RESTCONF_MODULES, Schemas.RESTCONF_CONTENT_ID, m -> location(base, m)));
                top.add(() -> state(service, base));
            }
            // each built when the walk reaches it: a path into NEW-VMM-MIB stops at the first
            return top.stream().map(Supplier::get).iterator();
        });
    }

    /** {@code ietf-yang-library:yang-library} of RESTCONF's modules, each with the URL of its text. */
    static DataNode library(String base) {
        return Schemas.library(Schemas.RESTCONF_MODULES, Schemas.RESTCONF_CONTENT_ID, List.of("running", "operational"),
                m -> location(base, m));
    }

    /** Where RESTCONF serves a module's text. */
    static String location(String base, Schemas.Module m) {
        return base + "/modules/" + m.name() + "/" + m.revision();
    }

    /** {@code ietf-restconf-monitoring:restconf-state}: the capabilities and the one stream. */
    static DataNode state(VirtualRouters service, String base) {
        String m = Ns.RESTCONF_MONITORING;
        DataNode.Inner caps = DataNode.inner(m, "capabilities");
        for (String c : CAPABILITIES) caps.addLeafList("capability", c);
        DataNode.Inner stream = DataNode.inner(m, "stream", "name").add("name", STREAM)
                .add("description", "the VR notifications of NEW-VMM-MIB (vmRunning, vmShutdown, vmDeleted, ...)");
        Optional<? extends ReplayLog> log = service.events().replayLog();
        stream.add("replay-support", log.isPresent());
        log.ifPresent(l -> stream.add("replay-log-creation-time", l.created().toString()));
        for (Encoding e : Encoding.values()) {
            String enc = e == Encoding.JSON ? "json" : "xml";
            stream.add(DataNode.inner(m, "access", "encoding").add("encoding", enc)
                    .add("location", base + "/streams/" + STREAM + "/" + enc));
        }
        return DataNode.inner(m, "restconf-state").add(caps).add(DataNode.inner(m, "streams").add(stream));
    }

    /** A node found by a path, and the path to it with the key names filled in. */
    record Found(DataNode node, DataPath path) {
    }

    /** The node a path names; 404 when there is none. */
    static Found find(DataNode root, ApiPath path) {
        DataNode at = root;
        List<DataPath.Seg> segs = new ArrayList<>();
        for (ApiPath.Step step : path.steps()) {
            DataNode next = child(at, step);
            if (next == null) {
                throw RestconfError.notFound("no data at " + new DataPath(segs).json() + "/" + step.name()
                        + (step.keys() == null ? "" : "=" + String.join(",", step.keys())));
            }
            Map<String, String> keys = new LinkedHashMap<>();
            for (String k : next.keys()) {
                DataNode leaf = next.leaf(k);
                keys.put(k, leaf == null ? "" : leaf.value());
            }
            segs.add(new DataPath.Seg(next.ns(), next.name(), keys));
            at = next;
        }
        return new Found(at, new DataPath(segs));
    }

    private static DataNode child(DataNode parent, ApiPath.Step step) {
        Iterable<DataNode> candidates = parent.children();
        if (parent.vrKey() != null && step.keys() != null && !step.keys().isEmpty()) {
            try {
                candidates = parent.children(Set.of(Integer.parseInt(step.keys().get(0))));
            } catch (NumberFormatException e) {
                return null;
            }
        }
        for (DataNode c : candidates) {
            if (!c.ns().equals(step.ns()) || !c.name().equals(step.name())) continue;
            List<String> keys = c.keys();
            if (step.keys() == null) {
                if (!keys.isEmpty()) {
                    throw RestconfError.invalidValue("'" + step.name() + "' is a list: name one entry by its keys ("
                            + step.name() + "=" + String.join(",", keys) + ")");
                }
                return c;
            }
            if (keys.size() != step.keys().size()) {
                throw RestconfError.invalidValue("'" + step.name() + "' is " + (keys.isEmpty() ? "not a list"
                        : "keyed by " + String.join(",", keys)) + ": " + step.keys().size() + " key values given");
            }
            if (matches(c, keys, step.keys())) return c;
        }
        return null;
    }

    private static boolean matches(DataNode entry, List<String> keyNames, List<String> values) {
        for (int i = 0; i < keyNames.size(); i++) {
            DataNode leaf = entry.leaf(keyNames.get(i));
            if (leaf == null || !leaf.value().equals(values.get(i))) return false;
        }
        return true;
    }
}
