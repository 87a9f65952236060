package io.vrouter.gnmi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.gnmi.proto.Encoding;
import com.github.gnmi.proto.GetRequest;
import com.github.gnmi.proto.Subscription;
import com.github.gnmi.proto.SubscriptionList;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * gnmi.max-get-bytes: a Get is one message, built whole before it is sent; past the cap it ends
 * RESOURCE_EXHAUSTED saying so, rather than failing in the transport (whose direct memory bin/vrouter
 * caps at 8 MiB) or at a client that takes 4 MiB at most.
 */
class GetLimitTest {
    @TempDir
    Path dir;
    Target target;
    ManagedChannel channel;

    @BeforeEach
    void setUp() throws Exception {
        target = Target.start(dir, Map.of("gnmi.max-get-bytes", "4096"));
        channel = target.channel();
        for (int vmIndex = 1; vmIndex <= 10; vmIndex++) target.create(vmIndex, 2);
    }

    @AfterEach
    void tearDown() throws Exception {
        target.close();
    }

    private void get(String path, Encoding encoding) {
        Target.blocking(channel).get(GetRequest.newBuilder().addPath(Target.path("", path)).setEncoding(encoding).build());
    }

    @Test
    void aGetPastTheCapEndsResourceExhaustedAndASmallerOneAndSubscribeOnceStillServe() throws Exception {
        for (Encoding encoding : new Encoding[] {Encoding.PROTO, Encoding.JSON_IETF}) {
            assertThatThrownBy(() -> get("/NEW-VMM-MIB/vmNetworkTable", encoding)).as(encoding.name())
                    .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
                        assertThat(e.getStatus().getDescription()).isEqualTo("the response would be more than 4096 bytes"
                                + " (gnmi.max-get-bytes): get narrower paths");
                    });
        }
        get("/NEW-VMM-MIB/vmNetworkTable/vmNetworkEntry[vmIndex=1][vmNetworkIndex=1]", Encoding.PROTO);
        BlockingQueue<Object> once = Target.subscribe(channel, SubscriptionList.newBuilder().setMode(SubscriptionList.Mode.ONCE)
                .setEncoding(Encoding.PROTO).addSubscription(Subscription.newBuilder()
                        .setPath(Target.path("", "/NEW-VMM-MIB/vmNetworkTable"))).build());
        long updates = Target.until(once, "sync_response", r -> r.getSyncResponse()).stream()
                .mapToLong(r -> r.getUpdate().getUpdateCount()).sum();
        assertThat(updates).as("every leaf of 20 rows").isGreaterThanOrEqualTo(20 * 12);
    }
}
