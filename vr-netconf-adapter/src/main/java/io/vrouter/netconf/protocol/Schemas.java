package io.vrouter.netconf.protocol;

import io.vrouter.netconf.Ns;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** The YANG modules this server implements or imports, served by get-schema (RFC 6022). */
public final class Schemas {
    /** One module: its name, revision, namespace and whether the server implements it. */
    public record Module(String name, String revision, String namespace, boolean implemented) {
        String resource() {
            return "/io/vrouter/netconf/yang/" + name + "@" + revision + ".yang";
        }

        /** The module capability of the hello (RFC 6020 section 5.6.4). */
        public String capability() {
            return namespace + "?module=" + name + "&revision=" + revision;
        }
    }

    public static final List<Module> MODULES = List.of(
            new Module(Ns.VMM_MODULE, Ns.VMM_REVISION, Ns.VMM, true),
            new Module("ietf-netconf-monitoring", "2010-10-04", Ns.MONITORING, true),
            new Module("ietf-yang-smiv2", "2012-06-22", "urn:ietf:params:xml:ns:yang:ietf-yang-smiv2", false),
            new Module("ietf-yang-types", "2013-07-15", "urn:ietf:params:xml:ns:yang:ietf-yang-types", false));

    private Schemas() {
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
