package io.vrouter.core.spi;

import io.vrouter.core.config.Credentials;
import io.vrouter.core.config.Settings;
import io.vrouter.core.metrics.VrMetrics;
import java.util.List;
import java.util.Optional;

/**
 * What a management interface is given when it starts; {@code shared} holds what the application
 * makes once for several interfaces and the core does not know the type of (vr-yang's access
 * control, {@code DataGuard}, and its configuration datastores, {@code Datastores}, for NETCONF,
 * RESTCONF and gNMI).
 */
public record ServerContext(VirtualRouters service, Settings settings, Credentials credentials,
                            VrMetrics metrics, List<Object> shared) {
    public ServerContext {
        shared = List.copyOf(shared);
    }

    public ServerContext(VirtualRouters service, Settings settings, Credentials credentials, VrMetrics metrics) {
        this(service, settings, credentials, metrics, List.of());
    }

    /** The shared part of a type, if the application made one. */
    public <T> Optional<T> shared(Class<T> type) {
        return shared.stream().filter(type::isInstance).map(type::cast).findFirst();
    }
}
