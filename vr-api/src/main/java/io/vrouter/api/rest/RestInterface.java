package io.vrouter.api.rest;

import io.vrouter.core.config.Credentials;
import io.vrouter.core.config.Settings;
import io.vrouter.core.spi.ManagementInterface;
import io.vrouter.core.spi.ServerContext;
import java.net.InetAddress;
import java.net.URI;
import java.util.Optional;
import org.glassfish.grizzly.http.server.HttpServer;
import org.glassfish.grizzly.http.server.NetworkListener;
import org.glassfish.grizzly.http2.Http2AddOn;
import org.glassfish.grizzly.http2.Http2Configuration;
import org.glassfish.grizzly.ssl.SSLContextConfigurator;
import org.glassfish.grizzly.ssl.SSLEngineConfigurator;
import org.glassfish.grizzly.threadpool.ThreadPoolConfig;
import org.glassfish.jersey.grizzly2.httpserver.GrizzlyHttpServerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The REST interface on Grizzly: HTTP on 127.0.0.1:8080 by default, HTTPS when a keystore is set. */
public final class RestInterface implements ManagementInterface {
    private static final Logger log = LoggerFactory.getLogger(RestInterface.class);

    private HttpServer server;
    private RestApplication app;
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
        URI uri = URI.create((keystore.isPresent() ? "https" : "http") + "://" + host + ":" + s.getInt("rest-port", 8080) + "/");
        app = RestApplication.create(context);
        SSLEngineConfigurator tls = keystore.map(path -> {
            SSLContextConfigurator ssl = new SSLContextConfigurator();
            ssl.setKeyStoreFile(path);
            ssl.setKeyStorePass(s.get("rest.tls.keystore-password", ""));
            return new SSLEngineConfigurator(ssl.createSSLContext(true)).setClientMode(false).setNeedClientAuth(false);
        }).orElse(null);
        server = GrizzlyHttpServerFactory.createHttpServer(uri, app.config(), tls != null, tls, false);
        for (NetworkListener l : server.getListeners()) {
            l.registerAddOn(new Http2AddOn(Http2Configuration.builder().build()));
            // A small fixed pool: management traffic is light, and every thread costs memory.
            int workers = s.getInt("rest.worker-threads", 8);
            l.getTransport().setWorkerThreadPoolConfig(ThreadPoolConfig.defaultConfig()
                    .setPoolName("rest-worker").setCorePoolSize(workers).setMaxPoolSize(workers));
        }
        server.start();
        port = server.getListeners().iterator().next().getPort();
        url = uri.getScheme() + "://" + host + ":" + port + "/api/v1";
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
        if (server != null) server.shutdownNow();
        try {
            if (app != null) app.close();
        } catch (Exception e) {
            log.warn("closing the event relay failed", e);
        }
    }
}
