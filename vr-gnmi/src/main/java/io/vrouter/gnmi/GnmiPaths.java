package io.vrouter.gnmi;

import com.github.gnmi.proto.Path;
import com.github.gnmi.proto.PathElem;
import io.grpc.Status;
import io.vrouter.yang.Ns;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * gNMI paths (specification 2.2, path conventions): checked before anything is read, joined to their
 * prefix, and written as text for messages. Only the structured {@code elem} form is taken; the
 * {@code element} strings deprecated since gNMI 0.4 are still read ({@code vmEntry[vmIndex=1]}), as
 * gnmi_cli's queries send them; where both are set, {@code elem} counts.
 */
final class GnmiPaths {
    /** Any number of levels, itself included (specification 2.2.2.1). */
    static final String ANY_DEPTH = "...";
    /** Any one element, or any value of a key. */
    static final String ANY = "*";
    /** The origin of the module's own tree. */
    static final String ORIGIN = Ns.VMM_MODULE;
    /** The origins served; a path without one reaches both trees (their first elements differ). */
    static final List<String> ORIGINS = List.of(ORIGIN, OpenConfigInterfaces.ORIGIN);
    private static final List<String> QUALIFIERS = List.of(Ns.VMM_MODULE + ":", OpenConfigInterfaces.MODULE + ":");

    private GnmiPaths() {
    }

    /** A request's path under its prefix, checked: the elements to match, from the root. */
    static List<PathElem> join(Path prefix, Path path) {
        origin(prefix, path);
        List<PathElem> all = new ArrayList<>(check(prefix).getElemList());
        all.addAll(check(path).getElemList());
        return all;
    }

    /** The origin of a path under a prefix: one of them names it, or neither (""); only {@link #ORIGINS} are served. */
    static String origin(Path prefix, Path path) {
        String p = prefix.getOrigin();
        String o = path.getOrigin();
        if (!p.isEmpty() && !o.isEmpty()) {
            throw invalid("an origin in both the prefix and the path (" + p + ", " + o + ")");
        }
        String origin = p.isEmpty() ? o : p;
        // pygnmi makes an RFC 7951 path's module its origin (openconfig-interfaces:interfaces/...).
        if (origin.equals(OpenConfigInterfaces.MODULE)) return OpenConfigInterfaces.ORIGIN;
        if (!origin.isEmpty() && !ORIGINS.contains(origin)) {
            throw invalid("unknown origin '" + origin + "': this target serves origins " + String.join(" and ", ORIGINS));
        }
        return origin;
    }

    private static Path check(Path p) {
        if (p.getElemCount() == 0 && p.getElementCount() > 0) {
            Path.Builder b = p.toBuilder().clearElement();
            for (String element : p.getElementList()) b.addElem(parse(element));
            p = b.build();
        }
        for (int i = 0; i < p.getElemCount(); i++) {
            PathElem e = p.getElem(i);
            String name = e.getName();
            if (name.isEmpty() || name.chars().anyMatch(c -> c == '/' || c == '[' || c == ']' || Character.isWhitespace(c))) {
                throw invalid("malformed path element '" + name + "' in " + text(p.getElemList()));
            }
            if (name.equals(ANY_DEPTH) && e.getKeyCount() > 0) {
                throw invalid("'...' takes no keys, in " + text(p.getElemList()));
            }
            for (Map.Entry<String, String> k : e.getKeyMap().entrySet()) {
                if (k.getKey().isEmpty() || k.getValue().isEmpty()) {
                    throw invalid("a key without a name or value in " + text(p.getElemList()));
                }
            }
        }
        return p;
    }

    /** One deprecated {@code element} string, {@code name[key=value]...}, a backslash escaping {@code ]} or {@code \\}. */
    static PathElem parse(String element) {
        int open = element.indexOf('[');
        PathElem.Builder e = PathElem.newBuilder().setName(open < 0 ? element : element.substring(0, open));
        int i = open;
        while (i >= 0 && i < element.length()) {
            int eq = element.indexOf('=', i);
            if (element.charAt(i) != '[' || eq < 0) throw invalid("malformed path element '" + element + "'");
            StringBuilder value = new StringBuilder();
            int j = eq + 1;
            for (; j < element.length() && element.charAt(j) != ']'; j++) {
                if (element.charAt(j) == '\\' && j + 1 < element.length()) j++;
                value.append(element.charAt(j));
            }
            if (j == element.length()) throw invalid("malformed path element '" + element + "'");
            e.putKey(element.substring(i + 1, eq), value.toString());
            i = j + 1;
        }
        return e.build();
    }

    /**
     * An element's name as the tree names it: {@code NEW-VMM-MIB:NEW-VMM-MIB} (RFC 7951's form) is
     * {@code NEW-VMM-MIB}, {@code openconfig-interfaces:interfaces} {@code interfaces}.
     */
    static String name(PathElem e) {
        String n = e.getName();
        for (String q : QUALIFIERS) if (n.startsWith(q)) return n.substring(q.length());
        return n;
    }

    /**
     * The prefix of the notification a leaf's update goes in: the path of its container or list entry,
     * with the entry's keys, so that the leaves of one entry share one notification (Get and Subscribe).
     */
    static List<PathElem> parent(List<PathElem> leaf) {
        return leaf.subList(0, leaf.size() - 1);
    }

    /** A leaf's path under {@link #parent}: its name. */
    static Path relative(List<PathElem> leaf) {
        return Path.newBuilder().addElem(leaf.get(leaf.size() - 1)).build();
    }

    /** The path as gNMI's text form writes it: {@code /a/b[k=v]}. */
    static String text(List<PathElem> elems) {
        if (elems.isEmpty()) return "/";
        StringBuilder b = new StringBuilder();
        for (PathElem e : elems) {
            b.append('/').append(e.getName());
            e.getKeyMap().entrySet().stream().sorted(Map.Entry.comparingByKey())
                    .forEach(k -> b.append('[').append(k.getKey()).append('=').append(k.getValue()).append(']'));
        }
        return b.toString();
    }

    static io.grpc.StatusRuntimeException invalid(String message) {
        return Status.INVALID_ARGUMENT.withDescription(message).asRuntimeException();
    }
}
