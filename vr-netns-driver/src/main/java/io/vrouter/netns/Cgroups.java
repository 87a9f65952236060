package io.vrouter.netns;

import io.vrouter.core.driver.DriverException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A cgroup per VR, {@code PARENT/NETNS}, holding the VR's processes (its routing daemon): CPU quota
 * and memory limit from vmConfigCpuNumber and vmConfigMemory, CPU and memory accounting for the
 * state tables, the freezer for pause. cgroup v2 where the host has it, v1 otherwise.
 */
abstract class Cgroups {
    static final long PERIOD_US = 100_000;

    /** CPU time used in all (nanoseconds) and per host CPU (empty where the host does not say), memory in use. */
    record Usage(long cpuNanos, long[] perCpuNanos, long memoryBytes) {
        static final Usage NONE = new Usage(0, new long[0], 0);
    }

    protected final String parent;

    Cgroups(String parent) {
        this.parent = parent;
    }

    /** The host's cgroups: v2 when {@code /sys/fs/cgroup} is the unified hierarchy, else the v1 controllers. */
    static Cgroups detect(String parent) throws DriverException {
        Path root = Path.of("/sys/fs/cgroup");
        if (Files.exists(root.resolve("cgroup.controllers"))) return new V2(root, parent);
        return V1.fromMounts(parent);
    }

    abstract String describe();

    /** Creates the VR's cgroup (idempotent) and sets its limits. */
    abstract void create(String name, int cpus, int memoryMib) throws IOException;

    abstract void limit(String name, int cpus, int memoryMib) throws IOException;

    /** Sets the VR's CPU weight under contention (vmConfigCpuWeight, 1..10000, 100 the default). */
    abstract void weight(String name, int weight) throws IOException;

    /** Moves a process (and its threads) into the VR's cgroup. */
    abstract void join(String name, long pid) throws IOException;

    /** The processes in the VR's cgroup; none when it does not exist. */
    abstract Set<Long> pids(String name);

    /** Freezes or thaws the VR's processes and waits until the kernel says it is done. */
    abstract void freeze(String name, boolean frozen) throws IOException;

    abstract boolean frozen(String name);

    abstract Usage usage(String name);

    /** The cgroup's directories, one per hierarchy. */
    abstract List<Path> dirs(String name);

    boolean exists(String name) {
        return dirs(name).stream().anyMatch(Files::isDirectory);
    }

    /** Removes the VR's cgroup (its processes must be gone), and the parent when no VR is left in it. */
    void remove(String name) throws IOException {
        for (Path d : dirs(name)) {
            rmdir(d);
            try {
                Files.deleteIfExists(d.getParent());
            } catch (FileSystemException busy) {
                // Another VR's cgroup is in it (EBUSY or ENOTEMPTY, depending on the kernel).
            }
        }
    }

    private static void rmdir(Path d) throws IOException {
        for (int i = 0; ; i++) {
            try {
                Files.deleteIfExists(d);
                return;
            } catch (FileSystemException busy) {
                // A killed process leaves its cgroup a moment after it is reaped.
                if (i >= 50) throw busy;
                sleep(10);
            }
        }
    }

    /** Creates a cgroup directory and its parent; another VR's removal may take the parent away in between. */
    static void mkdirs(Path dir) throws IOException {
        for (int i = 0; ; i++) {
            try {
                Files.createDirectories(dir);
                return;
            } catch (NoSuchFileException raced) {
                if (i >= 5) throw raced;
            }
        }
    }

    static void write(Path file, String value) throws IOException {
        Files.writeString(file, value, StandardCharsets.US_ASCII);
    }

