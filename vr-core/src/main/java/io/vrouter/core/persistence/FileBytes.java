package io.vrouter.core.persistence;

import java.io.FileInputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Reads a whole file into the heap. Not {@link Files#readAllBytes}: NIO reads a heap array through a
 * temporary direct buffer as large as the file, and the launcher caps direct memory at 8 MB
 * ({@code -XX:MaxDirectMemorySize}), so a journal or event log of a few MB failed with an
 * OutOfMemoryError once the SSH server's buffers held the rest.
 */
final class FileBytes {
    private FileBytes() {
    }

    /** The file's bytes; {@link NoSuchFileException} when there is no such file. */
    static byte[] read(Path file) throws IOException {
        try (FileInputStream in = new FileInputStream(file.toFile())) {
            return in.readAllBytes();
        } catch (FileNotFoundException e) {
            if (!Files.exists(file)) throw new NoSuchFileException(file.toString());
            throw e;
        }
    }
}
