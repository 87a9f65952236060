package io.vrouter.libvirt;

import io.vrouter.core.config.Settings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The driver's settings, keys {@code libvirt.*} of the server's config file (see the module README).
 *
 * @param uri         the libvirt connection
 * @param prefix      starts every domain's name ({@code vrouter-} makes VR 5 the domain {@code vrouter-5}) and
 *                    marks the bridges the driver makes, so that two servers, or two test runs, share a host
 *                    without touching each other's VRs
 * @param imageDir    one directory per template, holding the appliance's {@code vmlinuz} and {@code initrd.img}, or
 *                    a {@code disk.qcow2} the VR boots from
 * @param runDir      each VR's files ({@code PREFIX<vmIndex>/console.log})
 * @param accel       {@code auto} (KVM where it works, else TCG), {@code kvm} or {@code tcg}
 * @param stopTimeout how long a guest has to power off after the ACPI power button before it is destroyed
 * @param refreshInterval how often every VR's state is read from libvirt into the cache that reads are served from
 * @param qemuImg     the command that makes a VR's disk, a qcow2 overlay on its template's image
 * @param genisoimage the command that writes the NoCloud seed of a VR whose template boots from its disk
 * @param migrationUri this libvirtd as a peer's libvirtd reaches it ({@code qemu+tcp://HOST/system}, say): where
 *                    VRs moved here by live migration are sent; without it, a VR moved here is made anew
 */
public record LibvirtSettings(String uri, String prefix, Path imageDir, Path runDir, String accel, String ip,
                              Duration commandTimeout, Duration stopTimeout, Duration refreshInterval, String qemuImg,
                              String genisoimage, java.util.Optional<String> migrationUri) {
    private static final Pattern PREFIX = Pattern.compile("[a-z][a-z0-9-]{0,15}");

    public LibvirtSettings {
        if (!PREFIX.matcher(prefix).matches()) {
            throw new IllegalArgumentException("libvirt.prefix must be 1 to 16 lower-case letters, digits or '-',"
                    + " starting with a letter, not '" + prefix + "'");
        }
        accel = accel.toLowerCase(Locale.ROOT);
        if (!accel.equals("auto") && !accel.equals("kvm") && !accel.equals("tcg")) {
            throw new IllegalArgumentException("libvirt.accel must be auto, kvm or tcg, not '" + accel + "'");
        }
    }

    public static LibvirtSettings from(Settings s) {
        return new LibvirtSettings(s.get("libvirt.uri", "qemu:///system"), s.get("libvirt.prefix", "vrouter-"),
                Path.of(s.get("libvirt.image-dir", "/var/lib/vrouter/images")),
                Path.of(s.get("libvirt.run-dir", "/var/lib/vrouter/libvirt")), s.get("libvirt.accel", "auto"),
                s.get("libvirt.ip", "ip"), s.getDuration("libvirt.command-timeout", "30s"),
                s.getDuration("libvirt.stop-timeout", "30s"), s.getDuration("libvirt.refresh-interval", "2s"),
                s.get("libvirt.qemu-img", "qemu-img"), s.get("libvirt.genisoimage", "genisoimage"), s.get("libvirt.migration-uri"));
    }

    /** The same settings with another prefix and run directory (tests run side by side with their own). */
    public LibvirtSettings with(String prefix, Path imageDir, Path runDir) {
        return new LibvirtSettings(uri, prefix, imageDir, runDir, accel, ip, commandTimeout, stopTimeout, refreshInterval, qemuImg,
                genisoimage, migrationUri);
    }

    /** The domain name of a VR. */
    String domainName(int vmIndex) {
        return prefix + vmIndex;
    }

    /** The alias ({@code ifalias}) of the bridges this driver makes: what says vrouter may remove them. */
    String bridgeAlias() {
        return "vrouter:libvirt:" + prefix;
    }
}
