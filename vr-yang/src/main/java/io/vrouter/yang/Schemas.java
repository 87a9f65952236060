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
 * hello advertises and get-schema (RFC 6022) serves. The texts are the published ones, kept as
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

    public static final List<Module> MODULES = List.of(
            implemented(Ns.VMM_MODULE, Ns.VMM_REVISION, Ns.VMM),
            implemented("ietf-netconf", "2011-06-01", Ns.BASE,
                    "writable-running", "candidate", "rollback-on-error", "validate", "xpath"),
            implemented("ietf-netconf-monitoring", "2010-10-04", Ns.MONITORING),
            implemented("ietf-netconf-with-defaults", "2011-06-01", Ns.WITH_DEFAULTS),
            implemented("ietf-netconf-notifications", "2012-02-06", Ns.NETCONF_NOTIFICATIONS),
            implemented("notifications", "2008-07-14", Ns.NOTIFICATION),
            implemented("nc-notifications", "2008-07-14", Ns.STREAMS),
            implemented("ietf-netconf-nmda", "2019-01-07", Ns.NMDA, "with-defaults"),
            implemented("ietf-yang-library", "2019-01-04", Ns.YANG_LIBRARY),
            implemented("ietf-datastores", "2018-02-14", Ns.DATASTORES),
            imported("ietf-yang-smiv2", "2012-06-22", "urn:ietf:params:xml:ns:yang:ietf-yang-smiv2"),
            imported("ietf-yang-types", "2013-07-15", "urn:ietf:params:xml:ns:yang:ietf-yang-types"),
            imported("ietf-inet-types", "2013-07-15", "urn:ietf:params:xml:ns:yang:ietf-inet-types"),
            imported("ietf-netconf-acm", "2018-02-14", "urn:ietf:params:xml:ns:yang:ietf-netconf-acm"),
            imported("ietf-origin", "2018-02-14", "urn:ietf:params:xml:ns:yang:ietf-origin"));

    /**
     * Identifies this set of modules (RFC 8525 content-id): a digest of every module's name, revision,
     * conformance and features, so that it changes whenever the set does.
     */
    public static final String CONTENT_ID = contentId();

    private Schemas() {
    }

    private static String contentId() {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            for (Module m : MODULES) d.update((m.capability() + "|" + m.implemented() + "\n").getBytes(StandardCharsets.UTF_8));
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
        String y = Ns.YANG_LIBRARY;
        DataNode.Inner lib = DataNode.inner(y, "yang-library");
        DataNode.Inner set = DataNode.inner(y, "module-set", "name").add("name", "complete");
        for (Module m : MODULES) {
            if (!m.implemented()) continue;
            DataNode.Inner mod = DataNode.inner(y, "module", "name")
                    .add("name", m.name()).add("revision", m.revision()).add("namespace", m.namespace());
            for (String f : m.features()) mod.add("feature", f);
            set.add(mod);
        }
        for (Module m : MODULES) {
            if (m.implemented()) continue;
            set.add(DataNode.inner(y, "import-only-module", "name", "revision")
                    .add("name", m.name()).add("revision", m.revision()).add("namespace", m.namespace()));
        }
        lib.add(set);
        lib.add(DataNode.inner(y, "schema", "name").add("name", "complete").add("module-set", "complete"));
        for (String ds : DATASTORES) {
            lib.add(DataNode.inner(y, "datastore", "name")
                    .add(DataNode.identity(y, "name", "ds", Ns.DATASTORES, ds)).add("schema", "complete"));
        }
        lib.add("content-id", CONTENT_ID);
        return lib;
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