    static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.US_ASCII).strip();
        } catch (IOException e) {
            return "";
        }
    }

    static long readLong(Path file) {
        String s = read(file);
        try {
            return s.isEmpty() || s.equals("max") ? 0 : Long.parseLong(s);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    static Set<Long> readPids(Path file) {
        Set<Long> pids = new LinkedHashSet<>();
        for (String line : read(file).split("\n")) {
            if (!line.isBlank()) pids.add(Long.parseLong(line.trim()));
        }
        return pids;
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ---------------------------------------------------------------- cgroup v1

    /** One hierarchy per controller (cpu, cpuacct, memory, freezer), each possibly mounted with others. */
    static final class V1 extends Cgroups {
        static final List<String> NEEDED = List.of("cpu", "cpuacct", "memory", "freezer");
        private final Map<String, Path> mounts;

        V1(Map<String, Path> mounts, String parent) {
            super(parent);
            this.mounts = mounts;
        }

        static V1 fromMounts(String parent) throws DriverException {
            Map<String, Path> found = new LinkedHashMap<>();
            try {
                for (String line : Files.readAllLines(Path.of("/proc/self/mounts"))) {
                    String[] f = line.split(" ");
                    if (f.length < 4 || !f[2].equals("cgroup")) continue;
                    for (String opt : f[3].split(",")) {
                        if (NEEDED.contains(opt)) found.putIfAbsent(opt, Path.of(f[1]));
                    }
                }
            } catch (IOException e) {
                throw new DriverException("NO_CGROUPS", "cannot read /proc/self/mounts: " + e.getMessage(), e);
            }
            List<String> missing = new ArrayList<>(NEEDED);
            missing.removeAll(found.keySet());
            if (!missing.isEmpty()) {
                throw new DriverException("NO_CGROUPS", "--driver netns needs the cgroup controllers " + String.join(", ", NEEDED)
                        + " (v1) or a cgroup v2 hierarchy at /sys/fs/cgroup; this host lacks " + String.join(", ", missing));
            }
            return new V1(found, parent);
        }

        private Path dir(String controller, String name) {
            return mounts.get(controller).resolve(parent).resolve(name);
        }

        @Override
        String describe() {
            return "cgroup v1 (" + String.join(", ", mounts.keySet()) + ")";
        }

        @Override
        List<Path> dirs(String name) {
            Set<Path> dirs = new LinkedHashSet<>();
            for (String c : NEEDED) dirs.add(dir(c, name));
            return new ArrayList<>(dirs);
        }

        @Override
        void create(String name, int cpus, int memoryMib) throws IOException {
            for (Path d : dirs(name)) mkdirs(d);
            limit(name, cpus, memoryMib);
        }

        @Override
        void limit(String name, int cpus, int memoryMib) throws IOException {
            write(dir("cpu", name).resolve("cpu.cfs_period_us"), Long.toString(PERIOD_US));
            write(dir("cpu", name).resolve("cpu.cfs_quota_us"), Long.toString(cpus * PERIOD_US));
            write(dir("memory", name).resolve("memory.limit_in_bytes"), Long.toString((long) memoryMib << 20));
        }

        @Override
        void join(String name, long pid) throws IOException {
            for (Path d : dirs(name)) write(d.resolve("cgroup.procs"), Long.toString(pid));
        }

        /** cgroup v1 has cpu.shares, 1024 the default: weight 100 is 1024 shares (at least 2, the kernel's least). */
        @Override
        void weight(String name, int weight) throws IOException {
            write(dir("cpu", name).resolve("cpu.shares"), Long.toString(Math.max(2, weight * 1024L / 100)));
        }

        @Override
        Set<Long> pids(String name) {
            return readPids(dir("freezer", name).resolve("cgroup.procs"));
        }

        @Override
        void freeze(String name, boolean frozen) throws IOException {
            Path state = dir("freezer", name).resolve("freezer.state");
            String want = frozen ? "FROZEN" : "THAWED";
            write(state, want);
            for (int i = 0; i < 200 && !read(state).equals(want); i++) sleep(5);
        }

        @Override
        boolean frozen(String name) {
            String s = read(dir("freezer", name).resolve("freezer.state"));
            return s.equals("FROZEN") || s.equals("FREEZING");
        }

        @Override
        Usage usage(String name) {
            Path acct = dir("cpuacct", name);
            String[] per = read(acct.resolve("cpuacct.usage_percpu")).split("\\s+");
            long[] perCpu = new long[per.length == 1 && per[0].isEmpty() ? 0 : per.length];
            for (int i = 0; i < perCpu.length; i++) perCpu[i] = Long.parseLong(per[i]);
            return new Usage(readLong(acct.resolve("cpuacct.usage")), perCpu,
                    readLong(dir("memory", name).resolve("memory.usage_in_bytes")));
        }
    }

    // ---------------------------------------------------------------- cgroup v2

    /** The unified hierarchy: cpu and memory enabled for the parent's children, the core freezer. */
    static final class V2 extends Cgroups {
        private final Path root;

        V2(Path root, String parent) {
            super(parent);
            this.root = root;
        }

        private Path dir(String name) {
            return root.resolve(parent).resolve(name);
        }

        @Override
        String describe() {
            return "cgroup v2 (" + root + ")";
        }

        @Override
        List<Path> dirs(String name) {
            return List.of(dir(name));
        }

        @Override
        void create(String name, int cpus, int memoryMib) throws IOException {
            Path p = root.resolve(parent);
            mkdirs(p);
            // Children get cpu and memory only when every ancestor hands them down.
            enable(root);
            enable(p);
            mkdirs(dir(name));
            limit(name, cpus, memoryMib);
        }

        private static void enable(Path cgroup) throws IOException {
            Set<String> on = Set.of(read(cgroup.resolve("cgroup.subtree_control")).split(" "));
            if (!on.contains("cpu") || !on.contains("memory")) write(cgroup.resolve("cgroup.subtree_control"), "+cpu +memory");
        }

        @Override
        void limit(String name, int cpus, int memoryMib) throws IOException {
            write(dir(name).resolve("cpu.max"), (cpus * PERIOD_US) + " " + PERIOD_US);
            write(dir(name).resolve("memory.max"), Long.toString((long) memoryMib << 20));
        }

        @Override
        void weight(String name, int weight) throws IOException {
            write(dir(name).resolve("cpu.weight"), Integer.toString(weight));
        }

        @Override
        void join(String name, long pid) throws IOException {
            write(dir(name).resolve("cgroup.procs"), Long.toString(pid));
        }

        @Override
        Set<Long> pids(String name) {
            return readPids(dir(name).resolve("cgroup.procs"));
        }

        @Override
        void freeze(String name, boolean frozen) throws IOException {
            write(dir(name).resolve("cgroup.freeze"), frozen ? "1" : "0");
            for (int i = 0; i < 200 && frozen(name) != frozen; i++) sleep(5);
        }

        @Override
        boolean frozen(String name) {
            return read(dir(name).resolve("cgroup.freeze")).equals("1");
        }

        @Override
        Usage usage(String name) {
            long usec = 0;
            for (String line : read(dir(name).resolve("cpu.stat")).split("\n")) {
                if (line.startsWith("usage_usec ")) usec = Long.parseLong(line.substring(11).trim());
            }
            return new Usage(usec * 1000, new long[0], readLong(dir(name).resolve("memory.current")));
        }
    }
}
