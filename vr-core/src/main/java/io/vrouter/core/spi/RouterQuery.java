package io.vrouter.core.spi;

import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.OperState;
import java.util.Arrays;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Which VRs to list: a name pattern ({@code *} matches any run of characters), an oper state, an
 * admin state, and a page of the matches in vmIndex order. Null fields do not filter.
 */
public record RouterQuery(String namePattern, OperState operState, AdminState adminState, int offset, int limit) {
    public static final int MAX_LIMIT = 100_000;

    public static RouterQuery all() {
        return new RouterQuery(null, null, null, 0, MAX_LIMIT);
    }

    public RouterQuery {
        if (offset < 0) throw new ValidationException("offset", "must not be negative");
        if (limit < 0 || limit > MAX_LIMIT) throw new ValidationException("limit", "must be between 0 and " + MAX_LIMIT);
    }

    /** The name pattern as a regular expression: every {@code *} matches any run of characters. */
    public Pattern nameRegex() {
        if (namePattern == null) return null;
        return Pattern.compile(Arrays.stream(namePattern.split("\\*", -1)).map(Pattern::quote)
                .collect(Collectors.joining(".*")));
    }
}
