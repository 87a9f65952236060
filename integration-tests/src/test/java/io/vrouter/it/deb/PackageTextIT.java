package io.vrouter.it.deb;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The package's words, read from the source tree without building or installing it (DebianPackageIT
 * does that, in Docker): its description and the unit's name every interface that listens, gNMI
 * among them, and the packaged settings carry every gNMI setting the README documents (issue 38
 * item 4).
 */
class PackageTextIT {
    private static final Path DEB = Path.of("..", "vr-deb", "src", "deb");

    @Test
    void theDescriptionAndTheUnitNameGnmiBesideTheOtherInterfaces() throws Exception {
        String control = Files.readString(DEB.resolve("control/control"));
        Matcher description = Pattern.compile("(?ms)^Description: (.*)").matcher(control);
        assertThat(description.find()).isTrue();
        String synopsis = description.group(1).lines().findFirst().orElseThrow();
        String unit = Files.readString(DEB.resolve("files/systemd/vrouter.service"));
        String unitDescription = unit.lines().filter(l -> l.startsWith("Description=")).findFirst().orElseThrow();
        for (String words : List.of(synopsis, description.group(1), unitDescription)) {
            assertThat(words).contains("REST", "SNMP", "NETCONF", "gNMI");
        }
    }

    @Test
    void thePackagedSettingsCarryGnmisPortAndEverySettingTheReadmeDocuments() throws Exception {
        List<String> settings = Files.readAllLines(DEB.resolve("files/vrouter.properties"));
        assertThat(settings).contains("gnmi-port = 9339");
        // Every key of the README's gNMI settings table, at least as a commented example.
        String readme = Files.readString(Path.of("..", "README.md"));
        int table = readme.indexOf("| key |", readme.indexOf("\ngNMI ([below](#gnmi)):"));
        Matcher key = Pattern.compile("^\\| `(gnmi\\.[a-z.-]+)`(?:, `(gnmi\\.[a-z.-]+)`)?", Pattern.MULTILINE)
                .matcher(readme.substring(table, readme.indexOf("\n\n", table)));
        int documented = 0;
        while (key.find()) {
            for (String name : new String[]{key.group(1), key.group(2)}) {
                if (name == null) continue;
                assertThat(settings).as("vrouter.properties sets or shows " + name)
                        .anyMatch(l -> l.matches("#?" + Pattern.quote(name) + " = ?.*"));
                documented++;
            }
        }
        assertThat(documented).as("keys found in the README's gNMI table").isEqualTo(10);
    }
}
