package io.vrouter.server;

import io.vrouter.core.migration.RouterBackup;
import io.vrouter.core.migration.Restore;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.persistence.ConfigStore;
import io.vrouter.core.persistence.DamagedConfigurationException;
import io.vrouter.core.spi.ValidationException;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * {@code vrouter backup FILE} and {@code vrouter restore FILE}: the REST backup's document, read from
 * or written into a stopped server's data directory. Holds the server's own lock ({@code .lock}) the
 * while, so that neither runs beside a server on that directory. A restore writes the VRs it makes
 * into the configuration store as the service journals an accepted creation; the next start
 * provisions them on the host, as it does any stored VR it finds missing there.
 */
final class OfflineBackup {
    /** A refusal: one line, exit 2. */
    static final class Refused extends Exception {
        Refused(String message) {
            super(message);
        }
    }

    private OfflineBackup() {
    }

    /** Runs {@code backup} or {@code restore}; 0 when done, 2 (one line on err) when refused. */
    static int run(String command, Path file, Path dataDir, String driver, PrintStream out, PrintStream err) {
        try {
            switch (command) {
                case "backup" -> backup(file, dataDir, driver, out);
                case "restore" -> restore(file, dataDir, out);
                default -> throw new Refused("unknown command '" + command + "' (backup FILE or restore FILE)");
            }
            return 0;
        } catch (Refused | ValidationException | DamagedConfigurationException | IOException | java.io.UncheckedIOException e) {
            err.println("vrouter " + command + ": " + e.getMessage());
            return 2;
        }
    }

    static void backup(Path file, Path dataDir, String driver, PrintStream out) throws IOException, Refused {
        if (!Files.isDirectory(dataDir)) throw new Refused("no data directory " + dataDir);
        try (FileChannel lockFile = lock(dataDir); ConfigStore store = new ConfigStore(dataDir)) {
            List<VmConfigEntry> rows = store.open().stream().filter(r -> !r.removing()).map(ConfigStore.StoredVr::config).toList();
            Files.write(file, RouterBackup.ofRows(driver, rows).toJson());
            out.println("backed up " + rows.size() + " VRs of " + dataDir + " to " + file);
        }
    }

    static void restore(Path file, Path dataDir, PrintStream out) throws IOException, Refused {
        RouterBackup backup = RouterBackup.read(Files.readAllBytes(file));
        Files.createDirectories(dataDir);
        try (FileChannel lockFile = lock(dataDir); ConfigStore store = new ConfigStore(dataDir)) {
            Map<Integer, VmConfigEntry> here = new TreeMap<>();
            Map<String, Integer> byName = new HashMap<>();
            for (ConfigStore.StoredVr r : store.open()) {
                here.put(r.config().vmIndex, r.config());
                byName.put(r.config().vmName, r.config().vmIndex);
            }
            Restore.Plan plan = Restore.plan(here.keySet(), name -> Optional.ofNullable(byName.get(name)), here::get, backup);
            // One record, all or none, as the service journals an accepted change set.
            if (!plan.created().isEmpty()) store.putAll(plan.created());
            for (Restore.Outcome o : plan.outcomes()) {
                out.println(o.vmName() + ": " + switch (o.action()) {
                    case CREATED -> "created as vmIndex " + o.vmIndex() + " (was " + o.backedUpIndex() + "), made on the host at the next start";
                    case PRESENT -> "present as vmIndex " + o.vmIndex() + ", as in the backup";
                    case DIFFERS -> "present as vmIndex " + o.vmIndex() + ", configured otherwise than the backup: left as it is";
                });
            }
        }
    }

    /** Takes the lock a running server holds on its data directory, or refuses. */
    private static FileChannel lock(Path dataDir) throws IOException, Refused {
        FileChannel channel = FileChannel.open(dataDir.resolve(".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock held;
        try {
            held = channel.tryLock();
        } catch (java.nio.channels.OverlappingFileLockException sameProcess) {
            held = null;
        }
        if (held == null) {
            channel.close();
            throw new Refused("a vrouter server is running on the data directory " + dataDir + ": stop it first"
                    + " (or use GET and POST /api/v1/backup on the running server)");
        }
        return channel; // closing the channel lets the lock go
    }
}
