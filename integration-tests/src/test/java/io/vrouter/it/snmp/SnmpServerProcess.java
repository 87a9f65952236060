package io.vrouter.it.snmp;

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
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The packaged server (system property {@code vrouter.jar}) run as its own process on free loopback
 * ports, with a data directory of its own; plus the net-snmp command-line tools run as processes.
 */
final class SnmpServerProcess implements AutoCloseable {
    final int restPort;
    final int snmpPort;
    final int netconfPort;
    final Path dir;
    final Path log;
    private final Process process;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private SnmpServerProcess(Path dir, List<String> extraArgs) throws Exception {
        this.dir = dir;
        this.restPort = freeTcpPort();
        this.snmpPort = freeUdpPort();
        this.netconfPort = freeTcpPort();
        this.log = dir.resolve("server.log");
        String jar = System.getProperty("vrouter.jar");
        if (jar == null || !Files.isRegularFile(Path.of(jar))) {
            throw new IllegalStateException("system property vrouter.jar must name the packaged server, not " + jar);
        }
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>(List.of(java, "-jar", jar, "--data-dir", dir.resolve("data").toString(),
                "--rest-port", Integer.toString(restPort), "--snmp-port", Integer.toString(snmpPort),
                "--netconf-port", Integer.toString(netconfPort)));
        cmd.addAll(extraArgs);
        process = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        awaitReady();
    }

    static SnmpServerProcess start(Path dir, String... extraArgs) throws Exception {
        Files.createDirectories(dir);
        return new SnmpServerProcess(dir, List.of(extraArgs));
    }

    private void awaitReady() throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < end) {
            if (!process.isAlive()) {
                throw new IllegalStateException("server exited with " + process.exitValue() + ":\n" + Files.readString(log));
            }
            try {
                if (get("/health/ready").statusCode() == 200
                        && cli("snmpget", "-v2c", "-c", "public", "-t", "1", "-r", "0", "-On", agent(),
                        "1.3.6.1.3.7666.1.2.0").exit() == 0) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("server not ready after 60 s:\n" + Files.readString(log));
    }

    /** The agent address in net-snmp syntax. */
    String agent() {
        return "udp:127.0.0.1:" + snmpPort;
    }

    HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + restPort + path))
                .header("Authorization", basic()).header("Accept", "application/json")
                .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> post(String path, String json) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + restPort + path))
                .header("Authorization", basic()).header("Accept", "application/json")
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(10))
                .POST(HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String basic() {
        return "Basic " + Base64.getEncoder().encodeToString("admin:admin".getBytes(StandardCharsets.UTF_8));
    }

    record Result(int exit, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exit + "\nstdout: " + out + "\nstderr: " + err;
        }
    }

    /** Runs a command-line tool (net-snmp, smilint, npm) and returns what it printed. */
    static Result cli(String... cmd) throws IOException, InterruptedException {
        return cliIn(null, cmd);
    }

    static Result cliIn(Path workDir, String... cmd) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(cmd);
        if (workDir != null) pb.directory(workDir.toFile());
        // No default MIBs: the tools print numeric OIDs unless a test loads NEW-VMM-MIB itself.
        pb.environment().put("MIBS", "");
        Path out = Files.createTempFile("cli", ".out");
        Path err = Files.createTempFile("cli", ".err");
        Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException(String.join(" ", cmd) + " did not finish in 120 s");
        }
        Result r = new Result(p.exitValue(), Files.readString(out), Files.readString(err));
        Files.deleteIfExists(out);
        Files.deleteIfExists(err);
        return r;
    }

    static int freeTcpPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    static int freeUdpPort() throws IOException {
        try (DatagramSocket s = new DatagramSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Override
    public void close() throws Exception {
        process.destroy();
        if (!process.waitFor(15, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(5, TimeUnit.SECONDS);
        }
        // Keep the server's log with the test reports (the temporary directory goes away).
        Path reports = Path.of("target", "failsafe-reports");
        if (Files.isDirectory(reports)) {
            Files.copy(log, reports.resolve("snmp-server-" + snmpPort + ".log"),
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
    }
}
