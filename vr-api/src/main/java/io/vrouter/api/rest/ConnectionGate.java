package io.vrouter.api.rest;

import java.lang.reflect.Field;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JDK HTTP server's executor, with a cap on the connections one client address may have being
 * read or served at once.
 *
 * <p>The JDK server reads a request's line and headers on the executor's thread, so a client that
 * sends half a request line holds a thread until the request time-out closes its connection. The
 * server hands each connection with bytes to read to {@link #execute}, before reading anything: a
 * connection over its address's cap is refused there (the server closes it), so that one address
 * cannot take the threads everyone else needs. The address is read from the server's exchange, a
 * class of the JDK's {@code sun.net.httpserver} package: that needs {@code --add-opens
 * jdk.httpserver/sun.net.httpserver=ALL-UNNAMED}, which the executable jar's manifest carries.
 * Without it the cap is not applied, with a warning at start-up (docs/adr/0005).
 *
 * <p>Threads are made as connections need them, up to the server's connection cap, and die when
 * idle: an accepted connection always finds one.
 */
final class ConnectionGate implements Executor {
    private static final Logger log = LoggerFactory.getLogger(ConnectionGate.class);
    private static final Field EXCHANGE_CHANNEL = exchangeChannel();

    private final ThreadPoolExecutor pool;
    private final int perClient;
    private final Map<InetAddress, AtomicInteger> busy = new ConcurrentHashMap<>();
    private final Runnable onRefusal;

    ConnectionGate(int maxThreads, int perClient, Runnable onRefusal) {
        this.perClient = perClient;
        this.onRefusal = onRefusal;
        AtomicInteger n = new AtomicInteger();
        this.pool = new ThreadPoolExecutor(0, maxThreads, 60, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
            Thread t = new Thread(r, "rest-worker-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /** Whether the per-client cap can be applied in this JVM. */
    static boolean perClientCapAvailable() {
        return EXCHANGE_CHANNEL != null;
    }

    @Override
    public void execute(Runnable exchange) {
        InetAddress client = clientOf(exchange);
        if (client != null && !claim(client)) {
            onRefusal.run();
            log.debug("refused a connection from {}: {} already being served", client, perClient);
            throw new RejectedExecutionException("too many connections from " + client);
        }
        try {
            pool.execute(() -> {
                try {
                    exchange.run();
                } finally {
                    if (client != null) release(client);
                }
            });
        } catch (RejectedExecutionException e) {
            if (client != null) release(client);
            throw e;
        }
    }

    private boolean claim(InetAddress client) {
        AtomicInteger count = busy.computeIfAbsent(client, k -> new AtomicInteger());
        if (count.incrementAndGet() <= perClient) return true;
        release(client);
        return false;
    }

    private void release(InetAddress client) {
        busy.computeIfPresent(client, (k, count) -> count.decrementAndGet() <= 0 ? null : count);
    }

    private static InetAddress clientOf(Runnable exchange) {
        if (EXCHANGE_CHANNEL == null || EXCHANGE_CHANNEL.getDeclaringClass() != exchange.getClass()) return null;
        try {
            SocketChannel channel = (SocketChannel) EXCHANGE_CHANNEL.get(exchange);
            return channel.getRemoteAddress() instanceof InetSocketAddress a ? a.getAddress() : null;
        } catch (ReflectiveOperationException | java.io.IOException | RuntimeException e) {
            return null;
        }
    }

    private static Field exchangeChannel() {
        try {
            Field f = Class.forName("sun.net.httpserver.ServerImpl$Exchange").getDeclaredField("chan");
            f.setAccessible(true);
            return f;
        } catch (ReflectiveOperationException | RuntimeException e) {
            log.warn("REST: no cap on connections per client address ({}); run the server with --add-opens "
                    + "jdk.httpserver/sun.net.httpserver=ALL-UNNAMED, as the executable jar does", e.toString());
            return null;
        }
    }

    void shutdownNow() {
        pool.shutdownNow();
    }
}
