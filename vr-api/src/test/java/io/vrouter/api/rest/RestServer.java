package io.vrouter.api.rest;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vrouter.core.config.Credentials;
import io.vrouter.core.config.Settings;
import io.vrouter.core.config.Tenants;
import io.vrouter.core.driver.sim.LatencyProfile;
import io.vrouter.core.driver.sim.SimulatedDriver;
import io.vrouter.core.metrics.VrMetrics;
import io.vrouter.core.migration.Peers;
import io.vrouter.core.persistence.MoveJournal;
import io.vrouter.core.persistence.ConfigStore;
import io.vrouter.core.persistence.EventLog;
import io.vrouter.core.service.VirtualRouterService;
import io.vrouter.core.spi.ServerContext;
import java.nio.file.Files;
import java.nio.file.Path;
import io.vrouter.yang.nacm.Nacm;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The REST interface (and RESTCONF, on the same port) alone on a service, for the HTTP tests: the
 * simulated driver (with the host's CPUs and memory of {@code sim.host-cpus} and {@code sim.host-memory}),
 * the settings' tenants, a data directory, a port chosen free. The whole server (every interface found
 * on the class path) is vr-server's.
 */
public final class RestServer implements AutoCloseable {
    private final VirtualRouterService service;
    private final RestInterface rest = new RestInterface();
    /** Access control, as the application makes it for RESTCONF (and NETCONF and gNMI). */
    private final Nacm nacm;
    /** The peers, their moves recorded in the data directory as the application does (ADR 0023, decisions 10 and 17). */
    private final Peers peers;
    private final Settings settings;

    private RestServer(Settings settings) throws Exception {
        this(settings, simulated(settings));
    }

    private static SimulatedDriver simulated(Settings settings) {
        SimulatedDriver driver = new SimulatedDriver(LatencyProfile.named(settings.get("sim-latency", "none")));
        int hostCpus = settings.getInt("sim.host-cpus", 0);
        int hostMemory = settings.getInt("sim.host-memory", 0);
        driver.setHostResources(hostCpus > 0 ? hostCpus : null, hostMemory > 0 ? hostMemory : null);
        return driver;
    }

    private RestServer(Settings settings, io.vrouter.core.driver.HypervisorDriver driver) throws Exception {
        this.settings = settings;
        Path dataDir = settings.dataDir();
        Files.createDirectories(dataDir);
        rest.check(settings);
        nacm = new Nacm(dataDir, settings.getBoolean("netconf.nacm", true));
        peers = Peers.from(settings).recordMovesIn(MoveJournal.open(dataDir));
        VrMetrics metrics = new VrMetrics(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
        service = new VirtualRouterService(driver, new ConfigStore(dataDir), metrics);
        service.useTenants(Tenants.from(settings));
        service.events().recordTo(EventLog.open(dataDir, settings.getInt("events.replay-max", 10_000),
                settings.getDuration("events.replay-age", "7d")));
        service.keepDrainStateIn(dataDir);
        peers.moves().beforeStart(service);
        try {
            service.start();
            peers.moves().resume(service, peers.clients());
            rest.start(new ServerContext(service, settings, Credentials.from(settings), metrics, List.of(nacm, peers)));
        } catch (Exception | Error e) {
            close();
            throw e;
        }
    }

    /** On the given settings (their data directory and REST port). */
    public static RestServer start(Settings settings) throws Exception {
        return new RestServer(settings);
    }

    /** With the development users; {@code extra}: settings beside the data directory and the port. */
    public static RestServer start(String name, Map<String, String> extra) throws Exception {
        Map<String, String> settings = new HashMap<>(extra);
        settings.put("data-dir", Files.createTempDirectory(name).toString());
        settings.put("rest-port", "0");
        return start(Settings.of(settings));
    }

    /** As {@link #start(String, Map)}, on another driver than the simulated one. */
    public static RestServer start(String name, Map<String, String> extra, io.vrouter.core.driver.HypervisorDriver driver)
            throws Exception {
        Map<String, String> settings = new HashMap<>(extra);
        settings.put("data-dir", Files.createTempDirectory(name).toString());
        settings.put("rest-port", "0");
        return new RestServer(Settings.of(settings), driver);
    }

    /** On another driver than the simulated one, on the given settings: a restart on the data directory and port of one before. */
    public static RestServer start(Settings settings, io.vrouter.core.driver.HypervisorDriver driver) throws Exception {
        return new RestServer(settings, driver);
    }

    public static RestServer start(String name) throws Exception {
        return start(name, Map.of());
    }

    public VirtualRouterService service() {
        return service;
    }

    /** Its settings, with the data directory and the port it was given. */
    public Settings settings() {
        return settings;
    }

    public Nacm nacm() {
        return nacm;
    }

    public RestInterface rest() {
        return rest;
    }

    /** The port REST (and RESTCONF) listens on. */
    public int port() {
        return rest.port();
    }

    /**
     * As a kill -9 leaves it: nothing more is heard from it (its listener goes, freeing the port), and
     * nothing of it is shut down (what a test holds of its hypervisor's calls is its to freeze).
     */
    public void kill() {
        rest.close();
    }

    @Override
    public void close() {
        rest.close();
        peers.moves().close();
        service.close();
    }
}
