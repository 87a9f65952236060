package io.vrouter.core.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The port speaks only in its own types and the model's: nothing in {@code spi} names the service
 * that implements it or the persistence behind it, so the service depends on the port and never the
 * other way round (no package cycle; README, "The core in three parts").
 */
class PortDependenciesTest {

    @Test
    void thePortNamesNeitherTheServiceNorThePersistence() throws IOException {
        List<String> found = new ArrayList<>();
        try (Stream<Path> files = Files.list(Path.of("src/main/java/io/vrouter/core/spi"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
                List<String> lines = Files.readAllLines(f);
                for (int i = 0; i < lines.size(); i++) {
                    String line = lines.get(i);
                    if (line.contains("io.vrouter.core.service") || line.contains("io.vrouter.core.persistence")) {
                        found.add(f.getFileName() + ":" + (i + 1) + ": " + line.strip());
                    }
                }
            }
        }
        assertThat(found).isEmpty();
    }
}
