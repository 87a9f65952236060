package io.vrouter.snmp;

import io.vrouter.core.persistence.DamagedConfigurationException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;
import java.util.Properties;
import java.util.function.Function;

/**
 * A state file of the SNMP agent in the data directory (the engine's, the system group's): Java
 * properties in UTF-8, written whole and moved into place, so that a crash leaves the old file or
 * the new one, never half of one.
 */
final class PropertiesFile {
    private PropertiesFile() {
    }

    /**
     * The file's properties, empty when there is no file. An empty or unreadable file is not absence:
     * {@code damaged} makes the error, in the file's own terms, from what is wrong with it.
     */
    static Optional<Properties> read(Path file, Function<String, DamagedConfigurationException> damaged)
            throws IOException {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException absent) {
            return Optional.empty();
        }
        if (bytes.length == 0) throw damaged.apply("it is empty");
        Properties p = new Properties();
        try {
            p.load(new InputStreamReader(new ByteArrayInputStream(bytes), StandardCharsets.UTF_8.newDecoder()));
        } catch (CharacterCodingException | IllegalArgumentException e) {
            throw damaged.apply("it is not a properties file in UTF-8");
        }
        return Optional.of(p);
    }

    static void write(Path file, Properties p, String comment) throws IOException {
        Files.createDirectories(file.getParent());
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (var out = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
            p.store(out, comment);
        }
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
