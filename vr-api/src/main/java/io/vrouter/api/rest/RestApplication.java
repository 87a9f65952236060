package io.vrouter.api.rest;

import io.vrouter.api.console.ConsoleResource;
import io.vrouter.api.restconf.Restconf;
import io.vrouter.core.metrics.VrMetrics;
import io.vrouter.core.migration.Drain;
import io.vrouter.core.migration.PeerWatch;
import io.vrouter.core.migration.Peers;
import io.vrouter.core.spi.VirtualRouters;
import io.vrouter.core.spi.ServerContext;
import io.vrouter.yang.DataGuard;
import io.vrouter.yang.datastore.Datastores;
import org.glassfish.jersey.internal.inject.AbstractBinder;
import org.glassfish.jersey.process.internal.RequestScoped;
import org.glassfish.jersey.jackson.JacksonFeature;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.server.ServerProperties;
import org.glassfish.jersey.server.spi.Container;
import org.glassfish.jersey.server.spi.ContainerLifecycleListener;

/** The Jersey application of the REST interface, the same wherever it is hosted (JDK server or servlet container). */
public final class RestApplication {
    /** The largest request body accepted, unless the setting rest.max-body-bytes says otherwise. */
    public static final long DEFAULT_MAX_BODY = 1024 * 1024;

    private RestApplication() {
    }

    /** With {@code rest.max-body-bytes} as the settings say (a servlet container's, which has no reload). */
    public static ResourceConfig create(ServerContext context) {
        return create(context, new BodyLimit(BodyLimit.from(context.settings())));
    }

    /** With a body limit that REST's reload changes. */
    static ResourceConfig create(ServerContext context, BodyLimit maxBody) {
        ResourceConfig rc = new ResourceConfig();
        rc.register(RoutersResource.class);
        rc.register(HypervisorResource.class);
        rc.register(EventsResource.class);
        MigrationResource migration = new MigrationResource(context.shared(Peers.class).orElseGet(() -> Peers.from(context.settings())));
        PeerWatch peers = migration.watch(context.settings().getDuration("peers.health-interval", "10s"));
        rc.register(new HealthResource(context.service(), peers::reach)); // public: the whole host, no caller
        rc.register(MetricsResource.class);
        rc.register(OpenApiDocument.class);
        rc.register(SessionResource.class);
        rc.register(TenantsResource.class);
        rc.register(BackupResource.class);
        rc.register(migration);
        rc.register(migration.source());
        // one drain at a time, whichever interface asks: the application's (alone, as in a test: REST's own)
        Drain drain = context.shared(Drain.class).orElseGet(() -> new Drain(migration.clients()));
        rc.register(new DrainResource(drain));
        rc.register(CommitsResource.class);
        // console=off: REST and RESTCONF alone, the console's class and files never loaded.
        if (context.settings().getBoolean("console", true)) rc.register(ConsoleResource.class);
        Restconf.register(rc, migration.clients(), drain);
        rc.register(JacksonFeature.withoutExceptionMappers());
        rc.register(new JsonMapping());
        rc.register(new SafeXmlReader());
        rc.register(ProblemMapper.class);
        rc.register(RequestChecks.Head.class);
        rc.register(RequestChecks.Query.class);
        rc.register(new AllowHead());
        rc.register(new CurrentRequest());
        rc.register(new HostFilter(context.settings()));
        rc.register(new CsrfFilter());
        rc.register(new BasicAuthFilter(context.credentials(), context.service()));
        rc.register(new BodyLimitFilter(maxBody));
        rc.register(new RequestLogFilter(context.metrics()));
        Datastores datastores = context.shared(Datastores.class)
                .orElseGet(() -> new Datastores(context.service(), context.shared(DataGuard.class).orElse(DataGuard.NONE)));
        ListCache lists = new ListCache(context.service(), context.settings().getDuration("rest.list-max-age", "1s"));
        rc.register(lists);
        rc.register(new KnownLength());
        rc.register(new WriterAnnotations());
        IdempotencyKeys keys = new IdempotencyKeys(context.settings().dataDir(),
                context.settings().getDuration("rest.idempotency-window", "24h"),
                context.settings().getInt("rest.idempotency-max-keys", 10_000));
        rc.register(new ContainerLifecycleListener() {
            @Override
            public void onStartup(Container container) {
            }

            @Override
            public void onReload(Container container) {
            }

            @Override
            public void onShutdown(Container container) {
                keys.close();
                peers.close();
            }
        });
        rc.register(new AbstractBinder() {
            @Override
            protected void configure() {
                // Every resource's port is its request's caller's view: no resource holds the unfiltered one.
                bindFactory(new CallerView()).to(VirtualRouters.class).proxy(true).proxyForSameScope(false)
                        .in(RequestScoped.class);
                bind(context.metrics()).to(VrMetrics.class);
                bind(lists).to(ListCache.class);
                bind(keys).to(IdempotencyKeys.class);
                // RESTCONF's datastores and access control: the application's, shared with NETCONF and gNMI
                bind(datastores).to(Datastores.class);
            }
        });
        rc.property(ServerProperties.WADL_FEATURE_DISABLE, true);
        rc.property(ServerProperties.BV_FEATURE_DISABLE, true);
        return rc;
    }
}
