package io.vrouter.netconf.protocol;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The server-wide counters of ietf-netconf-monitoring's {@code /netconf-state/statistics}
 * (RFC 6022 section 4): since the server started, over every session.
 */
final class Statistics {
    final Instant startTime = Instant.now();
    /** Sessions whose hello was not acceptable. */
    final AtomicLong inBadHellos = new AtomicLong();
    /** Sessions that got through the hello. */
    final AtomicLong inSessions = new AtomicLong();
    /** Sessions that ended without close-session or kill-session. */
    final AtomicLong droppedSessions = new AtomicLong();
    final AtomicLong inRpcs = new AtomicLong();
    final AtomicLong inBadRpcs = new AtomicLong();
    final AtomicLong outRpcErrors = new AtomicLong();
    final AtomicLong outNotifications = new AtomicLong();
}
