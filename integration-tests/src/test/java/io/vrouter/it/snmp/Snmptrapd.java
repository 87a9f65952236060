package io.vrouter.it.snmp;

import io.vrouter.it.ServerProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** net-snmp's snmptrapd on a free loopback port, logging every v2c trap (community public) to a file, numerically. */
final class Snmptrapd implements AutoCloseable {
    final int port;
    private final Path log;
    private final Process process;

    private Snmptrapd(int port, Path log, Process process) {
        this.port = port;
        this.log = log;
        this.process = process;
    }

    /** Starts it with its files in {@code dir}, and returns once it listens. */
    static Snmptrapd start(Path dir) throws Exception {
        int port = ServerProcess.freeUdpPort();
        Path log = dir.resolve("traps.log");
        Path conf = dir.resolve("snmptrapd.conf");
        Files.writeString(conf, "authCommunity log public\n");
        ProcessBuilder pb = new ProcessBuilder("snmptrapd", "-f", "-Lf", log.toString(), "-On", "-C", "-c",
                conf.toString(), "udp:127.0.0.1:" + port);
        pb.environment().put("MIBS", "");
        Snmptrapd t = new Snmptrapd(port, log, pb.redirectErrorStream(true).redirectOutput(dir.resolve("snmptrapd.out").toFile()).start());
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!t.log().contains("NET-SNMP version")) {
            if (System.nanoTime() > end) throw new AssertionError("snmptrapd did not start");
            Thread.sleep(100);
        }
        return t;
    }

    /** The server's option that sends it the notifications. */
    String target() {
        return "udp:127.0.0.1:" + port;
    }

    /** What it has logged so far: a line per trap. */
    String log() {
        try {
            return Files.exists(log) ? Files.readString(log) : "";
        } catch (IOException beingWritten) {
            return "";
        }
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        process.waitFor(10, TimeUnit.SECONDS);
    }
}
