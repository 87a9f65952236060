import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

/**
 * The floor of the whole server's resident memory (issue 16): a JVM started by bin/vrouter (so with the
 * product's JVM settings) on the server's own jar that loads and initialises the library and JDK classes
 * the real server had loaded after the benchmark's mixed workload, runs as many threads as the server did
 * and holds as much live heap as the server did after a full GC, and runs none of vrouter's code: what a
 * JVM with this set of libraries in it costs before any product logic.
 *
 * <p>Run by the benchmark (vrbench) from a jar whose manifest puts the server's jar on its class path, so
 * both load from the application class loader as the server's classes do:
 * {@code VROUTER_JAR=floor.jar bin/vrouter CLASS_LIST THREADS HEAP_BYTES}. CLASS_LIST holds one binary
 * class name a line (vrouter's own left out by the benchmark). It prints "ready" with what it loaded and
 * holds, then runs until killed.
 */
public final class FootprintFloor {
    private static final int CHUNK = 16 * 1024;
    private static volatile List<byte[]> ballast; // the server's live heap, held: the VRs and the libraries' objects

    public static void main(String[] args) throws Exception {
        List<String> names = Files.readAllLines(Path.of(args[0]));
        int threads = Integer.parseInt(args[1]);
        long heap = Long.parseLong(args[2]);

        ClassLoader loader = ClassLoader.getSystemClassLoader();
        int loaded = 0;
        int generated = 0;
        int failed = 0;
        for (String name : names) {
            try {
                // initialised too: a library's static state is part of what having it costs
                Class.forName(name, true, loader);
                loaded++;
            } catch (ClassNotFoundException e) {
                generated++; // made at run time (lambdas, proxies, reflection accessors): not loadable by name
            } catch (LinkageError | RuntimeException | ServiceConfigurationError e) {
                // a static initialiser that needs the product's set-up (the class is loaded all the same), or a
                // missing optional dependency; or a service it looks up whose own initialiser failed before
                // (java.lang.management's, after sun.management.VMManagementImpl's: it depends on the list's order)
                failed++;
            }
        }

        int started = 0;
        for (long have = threadCount(); have < threads; have++) {
            Thread t = new Thread(() -> {
                while (true) {
                    LockSupport.park();
                }
            }, "floor-idle-" + started++);
            t.setDaemon(true);
            t.start();
        }

        Runtime rt = Runtime.getRuntime();
        rt.gc();
        long own = rt.totalMemory() - rt.freeMemory();
        List<byte[]> held = new ArrayList<>();
        for (long n = own; n < heap; n += CHUNK + 16) {
            held.add(new byte[CHUNK]);
        }
        ballast = held;
        rt.gc();
        System.out.printf("ready: %d classes loaded, %d generated at run time, %d failed to load or initialise; %d threads "
                + "(%d idle ones started); heap in use after GC %d bytes (%d of them held)%n", loaded, generated, failed,
                threadCount(), started, rt.totalMemory() - rt.freeMemory(), (long) held.size() * CHUNK);
        System.out.flush();
        Thread.currentThread().join();
    }

    private static long threadCount() throws IOException {
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            return tasks.count();
        }
    }
}
