package io.vrouter.core.spi;

import java.time.Instant;

/**
 * The log the VRs' events are replayed from, as an interface announces it (NETCONF's
 * replayLogCreationTime, RESTCONF's replay-log-creation-time). The core's is the persistence's
 * {@code EventLog}; the port names only this, so the port does not depend on how events are kept.
 */
public interface ReplayLog {

    /** When the log was first created: no event before it can be replayed. */
    Instant created();
}
