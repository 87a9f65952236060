package io.vrouter.api.rest;

import io.vrouter.core.config.Settings;

/**
 * The largest request body REST takes ({@code rest.max-body-bytes}), shared by the web server's
 * admission filter and Jersey's body filter, so that a reload (SIGHUP) changes both at once.
 */
final class BodyLimit {
    private volatile long bytes;

    BodyLimit(long bytes) {
        this.bytes = bytes;
    }

    /** Reads and checks {@code rest.max-body-bytes}; throws, naming it, when it is wrong. */
    static long from(Settings settings) {
        int bytes = settings.getInt("rest.max-body-bytes", (int) RestApplication.DEFAULT_MAX_BODY);
        if (bytes < 1) throw new IllegalArgumentException("setting 'rest.max-body-bytes' must be at least 1");
        return bytes;
    }

    long bytes() {
        return bytes;
    }

    /** From the next request on. */
    void take(long next) {
        bytes = next;
    }
}
