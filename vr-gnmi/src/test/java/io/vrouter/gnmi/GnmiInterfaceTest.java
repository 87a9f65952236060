package io.vrouter.gnmi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.gnmi.proto.CapabilityRequest;
import com.github.gnmi.proto.CapabilityResponse;
import com.github.gnmi.proto.gNMIGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.vrouter.core.config.Credentials;
import io.vrouter.core.config.Settings;
import io.vrouter.core.driver.sim.LatencyProfile;
import io.vrouter.core.driver.sim.SimulatedDriver;
import io.vrouter.core.metrics.VrMetrics;
import io.vrouter.core.persistence.ConfigStore;
import io.vrouter.core.service.VirtualRouterService;
import io.vrouter.core.spi.ServerContext;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The interface: where it listens, when it refuses to, and how a call logs in. */
class GnmiInterfaceTest {
    @TempDir
    Path dir;
    VirtualRouterService service;
    GnmiInterface gnmi;
    ManagedChannel channel;

    @BeforeEach
    void setUp() throws Exception {
        service = new VirtualRouterService(new SimulatedDriver(LatencyProfile.NONE), new ConfigStore(dir.resolve("store")),
                VrMetrics.inMemory());
        service.start();
    }

    @AfterEach
    void tearDown() throws Exception {
        if (channel != null) channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        if (gnmi != null) gnmi.close();
        service.close();
    }

    private GnmiInterface start(Map<String, String> extra) throws Exception {
        Map<String, String> m = new HashMap<>(Map.of("data-dir", dir.toString()));
        try (ServerSocket free = new ServerSocket(0)) {
            m.put("gnmi-port", Integer.toString(free.getLocalPort()));
        }
        m.putAll(extra);
        Settings s = Settings.of(m);
        GnmiInterface g = new GnmiInterface();
        gnmi = g;
        g.start(new ServerContext(service, s, Credentials.from(s), VrMetrics.inMemory()));
        return g;
    }

    private CapabilityResponse capabilities(String user, String password) {
        if (channel == null) channel = NettyChannelBuilder.forAddress("127.0.0.1", gnmi.port()).usePlaintext().build();
        gNMIGrpc.gNMIBlockingStub stub = gNMIGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
        if (user != null) {
            Metadata login = new Metadata();
            login.put(Authentication.USERNAME, user);
            login.put(Authentication.PASSWORD, password);
            stub = stub.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(login));
        }
        return stub.capabilities(CapabilityRequest.getDefaultInstance());
    }

    @Test
    void plainGrpcIsRefusedAnywhereButLoopback() {
        // Configured users, so that it is the missing TLS that refuses (the development ones refuse first).
        // 192.0.2.1 (documentation): were it not refused, binding would fail, not listen.
        assertThatThrownBy(() -> start(Map.of("bind", "192.0.2.1", "user.alice", "operator:secret")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("refusing to serve gNMI on 192.0.2.1 without TLS");
        assertThatThrownBy(() -> start(Map.of("bind", "192.0.2.1")))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("development credentials");
    }

    @Test
    void offListensNowhere() throws Exception {
        for (String off : new String[] {"off", "0"}) {
            GnmiInterface g = new GnmiInterface();
            Settings s = Settings.of(Map.of("data-dir", dir.toString(), "gnmi-port", off));
            g.start(new ServerContext(service, s, Credentials.from(s), VrMetrics.inMemory()));
            assertThat(g.describe()).isEqualTo("gNMI off (gnmi-port=" + off + ")");
            g.close();
        }
    }

    @Test
    void aCallLogsInWithTheUsernameAndPasswordOfItsMetadata() throws Exception {
        start(Map.of("user.alice", "viewer:secret"));
        assertThat(gnmi.describe()).startsWith("gNMI on 127.0.0.1:" + gnmi.port());
        assertThat(capabilities("alice", "secret").getSupportedModels(0).getName()).isEqualTo("NEW-VMM-MIB");
        assertThatThrownBy(() -> capabilities("alice", "wrong")).isInstanceOfSatisfying(StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED));
        assertThatThrownBy(() -> capabilities(null, null)).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
            assertThat(e.getStatus().getDescription()).contains("username and a password");
        });
    }
}
