package io.vrouter.api.rest;

import io.vrouter.core.config.Settings;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * Defence against DNS rebinding: every request must be addressed (its {@code Host}) to a name the
 * server answers to, else 421 Misdirected Request.
 *
 * <p>A page of evil.example can make its own name resolve to 127.0.0.1; the browser then takes
 * vrouter for evil.example, and the page may read and write it as its own origin, with the
 * development credentials it knows (the CSRF rule cannot tell, since Origin and Host agree). What
 * gives it away is the Host header, which names the attacker's domain. So the names are a list:
 * {@code localhost} (and its subdomains, which browsers resolve to loopback themselves), the
 * {@code bind} setting when it is a name, and what {@code rest.host-names} adds (a comma list;
 * {@code *} turns the check off, for a reverse proxy that checks Host itself). An address
 * ({@code 127.0.0.1}, {@code [::1]}, the host's own) is always accepted: no DNS was asked, so
 * nothing can have been rebound. Runs first, on every request: reads leak data as writes change it.
 */
@PreMatching
@Priority(Priorities.AUTHENTICATION - 200)
final class HostFilter implements ContainerRequestFilter {
    static final String SETTING = "rest.host-names";
    private static final Pattern IPV4 = Pattern.compile("[0-9]{1,3}(\\.[0-9]{1,3}){3}");
    private static final Pattern IPV6 = Pattern.compile("\\[[0-9a-f:.]+(%[0-9a-z._~-]+)?]");
    /** The port after a host name or address (compiled once: the filter runs on every request). */
    private static final Pattern PORT = Pattern.compile(":[0-9]*$");
    private static final ProblemException.Status MISDIRECTED = new ProblemException.Status(421, "Misdirected Request");

    /** The names answered to, lower case; null: any. */
    private final Set<String> names;
    /**
     * Host fields accepted already, as sent: a client sends the same one on every request, and the
     * answer depends on nothing else (the names are fixed at start), so the regular expressions run
     * once per field. A few are kept; any more are checked each time.
     */
    private final Map<String, Boolean> accepted = new ConcurrentHashMap<>();
    private static final int ACCEPTED_KEPT = 64;

    HostFilter(Settings settings) {
        Set<String> n = new TreeSet<>();
        n.add("localhost");
        String bind = name(settings.get("bind", "127.0.0.1"));
        if (!bind.contains(":") && !isAddress(bind)) n.add(bind);
        for (String extra : settings.getList(SETTING)) n.add(name(extra));
        this.names = n.contains("*") ? null : Set.copyOf(n);
    }

    @Override
    public void filter(ContainerRequestContext request) {
        String host = request.getHeaderString("Host");
        // HTTP/1.0 without Host: not a browser's request, which always names its host.
        if (names == null || host == null || accepted.containsKey(host)) return;
        String name = name(PORT.matcher(host).replaceFirst(""));
        if (isAddress(name) || names.contains(name) || name.endsWith(".localhost")) {
            if (accepted.size() < ACCEPTED_KEPT) accepted.put(host, Boolean.TRUE);
            return;
        }
        throw new ProblemException(MISDIRECTED, "this server does not answer to the name '"
                + (name.length() > 64 ? name.substring(0, 64) + "..." : name) + "' (the names it answers to are"
                + " set by " + SETTING + ")", "Host", null);
    }

    /** A host name as compared: lower case, without the root's dot. */
    private static String name(String host) {
        String n = host.trim().toLowerCase(Locale.ROOT);
        return n.endsWith(".") ? n.substring(0, n.length() - 1) : n;
    }

    private static boolean isAddress(String host) {
        return IPV4.matcher(host).matches() || IPV6.matcher(host).matches();
    }
}
