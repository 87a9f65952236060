package io.vrouter.core.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The metrics every part shares: one timer per management request, tagged with the interface
 * (rest, snmp, netconf), the operation and the outcome; one per hypervisor operation.
 */
public final class VrMetrics {
    public static final String REQUESTS = "vrouter.requests";
    public static final String HYPERVISOR_OPERATIONS = "vrouter.hypervisor.operations";
    public static final String ROUTERS = "vrouter.routers";

    private final MeterRegistry registry;
    /**
     * The timers by their tags, looked up once: registering again on every request (Micrometer's
     * builder, its tags sorted and its meter looked up) was 2% of the server's CPU per SNMP request.
     */
    private final Map<String, Timer> timers = new ConcurrentHashMap<>();

    public VrMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /** Metrics that go nowhere, for tests and embedded use. */
    public static VrMetrics inMemory() {
        return new VrMetrics(new SimpleMeterRegistry());
    }

    public MeterRegistry registry() {
        return registry;
    }

    /** Records one management request of an interface. */
    public void recordRequest(String iface, String operation, String outcome, long nanos) {
        timers.computeIfAbsent(REQUESTS + '\0' + iface + '\0' + operation + '\0' + outcome, k -> Timer.builder(REQUESTS)
                        .description("Management requests by interface, operation and outcome")
                        .tag("interface", iface).tag("operation", operation).tag("outcome", outcome)
                        .register(registry))
                .record(nanos, TimeUnit.NANOSECONDS);
    }

    /** Records one call into the hypervisor driver. */
    public void recordHypervisor(String operation, boolean success, long nanos) {
        String outcome = success ? "success" : "failure";
        timers.computeIfAbsent(HYPERVISOR_OPERATIONS + '\0' + operation + '\0' + outcome, k -> Timer.builder(HYPERVISOR_OPERATIONS)
                        .description("Hypervisor driver operations")
                        .tag("operation", operation).tag("outcome", outcome)
                        .register(registry))
                .record(nanos, TimeUnit.NANOSECONDS);
    }
}
