package io.vrouter.gnmi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.gnmi.proto.Encoding;
import com.github.gnmi.proto.GetRequest;
import com.github.gnmi.proto.Subscription;
import com.github.gnmi.proto.SubscriptionList;
import com.github.gnmi.proto.SubscriptionMode;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The caps on what a large table costs, on 10 VRs of two interfaces (vmNetworkTable of 20 rows, 14
 * leaves each). gnmi.max-get-bytes: a Get is one message, built whole before it is sent; past the cap
 * it ends RESOURCE_EXHAUSTED saying so, rather than failing in the transport (whose direct memory
 * bin/vrouter caps at 8 MiB) or at a client that takes 4 MiB at most. gnmi.max-leaves: every stream
 * keeps each leaf it covers, so the leaves all streams hold are capped; a subscription that would take
 * more ends RESOURCE_EXHAUSTED while it is read, not after the heap has gone to it, and what a closed
 * stream held is free again.
 */
class SizeLimitsTest {
    private static final String TABLE = "/NEW-VMM-MIB/vmNetworkTable";
    @TempDir
    Path dir;
    Target target;
    ManagedChannel channel;

    private void start(String setting, String value) throws Exception {
        target = Target.start(dir, Map.of(setting, value));
        channel = target.channel();
        for (int vmIndex = 1; vmIndex <= 10; vmIndex++) target.create(vmIndex, 2);
    }

    @AfterEach
    void tearDown() throws Exception {
        if (target != null) target.close();
    }

    private void get(String path, Encoding encoding) {
        Target.blocking(channel).get(GetRequest.newBuilder().addPath(Target.path("", path)).setEncoding(encoding).build());
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
    void aGetPastTheCapEndsResourceExhaustedAndASmallerOneAndSubscribeOnceStillServe() throws Exception {
        start("gnmi.max-get-bytes", "4096");
        for (Encoding encoding : new Encoding[] {Encoding.PROTO, Encoding.JSON_IETF}) {
            assertThatThrownBy(() -> get(TABLE, encoding)).as(encoding.name())
                    .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
                        assertThat(e.getStatus().getDescription()).isEqualTo("the response would be more than 4096 bytes"
                                + " (gnmi.max-get-bytes): get narrower paths");
                    });
        }
        get(TABLE + "/vmNetworkEntry[vmIndex=1][vmNetworkIndex=1]", Encoding.PROTO);
        long updates = Target.until(subscribe(SubscriptionList.Mode.ONCE, TABLE), "sync_response", r -> r.getSyncResponse())
                .stream().mapToLong(r -> r.getUpdate().getUpdateCount()).sum();
        assertThat(updates).as("every leaf of 20 rows").isGreaterThanOrEqualTo(20 * 12);
    }

    @Test
    void aSubscriptionPastTheLeafCapEndsResourceExhaustedAndOthersStillFit() throws Exception {
        start("gnmi.max-leaves", "100");
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
