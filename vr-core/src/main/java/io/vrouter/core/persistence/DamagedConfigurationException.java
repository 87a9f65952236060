package io.vrouter.core.persistence;

import java.nio.file.Path;

/**
 * The stored configuration is damaged where start-up must not guess: the message names the file,
 * where in it, what is wrong and what the operator can do. Nothing has been changed on disk.
 */
public final class DamagedConfigurationException extends IllegalStateException {
    private final Path file;

    DamagedConfigurationException(Path file, String message) {
        super(message);
        this.file = file;
    }

    /** The damaged file. */
    public Path file() {
        return file;
    }
}
