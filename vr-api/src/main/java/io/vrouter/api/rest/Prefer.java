package io.vrouter.api.rest;

import io.vrouter.core.spi.ValidationException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a client prefers of a write (RFC 7240):
 * <ul>
 * <li>how long to wait for its hypervisor work: {@code ?wait=30s} (also {@code 500ms}, {@code 2m},
 * or bare seconds) or {@code Prefer: wait=30}; zero by default, the request is answered as soon as it
 * is accepted. The query parameter wins over the header.</li>
 * <li>{@code Prefer: return=minimal}: the answer names the VRs (vmIndex and vmName) instead of
 * representing them whole, which matters for batches.</li>
 * </ul>
 */
record Prefer(Duration waitFor, boolean waitFromHeader, boolean minimal) {
    static final Duration MAX_WAIT = Duration.ofMinutes(5);
    /** What ?wait= takes: a number of seconds, or with ms, s or m (the OpenAPI document declares it). */
    static final String WAIT_PATTERN = "^([0-9]{1,9})(ms|s|m)?$";
    private static final Pattern QUERY = Pattern.compile(WAIT_PATTERN);
    private static final Pattern WAIT = Pattern.compile("(?:^|[,;\\s])wait\\s*=\\s*(\\d{1,9})");
    private static final Pattern MINIMAL = Pattern.compile("(?:^|[,;\\s])return\\s*=\\s*minimal\\b");

    static Prefer of(String waitQuery, String preferHeader) {
        String header = preferHeader == null ? "" : preferHeader.toLowerCase(Locale.ROOT);
        boolean minimal = MINIMAL.matcher(header).find();
        if (waitQuery != null) {
            Matcher m = QUERY.matcher(waitQuery.trim().toLowerCase(Locale.ROOT));
            if (!m.matches()) {
                throw new ValidationException("wait", "must be a duration like 30s, 500ms or 2m, not '" + waitQuery + "'");
            }
            long n = Long.parseLong(m.group(1));
            String unit = m.group(2) == null ? "s" : m.group(2);
            Duration d = unit.equals("ms") ? Duration.ofMillis(n) : unit.equals("m") ? Duration.ofMinutes(n) : Duration.ofSeconds(n);
            return new Prefer(capped(d), false, minimal);
        }
        Matcher m = WAIT.matcher(header);
        if (m.find()) return new Prefer(capped(Duration.ofSeconds(Long.parseLong(m.group(1)))), true, minimal);
        return new Prefer(Duration.ZERO, false, minimal);
    }

    /** The Preference-Applied header's value, or null when no preference of the header was applied. */
    String applied() {
        List<String> applied = new ArrayList<>(2);
        if (waitFromHeader) applied.add("wait");
        if (minimal) applied.add("return=minimal");
        return applied.isEmpty() ? null : String.join(", ", applied);
    }

    private static Duration capped(Duration d) {
        return d.compareTo(MAX_WAIT) > 0 ? MAX_WAIT : d;
    }
}
