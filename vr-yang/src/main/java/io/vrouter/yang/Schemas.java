package io.vrouter.yang;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * The YANG modules this server implements or imports: what the YANG library (RFC 8525) lists, the
 * NETCONF hello advertises, get-schema (RFC 6022) serves and RESTCONF gives at the library's schema
 * locations. NETCONF and RESTCONF each have their set; NEW-VMM-MIB is in both. The texts are the published ones, kept as
 * resources with their license headers.
 */
public final class Schemas {
    /** One module: its name, revision, namespace, whether the server implements it, and its features. */
    public record Module(String name, String revision, String namespace, boolean implemented, List<String> features) {
        String resource() {
            return "/io/vrouter/yang/" + name + "@" + revision + ".yang";
        }

        /** The module capability of the hello (RFC 6020 section 5.6.4). */
        public String capability() {
            return namespace + "?module=" + name + "&revision=" + revision
                    + (features.isEmpty() ? "" : "&features=" + String.join(",", features));
        }
    }

    private static Module implemented(String name, String revision, String namespace, String... features) {
        return new Module(name, revision, namespace, true, List.of(features));
    }

    private static Module imported(String name, String revision, String namespace) {
        return new Module(name, revision, namespace, false, List.of());
    }

    /** NETCONF's modules. */
    public static final List<Module> MODULES = List.of(
            implemented(Ns.VMM_MODULE, Ns.VMM_REVISION, Ns.VMM),
            implemented(Ns.HISTORY_MODULE, Ns.HISTORY_REVISION, Ns.HISTORY),
            implemented(Ns.MIGRATION_MODULE, Ns.MIGRATION_REVISION, Ns.MIGRATION),
            implemented("ietf-netconf", "2011-06-01", Ns.BASE,
                    "writable-running", "candidate", "confirmed-commit", "rollback-on-error", "validate", "xpath"),
            implemented("ietf-netconf-monitoring", "2010-10-04", Ns.MONITORING),
            implemented("ietf-netconf-with-defaults", "2011-06-01", Ns.WITH_DEFAULTS),
            implemented("ietf-netconf-notifications", "2012-02-06", Ns.NETCONF_NOTIFICATIONS),
            implemented("notifications", "2008-07-14", Ns.NOTIFICATION),
            implemented("nc-notifications", "2008-07-14", Ns.STREAMS),
            implemented("ietf-netconf-nmda", "2019-01-07", Ns.NMDA, "with-defaults"),
            implemented("ietf-yang-library", "2019-01-04", Ns.YANG_LIBRARY),
            implemented("ietf-datastores", "2018-02-14", Ns.DATASTORES),
            // RFC 8341: /nacm is served and enforced over NETCONF (vr-netconf-adapter's nacm package).
            implemented("ietf-netconf-acm", "2018-02-14", "urn:ietf:params:xml:ns:yang:ietf-netconf-acm"),
            imported("ietf-yang-smiv2", "2012-06-22", "urn:ietf:params:xml:ns:yang:ietf-yang-smiv2"),
            imported("ietf-yang-types", "2013-07-15", "urn:ietf:params:xml:ns:yang:ietf-yang-types"),
            imported("ietf-inet-types", "2013-07-15", "urn:ietf:params:xml:ns:yang:ietf-inet-types"),
            imported("ietf-origin", "2018-02-14", "urn:ietf:params:xml:ns:yang:ietf-origin"));

    /**
     * RESTCONF's modules (RFC 8040 section 8 lists what a server implements), and every module they
     * import, so that a client can load the whole set from the server alone (ietf-netconf-with-defaults
     * imports ietf-netconf, which imports ietf-netconf-acm).
     */
    public static final List<Module> RESTCONF_MODULES = List.of(
            implemented(Ns.VMM_MODULE, Ns.VMM_REVISION, Ns.VMM),
            implemented(Ns.HISTORY_MODULE, Ns.HISTORY_REVISION, Ns.HISTORY),
            implemented(Ns.MIGRATION_MODULE, Ns.MIGRATION_REVISION, Ns.MIGRATION),
            implemented("ietf-restconf", "2017-01-26", Ns.RESTCONF),
            implemented("ietf-restconf-monitoring", "2017-01-26", Ns.RESTCONF_MONITORING),
            implemented("ietf-yang-patch", "2017-02-22", Ns.YANG_PATCH),
            implemented("ietf-yang-library", "2019-01-04", Ns.YANG_LIBRARY),
            implemented("ietf-datastores", "2018-02-14", Ns.DATASTORES),
            imported("ietf-netconf-with-defaults", "2011-06-01", Ns.WITH_DEFAULTS),
            imported("ietf-netconf", "2011-06-01", Ns.BASE),
            implemented("ietf-netconf-acm", "2018-02-14", "urn:ietf:params:xml:ns:yang:ietf-netconf-acm"),
            imported("ietf-yang-smiv2", "2012-06-22", "urn:ietf:params:xml:ns:yang:ietf-yang-smiv2"),
            imported("ietf-yang-types", "2013-07-15", "urn:ietf:params:xml:ns:yang:ietf-yang-types"),
            imported("ietf-inet-types", "2013-07-15", "urn:ietf:params:xml:ns:yang:ietf-inet-types"));

