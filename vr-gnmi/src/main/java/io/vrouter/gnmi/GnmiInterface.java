package io.vrouter.gnmi;

import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.ServerCredentials;
import io.grpc.ServerInterceptors;
import io.grpc.TlsServerCredentials;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.vrouter.core.config.Credentials;
import io.vrouter.core.config.Keystores;
import io.vrouter.core.config.Settings;
import io.vrouter.core.spi.ManagementInterface;
import io.vrouter.core.spi.ServerContext;
import io.vrouter.yang.DataGuard;
import io.vrouter.yang.datastore.Datastores;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;

/**
 * The gNMI management interface: a gRPC server (grpc-java on Netty) with the gNMI service.
 *
 * <p>Settings: {@code bind} (127.0.0.1), {@code gnmi-port} (9339; {@code off} or 0 turns gNMI off),
 * and, in the config file, {@code gnmi.tls.keystore} and {@code gnmi.tls.keystore-password} (REST's
 * {@code rest.tls.keystore} and its password when not given, so that one keystore serves both),
 * {@code gnmi.min-sample-interval} (1s: the shortest sample and heartbeat interval a collector may ask
 * for), {@code gnmi.max-streams} (64 Subscribe streams in all), {@code gnmi.max-streams-per-client}
 * (16 from one client address), {@code gnmi.max-pending} (100,000 updates waiting on one stream),
 * {@code gnmi.max-get-bytes} (4 MiB, the largest Get response) and {@code gnmi.max-leaves} (the leaves
 * all streams may hold: one per 2 KiB of the heap's maximum);
 * {@code gnmi.tls.client-ca} (and {@code gnmi.tls.client-ca-password} for a truststore): the CAs whose
 * certificates clients must present, on top of their username and password.
 * Without a keystore gNMI serves plain gRPC, and so only on a loopback address: bound anywhere else it
 * refuses to start.
 */
public final class GnmiInterface implements ManagementInterface {
    private Server server;
    private Subscriptions subscriptions;
    private ScheduledExecutorService worker;
    private String description = "gNMI (not started)";

    public GnmiInterface() {
    }

    @Override
    public String name() {
        return "gnmi";
    }

