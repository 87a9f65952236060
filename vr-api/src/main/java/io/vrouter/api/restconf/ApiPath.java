package io.vrouter.api.restconf;

import io.vrouter.yang.Schemas;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The path of a data resource as RFC 8040 section 3.5.3 writes it, below {@code /restconf/data}:
 * {@code NEW-VMM-MIB:NEW-VMM-MIB/vmConfigTable/vmConfigEntry=5/vmName}. The first node names its
 * module, later ones only where the module changes; a list entry gives its key values after
 * {@code =}, comma-separated and percent-encoded.
 */
record ApiPath(List<Step> steps) {
    /** One node: its module's namespace, its name, and its key values (null when it names no entry). */
    record Step(String ns, String name, List<String> keys) {
    }

    static final ApiPath ROOT = new ApiPath(List.of());

    /** Parses a path still percent-encoded (so that an encoded {@code ,} or {@code /} in a key stays a value). */
    static ApiPath parse(String encoded) {
        if (encoded == null || encoded.isEmpty() || encoded.equals("/")) return ROOT;
        String path = encoded.startsWith("/") ? encoded.substring(1) : encoded;
        if (path.endsWith("/")) path = path.substring(0, path.length() - 1);
        List<Step> steps = new ArrayList<>();
        String ns = null;
        for (String segment : path.split("/", -1)) {
            int eq = segment.indexOf('=');
            String id = decode(eq < 0 ? segment : segment.substring(0, eq));
            List<String> keys = null;
            if (eq >= 0) {
                keys = new ArrayList<>();
                for (String k : segment.substring(eq + 1).split(",", -1)) keys.add(decode(k));
            }
            int colon = id.indexOf(':');
            if (colon >= 0) {
                ns = namespace(id.substring(0, colon));
                id = id.substring(colon + 1);
            } else if (ns == null) {
                throw RestconfError.invalidValue("the path's first node must name its module: 'NEW-VMM-MIB:NEW-VMM-MIB'");
            }
            if (id.isEmpty()) throw RestconfError.invalidValue("the path has an empty node name");
            steps.add(new Step(ns, id, keys));
        }
        return new ApiPath(List.copyOf(steps));
    }

    /** The namespace of a module this server has. */
    static String namespace(String module) {
        for (Schemas.Module m : Schemas.RESTCONF_MODULES) {
            if (m.name().equals(module)) return m.namespace();
        }
        throw new RestconfError(400, "application", "unknown-namespace", null, null, "no module named '" + module + "'");
    }

    boolean isRoot() {
        return steps.isEmpty();
    }

    ApiPath plus(ApiPath relative) {
        List<Step> s = new ArrayList<>(steps);
        s.addAll(relative.steps);
        return new ApiPath(List.copyOf(s));
    }

    /** RFC 3986 percent-decoding (a {@code +} stays a plus). */
    static String decode(String s) {
        if (s.indexOf('%') < 0) return s;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '%' && i + 2 < s.length()) {
                int hi = Character.digit(s.charAt(i + 1), 16);
                int lo = Character.digit(s.charAt(i + 2), 16);
                if (hi < 0 || lo < 0) throw RestconfError.invalidValue("bad percent-encoding in the path: '" + s + "'");
                out.write(hi * 16 + lo);
                i += 2;
            } else if (c == '%') {
                throw RestconfError.invalidValue("bad percent-encoding in the path: '" + s + "'");
            } else {
                out.writeBytes(String.valueOf(c).getBytes(StandardCharsets.UTF_8));
            }
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    /** The path encoded again, for a Location header. */
    static String encode(String value) {
        StringBuilder sb = new StringBuilder();
        for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || "-._~:@".indexOf(c) >= 0) {
                sb.append(c);
            } else {
                sb.append('%').append(String.format("%02X", b & 0xff));
            }
        }
        return sb.toString();
    }
}
