import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The floor of REST's CPU in bench.sh: the JDK's HTTP server (the one vrouter's REST runs on) with
 * trivial handlers and fixed replies, no Jersey and no vrouter logic. Not part of the product; run
 * with the launcher's JVM settings: {@code FloorServer PORT DIR}.
 *
 * <p>It serves DIR's files, read once, at /NAME (the reads beside nginx), and, when DIR holds
 * {@code routes.txt}, answers the requests of the cycles with the replies recorded from vrouter in
 * the same run: one route a line, tab-separated, {@code METHOD PATH ACCEPT REPLY EVENTS}, where
 * PATH may hold {@code {i}} (a vmIndex), REPLY is a file of the status line, header lines, a blank
 * line and the body, and EVENTS a file of server-sent events (blocks separated by a blank line, the
 * vmIndex written {@code {i}}) sent to the subscribers of {@code /restconf/streams/...} for each
 * such request, as RESTCONF's stream sends a write's notifications; or {@code -}.
 */
public final class FloorServer {
    private static final int SLICE = 64 * 1024;
    /** The vmIndex of a request that has none in its path (a creation): the first in its body. */
    private static final Pattern BODY_INDEX = Pattern.compile("vmIndex\\D{1,3}(\\d+)");

    private record Reply(int status, List<String[]> headers, byte[] body) {
        static Reply read(Path file) throws IOException {
            byte[] all = Files.readAllBytes(file);
            String text = new String(all, StandardCharsets.ISO_8859_1);
            int end = text.indexOf("\n\n");
            String[] head = text.substring(0, end).split("\n");
            List<String[]> headers = new ArrayList<>();
            for (int i = 1; i < head.length; i++) {
                int colon = head[i].indexOf(':');
                headers.add(new String[] {head[i].substring(0, colon), head[i].substring(colon + 1).trim()});
            }
            byte[] body = new byte[all.length - end - 2];
            System.arraycopy(all, end + 2, body, 0, body.length);
            return new Reply(Integer.parseInt(head[0].trim()), headers, body);
        }
    }

    private record Route(String method, Pattern path, String accept, Reply reply, String[] events) {
        static Route parse(Path dir, String line) throws IOException {
            String[] f = line.split("\t");
            int at = f[1].indexOf("{i}");
            Pattern path = Pattern.compile(at < 0 ? Pattern.quote(f[1])
                    : Pattern.quote(f[1].substring(0, at)) + "(\\d+)" + Pattern.quote(f[1].substring(at + 3)));
            String[] events = f[4].equals("-") ? new String[0]
                    : Files.readString(dir.resolve(f[4])).strip().split("\n\n");
            return new Route(f[0], path, f[2], Reply.read(dir.resolve(f[3])), events);
        }
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("sun.net.httpserver.nodelay", "true"); // as vrouter's REST interface sets it
        Path dir = Path.of(args[1]);
        Map<String, byte[]> files = new ConcurrentHashMap<>();
        List<Route> routes = new ArrayList<>();
        Path table = dir.resolve("routes.txt");
        if (Files.exists(table)) {
            for (String line : Files.readAllLines(table)) {
                if (!line.isBlank()) routes.add(Route.parse(dir, line));
            }
        }
        List<BlockingQueue<byte[]>> subscribers = new CopyOnWriteArrayList<>();
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(),
                Integer.parseInt(args[0])), 0);
        server.createContext("/", exchange -> {
            String path = exchange.getRequestURI().getPath();
            byte[] request = exchange.getRequestBody().readAllBytes();
            if (path.startsWith("/restconf/streams/")) {
                stream(exchange, subscribers);
                return;
            }
            String method = exchange.getRequestMethod();
            String accept = exchange.getRequestHeaders().getFirst("Accept");
            for (Route r : routes) {
                Matcher m = r.path.matcher(path);
                if (r.method.equals(method) && r.accept.equals(accept) && m.matches()) {
                    if (r.events.length > 0) notify(r, m, request, subscribers);
                    send(exchange, r.reply);
                    return;
                }
            }
            byte[] body = files.computeIfAbsent(path.substring(1), n -> {
                try {
                    return Files.readAllBytes(dir.resolve(n));
                } catch (Exception e) {
                    return null;
                }
            });
            if (body == null) {
                exchange.sendResponseHeaders(404, -1);
            } else {
                exchange.getResponseHeaders().set("Content-Type", "application/json");
                exchange.sendResponseHeaders(200, body.length);
                write(exchange, body);
            }
            exchange.close();
        });
        server.setExecutor(Executors.newFixedThreadPool(8));
        server.start();
        System.out.println("listening on " + server.getAddress().getPort() + ", " + routes.size() + " routes");
    }

    private static void send(HttpExchange exchange, Reply reply) throws IOException {
        for (String[] h : reply.headers) exchange.getResponseHeaders().add(h[0], h[1]);
        exchange.sendResponseHeaders(reply.status, reply.body.length == 0 ? -1 : reply.body.length);
        if (reply.body.length > 0) write(exchange, reply.body);
        exchange.close();
    }

    private static void write(HttpExchange exchange, byte[] body) throws IOException {
        try (OutputStream out = exchange.getResponseBody()) {
            // in slices: the JDK copies each write into a temporary direct buffer of its size,
            // and the launcher allows 8 MB of those in all
            for (int off = 0; off < body.length; off += SLICE) {
                out.write(body, off, Math.min(SLICE, body.length - off));
            }
        }
    }

    /** The write's recorded events, with its vmIndex, to every subscriber's queue. */
    private static void notify(Route r, Matcher path, byte[] request, List<BlockingQueue<byte[]>> subscribers) {
        String index;
        if (path.groupCount() > 0) {
            index = path.group(1);
        } else {
            Matcher m = BODY_INDEX.matcher(new String(request, StandardCharsets.UTF_8));
            index = m.find() ? m.group(1) : "0";
        }
        for (String event : r.events) {
            byte[] block = (event.replace("{i}", index) + "\n\n").getBytes(StandardCharsets.UTF_8);
            for (BlockingQueue<byte[]> q : subscribers) q.offer(block);
        }
    }

    /** A server-sent event stream: each event written and flushed as it comes, a comment every 15 s. */
    private static void stream(HttpExchange exchange, List<BlockingQueue<byte[]>> subscribers) throws IOException {
        BlockingQueue<byte[]> queue = new LinkedBlockingQueue<>(10_000);
        exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
        exchange.getResponseHeaders().set("Cache-Control", "no-cache");
        exchange.sendResponseHeaders(200, 0);
        subscribers.add(queue);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(": subscribed\n\n".getBytes(StandardCharsets.UTF_8));
            out.flush();
            while (true) {
                byte[] block = queue.poll(15, TimeUnit.SECONDS);
                out.write(block == null ? ": keep-alive\n\n".getBytes(StandardCharsets.UTF_8) : block);
                out.flush();
            }
        } catch (IOException | InterruptedException gone) {
            // the subscriber closed the connection
        } finally {
            subscribers.remove(queue);
            exchange.close();
        }
    }
}
