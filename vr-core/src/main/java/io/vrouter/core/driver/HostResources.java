package io.vrouter.core.driver;

import io.vrouter.core.model.Hypervisor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The CPUs and memory of the Linux host this server runs on, for drivers whose VRs run here (netns,
 * libvirt on {@code qemu:///system}): what the core lets the VRs commit, times the overcommit.
 */
public final class HostResources {
    /**
     * MemTotal, read once: the core asks for the host's capacity under its lock whenever a change
     * commits more, and the host's memory does not change while the server runs.
     */
    private static final Integer MEMORY_MIB = memoryMib(Path.of("/proc/meminfo"));

    private HostResources() {
    }

    /** Fills vmHvCpus and vmHvMemory from this host; leaves vmHvMemory null when /proc/meminfo cannot be read. */
    public static void fill(Hypervisor h) {
        h.vmHvCpus = Runtime.getRuntime().availableProcessors();
        h.vmHvMemory = MEMORY_MIB;
    }

    /** MemTotal of a /proc/meminfo file, in MiB; null when it has none. */
    static Integer memoryMib(Path meminfo) {
        try {
            for (String line : Files.readAllLines(meminfo)) {
                if (!line.startsWith("MemTotal:")) continue;
                String[] parts = line.substring(9).trim().split("\\s+");
                return (int) Math.min(Integer.MAX_VALUE, Long.parseLong(parts[0]) / 1024);
            }
        } catch (IOException | RuntimeException e) {
            // unknown: the host then limits nothing
        }
        return null;
    }
}
