package io.vrouter.snmp;

import static io.vrouter.snmp.VmmMib.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.snmp4j.PDU;
import org.snmp4j.smi.VariableBinding;

/**
 * What a request costs the agent, counted rather than timed: what the listener thread allocates for a
 * request. The real service and agent, a real snmp4j manager.
 */
class RequestCostTest {
    /** snmp4j's receive buffer: the largest message it takes (its default maxInboundMessageSize). */
    private static final int RECEIVE_BUFFER = 65_535;

    @TempDir
    Path dir;
    SnmpTestAgent a;

    @AfterEach
    void stop() throws Exception {
        if (a != null) a.close();
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
