package io.vrouter.netns;

import io.vrouter.core.driver.DriverException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs host commands as argument vectors (never through a shell), {@code ip} batches on standard
 * input, each with a timeout after which it is killed.
 */
final class Commands {
    private static final Logger log = LoggerFactory.getLogger(Commands.class);
    static final String FAILED = "HOST_COMMAND_FAILED";

    private final String ip;
    private final Duration timeout;
    private final ScheduledExecutorService watchdog;

    Commands(String ip, Duration timeout, ScheduledExecutorService watchdog) {
        this.ip = ip;
        this.timeout = timeout;
        this.watchdog = watchdog;
    }

    /** Runs {@code ip ARGS}; returns what it printed. */
    String ip(String... args) throws DriverException {
        List<String> argv = new ArrayList<>(List.of(ip));
        argv.addAll(List.of(args));
        return run(argv, null);
    }

    /**
     * Runs {@code ip [-n NETNS] [-j] -batch -} on the lines: one process for many changes. {@code ip}
     * stops at the first line that fails and says which. Every token on a line has passed
     * {@link Names}' checks, so none holds a space, a quote or a {@code #}.
     */
    String batch(String netns, boolean json, List<String> lines) throws DriverException {
        if (lines.isEmpty()) return "";
        List<String> argv = new ArrayList<>(List.of(ip));
        if (netns != null) argv.addAll(List.of("-n", netns));
        if (json) argv.add("-j");
        argv.addAll(List.of("-batch", "-"));
        return run(argv, String.join("\n", lines) + "\n");
    }

    /** Whether the namespace (null: vrouter's own) has a device of that name. */
    boolean exists(String netns, String dev) {
        try {
            batch(netns, false, List.of("link show dev " + dev));
            return true;
        } catch (DriverException e) {
            return false;
        }
    }

    /**
     * As {@link #batch}, with {@code -force}: every line is tried, and the lines that fail are logged,
     * not thrown; returns what the batch printed.
     */
    String batchForce(String netns, List<String> lines) throws DriverException {
        List<String> argv = new ArrayList<>(List.of(ip));
        if (netns != null) argv.addAll(List.of("-n", netns, "-j"));
        argv.addAll(List.of("-force", "-batch", "-"));
        return run(argv, String.join("\n", lines) + "\n", pid -> { }, false);
    }

    /** The {@code ip} command, for launchers ({@code ip netns exec}). */
    String ipCommand() {
        return ip;
    }

    /** Runs a command to completion; a non-zero exit is a {@link DriverException} carrying its error output. */
    String run(List<String> argv, String stdin) throws DriverException {
        return run(argv, stdin, pid -> { });
    }

    /** As {@link #run(List, String)}, telling {@code started} the process's pid as soon as it exists. */
    String run(List<String> argv, String stdin, LongConsumer started) throws DriverException {
        return run(argv, stdin, started, true);
    }

    private String run(List<String> argv, String stdin, LongConsumer started, boolean check) throws DriverException {
        long t0 = System.nanoTime();
        Process p;
        try {
            p = new ProcessBuilder(argv).start();
        } catch (IOException e) {
            throw new DriverException(FAILED, "cannot run " + argv.get(0) + ": " + e.getMessage(), e);
        }
        started.accept(p.pid());
        ScheduledFuture<?> kill = watchdog.schedule(p::destroyForcibly, timeout.toMillis(), TimeUnit.MILLISECONDS);
        try {
            // Batches are a few lines and print only after their last one is read, and ip's error
            // output is a line or two: written and read in turn, no stream can fill up and block.
            try (OutputStream in = p.getOutputStream()) {
                if (stdin != null) in.write(stdin.getBytes(StandardCharsets.UTF_8));
            } catch (IOException e) {
                // It exited early; its exit status and error output say why.
            }
            String out = drain(p.getInputStream());
            String error = drain(p.getErrorStream()).strip();
            int exit = p.waitFor();
            if (log.isDebugEnabled()) {
                log.debug("{} ({} ms, exit {}){}", argv, (System.nanoTime() - t0) / 1_000_000, exit,
                        stdin == null ? "" : "\n" + stdin.strip());
            }
            if (kill.isDone()) {
                throw new DriverException(FAILED, String.join(" ", argv) + " did not finish in " + timeout.toMillis() + " ms");
            }
            if (exit != 0 && !check) {
                log.warn("{}: {}", String.join(" ", argv), error.replace('\n', ' '));
            } else if (exit != 0) {
                throw new DriverException(FAILED, String.join(" ", argv.subList(0, Math.min(argv.size(), 4))) + ": "
                        + (error.isEmpty() ? "exit " + exit : error.replace('\n', ' ')));
            }
            return out;
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new DriverException(FAILED, argv.get(0) + " interrupted", e);
        } finally {
            kill.cancel(false);
        }
    }

    private static String drain(InputStream s) {
        try (s) {
            return new String(s.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }
}
