package io.vrouter.netns;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Collections;
import java.util.Properties;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * What the driver did to the host for one VR, kept in {@code RUN_DIR/NETNS/vr.properties}: the
 * marker reconciliation recognises. It is written before the namespace is created and removed after
 * everything else, so that a VR whose provisioning was cut short (a {@code kill -9}) is found and
 * cleared at the next start; {@code state=provisioning} says it was never finished.
 *
 * @param power       what the driver last brought the VR to: {@code halted}, {@code running}, {@code paused}
 * @param startedAt   when it was last started (epoch milliseconds), 0 while not running
 * @param interfaces  the interfaces it built: index to bridge
 */
record HostRecord(int vmIndex, String vmName, String template, UUID uuid, boolean provisioning, String power,
                  long startedAt, SortedMap<Integer, String> interfaces, int cpus, int memoryMib, boolean autoStart) {
    static final String FILE = "vr.properties";
    static final String HALTED = "halted";
    static final String RUNNING = "running";
    static final String PAUSED = "paused";

    HostRecord {
        interfaces = Collections.unmodifiableSortedMap(new TreeMap<>(interfaces));
    }

    HostRecord provisioned() {
        return new HostRecord(vmIndex, vmName, template, uuid, false, power, startedAt, interfaces, cpus, memoryMib, autoStart);
    }

    HostRecord withPower(String power, long startedAt) {
        return new HostRecord(vmIndex, vmName, template, uuid, provisioning, power, startedAt, interfaces, cpus, memoryMib, autoStart);
    }

    /** The record with interface {@code n} on {@code bridge}, or without it when {@code bridge} is null. */
    HostRecord withInterface(int n, String bridge) {
        SortedMap<Integer, String> next = new TreeMap<>(interfaces);
        if (bridge != null) next.put(n, bridge);
        else next.remove(n);
        return new HostRecord(vmIndex, vmName, template, uuid, provisioning, power, startedAt, next, cpus, memoryMib, autoStart);
    }

    HostRecord withConfig(String vmName, int cpus, int memoryMib, boolean autoStart) {
        return new HostRecord(vmIndex, vmName, template, uuid, provisioning, power, startedAt, interfaces, cpus, memoryMib, autoStart);
    }

    /** Writes the record atomically (a file beside it, renamed over it). */
    void write(Path dir) throws IOException {
        Properties p = new Properties();
        p.setProperty("vmIndex", Integer.toString(vmIndex));
        p.setProperty("vmName", vmName);
        p.setProperty("template", template);
        p.setProperty("uuid", uuid.toString());
        p.setProperty("state", provisioning ? "provisioning" : "ready");
        p.setProperty("power", power);
        p.setProperty("startedAt", Long.toString(startedAt));
        p.setProperty("interfaces", interfaces.entrySet().stream().map(e -> e.getKey() + ":" + e.getValue())
                .collect(Collectors.joining(",")));
        p.setProperty("cpus", Integer.toString(cpus));
        p.setProperty("memoryMib", Integer.toString(memoryMib));
        p.setProperty("autoStart", Boolean.toString(autoStart));
        Files.createDirectories(dir);
        Path tmp = dir.resolve(FILE + ".tmp");
        try (Writer w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
            p.store(w, "vrouter netns driver: VR " + vmIndex + "; remove it through vrouter, not by hand");
        }
        Files.move(tmp, dir.resolve(FILE), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** Reads a record; a file that is not one (hand-edited, cut short) is an IOException. */
    static HostRecord read(Path dir) throws IOException {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(dir.resolve(FILE), StandardCharsets.UTF_8)) {
            p.load(r);
        }
        try {
            SortedMap<Integer, String> ifaces = new TreeMap<>();
            for (String s : p.getProperty("interfaces", "").split(",")) {
                if (s.isBlank()) continue;
                String[] kv = s.trim().split(":", 2);
                ifaces.put(Integer.parseInt(kv[0]), kv[1]);
            }
            return new HostRecord(Integer.parseInt(p.getProperty("vmIndex")), p.getProperty("vmName", ""),
                    p.getProperty("template", "kernel"), UUID.fromString(p.getProperty("uuid")),
                    !"ready".equals(p.getProperty("state")), p.getProperty("power", HALTED),
                    Long.parseLong(p.getProperty("startedAt", "0")), ifaces,
                    Integer.parseInt(p.getProperty("cpus", "1")), Integer.parseInt(p.getProperty("memoryMib", "512")),
                    Boolean.parseBoolean(p.getProperty("autoStart", "false")));
        } catch (RuntimeException e) {
            throw new IOException("unreadable VR record in " + dir + ": " + e.getMessage(), e);
        }
    }
}
