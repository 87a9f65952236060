package io.vrouter.libvirt;

import static org.assertj.core.api.Assertions.assertThat;

import io.vrouter.netns.TestHost;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The NoCloud seed of a disk-booting VR, written with the host's genisoimage and read back with isoinfo. */
class NoCloudSeedTest {
    private static final List<DomainXml.Nic> TWO = List.of(new DomainXml.Nic(1, "br-a", "52:54:00:3a:41:07", "192.0.2.1/25"),
            new DomainXml.Nic(2, "br-b", "52:54:00:9c:0e:51", "2001:db8::1/64"));

    @TempDir
    Path vrDir;
    @TempDir
    Path templateDir;

    private Path write(List<DomainXml.Nic> nics) throws Exception {
        return NoCloudSeed.write(vrDir, "vrouter-5", "edge5", nics, templateDir.resolve("user-data"), "genisoimage",
                Duration.ofSeconds(60));
    }

    static String read(Path iso, String file) throws Exception {
        return TestHost.ok("isoinfo", "-i", iso.toString(), "-R", "-x", "/" + file);
    }

    @Test
    void aVrWithTwoInterfacesGetsTheirAddressesByMacOnAVolumeLabelledCidata() throws Exception {
        Path seed = write(TWO);

        assertThat(seed).isEqualTo(vrDir.resolve("seed.iso"));
        assertThat(TestHost.ok("isoinfo", "-d", "-i", seed.toString())).contains("Volume id: cidata");
        assertThat(read(seed, "network-config")).isEqualTo("""
                version: 2
                ethernets:
                  eth1:
                    match:
                      macaddress: "52:54:00:3a:41:07"
                    set-name: eth1
                    addresses:
                      - "192.0.2.1/25"
                  eth2:
                    match:
                      macaddress: "52:54:00:9c:0e:51"
                    set-name: eth2
                    addresses:
                      - "2001:db8::1/64"
                """);
        assertThat(read(seed, "meta-data")).matches("instance-id: \"vrouter-5-[0-9a-f]{8}\"\nlocal-hostname: \"edge5\"\n");
        assertThat(read(seed, "user-data")).isEqualTo("#cloud-config\n");
        // Written whole, then renamed: nothing else is left in the VR's directory.
        try (var files = Files.list(vrDir)) {
            assertThat(files).containsExactly(seed);
        }
    }

    @Test
    void aChangedNetworkIsANewInstanceAndTheSameNetworkTheSameOne() throws Exception {
        String first = read(write(TWO), "meta-data");
        assertThat(read(write(TWO), "meta-data")).as("written again unchanged").isEqualTo(first);

        Path seed = write(List.of(TWO.get(0), new DomainXml.Nic(3, "br-c", "52:54:00:00:00:03", null)));
        assertThat(read(seed, "meta-data")).isNotEqualTo(first);
        // An interface without an address is named and found by its MAC, nothing more.
        assertThat(read(seed, "network-config")).doesNotContain("eth2").endsWith("""
                  eth3:
                    match:
                      macaddress: "52:54:00:00:00:03"
                    set-name: eth3
                """);
    }

    @Test
    void theTemplatesOwnUserDataIsGivenInsteadOfTheMinimalOne() throws Exception {
        String vyos = "#cloud-config\nvyos_config_commands:\n  - set protocols ospf area 0 network '0.0.0.0/0'\n";
        Files.writeString(templateDir.resolve("user-data"), vyos);

        assertThat(read(write(TWO), "user-data")).isEqualTo(vyos);
    }
}
