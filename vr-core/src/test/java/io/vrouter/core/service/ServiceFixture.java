package io.vrouter.core.service;

import io.vrouter.core.driver.sim.LatencyProfile;
import io.vrouter.core.driver.sim.SimulatedDriver;
import io.vrouter.core.metrics.VrMetrics;
import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VrEvent;
import io.vrouter.core.persistence.CommitLog;
import io.vrouter.core.persistence.ConfigStore;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/** A service on a simulated host kept in a data directory, with every event it publishes recorded. */
final class ServiceFixture implements AutoCloseable {
    final Path dataDir;
    final SimulatedDriver driver;
    /** The host as the service sees it: every call written down. */
    final RecordingDriver recorder;
    final VirtualRouterService service;
    final List<VrEvent> events = new CopyOnWriteArrayList<>();
    final VirtualRouterService.ReconcileReport report;

    ServiceFixture(Path dataDir) throws Exception {
        this(dataDir, LatencyProfile.NONE);
    }

    ServiceFixture(Path dataDir, LatencyProfile latency) throws Exception {
        this(dataDir, latency, false);
    }

    /** With a history {@code historyDepth} commits deep. */
    ServiceFixture(Path dataDir, int historyDepth) throws Exception {
        this(dataDir, LatencyProfile.NONE, false, (host, events) -> { }, historyDepth);
    }

    /** With {@code recover}, starts from whatever is intact in a damaged configuration. */
    ServiceFixture(Path dataDir, boolean recover) throws Exception {
        this(dataDir, LatencyProfile.NONE, recover);
    }

    /** With the host made ready (failures, holds) before the service starts on it, for its reconciliation. */
    ServiceFixture(Path dataDir, Consumer<RecordingDriver> beforeStart) throws Exception {
        this(dataDir, LatencyProfile.NONE, false, beforeStart);
    }

    /** The same, the host's hooks also given the list of events, which fills while the service starts. */
    ServiceFixture(Path dataDir, BiConsumer<RecordingDriver, List<VrEvent>> beforeStart) throws Exception {
        this(dataDir, LatencyProfile.NONE, false, beforeStart);
    }

    private ServiceFixture(Path dataDir, LatencyProfile latency, boolean recover) throws Exception {
        this(dataDir, latency, recover, host -> { });
    }

    private ServiceFixture(Path dataDir, LatencyProfile latency, boolean recover, Consumer<RecordingDriver> beforeStart)
            throws Exception {
        this(dataDir, latency, recover, (host, events) -> beforeStart.accept(host));
    }

    private ServiceFixture(Path dataDir, LatencyProfile latency, boolean recover,
                           BiConsumer<RecordingDriver, List<VrEvent>> beforeStart) throws Exception {
        this(dataDir, latency, recover, beforeStart, CommitLog.DEFAULT_DEPTH);
    }

    private ServiceFixture(Path dataDir, LatencyProfile latency, boolean recover,
                           BiConsumer<RecordingDriver, List<VrEvent>> beforeStart, int historyDepth) throws Exception {
        this.dataDir = dataDir;
        this.driver = new SimulatedDriver(latency, dataDir.resolve("sim-host.journal"));
        this.recorder = new RecordingDriver(driver);
        beforeStart.accept(recorder, events);
        this.service = new VirtualRouterService(recorder, new ConfigStore(dataDir, recover, historyDepth), VrMetrics.inMemory());
        service.events().subscribe(events::add);
        try {
            this.report = service.start();
        } catch (Exception | Error e) {
            service.close();
            throw e;
        }
    }

    static VmConfigEntry vr(String name) {
        VmConfigEntry c = new VmConfigEntry();
        c.vmName = name;
        return c;
    }

    static VmConfigEntry vr(String name, AdminState admin) {
        VmConfigEntry c = vr(name);
        c.vmAdminState = admin;
        return c;
    }

    @Override
    public void close() {
        service.close();
    }
}
