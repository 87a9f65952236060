package io.vrouter.gnmi;

import io.vrouter.yang.nacm.Nacm;
import com.github.gnmi.proto.Path;
import com.github.gnmi.proto.PathElem;
import com.github.gnmi.proto.SubscribeRequest;
import com.github.gnmi.proto.SubscribeResponse;
import com.github.gnmi.proto.SubscriptionList;
import com.github.gnmi.proto.gNMIGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import io.vrouter.core.config.Credentials;
import io.vrouter.core.config.Settings;
import io.vrouter.core.config.Tenants;
import io.vrouter.core.driver.sim.LatencyProfile;
import io.vrouter.core.driver.sim.SimulatedDriver;
import io.vrouter.core.metrics.VrMetrics;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import io.vrouter.core.persistence.ConfigStore;
import io.vrouter.core.service.SingleVr;
import io.vrouter.core.service.VirtualRouterService;
import io.vrouter.core.spi.ServerContext;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A gNMI target on the simulated hypervisor for a test, with the user {@code alice} (viewer, password
 * {@code secret}) and the settings' tenants, and clients of it over plain gRPC.
 */
final class Target implements AutoCloseable {
    final VirtualRouterService service;
    final GnmiInterface gnmi;
    /** The target's meters (requests, streams, coalesced updates). */
    final io.micrometer.core.instrument.MeterRegistry meters;
    /** Access control, shared as the application shares it with NETCONF and RESTCONF. */
    final Nacm nacm;
    private final List<ManagedChannel> channels = new ArrayList<>();

    private Target(VirtualRouterService service, GnmiInterface gnmi, io.micrometer.core.instrument.MeterRegistry meters,
                   Nacm nacm) {
        this.service = service;
        this.nacm = nacm;
        this.gnmi = gnmi;
        this.meters = meters;
    }

    /** A running service and target with these settings besides the data directory, the port and alice. */
    static Target start(java.nio.file.Path dir, Map<String, String> settings) throws Exception {
        Map<String, String> m = new HashMap<>(Map.of("data-dir", dir.toString(), "user.alice", "viewer:secret"));
        try (ServerSocket free = new ServerSocket(0)) {
            m.put("gnmi-port", Integer.toString(free.getLocalPort()));
        }
        m.putAll(settings);
        Settings s = Settings.of(m);
        VirtualRouterService service = new VirtualRouterService(new SimulatedDriver(LatencyProfile.NONE),
                new ConfigStore(dir.resolve("store")), VrMetrics.inMemory());
        service.useTenants(Tenants.from(s));
        service.start();
        GnmiInterface gnmi = new GnmiInterface();
        VrMetrics metrics = VrMetrics.inMemory();
        Nacm nacm = new Nacm(dir, true);
        try {
            gnmi.start(new ServerContext(service, s, Credentials.from(s), metrics, List.of(nacm)));
        } catch (Exception e) {
            service.close();
            throw e;
        }
        return new Target(service, gnmi, metrics.registry(), nacm);
    }

    /** Creates VR {@code oc<vmIndex>} with this many interfaces (1, 2, ... on br1, br2, ...) and waits until it is done. */
    void create(int vmIndex, int interfaces) throws Exception {
        VmConfigEntry vr = new VmConfigEntry();
        vr.vmIndex = vmIndex;
        vr.vmName = "oc" + vmIndex;
        vr.vmNetworkConfigTable = new ArrayList<>();
        for (int n = 1; n <= interfaces; n++) {
            VmNetworkConfigEntry i = new VmNetworkConfigEntry();
            i.vmNetworkConfigIndex = n;
            i.vmNetworkConfigParent = "br" + n;
            vr.vmNetworkConfigTable.add(i);
        }
        if (SingleVr.create(service, vr).await(Duration.ofSeconds(30)).isEmpty()) {
            throw new AssertionError("VR " + vmIndex + " not created in 30 s");
        }
    }

    /** A new plain-gRPC connection, closed with the target. */
    ManagedChannel channel() {
        return keep(NettyChannelBuilder.forAddress("127.0.0.1", gnmi.port()).usePlaintext().build());
    }

    ManagedChannel keep(ManagedChannel c) {
        channels.add(c);
        return c;
    }

    static Metadata login(String user, String password) {
        Metadata login = new Metadata();
        login.put(Authentication.USERNAME, user);
        login.put(Authentication.PASSWORD, password);
        return login;
    }

    /** A blocking stub logged in as alice. */
    static gNMIGrpc.gNMIBlockingStub blocking(ManagedChannel c) {
        return blocking(c, "alice", "secret");
    }

    /** A blocking stub logged in as the user. */
    static gNMIGrpc.gNMIBlockingStub blocking(ManagedChannel c, String user, String password) {
        return gNMIGrpc.newBlockingStub(c).withDeadlineAfter(30, TimeUnit.SECONDS)
                .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(login(user, password)));
    }

    /** Opens a Subscribe stream as alice; the queue gets each response, and at its end the status (OK when completed). */
    static BlockingQueue<Object> subscribe(ManagedChannel c, SubscriptionList list) {
        return subscribe(c, list, "alice", "secret");
    }

    /** Opens a Subscribe stream as the user, as {@link #subscribe(ManagedChannel, SubscriptionList)}. */
    static BlockingQueue<Object> subscribe(ManagedChannel c, SubscriptionList list, String user, String password) {
        BlockingQueue<Object> received = new LinkedBlockingQueue<>();
        StreamObserver<SubscribeRequest> requests = gNMIGrpc.newStub(c)
                .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(login(user, password)))
                .subscribe(new StreamObserver<>() {
                    @Override
                    public void onNext(SubscribeResponse r) {
                        received.add(r);
                    }

                    @Override
                    public void onError(Throwable t) {
                        received.add(Status.fromThrowable(t));
                    }

                    @Override
                    public void onCompleted() {
                        received.add(Status.OK);
                    }
                });
        requests.onNext(SubscribeRequest.newBuilder().setSubscribe(list).build());
        return received;
    }

    /** The next response that passes {@code test}, within 30 s; fails on the stream's end or on the time running out. */
    static SubscribeResponse await(BlockingQueue<Object> stream, String what, java.util.function.Predicate<SubscribeResponse> test)
            throws InterruptedException {
        List<SubscribeResponse> seen = until(stream, what, test);
        return seen.get(seen.size() - 1);
    }

    /** The responses up to and with the first that passes {@code test}, as {@link #await}. */
    static List<SubscribeResponse> until(BlockingQueue<Object> stream, String what,
                                         java.util.function.Predicate<SubscribeResponse> test) throws InterruptedException {
        List<SubscribeResponse> seen = new ArrayList<>();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < end) {
            Object next = stream.poll(end - System.nanoTime(), TimeUnit.NANOSECONDS);
            if (next == null) break;
            if (!(next instanceof SubscribeResponse r)) throw new AssertionError("the stream ended waiting for " + what + ": " + next);
            seen.add(r);
            if (test.test(r)) return seen;
        }
        throw new AssertionError("no " + what + " within 30 s; saw " + seen);
    }

    /** A path from its text form, {@code /a/b[k=v]}, with an origin. */
    static Path path(String origin, String text) {
        Path.Builder p = Path.newBuilder().setOrigin(origin);
        for (PathElem e : GnmiPathsTest.parse(text)) p.addElem(e);
        return p.build();
    }

    @Override
    public void close() throws Exception {
        for (ManagedChannel c : channels) c.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        gnmi.close();
        service.close();
    }
}
