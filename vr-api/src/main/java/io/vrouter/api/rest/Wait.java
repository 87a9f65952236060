package io.vrouter.api.rest;

import io.vrouter.core.service.ValidationException;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How long a write may wait for its hypervisor work: {@code ?wait=30s} (also {@code 500ms},
 * {@code 2m}, or bare seconds) or the RFC 7240 preference {@code Prefer: wait=30}. Zero by default:
 * the request is answered as soon as it is accepted.
 */
final class Wait {
    static final Duration MAX = Duration.ofMinutes(5);
    private static final Pattern QUERY = Pattern.compile("(\\d{1,9})(ms|s|m)?");
    private static final Pattern PREFER = Pattern.compile("(?:^|[,;\\s])wait\\s*=\\s*(\\d{1,9})");

    private Wait() {
    }

    /** The wait asked for, or zero. The query parameter wins over the header. */
    static Duration parse(String query, String prefer) {
        if (query != null && !query.isBlank()) {
            Matcher m = QUERY.matcher(query.trim().toLowerCase(Locale.ROOT));
            if (!m.matches()) {
                throw new ValidationException("wait", "must be a duration like 30s, 500ms or 2m, not '" + query + "'");
            }
            long n = Long.parseLong(m.group(1));
            String unit = m.group(2) == null ? "s" : m.group(2);
            Duration d = unit.equals("ms") ? Duration.ofMillis(n) : unit.equals("m") ? Duration.ofMinutes(n) : Duration.ofSeconds(n);
            return min(d);
        }
        if (prefer != null) {
            Matcher m = PREFER.matcher(prefer.toLowerCase(Locale.ROOT));
            if (m.find()) return min(Duration.ofSeconds(Long.parseLong(m.group(1))));
        }
        return Duration.ZERO;
    }

    static boolean preferred(String query, String prefer) {
        return (query == null || query.isBlank()) && prefer != null && PREFER.matcher(prefer.toLowerCase(Locale.ROOT)).find();
    }

    private static Duration min(Duration d) {
        return d.compareTo(MAX) > 0 ? MAX : d;
    }
}
