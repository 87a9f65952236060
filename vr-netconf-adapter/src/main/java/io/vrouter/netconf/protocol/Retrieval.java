package io.vrouter.netconf.protocol;

import io.vrouter.yang.datastore.Datastore;
import io.vrouter.core.spi.ReplayLog;
import io.vrouter.core.spi.VirtualRouters;
import io.vrouter.yang.Ns;
import io.vrouter.yang.DataNode;
import io.vrouter.yang.ModelTree;
import io.vrouter.netconf.data.SubtreeFilter;
import io.vrouter.netconf.data.XPathFilter;
import io.vrouter.netconf.protocol.RpcError.Type;
import io.vrouter.netconf.xml.SecureXml;
import io.vrouter.yang.Schemas;
import io.vrouter.yang.WithDefaults;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.w3c.dom.Element;

/**
 * The retrievals: get and get-config (RFC 6241) and get-data (RFC 8526, NMDA) on running, candidate
 * and operational. Each builds the datastore's tree lazily and writes the part its filter selects
 * while the reply is streamed.
 */
final class Retrieval {
    /** A filter: a subtree filter element (whose children are the filter) or an XPath expression. */
    private record Filter(Element subtree, Element xpathScope, String select) {
        static final Filter NONE = new Filter(null, null, null);
    }

    /** The {@code :with-defaults} capability (RFC 6243) of the hello. */
    static final String WITH_DEFAULTS_CAPABILITY = "urn:ietf:params:netconf:capability:with-defaults:1.0?basic-mode="
            + WithDefaults.BASIC.label + "&also-supported=trim,report-all-tagged";

    private Retrieval() {
    }

    /**
     * The mode a retrieval asks for: its {@code with-defaults} child in namespace {@code ns} (RFC
     * 6243 augments get and get-config with it; RFC 8526's get-data has it in its own namespace), or
     * the basic mode. A value this server does not support is refused with invalid-value.
     */
    static WithDefaults withDefaults(Element op, String ns) throws RpcError {
        Element p = SecureXml.child(op, ns, "with-defaults");
        if (p == null) return WithDefaults.BASIC;
        String v = SecureXml.text(p).trim();
        WithDefaults mode = WithDefaults.ofLabel(v);
        if (mode != null) return mode;
        throw new RpcError(Type.APPLICATION, "invalid-value", null, null, "with-defaults '" + v
                + "' is not supported: this server offers report-all, trim and report-all-tagged")
                .info("bad-element", "with-defaults");
    }

    /** {@code <get>}: the operational state and the running configuration. */
    static Outcome.Body get(NetconfServerContext ctx, Requester who, Element op) throws RpcError {
        WithDefaults wd = withDefaults(op, Ns.WITH_DEFAULTS);
        DataNode root = DataNode.lazy(Ns.BASE, "data", () -> operational(ctx, who, true, true, wd).iterator());
        return reply(Ns.BASE, wd.apply(who.access().readable(root)), filter(SecureXml.child(op, Ns.BASE, "filter")),
                DataNode.UNBOUNDED);
    }

    /** {@code <get-config>} of running or candidate. */
    static Outcome.Body getConfig(NetconfServerContext ctx, Requester who, Element op, Datastore.Name source) throws RpcError {
        WithDefaults wd = withDefaults(op, Ns.WITH_DEFAULTS);
        DataNode root = DataNode.lazy(Ns.BASE, "data", () -> configuration(ctx, who, source, wd).iterator());
        return reply(Ns.BASE, wd.apply(who.access().readable(root)), filter(SecureXml.child(op, Ns.BASE, "filter")),
                DataNode.UNBOUNDED);
    }

    /**
     * A configuration datastore's top-level nodes: NEW-VMM-MIB, and /nacm (the server's one access
     * control configuration, edited in running; the candidate shows it as running has it).
     */
    private static List<DataNode> configuration(NetconfServerContext ctx, Requester who, Datastore.Name source, WithDefaults wd) {
        return List.of(ModelTree.config(configSource(who, source)), ctx.nacm().tree(false, wd));
    }

