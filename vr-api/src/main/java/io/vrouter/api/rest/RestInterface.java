package io.vrouter.api.rest;

import com.sun.net.httpserver.HttpServer;
import io.vrouter.core.config.Credentials;
import io.vrouter.core.config.Settings;
import io.vrouter.core.spi.ManagementInterface;
import io.vrouter.core.spi.ServerContext;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.glassfish.jersey.jdkhttp.JdkHttpServerFactory;

/**
 * The REST interface on the JDK's own HTTP server: HTTP/1.1 on 127.0.0.1:8080 by default, HTTPS when
 * a keystore is set.
 *
 * <p>Why not Grizzly: without its HTTP/2 add-on Grizzly stalls every request that offers an h2c
 * upgrade (the JDK's HttpClient does by default, so do generated clients and {@code curl --http2}),
 * and with the add-on about one connection in six stalled after a POST. The JDK server answers such
 * requests in HTTP/1.1, as RFC 9110 allows, and loads a fraction of the classes.
 */
public final class RestInterface implements ManagementInterface {
    private HttpServer server;
    private ExecutorService workers;
    private String url;
    private int port;

    @Override
    public String name() {
        return "rest";
    }

    @Override
    public void start(ServerContext context) throws Exception {
        Settings s = context.settings();
        InetAddress bind = InetAddress.getByName(s.get("bind", "127.0.0.1"));
        Credentials.requireLoopbackForDevelopmentDefaults(context.credentials().developmentDefaults(), bind, "REST");
        Optional<String> keystore = s.get("rest.tls.keystore");
        String host = bind.getHostAddress().contains(":") ? "[" + bind.getHostAddress() + "]" : bind.getHostAddress();
        java.net.URI uri = java.net.URI.create((keystore.isPresent() ? "https" : "http") + "://" + host + ":"
                + s.getInt("rest-port", 8080) + "/");
        // The JDK server leaves Nagle's algorithm on: with the client's delayed ACK every small
        // response would wait 40 ms. Read once, when the server's configuration class loads.
        System.setProperty("sun.net.httpserver.nodelay", "true");
        var app = RestApplication.create(context);
        server = keystore.isPresent()
                ? JdkHttpServerFactory.createHttpServer(uri, app, tls(Path.of(keystore.get()),
                        s.get("rest.tls.keystore-password", "")), false)
                : JdkHttpServerFactory.createHttpServer(uri, app, false);
        // Threads are made as requests and event streams need them, up to the cap, and die when idle:
        // management traffic is light, every thread costs memory, and each event subscriber holds one.
        int threads = s.getInt("rest.worker-threads", 64);
        AtomicInteger n = new AtomicInteger();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(2, threads, 60, TimeUnit.SECONDS, new SynchronousQueue<>(),
                r -> {
                    Thread t = new Thread(r, "rest-worker-" + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        workers = pool;
        server.setExecutor(workers);
        server.start();
        InetSocketAddress bound = server.getAddress();
        port = bound.getPort();
        url = uri.getScheme() + "://" + host + ":" + port + "/api/v1";
    }

    private static SSLContext tls(Path keystore, String password) throws Exception {
        KeyStore ks = KeyStore.getInstance(keystore.toString().endsWith(".jks") ? "JKS" : "PKCS12");
        try (InputStream in = Files.newInputStream(keystore)) {
            ks.load(in, password.toCharArray());
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, password.toCharArray());
        SSLContext ssl = SSLContext.getInstance("TLS");
        ssl.init(kmf.getKeyManagers(), null, null);
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

    @Override
    public void close() {
        if (server != null) server.stop(0);
        // Interrupts event streams, which end their subscriptions.
        if (workers != null) workers.shutdownNow();
    }
}
