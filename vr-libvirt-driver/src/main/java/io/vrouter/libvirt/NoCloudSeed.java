package io.vrouter.libvirt;

import io.vrouter.core.driver.DriverException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;

/**
 * The day 0 of a VR whose template boots from its own disk (VyOS, a cloud image with FRR): cloud-init's
 * NoCloud seed, an ISO 9660 image labelled {@code cidata} (what cloud-init and VyOS look for) that the
 * domain gets as a read-only CD-ROM. It holds {@code meta-data} (the instance and host name),
 * {@code network-config} (version 2: each interface found by its MAC, named {@code eth<index>} and
 * given its address) and {@code user-data} (the template's own file when it has one).
 */
final class NoCloudSeed {
    /** The seed's name in the VR's run directory. */
    static final String FILE = "seed.iso";
    /** A template's own user-data, given to every VR made from it instead of the minimal one. */
    static final String USER_DATA = "user-data";
    private static final String MINIMAL_USER_DATA = "#cloud-config\n";

    private NoCloudSeed() {
    }

    /**
     * Writes the seed into the VR's run directory, whole or not at all (made under another name, then
     * renamed over the last one), and returns its path. The instance-id is the domain's name and a digest
     * of the network config: a changed network is a new instance to cloud-init, which then applies it again.
     */
    static Path write(Path vrDir, String domainName, String hostname, List<DomainXml.Nic> nics, Path templateUserData,
                      String genisoimage, Duration timeout) throws DriverException {
        String network = networkConfig(nics);
        Path staging = vrDir.resolve(FILE + ".d");
        Path part = vrDir.resolve(FILE + ".part");
        Path seed = vrDir.resolve(FILE);
        try {
            Files.createDirectories(staging);
            Files.writeString(staging.resolve("meta-data"), metaData(domainName + "-" + generation(network), hostname));
            Files.writeString(staging.resolve("network-config"), network);
            if (Files.isReadable(templateUserData)) {
                Files.copy(templateUserData, staging.resolve(USER_DATA), StandardCopyOption.REPLACE_EXISTING);
            } else {
                Files.writeString(staging.resolve(USER_DATA), MINIMAL_USER_DATA);
            }
            // Rock Ridge and Joliet keep the names whole (plain ISO 9660 would make meta-data META_DAT).
            Bridges.run(timeout, genisoimage, "-quiet", "-output", part.toString(), "-volid", "cidata", "-joliet", "-rock",
                    staging.toString());
            Files.move(part, seed, StandardCopyOption.ATOMIC_MOVE);
            return seed;
        } catch (IOException e) {
            throw new DriverException("NOT_PERMITTED", "cannot write the NoCloud seed " + seed + ": " + e.getMessage(), e);
        } finally {
            LibvirtDriver.deleteTreeQuietly(staging);
            LibvirtDriver.deleteTreeQuietly(part); // what a failed genisoimage left
        }
    }

    static String metaData(String instanceId, String hostname) {
        return "instance-id: " + quoted(instanceId) + "\nlocal-hostname: " + quoted(hostname) + "\n";
    }

    /** cloud-init's network config, version 2: the interfaces by MAC, with the VR's addresses. */
    static String networkConfig(List<DomainXml.Nic> nics) {
        StringBuilder y = new StringBuilder("version: 2\nethernets:\n");
        for (DomainXml.Nic n : nics) {
            String name = "eth" + n.index();
            y.append("  ").append(name).append(":\n")
                    .append("    match:\n      macaddress: ").append(quoted(n.mac())).append('\n')
                    .append("    set-name: ").append(name).append('\n');
            if (n.address() != null) y.append("    addresses:\n      - ").append(quoted(n.address())).append('\n');
        }
        return y.toString();
    }

    /** Eight hex digits that change when the network config does. */
    private static String generation(String networkConfig) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(networkConfig.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 4);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /** A YAML double-quoted scalar: never read as a number, a boolean or more YAML. */
    private static String quoted(String s) {
        StringBuilder q = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') q.append('\\').append(c);
            else if (c < 0x20) q.append(String.format("\\x%02x", (int) c));
            else q.append(c);
        }
        return q.append('"').toString();
    }
}
