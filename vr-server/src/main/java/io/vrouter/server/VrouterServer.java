package io.vrouter.server;

import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vrouter.core.config.Credentials;
import io.vrouter.core.config.Tenants;
import io.vrouter.core.config.Settings;
import io.vrouter.core.driver.HypervisorDriver;
import io.vrouter.core.driver.HypervisorDriverProvider;
import io.vrouter.core.metrics.VrMetrics;
import io.vrouter.core.persistence.ConfigStore;
import io.vrouter.core.persistence.MoveJournal;
import io.vrouter.core.persistence.CommitLog;
import io.vrouter.core.persistence.EventLog;
import io.vrouter.core.service.VirtualRouterService;
import io.vrouter.core.spi.InterfaceProvider;
import io.vrouter.core.spi.ManagementInterface;
import io.vrouter.core.spi.ServerContext;
import io.vrouter.core.migration.Peers;
import io.vrouter.yang.datastore.Datastores;
import io.vrouter.yang.nacm.Nacm;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The whole server: one service on one driver, and every management interface found on the class
 * path (REST, SNMP, NETCONF, gNMI) and not turned off on top of it.
 */
public final class VrouterServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(VrouterServer.class);

    private final FileChannel lockFile;
    private final FileLock lock;
    private final VirtualRouterService service;
    private final ServerContext context;
    private final Peers peers;
    private final List<ManagementInterface> interfaces = new ArrayList<>();

    private VrouterServer(Settings settings, Set<String> excluded) throws Exception {
        Path dataDir = settings.dataDir();
        Files.createDirectories(dataDir);
        lockFile = FileChannel.open(dataDir.resolve(".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock held;
        try {
            held = lockFile.tryLock();
        } catch (java.nio.channels.OverlappingFileLockException sameProcess) {
            held = null;
        }
        lock = held;
        if (lock == null) {
            lockFile.close();
            throw new IllegalStateException("another vrouter server uses the data directory " + dataDir);
        }
        Credentials credentials = Credentials.from(settings);
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new JvmMemoryMetrics().bindTo(registry);
        new JvmGcMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        new FileDescriptorMetrics().bindTo(registry);
        VrMetrics metrics = new VrMetrics(registry);
        credentials.throttle().bindTo(registry);
        credentials.snmpThrottle().bindTo(registry);

        // An interface turned off is never created: none of its classes load, none of its threads start.
        List<ManagementInterface> found = new ArrayList<>();
        for (InterfaceProvider p : ServiceLoader.load(InterfaceProvider.class)) {
            if (excluded.contains(p.name())) continue;
            if (p.off(settings)) {
                log.info("{} off ({}-port=off)", p.name(), p.name());
            } else {
                found.add(p.create());
            }
        }
        try {
            // Every file is read before any is written: a start refused for a damaged one changes nothing.
            for (ManagementInterface mi : found) mi.check(settings);
        } catch (Exception | Error e) {
            lock.release();
            lockFile.close();
            throw e;
        }
        // Access control (RFC 8341) of every YANG interface, one instance for NETCONF, RESTCONF and
        // gNMI alike; a damaged file refuses the start before anything changes.
        Nacm nacm;
        try {
            nacm = new Nacm(dataDir, settings.getBoolean("netconf.nacm", true));
            // The moves of VRs to and from peers under way when the server stopped, finished once it runs.
            peers = Peers.from(settings).recordMovesIn(MoveJournal.open(dataDir));
        } catch (RuntimeException e) {
            lock.release();
            lockFile.close();
            throw e;
        }
        HypervisorDriver driver = driver(settings);
        service = new VirtualRouterService(driver, new ConfigStore(dataDir, settings.getBoolean("recover", false),
                settings.getInt("history.depth", CommitLog.DEFAULT_DEPTH)), metrics);
        service.useTenants(Tenants.from(settings));
        service.events().recordTo(EventLog.open(dataDir, settings.getInt("events.replay-max", 10_000),
                settings.getDuration("events.replay-age", "7d")));
        peers.moves().beforeStart(service);
        service.keepDrainStateIn(dataDir); // a router drained for maintenance stays drained across a restart
        // Made once, shared: the peers' clients (REST, RESTCONF and NETCONF move VRs through the same ones), the
        // drain (one at a time whichever interface asks), and the configuration datastores, one per tenant scope,
        // whose transactions NETCONF, RESTCONF and gNMI make.
        context = new ServerContext(service, settings, credentials, metrics, List.of(nacm, peers,
                new io.vrouter.core.migration.Drain(peers.clients()), new Datastores(service, nacm, dataDir)));
        try {
            service.start();
            // before any interface listens: a VR whose move was cut short is held again, no change comes first
            peers.moves().resume(service, peers.clients());
            // REST last: once /health/ready answers, every other interface is listening too.
            found.sort(Comparator.comparing((ManagementInterface mi) -> mi.name().equals("rest"))
                    .thenComparing(ManagementInterface::name));
            for (ManagementInterface mi : found) {
                mi.start(context);
                interfaces.add(mi);
                log.info("{}", mi.describe());
            }
        } catch (Exception | Error e) {
            close();
            throw e;
        }
        if (credentials.developmentDefaults()) {
            log.warn("using the development credentials of the README: configure your own before leaving loopback");
        }
    }

    /** Starts everything; throws when any part cannot start, having stopped what had started. */
    public static VrouterServer start(Settings settings) throws Exception {
        return new VrouterServer(settings, Set.of());
    }

    /**
     * Starts everything but the named interfaces: a servlet container hosts REST itself, on the
     * {@link #context()} of this server.
     */
    public static VrouterServer startWithout(Settings settings, String... interfaceNames) throws Exception {
        return new VrouterServer(settings, Set.of(interfaceNames));
    }

    /** What the interfaces run on: the service, settings, credentials and metrics. */
    public ServerContext context() {
        return context;
    }

    private static HypervisorDriver driver(Settings settings) throws Exception {
        String name = settings.get("driver", "sim");
        List<HypervisorDriverProvider> providers = new ArrayList<>();
        ServiceLoader.load(HypervisorDriverProvider.class).forEach(providers::add);
        for (HypervisorDriverProvider p : providers) {
            if (p.name().equals(name)) return p.create(settings);
        }
        throw new IllegalArgumentException("no driver '" + name + "'; available: "
                + providers.stream().map(HypervisorDriverProvider::name).sorted().collect(Collectors.joining(", ")));
    }

    public VirtualRouterService service() {
        return service;
    }

    public List<ManagementInterface> interfaces() {
        return List.copyOf(interfaces);
    }

    /**
     * Reads the settings again (SIGHUP) without dropping a session: the users and tenants, then what each
     * interface can take while it runs. Every part checks the new settings before any applies them,
     * so a wrong setting throws and changes nothing.
     *
     * @return how many users there are now
     */
    public synchronized int reload(Settings settings) throws Exception {
        List<Runnable> changes = new ArrayList<>();
        Tenants tenants = Tenants.from(settings);
        for (ManagementInterface mi : interfaces) changes.add(mi.reload(settings));
        // The users last among the checks: their reload applies itself once it has checked them.
        int users = context.credentials().reload(settings);
        service.useTenants(tenants);
        changes.forEach(Runnable::run);
        return users;
    }

    /** Stops the interfaces (newest first), then the service, then releases the data directory. */
    @Override
    public void close() {
        for (int i = interfaces.size() - 1; i >= 0; i--) {
            try {
                interfaces.get(i).close();
            } catch (RuntimeException e) {
                log.warn("stopping {} failed", interfaces.get(i).name(), e);
            }
        }
        interfaces.clear();
        peers.moves().close();
        service.close();
        try {
            lock.release();
            lockFile.close();
        } catch (IOException e) {
            log.warn("releasing the data directory lock failed", e);
        }
    }
}