    /** A configuration datastore as the session's user may see it (the candidate of its tenant). */
    private static ModelTree.ConfigSource configSource(Requester who, Datastore.Name ds) {
        return ds == Datastore.Name.RUNNING ? ModelTree.running(who.service()) : who.scope().datastore().read(ds);
    }

    /**
     * The YANG library's two trees: the same for the server's whole life, so built once, not for every
     * get (nothing changes a tree once built; each walk has its own iterators).
     */
    private static final DataNode YANG_LIBRARY = Schemas.library();
    private static final DataNode MODULES_STATE = Schemas.modulesState(Schemas.MODULES, Schemas.CONTENT_ID, m -> null);

    /**
     * The operational datastore's top-level nodes: NEW-VMM-MIB (its state tables, and with
     * {@code config} its configuration in use), and the server's state: ietf-netconf-monitoring, the
     * YANG library and the notification streams.
     */
    private static List<DataNode> operational(NetconfServerContext ctx, Requester who, boolean config, boolean state,
                                              WithDefaults wd) {
        List<DataNode> top = new ArrayList<>();
        VirtualRouters service = who.service();
        if (config && state) {
            top.add(ModelTree.all(service));
        } else if (config) {
            top.add(ModelTree.config(ModelTree.running(service)));
        } else {
            top.add(ModelTree.state(service));
        }
        top.add(ctx.nacm().tree(state, wd));
        if (state) {
            // Built only when a walk goes into it: the filter of a get of one VR's rows names
            // NEW-VMM-MIB alone. (Its children are containers: a lazy node, which has no leaves, serves.)
            top.add(DataNode.lazy(Ns.MONITORING, "netconf-state", () -> Monitoring.tree(ctx, who).children().iterator()));
            top.add(YANG_LIBRARY);
            top.add(MODULES_STATE);
            top.add(streams(service));
        }
        return top;
    }

    /**
     * {@code <get-data>} (RFC 8526): a datastore named by its identity, a subtree or XPath filter,
     * config-filter, max-depth, and with-defaults (on running and candidate: the operational
     * datastore reports what is in use, :with-operational-defaults is not offered).
     * {@code with-origin} and the origin filters belong to the feature "origin", which this server
     * does not have.
     */
    static Outcome.Body getData(NetconfServerContext ctx, Requester who, Element op) throws RpcError {
        for (Element p : SecureXml.children(op)) {
            if (!Ns.NMDA.equals(p.getNamespaceURI()) || !GET_DATA_PARAMETERS.contains(p.getLocalName())) {
                throw RpcError.unknownElement(Type.PROTOCOL, null, p.getLocalName(), "get-data has no parameter '"
                        + p.getLocalName() + "'" + (p.getLocalName().contains("origin")
                        ? " (the feature 'origin' is not supported)" : ""));
            }
        }
        Element dsElement = SecureXml.child(op, Ns.NMDA, "datastore");
        if (dsElement == null) throw RpcError.missingElement(Type.PROTOCOL, null, "datastore", "get-data needs <datastore>");
        String ds = datastore(dsElement);
        Boolean configFilter = null;
        Element cf = SecureXml.child(op, Ns.NMDA, "config-filter");
        if (cf != null) {
            String v = SecureXml.text(cf).trim();
            if (!v.equals("true") && !v.equals("false")) {
                throw RpcError.invalidValue(null, "config-filter must be true or false").info("bad-element", "config-filter");
            }
            configFilter = Boolean.valueOf(v);
        }
        int depth = maxDepth(SecureXml.child(op, Ns.NMDA, "max-depth"));
        WithDefaults wd = withDefaults(op, Ns.NMDA);
        Element subtree = SecureXml.child(op, Ns.NMDA, "subtree-filter");
        Element xpath = SecureXml.child(op, Ns.NMDA, "xpath-filter");
        if (subtree != null && xpath != null) {
            throw RpcError.invalidValue(null, "subtree-filter and xpath-filter are a choice: give one").info("bad-element", "xpath-filter");
        }
        Filter filter = subtree != null ? new Filter(subtree, null, null)
                : xpath != null ? new Filter(null, xpath, SecureXml.text(xpath).trim()) : Filter.NONE;
        if (filter.select() != null && filter.select().isEmpty()) {
            throw RpcError.invalidValue(null, "xpath-filter is empty").info("bad-element", "xpath-filter");
        }
        boolean config = configFilter == null || configFilter;
        boolean state = configFilter == null || !configFilter;
        DataNode root;
        if (ds.equals("operational")) {
            if (SecureXml.child(op, Ns.NMDA, "with-defaults") != null) {
                throw RpcError.invalidValue(null, "with-defaults does not apply to the operational datastore"
                        + " (:with-operational-defaults is not offered)").info("bad-element", "with-defaults");
            }
            root = DataNode.lazy(Ns.NMDA, "data", () -> operational(ctx, who, config, state, WithDefaults.REPORT_ALL).iterator());
        } else {
            Datastore.Name name = ds.equals("running") ? Datastore.Name.RUNNING : Datastore.Name.CANDIDATE;
            // Conventional datastores hold configuration only: config-filter false selects nothing.
            root = DataNode.lazy(Ns.NMDA, "data", () -> (config ? configuration(ctx, who, name, wd) : List.<DataNode>of()).iterator());
        }
        return reply(Ns.NMDA, wd.apply(who.access().readable(root)), filter, depth);
    }

