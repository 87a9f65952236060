package io.vrouter.snmp;

import static io.vrouter.snmp.SnmpTestAgent.vb;
import static io.vrouter.snmp.VmmMib.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.vrouter.core.config.Caller;
import io.vrouter.core.config.Settings;
import io.vrouter.core.config.Tenants;
import io.vrouter.core.driver.sim.LatencyProfile;
import io.vrouter.core.driver.sim.SimulatedDriver;
import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.OperState;
import io.vrouter.core.service.TenantView;
import io.vrouter.core.spi.VirtualRouters;
import java.lang.management.ManagementFactory;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.snmp4j.PDU;
import org.snmp4j.security.AuthSHA;
import org.snmp4j.security.PrivAES128;
import org.snmp4j.security.UsmUser;
import org.snmp4j.smi.Integer32;
import org.snmp4j.smi.OctetString;
import org.snmp4j.smi.VariableBinding;

/**
 * What a request costs the agent, counted rather than timed: the core's checks of a SET PDU, and what
 * the listener thread allocates for a request. The real service and agent, a real snmp4j manager.
 */
class RequestCostTest {
    /** snmp4j's receive buffer: the largest message it takes (its default maxInboundMessageSize). */
    private static final int RECEIVE_BUFFER = 65_535;

    @TempDir
    Path dir;
    SnmpTestAgent a;
    /** The calls the SNMP interface made of the port, by method name. */
    final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();

    @AfterEach
    void stop() throws Exception {
        if (a != null) a.close();
    }

    /** The service behind a port that counts the calls; each caller's view is a view of this port. */
    private VirtualRouters counting(VirtualRouters service) {
        VirtualRouters[] self = new VirtualRouters[1];
        self[0] = (VirtualRouters) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[]{VirtualRouters.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("as")) return new TenantView(self[0], (Caller) args[0]);
                    calls.computeIfAbsent(method.getName(), k -> new AtomicInteger()).incrementAndGet();
                    try {
                        return method.invoke(service, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        return self[0];
    }

    private int count(String method) {
        return calls.getOrDefault(method, new AtomicInteger()).get();
    }

    /** Waits until the VR is in the state (null: gone). */
    private void awaitState(int vmIndex, OperState state) throws InterruptedException {
        long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < end) {
            if (a.service.get(vmIndex).map(v -> v.operState() == state).orElse(state == null)) return;
            Thread.sleep(20);
        }
        throw new AssertionError("VR " + vmIndex + " did not reach " + state + ": " + a.service.get(vmIndex));
    }

    /** Sends the SET, which must succeed; returns how often the core was asked to check and to apply a set. */
    private int[] checksOf(org.snmp4j.Target<org.snmp4j.smi.UdpAddress> target, VariableBinding... vbs) throws Exception {
        calls.clear();
        PDU r = a.send(target, PDU.SET, vbs);
        assertThat(r).as("an answer").isNotNull();
        assertThat(r.getErrorStatus()).as(r.toString()).isEqualTo(PDU.noError);
        return new int[]{count("validate"), count("apply")};
    }

    /**
     * A SET PDU is one change set that the core checks once, when it applies it: not first in a dry run
     * in the prepare phase and then again when applied in the commit phase, and a vmIndex that no VR
     * holds is looked up, not tried with a change set of its own to learn that it is no other tenant's.
     */
    @Test
    void eachSetIsCheckedByTheCoreOnceWhenItIsApplied() throws Exception {
        a = new SnmpTestAgent(dir, new SimulatedDriver(LatencyProfile.NONE), Map.of(), this::counting);
        int[] create = checksOf(a.v2c("private"), vb(cell(VM_CONFIG_ENTRY, VM_CONFIG_ROW_STATUS, 5), new Integer32(CREATE_AND_GO)),
                vb(cell(VM_CONFIG_ENTRY, VM_NAME, 5), new OctetString("edge5")),
                vb(cell(VM_CONFIG_ENTRY, VM_ADMIN_STATE, 5), new Integer32(AdminState.SHUTDOWN.code())));
        assertThat(create).as("dry runs and applications of a creation").containsExactly(0, 1);
        awaitState(5, OperState.SHUTDOWN);
        int[] start = checksOf(a.v2c("private"), vb(cell(VM_CONFIG_ENTRY, VM_ADMIN_STATE, 5),
                new Integer32(AdminState.RUNNING.code())));
        assertThat(start).as("dry runs and applications of a start").containsExactly(0, 1);
        awaitState(5, OperState.RUNNING);
        int[] remove = checksOf(a.v2c("private"), vb(cell(VM_CONFIG_ENTRY, VM_CONFIG_ROW_STATUS, 5), new Integer32(DESTROY)));
        assertThat(remove).as("dry runs and applications of a removal").containsExactly(0, 1);
        awaitState(5, null);
    }

    /** A tenant's user creating a VR at a vmIndex no VR holds: the same one check. */
    @Test
    void aTenantsCreationAtAFreeIndexIsCheckedOnce() throws Exception {
        Map<String, String> settings = Map.of("tenant.acme", "vrs=2",
                "snmp.user.alice", "SHA:aliceauthpass:AES:aliceprivpass:write@acme");
        a = new SnmpTestAgent(dir, new SimulatedDriver(LatencyProfile.NONE), settings, this::counting);
        a.service.useTenants(Tenants.from(Settings.of(settings)));
        a.client.getUSM().addUser(new UsmUser(new OctetString("alice"), AuthSHA.ID, new OctetString("aliceauthpass"),
                PrivAES128.ID, new OctetString("aliceprivpass")));
        int[] create = checksOf(a.v3("alice"), vb(cell(VM_CONFIG_ENTRY, VM_CONFIG_ROW_STATUS, 7), new Integer32(CREATE_AND_GO)),
                vb(cell(VM_CONFIG_ENTRY, VM_NAME, 7), new OctetString("acme7")));
        assertThat(create).as("dry runs and applications").containsExactly(0, 1);
        assertThat(a.service.getConfig(7).orElseThrow().vmConfigTenant).isEqualTo("acme");
    }

    /**
     * The listener thread receives every datagram into one buffer: snmp4j's default is a new buffer of
     * the largest message size for each one (64 KB per request, most of what the SNMP path allocated,
     * and most of its young collections).
     */
    @Test
    void aRequestAllocatesLessThanOneReceiveBuffer() throws Exception {
        a = new SnmpTestAgent(dir);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assertThat(threads.isThreadAllocatedMemorySupported()).isTrue();
        threads.setThreadAllocatedMemoryEnabled(true);
        Thread listener = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("DefaultUDPTransportMapping_127.0.0.1/" + a.port)).findFirst().orElseThrow();
        VariableBinding uptime = new VariableBinding(scalar(VM_HV_UP_TIME));
        for (int k = 0; k < 50; k++) assertThat(a.send(a.v2c("public"), PDU.GET, uptime)).isNotNull();
        int requests = 200;
        long before = threads.getThreadAllocatedBytes(listener.getId());
        for (int k = 0; k < requests; k++) assertThat(a.send(a.v2c("public"), PDU.GET, uptime)).isNotNull();
        long perRequest = (threads.getThreadAllocatedBytes(listener.getId()) - before) / requests;
        assertThat(perRequest).as("bytes the listener allocates per GET").isLessThan(RECEIVE_BUFFER);
    }
}
