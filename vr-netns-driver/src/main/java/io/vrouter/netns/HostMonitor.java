package io.vrouter.netns;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows the host without polling it: one {@code ip -o monitor all-nsid link address route}
 * process reports netlink events of the host and of every namespace that has an nsid, and an
 * inotify watch on {@code /run/netns} reports namespaces deleted. The monitor is restarted when it
 * dies; whatever may have been missed meanwhile (or when the kernel dropped events, ENOBUFS) is
 * reported as {@link Sink#resync}, so that the driver reads everything again.
 */
final class HostMonitor implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(HostMonitor.class);
    static final Path NETNS_DIR = Path.of("/run/netns");
    /** {@code [nsid current]Deleted 10: vr5-1@if2: <...>} or {@code [nsid 3]...}. */
    private static final Pattern LINE = Pattern.compile("\\[nsid (current|\\d+)\\](.*)");
    private static final Pattern LINK = Pattern.compile("(?:Deleted )?\\d+: ([^:@\\s]+)(?:@\\S+)?: <.*");

    /** Where events go; called on the monitor's threads. */
    interface Sink {
        /** A link of the host's own namespace changed or went away. */
        void hostLinkChanged(String name);

        /** Something changed inside the namespace with this nsid. */
        void netnsChanged(int nsid);

        /** A namespace's name was deleted. */
        void netnsRemoved(String name);

        /** Events may have been missed: read everything again. */
        void resync();

        /** Why events cannot be followed now, or null once they can again. */
        void problem(String why);
    }

    private final String ip;
    private final Sink sink;
    private volatile boolean closed;
    private volatile Process process;
    private WatchService watch;
    private Thread reader;
    private Thread watcher;

    HostMonitor(String ip, Sink sink) {
        this.ip = ip;
        this.sink = sink;
    }

    void start() throws IOException {
        Files.createDirectories(NETNS_DIR);
        watch = FileSystems.getDefault().newWatchService();
        NETNS_DIR.register(watch, StandardWatchEventKinds.ENTRY_DELETE);
        watcher = daemon("netns-watch", this::watchNetnsDir);
        Object started = new Object();
        synchronized (started) {
            reader = daemon("netns-monitor", () -> follow(started));
            try {
                started.wait(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static Thread daemon(String name, Runnable r) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private void follow(Object started) {
        long pause = 100;
        boolean first = true;
        while (!closed) {
            try {
                Process p = new ProcessBuilder(List.of(ip, "-o", "monitor", "all-nsid", "link", "address", "route"))
                        .redirectError(ProcessBuilder.Redirect.PIPE).start();
                process = p;
                daemon("netns-monitor-errors", () -> errors(p));
                if (first) {
                    first = false;
                    synchronized (started) {
                        started.notifyAll();
                    }
                } else {
                    sink.problem(null);
                    sink.resync();
                }
                try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = in.readLine()) != null) {
                        pause = 100;
                        dispatch(line);
                    }
                }
                if (closed) return;
                sink.problem("the netlink monitor (ip monitor) exited with " + p.waitFor());
            } catch (IOException e) {
                if (closed) return;
                sink.problem("the netlink monitor (ip monitor) failed: " + e.getMessage());
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                log.error("netlink monitor: unexpected failure", e);
            }
            if (first) {
                synchronized (started) {
                    started.notifyAll();
                }
            }
            try {
                Thread.sleep(pause);
            } catch (InterruptedException e) {
                return;
            }
            pause = Math.min(pause * 2, 5000);
        }
    }

    private void errors(Process p) {
        try (BufferedReader err = new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = err.readLine()) != null) {
                log.warn("ip monitor: {}", line);
                // The kernel dropped events for a slow reader (ENOBUFS): ip goes on, the driver reads again.
                if (line.contains("No buffer space")) sink.resync();
            }
        } catch (IOException e) {
            // the process is gone
        }
    }

    /** Hands one line to the sink; package-visible for tests of the parsing. */
    void dispatch(String line) {
        Matcher m = LINE.matcher(line);
        if (!m.matches()) return;
        if (m.group(1).equals("current")) {
            Matcher l = LINK.matcher(m.group(2));
            if (l.matches()) sink.hostLinkChanged(l.group(1));
        } else {
            sink.netnsChanged(Integer.parseInt(m.group(1)));
        }
    }

    private void watchNetnsDir() {
        while (!closed) {
            WatchKey key;
            try {
                key = watch.take();
            } catch (InterruptedException | ClosedWatchServiceException e) {
                return;
            }
            for (WatchEvent<?> e : key.pollEvents()) {
                if (e.kind() == StandardWatchEventKinds.OVERFLOW) sink.resync();
                else sink.netnsRemoved(e.context().toString());
            }
            if (!key.reset()) {
                sink.problem(NETNS_DIR + " can no longer be watched");
                return;
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        Process p = process;
        if (p != null) p.destroy();
        try {
            if (watch != null) watch.close();
        } catch (IOException e) {
            log.debug("closing the watch service: {}", e.getMessage());
        }
        if (reader != null) reader.interrupt();
        if (watcher != null) watcher.interrupt();
    }
}
