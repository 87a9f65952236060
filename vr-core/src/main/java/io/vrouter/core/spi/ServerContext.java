package io.vrouter.core.spi;

import io.vrouter.core.config.Credentials;
import io.vrouter.core.config.Settings;
import io.vrouter.core.metrics.VrMetrics;
import io.vrouter.core.service.VirtualRouterService;

/** What a management interface is given when it starts. */
public record ServerContext(VirtualRouterService service, Settings settings, Credentials credentials,
                            VrMetrics metrics) {
}
