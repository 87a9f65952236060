package io.vrouter.api.rest;

import io.vrouter.core.config.Settings;
import java.time.Duration;

/**
 * What the REST server on the JDK's HTTP server allows at once, from the settings: open
 * connections, connections being read or served per client address, API requests handled, event
 * streams (in all and per client address), and how long a request's head and body may take to
 * arrive.
 */
record RestLimits(int connections, int connectionsPerClient, int workers, int eventStreams,
                  int eventStreamsPerClient, Duration requestTimeout) {

    static RestLimits from(Settings s) {
        RestLimits limits = new RestLimits(
                s.getInt("rest.max-connections", 256),
                s.getInt("rest.max-connections-per-client", 32),
                s.getInt("rest.worker-threads", 64),
                s.getInt("rest.max-event-streams", 32),
                s.getInt("rest.max-event-streams-per-client", 4),
                s.getDuration("rest.request-timeout", "10s"));
        if (limits.connections < 1 || limits.connectionsPerClient < 1 || limits.workers < 1 || limits.eventStreams < 0
                || limits.eventStreamsPerClient < 0 || limits.requestTimeout.toSeconds() < 1) {
            throw new IllegalArgumentException("the rest.* limits must be positive, and rest.request-timeout a second "
                    + "or more");
        }
        return limits;
    }

    /** Threads: every accepted connection can be read, whatever the API and the streams hold. */
    int threads() {
        return connections;
    }
}
