import com.sun.net.httpserver.HttpServer;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;

/**
 * The floor of REST's reads in bench.sh: the JDK's HTTP server (the one vrouter's REST runs on) with
 * a trivial handler that sends the same bytes, with no Jersey and no vrouter logic. Not part of the
 * product; run as a single-file program with the launcher's JVM settings:
 * {@code java [flags] FloorServer.java PORT DIR} serves DIR's files, read once, at /NAME.
 */
public final class FloorServer {
    private static final int SLICE = 64 * 1024;

    public static void main(String[] args) throws Exception {
        System.setProperty("sun.net.httpserver.nodelay", "true"); // as vrouter's REST interface sets it
        Path dir = Path.of(args[1]);
        Map<String, byte[]> files = new ConcurrentHashMap<>();
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(),
                Integer.parseInt(args[0])), 0);
        server.createContext("/", exchange -> {
            String name = exchange.getRequestURI().getPath().substring(1);
            byte[] body = files.computeIfAbsent(name, n -> {
                try {
                    return Files.readAllBytes(dir.resolve(n));
                } catch (Exception e) {
                    return null;
                }
            });
            exchange.getRequestBody().readAllBytes();
            if (body == null) {
                exchange.sendResponseHeaders(404, -1);
            } else {
                exchange.getResponseHeaders().set("Content-Type", "application/json");
                exchange.sendResponseHeaders(200, body.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    // in slices: the JDK copies each write into a temporary direct buffer of its size,
                    // and the launcher allows 8 MB of those in all
                    for (int off = 0; off < body.length; off += SLICE) {
                        out.write(body, off, Math.min(SLICE, body.length - off));
                    }
                }
            }
            exchange.close();
        });
        server.setExecutor(Executors.newFixedThreadPool(8));
        server.start();
        System.out.println("listening on " + server.getAddress().getPort());
    }
}
