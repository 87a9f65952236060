package io.vrouter.gnmi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.gnmi.proto.CapabilityRequest;
import com.github.gnmi.proto.CapabilityResponse;
import com.github.gnmi.proto.PathElem;
import com.github.gnmi.proto.SubscribeResponse;
import com.github.gnmi.proto.Subscription;
import com.github.gnmi.proto.SubscriptionList;
import com.github.gnmi.proto.SubscriptionMode;
import com.github.gnmi.proto.gNMIGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsChannelCredentials;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.vrouter.core.config.Caller;
import io.vrouter.core.config.Credentials;
import io.vrouter.core.config.Keystores;
import io.vrouter.core.config.Settings;
import io.vrouter.core.driver.sim.LatencyProfile;
import io.vrouter.core.driver.sim.SimulatedDriver;
import io.vrouter.core.metrics.VrMetrics;
import io.vrouter.core.persistence.ConfigStore;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import io.vrouter.core.spi.ChangeSet;
import io.vrouter.core.service.TenantView;
import io.vrouter.core.service.VirtualRouterService;
import io.vrouter.core.spi.ServerContext;
import io.vrouter.core.spi.VirtualRouters;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import javax.net.ssl.TrustManagerFactory;

/** The interface: where it listens, when it refuses to, and how a call logs in. */
class GnmiInterfaceTest {
    @TempDir
    Path dir;
    VirtualRouterService service;
    SimulatedDriver host;
    /** The core as the interface is given it: the service, or a port in front of it. */
    VirtualRouters port;
    GnmiInterface gnmi;
    ManagedChannel channel;
    final List<ManagedChannel> channels = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        host = new SimulatedDriver(LatencyProfile.NONE);
        service = new VirtualRouterService(host, new ConfigStore(dir.resolve("store")), VrMetrics.inMemory());
        service.start();
        port = service;
    }

    @AfterEach
    void tearDown() throws Exception {
        if (channel != null) channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        for (ManagedChannel c : channels) c.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
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
        g.start(new ServerContext(port, s, Credentials.from(s), VrMetrics.inMemory()));
        return g;
    }

    private CapabilityResponse capabilities(String user, String password) {
        if (channel == null) channel = NettyChannelBuilder.forAddress("127.0.0.1", gnmi.port()).usePlaintext().build();
        return capabilities(channel, user, password);
    }

    private static CapabilityResponse capabilities(ManagedChannel channel, String user, String password) {
        gNMIGrpc.gNMIBlockingStub stub = gNMIGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
        if (user != null) stub = stub.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(Target.login(user, password)));
        return stub.capabilities(CapabilityRequest.getDefaultInstance());
    }

    /** A PKCS12 keystore with a certificate for 127.0.0.1, made by the JDK's keytool. */
    private Path keystore() throws Exception {
        Path keystore = dir.resolve("server.p12");
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        Process p = new ProcessBuilder(keytool, "-genkeypair", "-alias", "vrouter", "-keyalg", "EC", "-groupname", "secp256r1",
                "-dname", "CN=127.0.0.1", "-ext", "SAN=ip:127.0.0.1", "-validity", "2", "-storetype", "PKCS12",
                "-keystore", keystore.toString(), "-storepass", "changeit").redirectErrorStream(true).start();
        assertThat(p.waitFor()).as(new String(p.getInputStream().readAllBytes())).isZero();
        return keystore;
    }

    private void keytool(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "keytool").toString()));
        cmd.addAll(List.of(args));
        cmd.addAll(List.of("-storepass", "changeit", "-noprompt"));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        assertThat(p.waitFor()).as(String.join(" ", cmd) + ": " + new String(p.getInputStream().readAllBytes())).isZero();
    }

    /** A CA's certificate (PEM) and a PKCS12 keystore of a client's key with a certificate the CA signed. */
    private record ClientPki(Path caPem, Path client) {
    }

    private ClientPki clientPki() throws Exception {
        Path ca = dir.resolve("ca.p12");
        Path caPem = dir.resolve("ca.pem");
        Path client = dir.resolve("client.p12");
        Path csr = dir.resolve("client.csr");
        Path signed = dir.resolve("client.pem");
        keytool("-genkeypair", "-alias", "ca", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=test-ca",
                "-ext", "bc:c", "-validity", "2", "-storetype", "PKCS12", "-keystore", ca.toString());
        keytool("-exportcert", "-rfc", "-alias", "ca", "-keystore", ca.toString(), "-file", caPem.toString());
        keytool("-genkeypair", "-alias", "client", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=alice",
                "-validity", "2", "-storetype", "PKCS12", "-keystore", client.toString());
        keytool("-certreq", "-alias", "client", "-keystore", client.toString(), "-file", csr.toString());
        keytool("-gencert", "-rfc", "-alias", "ca", "-keystore", ca.toString(), "-infile", csr.toString(),
                "-outfile", signed.toString(), "-validity", "2");
        keytool("-importcert", "-alias", "ca", "-keystore", client.toString(), "-file", caPem.toString());
        keytool("-importcert", "-alias", "client", "-keystore", client.toString(), "-file", signed.toString());
        return new ClientPki(caPem, client);
    }

    /** A client that trusts exactly the keystore's certificate. */
    private ManagedChannel tlsChannel(Path keystore) throws Exception {
        return tlsChannel(keystore, null);
    }

    /** As {@link #tlsChannel(Path)}, presenting the key and certificate of {@code clientKeystore} (PKCS12) when given. */
    private ManagedChannel tlsChannel(Path keystore, Path clientKeystore) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keystore)) {
            ks.load(in, "changeit".toCharArray());
        }
        KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
        trust.load(null, null);
        trust.setCertificateEntry("vrouter", (X509Certificate) ks.getCertificate("vrouter"));
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        TlsChannelCredentials.Builder tls = TlsChannelCredentials.newBuilder().trustManager(tmf.getTrustManagers());
        if (clientKeystore != null) tls.keyManager(Keystores.keyManagers(clientKeystore, "changeit").getKeyManagers());
        ManagedChannel c = NettyChannelBuilder.forAddress("127.0.0.1", gnmi.port(), tls.build()).build();
        channels.add(c);
        return c;
    }

    /** A plain client whose connections come from {@code source} (any 127.x address is this host's loopback). */
    private ManagedChannel plainChannelFrom(String source) {
        ManagedChannel c = NettyChannelBuilder.forAddress("127.0.0.1", gnmi.port()).usePlaintext()
                .localSocketPicker(new NettyChannelBuilder.LocalSocketPicker() {
                    @Override
                    public InetSocketAddress createSocketAddress(java.net.SocketAddress remote, io.grpc.Attributes attrs) {
                        return new InetSocketAddress(source, 0);
                    }
                }).build();
        channels.add(c);
        return c;
    }

    /** Opens an ON_CHANGE stream of vmObjects/vmNumber; its queue gets each response, and at its end the status. */
    private static BlockingQueue<Object> subscribe(ManagedChannel channel) {
        return subscribe(channel, List.of(List.of("NEW-VMM-MIB", "vmObjects", "vmNumber")));
    }

    /** Opens an ON_CHANGE stream of these paths as alice; its queue gets each response, and at its end the status. */
    private static BlockingQueue<Object> subscribe(ManagedChannel channel, List<List<String>> paths) {
        SubscriptionList.Builder list = SubscriptionList.newBuilder().setMode(SubscriptionList.Mode.STREAM);
        for (List<String> path : paths) {
            com.github.gnmi.proto.Path.Builder p = com.github.gnmi.proto.Path.newBuilder();
            for (String name : path) p.addElem(elem(name));
            list.addSubscription(Subscription.newBuilder().setPath(p).setMode(SubscriptionMode.ON_CHANGE));
        }
        return Target.subscribe(channel, list.build());
    }

    private static PathElem elem(String name) {
        return PathElem.newBuilder().setName(name).build();
    }

    /** Waits for the stream's sync_response (it is counted then), or fails with what came instead. */
    private static void awaitSync(BlockingQueue<Object> stream) throws InterruptedException {
        while (true) {
            Object next = stream.poll(30, TimeUnit.SECONDS);
            assertThat(next).as("a response within 30 s").isNotNull();
            if (next instanceof SubscribeResponse r && r.getSyncResponse()) return;
            assertThat(next).isInstanceOf(SubscribeResponse.class);
        }
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
            g.start(new ServerContext(port, s, Credentials.from(s), VrMetrics.inMemory()));
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

    @Test
    void servesTlsWithTheConfiguredKeystoreAndAPlainClientGetsNowhere() throws Exception {
        Path keystore = keystore();
        start(Map.of("user.alice", "viewer:secret", "gnmi.tls.keystore", keystore.toString(),
                "gnmi.tls.keystore-password", "changeit"));
        assertThat(gnmi.describe()).contains("over TLS");
        assertThat(capabilities(tlsChannel(keystore), "alice", "secret").getSupportedModels(0).getName())
                .isEqualTo("NEW-VMM-MIB");
        assertThatThrownBy(() -> capabilities("alice", "secret")).isInstanceOfSatisfying(StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
    }

    @Test
    void withClientCasOnlyAClientWithACertificateTheyTrustGetsIn() throws Exception {
        Path keystore = keystore();
        ClientPki pki = clientPki();
        start(Map.of("user.alice", "viewer:secret", "gnmi.tls.keystore", keystore.toString(),
                "gnmi.tls.keystore-password", "changeit", "gnmi.tls.client-ca", pki.caPem().toString()));
        assertThat(gnmi.describe()).contains("over TLS with client certificates");
        // the certificate admits the connection; the metadata still names the user
        assertThat(capabilities(tlsChannel(keystore, pki.client()), "alice", "secret").getSupportedModels(0).getName())
                .isEqualTo("NEW-VMM-MIB");
        assertThatThrownBy(() -> capabilities(tlsChannel(keystore, pki.client()), "alice", "wrong"))
                .isInstanceOfSatisfying(StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED));
        // no certificate, or one of no CA configured (the server's own, self-signed): the handshake fails
        assertThatThrownBy(() -> capabilities(tlsChannel(keystore), "alice", "secret"))
                .isInstanceOfSatisfying(StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
        assertThatThrownBy(() -> capabilities(tlsChannel(keystore, keystore), "alice", "secret"))
                .isInstanceOfSatisfying(StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
    }

    @Test
    void clientCasAreReadFromATruststoreTooAndWithoutTlsOrUnreadableStopTheStart() throws Exception {
        ClientPki pki = clientPki();
        assertThatThrownBy(() -> start(Map.of("user.alice", "viewer:secret", "gnmi.tls.client-ca", pki.caPem().toString())))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("gnmi.tls.client-ca asks for client"
                        + " certificates, which need TLS");
        Path keystore = keystore();
        Path empty = Files.writeString(dir.resolve("empty.pem"), "");
        assertThatThrownBy(() -> start(Map.of("gnmi.tls.keystore", keystore.toString(), "gnmi.tls.keystore-password",
                "changeit", "gnmi.tls.client-ca", empty.toString())))
                .isInstanceOf(IOException.class).hasMessage("gNMI could not read the client CAs " + empty + ": it holds no certificate");
        // the client's own PKCS12 holds the CA's certificate as a trusted entry: a truststore
        start(Map.of("user.alice", "viewer:secret", "gnmi.tls.keystore", keystore.toString(),
                "gnmi.tls.keystore-password", "changeit", "gnmi.tls.client-ca", pki.client().toString(),
                "gnmi.tls.client-ca-password", "changeit"));
        assertThat(capabilities(tlsChannel(keystore, pki.client()), "alice", "secret").getSupportedModels(0).getName())
                .isEqualTo("NEW-VMM-MIB");
    }

    @Test
    void restsKeystoreServesGnmiTooWhenGnmiHasNoneOfItsOwn() throws Exception {
        Path keystore = keystore();
        start(Map.of("user.alice", "viewer:secret", "rest.tls.keystore", keystore.toString(),
                "rest.tls.keystore-password", "changeit"));
        assertThat(capabilities(tlsChannel(keystore), "alice", "secret").getSupportedModels(0).getName())
                .isEqualTo("NEW-VMM-MIB");
    }

    @Test
    void withTlsAnyAddressMayBeBound() throws Exception {
        // 192.0.2.1 (documentation) is no address of this host: that the start gets as far as listening,
        // and fails there, shows that the refusal of plain gRPC off loopback no longer stops it.
        Path keystore = keystore();
        assertThatThrownBy(() -> start(Map.of("bind", "192.0.2.1", "user.alice", "operator:secret",
                "gnmi.tls.keystore", keystore.toString(), "gnmi.tls.keystore-password", "changeit")))
                .isInstanceOf(IOException.class).hasMessageContaining("gNMI could not listen on 192.0.2.1");
    }

    @Test
    void aWrongKeystorePasswordStopsTheStartWithAClearMessage() throws Exception {
        Path keystore = keystore();
        assertThatThrownBy(() -> start(Map.of("gnmi.tls.keystore", keystore.toString(), "gnmi.tls.keystore-password", "wrong")))
                .isInstanceOf(IOException.class).hasMessageContaining("gNMI could not read the keystore " + keystore);
    }

    @Test
    void oneClientAddressOpensNoMoreStreamsThanItsCapWhileAnotherStillMay() throws Exception {
        start(Map.of("user.alice", "viewer:secret", "gnmi.max-streams-per-client", "2"));
        ManagedChannel first = plainChannelFrom("127.0.0.1");
        awaitSync(subscribe(first));
        awaitSync(subscribe(first));
        BlockingQueue<Object> third = subscribe(first);
        Object refused = third.poll(30, TimeUnit.SECONDS);
        assertThat(refused).isInstanceOfSatisfying(Status.class, st -> {
            assertThat(st.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
            assertThat(st.getDescription()).isEqualTo("2 Subscribe streams are open from 127.0.0.1"
                    + " (gnmi.max-streams-per-client)");
        });
        awaitSync(subscribe(plainChannelFrom("127.0.0.2")));
    }

    /** Waits for an update of the named leaf (30 s at most), passing over what comes before it. */
    private static void awaitUpdate(BlockingQueue<Object> stream, String leaf) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < end) {
            Object next = stream.poll(1, TimeUnit.SECONDS);
            if (next instanceof SubscribeResponse r && r.getUpdate().getUpdateList().stream()
                    .anyMatch(u -> u.getPath().getElem(u.getPath().getElemCount() - 1).getName().equals(leaf))) {
                return;
            }
            assertThat(next).as("the stream goes on").isNotInstanceOf(Status.class);
        }
        throw new AssertionError("no update of " + leaf + " in 30 s");
    }

    @Test
    void onChangeOfTheConfigTableReadsARowAgainOnlyWhenTheEventsLeafChangesSayItChanged() throws Exception {
        // The core as the interface sees it, counting the reads of each VR's row.
        Map<Integer, AtomicInteger> rowReads = new ConcurrentHashMap<>();
        VirtualRouters real = service;
        port = (VirtualRouters) Proxy.newProxyInstance(VirtualRouters.class.getClassLoader(),
                new Class<?>[] {VirtualRouters.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getConfig")) rowReads.computeIfAbsent((Integer) args[0], k -> new AtomicInteger()).incrementAndGet();
                    // the caller's view reads through this proxy too
                    if (method.getName().equals("as")) return new TenantView((VirtualRouters) proxy, (Caller) args[0]);
                    if (method.isDefault()) return InvocationHandler.invokeDefault(proxy, method, args);
                    try {
                        return method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        VmConfigEntry row = new VmConfigEntry();
        row.vmName = "watched";
        int a = service.apply(ChangeSet.builder().create(row).build()).only().await(java.time.Duration.ofSeconds(10))
                .orElseThrow().orElseThrow().vmIndex;
        start(Map.of("user.alice", "viewer:secret"));
        BlockingQueue<Object> stream = subscribe(plainChannelFrom("127.0.0.1"), List.of(
                List.of("NEW-VMM-MIB", "vmConfigTable"), List.of("NEW-VMM-MIB", "vmTable", "vmEntry", "vmOperState")));
        awaitSync(stream);
        int before = rowReads.get(a).get();
        // A change on the host: an event whose leaf changes are vmOperState's alone.
        host.setPowerBehindTheBack(a, io.vrouter.core.driver.PowerState.HALTED);
        awaitUpdate(stream, "vmOperState");
        assertThat(rowReads.get(a).get()).as("the row is not read again for a change of state").isEqualTo(before);
        service.apply(ChangeSet.builder().edit(a, r -> r.vmConfigDescription = "now watched").build());
        awaitUpdate(stream, "vmConfigDescription");
        assertThat(rowReads.get(a).get()).as("read again for a change of its row").isGreaterThan(before);
    }

    @Test
    void aLinksStatusIsSentOnChange() throws Exception {
        start(Map.of("user.alice", "viewer:secret"));
        BlockingQueue<Object> stream = subscribe(plainChannelFrom("127.0.0.1"),
                List.of(List.of("NEW-VMM-MIB", "vmNetworkTable", "vmNetworkEntry", "vmNetworkLinkStatus")));
        awaitSync(stream);
        // Two VRs on a peer link, in one change: the simulated host tells each end up, as a probe would.
        ChangeSet.Builder both = ChangeSet.builder();
        for (int vr : new int[] {41, 42}) {
            VmNetworkConfigEntry end = new VmNetworkConfigEntry();
            end.vmNetworkConfigIndex = 1;
            end.vmNetworkConfigLinkType = io.vrouter.core.model.LinkType.PEER;
            end.vmNetworkConfigPeerRouter = 83 - vr;
            end.vmNetworkConfigPeerInterface = 1;
            VmConfigEntry row = new VmConfigEntry();
            row.vmIndex = vr;
            row.vmName = "linked-" + vr;
            row.vmNetworkConfigTable = List.of(end);
            both.create(row);
        }
        service.apply(both.build());
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        java.util.Set<String> up = new java.util.TreeSet<>();
        while (up.size() < 2 && System.nanoTime() < end) {
            Object next = stream.poll(1, TimeUnit.SECONDS);
            if (next instanceof Status) throw new AssertionError("the stream ended: " + next);
            if (!(next instanceof SubscribeResponse r)) continue;
            for (com.github.gnmi.proto.Update u : r.getUpdate().getUpdateList()) {
                // A leaf of an entry: the entry's keys in the notification's prefix, the value JSON.
                String value = u.getVal().getJsonVal().toStringUtf8() + u.getVal().getJsonIetfVal().toStringUtf8();
                if (!value.equals("\"up\"")) continue;
                r.getUpdate().getPrefix().getElemList().stream().filter(e -> e.getName().equals("vmNetworkEntry"))
                        .forEach(e -> up.add(e.getKeyMap().get("vmIndex")));
            }
        }
        assertThat(up).as("both ends' vmNetworkLinkStatus sent as up").hasSize(2);
    }
}
