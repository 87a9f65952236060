package io.vrouter.gnmi;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.gnmi.proto.Encoding;
import com.github.gnmi.proto.Subscription;
import com.github.gnmi.proto.SubscriptionList;
import com.github.gnmi.proto.SubscriptionMode;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * gnmi.max-leaves: every stream keeps each leaf it covers, so the leaves all streams hold are capped;
 * a subscription that would take more ends RESOURCE_EXHAUSTED while it is read, not after the heap
 * has gone to it, and what a closed stream held is free again.
 */
class LeafBudgetTest {
    private static final String TABLE = "/NEW-VMM-MIB/vmNetworkTable";
    @TempDir
    Path dir;
    Target target;
    ManagedChannel channel;

    @BeforeEach
    void setUp() throws Exception {
        target = Target.start(dir, Map.of("gnmi.max-leaves", "100"));
        channel = target.channel();
        for (int vmIndex = 1; vmIndex <= 10; vmIndex++) target.create(vmIndex, 2); // 20 rows, 14 leaves each
    }

    @AfterEach
    void tearDown() throws Exception {
        target.close();
    }

    private BlockingQueue<Object> subscribe(SubscriptionList.Mode mode, String path) {
        return Target.subscribe(channel, SubscriptionList.newBuilder().setMode(mode).setEncoding(Encoding.PROTO)
                .addSubscription(Subscription.newBuilder().setPath(Target.path("", path)).setMode(SubscriptionMode.ON_CHANGE))
                .build());
    }

    private static Status end(BlockingQueue<Object> stream) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            Object next = stream.poll(1, TimeUnit.SECONDS);
            if (next instanceof Status s) return s;
        }
        throw new AssertionError("the stream did not end in 30 s");
    }

    @Test
    void aSubscriptionPastTheBudgetEndsResourceExhaustedAndOthersStillFit() throws Exception {
        Status refused = end(subscribe(SubscriptionList.Mode.ONCE, TABLE));
        assertThat(refused.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
        assertThat(refused.getDescription()).isEqualTo("the Subscribe streams would hold more than 100 leaves"
                + " (gnmi.max-leaves): subscribe to narrower paths");

        // Two streams holding one VR's two rows each (28 leaves each) leave 44 of the 100.
        BlockingQueue<Object> held = subscribe(SubscriptionList.Mode.STREAM, TABLE + "/vmNetworkEntry[vmIndex=1]");
        Target.await(held, "sync_response", r -> r.getSyncResponse());
        BlockingQueue<Object> second = subscribe(SubscriptionList.Mode.STREAM, TABLE + "/vmNetworkEntry[vmIndex=2]");
        Target.await(second, "sync_response", r -> r.getSyncResponse());
        for (int vmIndex = 3; vmIndex <= 4; vmIndex++) {
            assertThat(end(subscribe(SubscriptionList.Mode.ONCE, TABLE + "/vmNetworkEntry[vmIndex=" + vmIndex + "]")).getCode())
                    .as("28 leaves of the 44 left, once more after the first ONCE has ended").isEqualTo(Status.Code.OK);
        }
        assertThat(end(subscribe(SubscriptionList.Mode.ONCE, "/NEW-VMM-MIB/vmTable")).getCode())
                .as("the vmTable of 10 VRs is more than the 44 left").isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    }
}
