package io.vrouter.core.persistence;

import java.nio.file.Path;

/**
 * A file of the data directory (the stored configuration, the SNMP engine's state) is damaged where
 * start-up must not guess: the message names the file, where in it, what is wrong and what the
 * operator can do. Nothing has been changed on disk.
 */
public final class DamagedConfigurationException extends IllegalStateException {
    private final Path file;

    public DamagedConfigurationException(Path file, String message) {
        super(message);
        this.file = file;
    }

    /** The damaged file. */
    public Path file() {
        return file;
    }
}