    private static final java.util.Set<String> GET_DATA_PARAMETERS = java.util.Set.of("datastore", "subtree-filter",
            "xpath-filter", "config-filter", "max-depth", "with-defaults");

    /**
     * The datastore an NMDA operation names: an identity of ietf-datastores (RFC 8342), qualified by
     * a prefix declared for that module's namespace. Returns running, candidate or operational;
     * others are refused with invalid-value, as RFC 8526 asks.
     */
    static String datastore(Element e) throws RpcError {
        String v = SecureXml.text(e).trim();
        int colon = v.indexOf(':');
        String prefix = colon < 0 ? null : v.substring(0, colon);
        String name = v.substring(colon + 1);
        if (!Ns.DATASTORES.equals(e.lookupNamespaceURI(prefix))) {
            throw RpcError.invalidValue(null, "datastore '" + v + "' is not an identity of ietf-datastores ("
                    + Ns.DATASTORES + ")").info("bad-element", "datastore");
        }
        if (!Schemas.DATASTORES.contains(name)) {
            throw RpcError.invalidValue(null, "this server has no " + name + " datastore; it has running, candidate"
                    + " and operational").info("bad-element", "datastore");
        }
        return name;
    }

    private static int maxDepth(Element e) throws RpcError {
        if (e == null) return DataNode.UNBOUNDED;
        String v = SecureXml.text(e).trim();
        if (v.equals("unbounded")) return DataNode.UNBOUNDED;
        try {
            int d = Integer.parseInt(v);
            if (d >= 1 && d <= 65535) return d;
        } catch (NumberFormatException ignored) {
            // Refused below.
        }
        throw RpcError.invalidValue(null, "max-depth must be 1 to 65535 or unbounded, not '" + v + "'")
                .info("bad-element", "max-depth");
    }

    /** The {@code <filter>} of get and get-config (RFC 6241 section 6 and 8.9). */
    private static Filter filter(Element filter) throws RpcError {
        if (filter == null) return Filter.NONE;
        String type = filter.hasAttribute("type") ? filter.getAttribute("type") : filter.getAttributeNS(Ns.BASE, "type");
        if (type.isEmpty() || type.equals("subtree")) return new Filter(filter, null, null);
        if (type.equals("xpath")) {
            String select = filter.hasAttribute("select") ? filter.getAttribute("select") : filter.getAttributeNS(Ns.BASE, "select");
            if (select.isEmpty()) {
                throw new RpcError(Type.PROTOCOL, "missing-attribute", "an xpath filter needs a select attribute")
                        .info("bad-attribute", "select").info("bad-element", "filter");
            }
            return new Filter(null, filter, select);
        }
        throw new RpcError(Type.PROTOCOL, "bad-attribute", "filter type must be subtree or xpath, not '" + type + "'")
                .info("bad-attribute", "type").info("bad-element", "filter");
    }

