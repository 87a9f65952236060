package io.vrouter.core.spi;

import io.vrouter.core.config.Credentials;
import io.vrouter.core.config.Settings;
import io.vrouter.core.metrics.VrMetrics;

/** What a management interface is given when it starts. */
public record ServerContext(VirtualRouters service, Settings settings, Credentials credentials,
                            VrMetrics metrics) {
}
