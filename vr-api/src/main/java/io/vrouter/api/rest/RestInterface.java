package io.vrouter.api.rest;

import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vrouter.core.config.Credentials;
import io.vrouter.core.config.Keystores;
import io.vrouter.core.config.Settings;
import io.vrouter.core.spi.ManagementInterface;
import io.vrouter.core.spi.ServerContext;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import org.glassfish.jersey.jdkhttp.JdkHttpHandlerContainer;
import org.glassfish.jersey.server.ContainerFactory;
import org.slf4j.LoggerFactory;

/**
 * The REST interface on the JDK's own HTTP server: HTTP/1.1 on 127.0.0.1:8080 by default, HTTPS when
 * a keystore is set.
 *
 * <p>Why not Grizzly: without its HTTP/2 add-on Grizzly stalls every request that offers an h2c
 * upgrade (the JDK's HttpClient does by default, so do generated clients and {@code curl --http2}),
 * and with the add-on about one connection in six stalled after a POST. The JDK server answers such
 * requests in HTTP/1.1, as RFC 9110 allows, and loads a fraction of the classes.
 *
 * <p>Its limits (docs/adr/0005): a time for each request to arrive, connections per client address
 * ({@link ConnectionGate}), places for API requests and for event streams ({@link AdmissionFilter}).
 */
public final class RestInterface implements ManagementInterface {
    private HttpServer server;
    private JdkHttpHandlerContainer container;
    private ConnectionGate gate;
    private String url;
    private int port;
    private Settings started;
    private BodyLimit maxBody;

    /** What a reload leaves as it was (bind is the other interfaces' too: they say it). */
    private static final String[] NEEDS_RESTART = {"rest-port", "rest.tls.", "rest.host-names", "rest.list-max-age",
        "rest.idempotency-window", "rest.idempotency-max-keys", "rest.max-connections", "rest.max-connections-per-client",
        "rest.max-event-streams", "rest.max-event-streams-per-client", "rest.request-timeout", "rest.worker-threads"};

    @Override
    public String name() {
        return "rest";
    }

    /** Kept Idempotency-Keys in a newer format stop the start-up before anything is written. */
    @Override
    public void check(Settings settings) throws Exception {
        IdempotencyKeys.check(settings.dataDir());
    }

    @Override
    public void start(ServerContext context) throws Exception {
        Settings s = context.settings();
        InetAddress bind = InetAddress.getByName(s.get("bind", "127.0.0.1"));
        Credentials.requireLoopbackForDevelopmentDefaults(context.credentials().developmentDefaults(), bind, "REST");
        Optional<String> keystore = s.get("rest.tls.keystore");
        String host = bind.getHostAddress().contains(":") ? "[" + bind.getHostAddress() + "]" : bind.getHostAddress();
        RestLimits limits = RestLimits.from(s);
        maxBody = new BodyLimit(BodyLimit.from(s));
        configureJdkServer(limits);
        container = ContainerFactory.createContainer(JdkHttpHandlerContainer.class, RestApplication.create(context, maxBody));
        InetSocketAddress address = new InetSocketAddress(bind, s.getInt("rest-port", 8080));
        if (keystore.isPresent()) {
            HttpsServer https = HttpsServer.create(address, 0);
            https.setHttpsConfigurator(new HttpsConfigurator(tls(Path.of(keystore.get()),
                    s.get("rest.tls.keystore-password", ""))));
            server = https;
        } else {
            server = HttpServer.create(address, 0);
        }
        MeterRegistry registry = context.metrics().registry();
        HttpContext root = server.createContext("/", container);
        root.getFilters().add(new AdmissionFilter(limits, maxBody, reason -> refused(registry, reason)));
        gate = new ConnectionGate(limits.threads(), limits.connectionsPerClient(),
                () -> refused(registry, "connections-per-client"));
        server.setExecutor(gate);
        server.start();
        container.getApplicationHandler().onStartup(container);
        InetSocketAddress bound = server.getAddress();
        port = bound.getPort();
        url = (keystore.isPresent() ? "https" : "http") + "://" + host + ":" + port + "/api/v1";
        started = s;
    }

    /**
     * {@code rest.max-body-bytes} changes from the next request on; the rest needs a restart: the
     * socket, TLS, the web server's threads and places and the application are set up once.
     */
    @Override
    public Runnable reload(Settings next) {
        long nextMaxBody = BodyLimit.from(next);
        started.logNeedsRestart(next, LoggerFactory.getLogger(RestInterface.class), NEEDS_RESTART);
        return () -> maxBody.take(nextMaxBody);
    }

    private static SSLContext tls(Path keystore, String password) throws Exception {
        SSLContext ssl = SSLContext.getInstance("TLS");
        ssl.init(Keystores.keyManagers(keystore, password).getKeyManagers(), null, null);
        return ssl;
    }

    /** The port it listens on, once started (useful with rest-port 0). */
    public int port() {
        return port;
    }

    @Override
    public String describe() {
        return "REST on " + url;
    }

    /**
     * The JDK server reads its limits from system properties, once, when its classes load: the first
     * REST interface of a process sets them (the only one, outside tests).
     */
    private static void configureJdkServer(RestLimits limits) {
        // Nagle's algorithm is on unless asked: with the client's delayed ACK every small response
        // would wait 40 ms.
        System.setProperty("sun.net.httpserver.nodelay", "true");
        // A request's line, headers and body must arrive within this many seconds, or the connection
        // is closed (a connection that sends nothing at all is closed after as long).
        System.setProperty("sun.net.httpserver.maxReqTime", Long.toString(limits.requestTimeout().toSeconds()));
        System.setProperty("jdk.httpserver.maxConnections", Integer.toString(limits.connections()));
        if (!ConnectionGate.perClientCapAvailable()) {
            LoggerFactory.getLogger(RestInterface.class).warn("REST: rest.max-connections-per-client is not applied");
        }
    }

    private static void refused(MeterRegistry registry, String reason) {
        Counter.builder("vrouter.rest.refused").description("REST connections and requests refused by a limit")
                .tag("reason", reason).register(registry).increment();
    }

    @Override
    public void close() {
        if (server != null) server.stop(0);
        if (container != null) container.getApplicationHandler().onShutdown(container);
        // Interrupts event streams, which end their subscriptions.
        if (gate != null) gate.shutdownNow();
    }
}