    @Override
    public void start(ServerContext context) throws IOException {
        Settings s = context.settings();
        String portSetting = s.get("gnmi-port", "9339").trim();
        if (portSetting.equals("off") || portSetting.equals("0")) {
            description = "gNMI off (gnmi-port=" + portSetting + ")";
            return;
        }
        int port = s.getInt("gnmi-port", 9339);
        InetAddress bind = InetAddress.getByName(s.get("bind", "127.0.0.1"));
        Credentials credentials = context.credentials();
        Credentials.requireLoopbackForDevelopmentDefaults(credentials.developmentDefaults(), bind, "gNMI");
        ServerCredentials tls = tls(s);
        if (tls == null && !bind.isLoopbackAddress()) {
            throw new IllegalStateException("refusing to serve gNMI on " + bind.getHostAddress() + " without TLS:"
                    + " set gnmi.tls.keystore (or rest.tls.keystore), bind to 127.0.0.1 or set gnmi-port=off");
        }
        Duration minInterval = s.getDuration("gnmi.min-sample-interval", "1s");
        int maxStreams = s.getInt("gnmi.max-streams", 64);
        int maxStreamsPerClient = s.getInt("gnmi.max-streams-per-client", 16);
        int maxPending = s.getInt("gnmi.max-pending", 100_000);
        int maxGetBytes = s.getInt("gnmi.max-get-bytes", 4 << 20);
        // A leaf held costs its path and value last sent; while it is read, queued and compared, about 2 KiB at most.
        int maxLeaves = s.getInt("gnmi.max-leaves", (int) Math.min(Integer.MAX_VALUE, Runtime.getRuntime().maxMemory() / 2048));
        if (minInterval.isNegative() || minInterval.isZero() || maxStreams < 1 || maxStreamsPerClient < 1 || maxPending < 1
                || maxGetBytes < 1 || maxLeaves < 1) {
            throw new IllegalArgumentException("settings 'gnmi.min-sample-interval', 'gnmi.max-streams',"
                    + " 'gnmi.max-streams-per-client', 'gnmi.max-pending', 'gnmi.max-get-bytes' and 'gnmi.max-leaves'"
                    + " must be positive");
        }
        worker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "gnmi-subscriptions");
            t.setDaemon(true);
            return t;
        });
        subscriptions = new Subscriptions(worker, minInterval, maxStreams, maxStreamsPerClient, maxPending, maxLeaves,
                context.metrics().registry());
        DataGuard guard = context.shared(DataGuard.class).orElse(DataGuard.NONE);
        // The application's datastores, shared with NETCONF and RESTCONF (alone, as in a test: its own).
        Datastores datastores = context.shared(Datastores.class).orElseGet(() -> new Datastores(context.service(), guard));
        GnmiService service = new GnmiService(subscriptions, datastores, maxGetBytes);
        server = NettyServerBuilder.forAddress(new InetSocketAddress(bind, port),
                        tls != null ? tls : InsecureServerCredentials.create())
                // The last interceptor given runs first: every call is counted, refused logins too.
                .addService(ServerInterceptors.intercept(service, new Authentication(credentials, context.service(), guard),
                        new RequestMetrics(context.metrics())))
                .build();
        try {
            server.start();
        } catch (IOException e) {
            close();
            throw new IOException("gNMI could not listen on " + bind.getHostAddress() + ":" + port + ": " + e.getMessage(), e);
        }
        description = "gNMI on " + bind.getHostAddress() + ":" + port() + " (gRPC " + (tls == null ? "without TLS"
                : s.get("gnmi.tls.client-ca").isPresent() ? "over TLS with client certificates" : "over TLS")
                + ", username/password metadata)";
    }

    /**
     * gRPC's TLS with the configured keystore's key and certificate, or null when none is configured;
     * with {@code gnmi.tls.client-ca}, clients must also present a certificate that it trusts.
     */
    private static ServerCredentials tls(Settings s) throws IOException {
        Optional<String> own = s.get("gnmi.tls.keystore");
        Optional<String> keystore = own.or(() -> s.get("rest.tls.keystore"));
        Optional<String> clientCa = s.get("gnmi.tls.client-ca");
        if (keystore.isEmpty()) {
            if (clientCa.isPresent()) {
                throw new IllegalArgumentException("gnmi.tls.client-ca asks for client certificates, which need TLS:"
                        + " set gnmi.tls.keystore (or rest.tls.keystore)");
            }
            return null;
        }
        String password = own.isPresent() ? s.get("gnmi.tls.keystore-password", "") : s.get("rest.tls.keystore-password", "");
        TlsServerCredentials.Builder tls = TlsServerCredentials.newBuilder();
        try {
            tls.keyManager(Keystores.keyManagers(Path.of(keystore.get()), password).getKeyManagers());
        } catch (GeneralSecurityException | IOException e) {
            throw new IOException("gNMI could not read the keystore " + keystore.get() + ": " + e.getMessage(), e);
        }
        if (clientCa.isPresent()) {
            try {
                tls.trustManager(clientCas(Path.of(clientCa.get()), s.get("gnmi.tls.client-ca-password", "")))
                        .clientAuth(TlsServerCredentials.ClientAuth.REQUIRE);
            } catch (GeneralSecurityException | IOException e) {
                throw new IOException("gNMI could not read the client CAs " + clientCa.get() + ": " + e.getMessage(), e);
            }
        }
        return tls.build();
    }

    /**
     * The trust managers of the certificates that clients' certificates must chain to: a truststore
     * (PKCS12, or JKS when its name ends in {@code .jks}) when the name ends in {@code .p12},
     * {@code .pfx} or {@code .jks}, otherwise a PEM file of certificates.
     */
    static TrustManager[] clientCas(Path file, String password) throws IOException, GeneralSecurityException {
        String name = file.getFileName().toString();
        KeyStore trusted;
        if (name.endsWith(".p12") || name.endsWith(".pfx") || name.endsWith(".jks")) {
            trusted = KeyStore.getInstance(name.endsWith(".jks") ? "JKS" : "PKCS12");
            try (InputStream in = Files.newInputStream(file)) {
                trusted.load(in, password.toCharArray());
            }
        } else {
            trusted = KeyStore.getInstance(KeyStore.getDefaultType());
            trusted.load(null, null);
            try (InputStream in = Files.newInputStream(file)) {
                int i = 0;
                for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                    trusted.setCertificateEntry("ca" + (++i), c);
                }
            }
        }
        if (trusted.size() == 0) throw new GeneralSecurityException("it holds no certificate");
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trusted);
        return tmf.getTrustManagers();
    }

    /** The TCP port the server listens on. */
    public int port() {
        return server.getPort();
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public void close() {
        if (subscriptions != null) subscriptions.close();
        if (server != null) {
            server.shutdown();
            try {
                if (!server.awaitTermination(5, TimeUnit.SECONDS)) server.shutdownNow();
            } catch (InterruptedException e) {
                server.shutdownNow();
                Thread.currentThread().interrupt();
            }
        }
        if (worker != null) worker.shutdownNow();
    }
}