    /** Every module of either set, once. */
    public static final List<Module> ALL = all();

    private static List<Module> all() {
        java.util.Map<String, Module> byName = new java.util.LinkedHashMap<>();
        for (Module m : MODULES) byName.putIfAbsent(m.name(), m);
        for (Module m : RESTCONF_MODULES) byName.putIfAbsent(m.name(), m);
        return List.copyOf(byName.values());
    }

    /** The module of either set with this name and revision, or null. */
    public static Module find(String name, String revision) {
        for (Module m : ALL) {
            if (m.name().equals(name) && m.revision().equals(revision)) return m;
        }
        return null;
    }

    /**
     * Identifies this set of modules (RFC 8525 content-id): a digest of every module's name, revision,
     * conformance and features, so that it changes whenever the set does.
     */
    public static final String CONTENT_ID = contentId(MODULES);

    /** RESTCONF's content-id. */
    public static final String RESTCONF_CONTENT_ID = contentId(RESTCONF_MODULES);

    private Schemas() {
    }

    private static String contentId(List<Module> modules) {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            for (Module m : modules) d.update((m.capability() + "|" + m.implemented() + "\n").getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d.digest(), 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The capability of the YANG library (RFC 8526 section 2) for the hello. */
    public static final String YANG_LIBRARY_CAPABILITY = "urn:ietf:params:netconf:capability:yang-library:1.1?revision=2019-01-04&content-id="
            + CONTENT_ID;

    /** The datastores this server implements, all with the one schema (RFC 8342 identities of ietf-datastores). */
    public static final List<String> DATASTORES = List.of("running", "candidate", "operational");

    /**
     * {@code /yang-library} (RFC 8525): one module set with every module, one schema of it, and the
     * datastores that use it.
     */
    public static DataNode library() {
        return library(MODULES, CONTENT_ID, DATASTORES, m -> null);
    }

    /**
     * {@code /yang-library} of a set of modules: one module set, one schema, the datastores that use
     * it; {@code location} gives each module's schema location (null: none, the module is served by
     * get-schema).
     */
    public static DataNode library(List<Module> modules, String contentId, List<String> datastores,
                                   java.util.function.Function<Module, String> location) {
        String y = Ns.YANG_LIBRARY;
        DataNode.Inner lib = DataNode.inner(y, "yang-library");
        DataNode.Inner set = DataNode.inner(y, "module-set", "name").add("name", "complete");
        for (Module m : modules) {
            if (!m.implemented()) continue;
            DataNode.Inner mod = DataNode.inner(y, "module", "name")
                    .add("name", m.name()).add("revision", m.revision()).add("namespace", m.namespace());
            if (location.apply(m) != null) mod.addLeafList("location", location.apply(m));
            for (String f : m.features()) mod.addLeafList("feature", f);
            set.add(mod);
        }
        for (Module m : modules) {
            if (m.implemented()) continue;
            DataNode.Inner mod = DataNode.inner(y, "import-only-module", "name", "revision")
                    .add("name", m.name()).add("revision", m.revision()).add("namespace", m.namespace());
            if (location.apply(m) != null) mod.addLeafList("location", location.apply(m));
            set.add(mod);
        }
        lib.add(set);
        lib.add(DataNode.inner(y, "schema", "name").add("name", "complete").addLeafList("module-set", "complete"));
        for (String ds : datastores) {
            lib.add(DataNode.inner(y, "datastore", "name")
                    .add(DataNode.identity(y, "name", "ds", Ns.DATASTORES, ds)).add("schema", "complete"));
        }
        lib.add("content-id", contentId);
        return lib;
    }

    /**
     * {@code /modules-state} (RFC 7895, deprecated by RFC 8525 but still in ietf-yang-library@2019-01-04,
     * where its module-set-id is mandatory): the same modules, for clients of the older library, and
     * so that a validator given the library module finds a complete state tree.
     */
    public static DataNode modulesState(List<Module> modules, String contentId,
                                        java.util.function.Function<Module, String> location) {
        String y = Ns.YANG_LIBRARY;
        DataNode.Inner state = DataNode.inner(y, "modules-state").add("module-set-id", contentId);
        for (Module m : modules) {
            DataNode.Inner mod = DataNode.inner(y, "module", "name", "revision").add("name", m.name()).add("revision", m.revision());
            if (location.apply(m) != null) mod.add("schema", location.apply(m));
            mod.add("namespace", m.namespace());
            for (String f : m.features()) mod.addLeafList("feature", f);
            mod.add("conformance-type", m.implemented() ? "implement" : "import");
            state.add(mod);
        }
        return state;
    }

    /** The module's YANG text. */
    public static String text(Module m) {
        try (InputStream in = Schemas.class.getResourceAsStream(m.resource())) {
            if (in == null) throw new IllegalStateException("missing resource " + m.resource());
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
