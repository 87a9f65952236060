package io.vrouter.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.DatagramSocket;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The packaged server (system property {@code vrouter.jar}) run as a process of its own on free
 * loopback ports with its own data directory, as an operator runs it; plus a runner for the
 * third-party command-line clients the tests drive.
 */
public final class ServerProcess implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    public final Path dir;
    public final Path dataDir;
    /** The address every interface of the server listens on, and its clients reach it at. */
    public final String host;
    /** Chosen again when the first start finds one of them taken (see {@link #start}). */
    public int restPort;
    public int snmpPort;
    public int netconfPort;
    public int gnmiPort;
    private final List<String> extraArgs;
    /** Environment variables the launcher gets besides the jar and Java's (JAVA_OPTS, say). */
    private final java.util.Map<String, String> env;
    /** A command the launcher runs under (nohup), or none. */
    private final List<String> wrapper;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private Process process;
    private Path log;
    private int starts;

    private ServerProcess(Path dir, int restPort, List<String> extraArgs, List<String> wrapper, String host,
                          java.util.Map<String, String> env) throws IOException {
        this.dir = dir;
        this.host = host;
        this.dataDir = dir.resolve("data");
        this.restPort = restPort;
        this.snmpPort = freeUdpPort();
        this.netconfPort = freeTcpPort();
        this.gnmiPort = freeTcpPort();
        this.extraArgs = extraArgs;
        this.wrapper = List.copyOf(wrapper);
        this.env = java.util.Map.copyOf(env);
    }

    /** Starts a server in the directory (its data directory is {@code dir/data}) and waits until it is ready. */
    public static ServerProcess start(Path dir, String... extraArgs) throws Exception {
        return start(dir, freeTcpPort(), extraArgs);
    }

    /** Starts a server as {@link #start(Path, String...)} does, under a command such as {@code nohup}. */
    static ServerProcess startUnder(List<String> wrapper, Path dir, String... extraArgs) throws Exception {
        return start(wrapper, "127.0.0.1", dir, freeTcpPort(), extraArgs);
    }

    /**
     * Starts a server as if on another router: inside a network namespace, its /sys that namespace's
     * (src/test/sh/in-router-netns.sh), listening on an address of it that this process reaches (the
     * settings must name users: the development credentials keep to loopback).
     */
    public static ServerProcess startIn(String netns, String address, Path dir, String... extraArgs) throws Exception {
        List<String> args = new ArrayList<>(List.of("--bind", address));
        args.addAll(List.of(extraArgs));
        return start(List.of(Path.of("src/test/sh/in-router-netns.sh").toAbsolutePath().toString(), netns), address, dir,
                freeTcpPort(), args.toArray(String[]::new));
    }

    /**
     * The same, with REST on the given port to begin with. A port free a moment ago may be taken
     * by the time the server binds it (by any process of the machine: another build's client
     * connection, say; seen as SnmpV3NotificationIT's "Address already in use" under load), so a
     * first start that finds a port taken tries again on others.
     */
    static ServerProcess start(Path dir, int restPort, String... extraArgs) throws Exception {
        return start(List.of(), "127.0.0.1", dir, restPort, extraArgs);
    }

    /** Starts a server as {@link #start(Path, String...)} does, the launcher given these environment variables too. */
    public static ServerProcess startWithEnv(java.util.Map<String, String> env, Path dir, String... extraArgs) throws Exception {
        return start(List.of(), "127.0.0.1", dir, freeTcpPort(), env, extraArgs);
    }

    private static ServerProcess start(List<String> wrapper, String host, Path dir, int restPort, String... extraArgs) throws Exception {
        return start(wrapper, host, dir, restPort, java.util.Map.of(), extraArgs);
    }

    private static ServerProcess start(List<String> wrapper, String host, Path dir, int restPort,
                                       java.util.Map<String, String> env, String... extraArgs) throws Exception {
        Files.createDirectories(dir);
        ServerProcess s = new ServerProcess(dir, restPort, List.of(extraArgs), wrapper, host, env);
        for (int attempt = 1; ; attempt++) {
            try {
                s.launch();
                return s;
            } catch (PortTaken e) {
                if (attempt == 3) throw e;
                s.restPort = freeTcpPort();
                s.snmpPort = freeUdpPort();
                s.netconfPort = freeTcpPort();
                s.gnmiPort = freeTcpPort();
            }
        }
    }

    /** The server stopped at start-up because one of its ports was taken. */
    private static final class PortTaken extends IllegalStateException {
        PortTaken(String message) {
            super(message);
        }
    }

    private void launch() throws Exception {
        String jar = System.getProperty("vrouter.jar");
        if (jar == null || !Files.isRegularFile(Path.of(jar))) {
            throw new IllegalStateException("system property vrouter.jar must name the packaged server, not " + jar);
        }
        // As the README starts it: the launcher with the product's JVM settings, on the JDK running the tests.
        Path launcher = Path.of("..", "bin", "vrouter").toAbsolutePath().normalize();
        List<String> cmd = new ArrayList<>(wrapper);
        cmd.addAll(List.of(launcher.toString(), "--data-dir", dataDir.toString()));
        // A test that sets a port itself (off, say) says so once: the launcher refuses an option twice.
        for (String option : new String[] {"--rest-port", "--snmp-port", "--netconf-port", "--gnmi-port"}) {
            if (extraArgs.contains(option)) continue;
            int port = switch (option) {
                case "--rest-port" -> restPort;
                case "--snmp-port" -> snmpPort;
                case "--netconf-port" -> netconfPort;
                default -> gnmiPort;
            };
            cmd.addAll(List.of(option, Integer.toString(port)));
        }
        cmd.addAll(extraArgs);
        // Without REST there is no /health/ready: ready once the server logs that it started.
        boolean restOff = extraArgs.indexOf("--rest-port") >= 0
                && extraArgs.get(extraArgs.indexOf("--rest-port") + 1).equals("off");
        log = dir.resolve("server-" + (++starts) + ".log");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("VROUTER_JAR", jar);
        pb.environment().put("JAVA_HOME", Path.of(System.getProperty("java.home")).toString());
        pb.environment().putAll(env);
        process = pb.start();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < end) {
            if (!process.isAlive()) {
                String output = Files.readString(log);
                String message = "server exited with " + process.exitValue() + ":\n" + output;
                if (output.contains("Address already in use") || output.contains("could not listen")) {
                    throw new PortTaken(message);
                }
                throw new IllegalStateException(message);
            }
            try {
                if (restOff ? Files.readString(log).contains("vrouter started in") : get("/health/ready").statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("server not ready after 60 s:\n" + Files.readString(log));
    }

    /** The server's process id (the launcher execs the JVM), for signals. */
    public long pid() {
        return process.pid();
    }

    /** Kills the server as {@code kill -9} does: no shutdown hook, nothing flushed. */
    public void kill9() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    /** Starts the server again on the same ports and data directory. */
    public void restart() throws Exception {
        if (process.isAlive()) stop();
        launch();
    }

    /** Stops the server with SIGTERM and returns its exit code. */
    public int stop() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(5, TimeUnit.SECONDS);
        }
        return process.exitValue();
    }

    public String log() throws IOException {
        return Files.readString(log);
    }

    public String restBase() {
        return "http://" + host + ":" + restPort;
    }

    public HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return send(request(path).GET());
    }

    /** The Prometheus text of /metrics (no Accept: JSON, no credentials). */
    public String metrics() throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(restBase() + "/metrics")).timeout(Duration.ofSeconds(30))
                .build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    public HttpResponse<String> post(String path, String json) throws IOException, InterruptedException {
        return send(request(path).header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    /** A POST answered within {@code timeout} (a move under TCG, say), not the 30 s of the others. */
    public HttpResponse<String> post(String path, String json, Duration timeout) throws IOException, InterruptedException {
        return send(request(path).timeout(timeout).header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    /** A POST with an Idempotency-Key. */
    public HttpResponse<String> postWithKey(String path, String key, String json) throws IOException, InterruptedException {
        return send(request(path).header("Content-Type", "application/json").header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    public HttpResponse<String> patch(String path, String json) throws IOException, InterruptedException {
        return send(request(path).header("Content-Type", "application/json").method("PATCH", HttpRequest.BodyPublishers.ofString(json)));
    }

    public HttpResponse<String> delete(String path) throws IOException, InterruptedException {
        return send(request(path).DELETE());
    }

    /** A VR as REST shows it; it must exist. */
    public JsonNode router(int vmIndex) throws IOException, InterruptedException {
        HttpResponse<String> r = get("/api/v1/routers/" + vmIndex);
        if (r.statusCode() != 200) throw new AssertionError("GET VR " + vmIndex + ": " + r.statusCode() + " " + r.body());
        return JSON.readTree(r.body());
    }

    /** Reads the VR over REST until {@code done} holds, for a minute at most. */
    public JsonNode awaitRouter(int vmIndex, Predicate<JsonNode> done, String what) throws IOException, InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        JsonNode last = null;
        while (System.nanoTime() < end) {
            last = router(vmIndex);
            if (done.test(last)) return last;
            Thread.sleep(50);
        }
        throw new AssertionError("VR " + vmIndex + " never " + what + ": " + last);
    }

    public static String operState(JsonNode vr) {
        return vr.path("vmEntry").path("vmOperState").asText();
    }

    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create(restBase() + path)).timeout(Duration.ofSeconds(30))
                .header("Accept", "application/json")
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString("admin:admin".getBytes(StandardCharsets.UTF_8)));
    }

    private HttpResponse<String> send(HttpRequest.Builder b) throws IOException, InterruptedException {
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** What a command printed. */
    public record Result(int exit, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exit + "\nstdout: " + out + "\nstderr: " + err;
        }
    }

    /** Runs a command-line client to completion (two minutes at most). */
    public static Result run(List<String> cmd) throws IOException, InterruptedException {
        return run(cmd, null);
    }

    /** Runs a command-line client in a directory (null: this one), for a client that leaves files behind. */
    public static Result run(List<String> cmd, Path workDir) throws IOException, InterruptedException {
        Path out = Files.createTempFile("cli", ".out");
        Path err = Files.createTempFile("cli", ".err");
        try {
            Process p = new ProcessBuilder(cmd).directory(workDir == null ? null : workDir.toFile())
                    .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(String.join(" ", cmd) + " did not finish in 120 s");
            }
            return new Result(p.exitValue(), Files.readString(out), Files.readString(err));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    public static int freeTcpPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    public static int freeUdpPort() throws IOException {
        try (DatagramSocket s = new DatagramSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** Stops the server and keeps its logs with the test reports, since the test's directory goes away. */
    @Override
    public void close() throws Exception {
        if (process != null && process.isAlive()) stop();
        Path reports = Path.of("target", "failsafe-reports");
        if (Files.isDirectory(reports)) {
            for (int i = 1; i <= starts; i++) {
                Path l = dir.resolve("server-" + i + ".log");
                if (Files.exists(l)) {
                    Files.copy(l, reports.resolve(dir.getFileName() + "-server-" + i + ".log"), StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }
}
