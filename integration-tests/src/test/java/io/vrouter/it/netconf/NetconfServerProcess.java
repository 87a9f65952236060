package io.vrouter.it.netconf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
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
 * The packaged server (system property {@code vrouter.jar}) as a process of its own on free loopback
 * ports, and the NETCONF scenarios of {@code src/test/python/netconf_scenarios.py} (ncclient) run
 * against it as processes too.
 */
final class NetconfServerProcess implements AutoCloseable {
    static final Path SCENARIOS = Path.of("src/test/python/netconf_scenarios.py");
    private static final ObjectMapper JSON = new ObjectMapper();

    final int restPort = freePort();
    final int netconfPort = freePort();
    final Path log;
    private final Process process;

    NetconfServerProcess(Path dir) throws Exception {
        String jar = System.getProperty("vrouter.jar");
        if (jar == null || !Files.isRegularFile(Path.of(jar))) {
            throw new IllegalStateException("system property vrouter.jar must name the packaged server, not " + jar);
        }
        Files.createDirectories(dir);
        log = dir.resolve("server.log");
        String java = ProcessHandle.current().info().command().orElse("java");
        process = new ProcessBuilder(java, "-jar", jar, "--data-dir", dir.resolve("data").toString(),
                "--rest-port", Integer.toString(restPort), "--snmp-port", Integer.toString(freePort()),
                "--netconf-port", Integer.toString(netconfPort))
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!sshBannerSeen()) {
            if (!process.isAlive()) throw new IllegalStateException("server exited:\n" + Files.readString(log));
            if (System.nanoTime() > end) throw new IllegalStateException("no SSH banner after 60 s:\n" + Files.readString(log));
            Thread.sleep(200);
        }
    }

    /** True once the NETCONF port answers with an SSH identification string. */
    private boolean sshBannerSeen() {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), netconfPort)) {
            s.setSoTimeout(2000);
            InputStream in = s.getInputStream();
            byte[] buf = new byte[8];
            int n = in.readNBytes(buf, 0, 8);
            return n == 8 && new String(buf, StandardCharsets.US_ASCII).startsWith("SSH-2.0");
        } catch (IOException e) {
            return false;
        }
    }

    /** A command's exit status and output. */
    record Run(int exit, String out) {
        /** The JSON object a scenario prints on its last line. */
        JsonNode json() throws IOException {
            if (exit != 0) throw new AssertionError("scenario failed (exit " + exit + "):\n" + out);
            String[] lines = out.strip().split("\n");
            return JSON.readTree(lines[lines.length - 1]);
        }
    }

    /** Runs one scenario of netconf_scenarios.py against this server. */
    Run scenario(String name, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("python3", SCENARIOS.toString(), name, "--port", Integer.toString(netconfPort)));
        cmd.addAll(List.of(args));
        return run(cmd);
    }

    static Run run(List<String> cmd) throws Exception {
        Path out = Files.createTempFile("netconf-it", ".out");
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
            if (!p.waitFor(180, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError(String.join(" ", cmd) + " did not finish in 180 s:\n" + Files.readString(out));
            }
            return new Run(p.exitValue(), Files.readString(out));
        } finally {
            Files.deleteIfExists(out);
        }
    }

    /** GET on the REST interface as admin; the JSON body, or null on 404. */
    JsonNode rest(String path) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + restPort + path))
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString("admin:admin".getBytes(StandardCharsets.UTF_8)))
                .header("Accept", "application/json").timeout(Duration.ofSeconds(10)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 404) return null;
        if (r.statusCode() != 200) throw new AssertionError("GET " + path + ": " + r.statusCode() + " " + r.body());
        return JSON.readTree(r.body());
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Override
    public void close() throws Exception {
        process.destroy();
        if (!process.waitFor(15, TimeUnit.SECONDS)) process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
    }
}
