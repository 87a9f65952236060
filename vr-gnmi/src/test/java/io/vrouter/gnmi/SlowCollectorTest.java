package io.vrouter.gnmi;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.gnmi.proto.Encoding;
import com.github.gnmi.proto.SubscribeRequest;
import com.github.gnmi.proto.SubscribeResponse;
import com.github.gnmi.proto.Subscription;
import com.github.gnmi.proto.SubscriptionList;
import com.github.gnmi.proto.SubscriptionMode;
import com.github.gnmi.proto.gNMIGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.MetadataUtils;
import io.micrometer.core.instrument.Timer;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.service.SingleVr;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A collector that stops reading (grpc-java's own client, its flow control held by asking for no
 * more messages) costs the target at most {@code gnmi.max-pending} updates: its stream is ended with
 * RESOURCE_EXHAUSTED while it still reads nothing, and another collector's updates go on meanwhile.
 */
class SlowCollectorTest {
    @TempDir
    Path dir;
    Target target;

    @AfterEach
    void tearDown() throws Exception {
        if (target != null) target.close();
    }

    /** The Subscribe calls the target ended with this outcome, from its request meter. */
    private long subscribes(String outcome) {
        Timer t = target.meters.find("vrouter.requests").tag("interface", "gnmi").tag("operation", "subscribe")
                .tag("outcome", outcome).timer();
        return t == null ? 0 : t.count();
    }

    private double streamsOpen() {
        return target.meters.get("vrouter.gnmi.streams").gauge().value();
    }

    /** Waits up to 60 s for the condition (it is checked again after). */
    private static void awaitTrue(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.getAsBoolean() && System.nanoTime() < deadline) Thread.sleep(50);
    }

    @Test
    void aCollectorThatStopsReadingIsEndedAtMaxPendingWhileAnotherGoesOn() throws Exception {
        target = Target.start(dir, Map.of("gnmi.max-pending", "200", "gnmi.min-sample-interval", "100ms"));
        List<VmConfigEntry> vrs = new ArrayList<>();
        for (int i = 1; i <= 20; i++) {
            VmConfigEntry vr = new VmConfigEntry();
            vr.vmIndex = i;
            vr.vmName = "slow" + i;
            vrs.add(vr);
        }
        for (var a : SingleVr.createAll(target.service, vrs)) assertThat(a.await(Duration.ofSeconds(30))).isPresent();

        // The stalled collector: a small HTTP/2 window, one message asked for and no more.
        ManagedChannel stalledChannel = target.keep(NettyChannelBuilder.forAddress("127.0.0.1", target.gnmi.port())
                .usePlaintext().flowControlWindow(65_535).build());
        AtomicInteger stalledReceived = new AtomicInteger();
        CompletableFuture<Status> stalledEnd = new CompletableFuture<>();
        CompletableFuture<ClientCallStreamObserver<SubscribeRequest>> call = new CompletableFuture<>();
        var requests = gNMIGrpc.newStub(stalledChannel)
                .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(Target.login("alice", "secret")))
                .subscribe(new ClientResponseObserver<SubscribeRequest, SubscribeResponse>() {
                    @Override
                    public void beforeStart(ClientCallStreamObserver<SubscribeRequest> c) {
                        c.disableAutoRequestWithInitial(1);
                        call.complete(c);
                    }

                    @Override
                    public void onNext(SubscribeResponse r) {
                        stalledReceived.incrementAndGet();
                    }

                    @Override
                    public void onError(Throwable t) {
                        stalledEnd.complete(Status.fromThrowable(t));
                    }

                    @Override
                    public void onCompleted() {
                        stalledEnd.complete(Status.OK);
                    }
                });
        // Everything, sampled every 100 ms: over 1,000 leaves a sample, some 100 KB
        requests.onNext(SubscribeRequest.newBuilder().setSubscribe(SubscriptionList.newBuilder()
                .setMode(SubscriptionList.Mode.STREAM).setEncoding(Encoding.JSON_IETF)
                .addSubscription(Subscription.newBuilder().setMode(SubscriptionMode.SAMPLE)
                        .setPath(Target.path("", "/NEW-VMM-MIB")))).build());

        // A healthy collector of one leaf, on a connection of its own
        BlockingQueue<Object> healthy = Target.subscribe(target.channel(), SubscriptionList.newBuilder()
                .setMode(SubscriptionList.Mode.STREAM).setEncoding(Encoding.PROTO)
                .addSubscription(Subscription.newBuilder().setMode(SubscriptionMode.SAMPLE)
                        .setPath(Target.path("", "/NEW-VMM-MIB/vmObjects/vmNumber"))).build());
        Target.await(healthy, "the healthy collector's sync_response", SubscribeResponse::getSyncResponse);

        // The target gives up on the stalled stream while its collector still reads nothing.
        awaitTrue(() -> subscribes("resource_exhausted") == 1 && streamsOpen() == 1.0);
        assertThat(subscribes("resource_exhausted")).as("the stalled stream ended RESOURCE_EXHAUSTED").isEqualTo(1);
        assertThat(streamsOpen()).as("only the healthy stream is left").isEqualTo(1.0);
        assertThat(stalledReceived.get()).as("what the stalled collector read").isEqualTo(1);
        assertThat(stalledEnd).isNotDone();

        // The healthy collector keeps getting its samples.
        for (int i = 0; i < 3; i++) {
            SubscribeResponse r = Target.await(healthy, "a sample after the stall", SubscribeResponse::hasUpdate);
            assertThat(r.getUpdate().getUpdate(0).getVal().getIntVal()).as("vmNumber").isEqualTo(20);
        }

        // Reading again, the stalled collector gets what was in flight, then the status and its reason.
        call.get(10, TimeUnit.SECONDS).request(Integer.MAX_VALUE);
        Status end = stalledEnd.get(30, TimeUnit.SECONDS);
        assertThat(end.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
        assertThat(end.getDescription()).isEqualTo("the collector reads too slowly: more than 200 updates wait (gnmi.max-pending)");
    }
}
