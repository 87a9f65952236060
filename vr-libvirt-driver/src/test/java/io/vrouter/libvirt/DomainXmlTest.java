package io.vrouter.libvirt;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The domain XML of each kind of template, and what the driver reads back from it. */
class DomainXmlTest {
    private static final List<DomainXml.Nic> NICS = List.of(new DomainXml.Nic(1, "br-a", "52:54:00:3a:41:07", "192.0.2.1/25"));
    private static final Path RUN = Path.of("/var/lib/vrouter/libvirt/vrouter-5");

    private static String build(DomainXml.Boot boot) {
        return DomainXml.build("vrouter-5", null, 5, "edge5", "vyos", "qemu", 1, 512, boot, RUN.resolve("console.log"), NICS,
                RUN.resolve("disk.qcow2"));
    }

    @Test
    void aDiskBootingTemplateBootsItsDiskWithTheSeedAsAReadOnlyCdromAndNoKernel() throws Exception {
        String xml = build(DomainXml.Boot.fromDisk(RUN.resolve("seed.iso")));

        assertThat(xml).contains("<os><type arch='x86_64'>hvm</type><boot dev='hd'/></os>")
                .doesNotContain("<kernel>").doesNotContain("<initrd>").doesNotContain("<cmdline>")
                .contains("<disk type='file' device='cdrom'><driver name='qemu' type='raw'/><source file='" + RUN
                        + "/seed.iso'/><target dev='sda' bus='sata'/><readonly/></disk>");
        // Read back as libvirt gives the definition: memory in KiB.
        DomainXml.Parsed p = DomainXml.parse(xml.replace("<memory unit='MiB'>512</memory>", "<memory unit='KiB'>524288</memory>"));
        assertThat(p.disk()).as("the VR's disk is the overlay, not the seed").isEqualTo(RUN.resolve("disk.qcow2").toString());
        assertThat(p.nics()).containsExactly(NICS.get(0));
    }

    @Test
    void theApplianceBootsItsKernelWithTheDayZeroCommandLineAndNoSeed() throws Exception {
        String xml = build(DomainXml.Boot.direct(Path.of("/img/bird/vmlinuz"), Path.of("/img/bird/initrd.img")));

        assertThat(xml).contains("<kernel>/img/bird/vmlinuz</kernel><initrd>/img/bird/initrd.img</initrd>")
                .contains("vrouter.if1=52:54:00:3a:41:07,192.0.2.1/25")
                .doesNotContain("<boot dev=").doesNotContain("device='cdrom'");
    }

    @Test
    void aPeerEndIsAUdpSocketNetdevToItsFarEndsPortAndReadsBackAsOne() throws Exception {
        DomainXml.Nic end = new DomainXml.Nic(2, null, "52:54:00:00:05:02", "203.0.113.1/29",
                new LibvirtLinks.Peer(6, 1, LibvirtLinks.port(5, 2), LibvirtLinks.port(6, 1)));
        String xml = DomainXml.build("vrouter-5", null, 5, "edge5", "bird", "qemu", 1, 512,
                DomainXml.Boot.direct(Path.of("/img/bird/vmlinuz"), Path.of("/img/bird/initrd.img")), RUN.resolve("console.log"),
                List.of(NICS.get(0), end), null);

        assertThat(xml).contains("<interface type='udp'><mac address='52:54:00:00:05:02'/><source address='127.0.0.1' port='40080'>"
                + "<local address='127.0.0.1' port='40065'/></source><model type='virtio'/></interface>");
        assertThat(DomainXml.bridges(xml)).containsExactly("br-a");
        DomainXml.Parsed p = DomainXml.parse(xml.replace("<memory unit='MiB'>512</memory>", "<memory unit='KiB'>524288</memory>"));
        assertThat(p.nics()).containsExactly(NICS.get(0), end);
    }
}