    /** Writes {@code <data>} (in namespace {@code ns}) with the part of {@code root}'s children the filter selects. */
    private static Outcome.Body reply(String ns, DataNode root, Filter filter, int depth) {
        if (filter.subtree() != null) {
            return x -> {
                x.start(ns, "data");
                SubtreeFilter.apply(root, filter.subtree(), x, depth);
                x.end();
            };
        }
        if (filter.select() != null) {
            return x -> {
                XPathFilter.Selection selection;
                try {
                    selection = XPathFilter.evaluate(root, filter.xpathScope(), filter.select());
                } catch (XPathFilter.BadExpression e) {
                    RpcError err = new RpcError(Type.APPLICATION, "invalid-value", e.getMessage());
                    // get-data has the expression as a leaf of its own; get and get-config as an attribute.
                    boolean leaf = filter.xpathScope().getLocalName().equals("xpath-filter");
                    if (!leaf) err.info("bad-attribute", "select");
                    throw err.info("bad-element", filter.xpathScope().getLocalName());
                }
                x.start(ns, "data");
                selection.write(x, depth);
                x.end();
            };
        }
        return x -> {
            x.start(ns, "data");
            for (DataNode c : root.children()) c.write(x, depth);
            x.end();
        };
    }

    /** {@code <get-schema>} (RFC 6022): a module of the YANG library as YANG text. */
    static Outcome.Body getSchema(Element op) throws RpcError {
        Element ident = SecureXml.child(op, Ns.MONITORING, "identifier");
        if (ident == null) throw RpcError.missingElement(Type.PROTOCOL, null, "identifier", "get-schema needs <identifier>");
        String name = SecureXml.text(ident).trim();
        Element v = SecureXml.child(op, Ns.MONITORING, "version");
        String version = v == null ? "" : SecureXml.text(v).trim();
        Element f = SecureXml.child(op, Ns.MONITORING, "format");
        String format = f == null ? "yang" : SecureXml.text(f).trim();
        if (format.contains(":")) format = format.substring(format.indexOf(':') + 1);
        if (!format.equals("yang")) {
            throw RpcError.invalidValue(null, "schemas are served in format yang only").info("bad-element", "format");
        }
        for (Schemas.Module m : Schemas.MODULES) {
            if (m.name().equals(name) && (version.isEmpty() || version.equals(m.revision()))) {
                String text = Schemas.text(m);
                return x -> x.leaf(Ns.MONITORING, "data", text);
            }
        }
        throw RpcError.invalidValue(null, "no schema '" + name + "'" + (version.isEmpty() ? "" : " revision " + version))
                .info("bad-element", "identifier");
    }
    /**
     * {@code /netconf/streams} (RFC 5277 section 3.2.5.1): the one stream, NETCONF, with replay from
     * the service's replay log when it keeps one.
     */
    private static DataNode streams(VirtualRouters service) {
        DataNode.Inner stream = DataNode.inner(Ns.STREAMS, "stream", "name").add("name", "NETCONF")
                .add("description", "the VR notifications of NEW-VMM-MIB and the server's own of ietf-netconf-notifications");
        Optional<? extends ReplayLog> log = service.events().replayLog();
        stream.add("replaySupport", log.isPresent());
        log.ifPresent(l -> stream.add("replayLogCreationTime", l.created()));
        return DataNode.inner(Ns.STREAMS, "netconf").add(DataNode.inner(Ns.STREAMS, "streams").add(stream));
    }
}
