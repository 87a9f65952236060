package io.vrouter.libvirt;

import io.vrouter.core.driver.DriverException;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * A VR's libvirt domain: the XML the driver defines, and what it reads back from libvirt's. The VR's
 * own facts (vmIndex, template, name, interface indexes) live in the domain's metadata element, the
 * marker that says a domain is vrouter's.
 */
final class DomainXml {
    static final String NS = "https://vrouter.io/xmlns/libvirt-driver/1";
    /** The guest's name of the VR's disk, also what its statistics are asked by. */
    static final String DISK_TARGET = "vda";
    /** The guest's name of a disk-booting VR's NoCloud seed drive. */
    static final String SEED_TARGET = "sda";

    /**
     * One interface: its vmNetworkConfigIndex, bridge, MAC and day-0 address ({@code 192.0.2.1/25}, or null);
     * a peer link's end has no bridge but its {@link LibvirtLinks.Peer}.
     */
    record Nic(int index, String bridge, String mac, String address, LibvirtLinks.Peer peer) {
        Nic(int index, String bridge, String mac, String address) {
            this(index, bridge, mac, address, null);
        }
    }

    /** What the driver reads back from a domain's XML. */
    record Parsed(int vmIndex, String vmName, String template, List<Nic> nics, int vcpus, long memoryKib,
                  String consoleLog, String disk) {
    }

    private DomainXml() {
    }

    /**
     * How a VR's guest boots: the template's kernel and initramfs directly, the day-0 data on the kernel command
     * line (seed null); or from its disk (kernel and initrd null), the day-0 data on a NoCloud seed drive.
     */
    record Boot(Path kernel, Path initrd, Path seed) {
        static Boot direct(Path kernel, Path initrd) {
            return new Boot(kernel, initrd, null);
        }

        static Boot fromDisk(Path seed) {
            return new Boot(null, null, seed);
        }
    }

    /**
     * The domain of a VR: its boot, one virtio NIC per interface on its bridge, its disk (a qcow2 overlay, or
     * none), a disk-booting VR's seed as a read-only CD-ROM, the serial console logged to a file.
     */
    static String build(String name, String uuid, int vmIndex, String vmName, String template, String domainType, int vcpus,
                        int memoryMib, Boot boot, Path consoleLog, List<Nic> nics, Path disk) {
        StringBuilder cmdline = new StringBuilder("console=ttyS0 panic=-1 vrouter.index=" + vmIndex + " vrouter.template=" + template);
        StringBuilder metaNics = new StringBuilder();
        StringBuilder devices = new StringBuilder();
        for (Nic n : nics) {
            // vrouter.if<N>=MAC[,ADDRESS/LEN]: the appliance finds the NIC by its MAC and names it eth<N>.
            cmdline.append(" vrouter.if").append(n.index()).append('=').append(n.mac());
            if (n.address() != null) cmdline.append(',').append(n.address());
            metaNics.append("<vr:interface index='").append(n.index()).append("' mac='").append(n.mac()).append("'")
                    .append(n.address() == null ? "" : " address='" + n.address() + "'")
                    .append(n.peer() == null ? "" : " peer='" + n.peer().farVm() + "." + n.peer().farIf() + "' local-port='"
                            + n.peer().localPort() + "' remote-port='" + n.peer().remotePort() + "'").append("/>");
            devices.append(interfaceXml(n));
        }
        String os = boot.seed() != null ? "<boot dev='hd'/>"
                : "<kernel>" + esc(boot.kernel().toString()) + "</kernel><initrd>" + esc(boot.initrd().toString())
                + "</initrd><cmdline>" + esc(cmdline.toString()) + "</cmdline>";
        return "<domain type='" + domainType + "'>"
                + "<name>" + esc(name) + "</name>"
                + (uuid == null ? "" : "<uuid>" + esc(uuid) + "</uuid>")
                + "<metadata><vr:vrouter xmlns:vr='" + NS + "' vmIndex='" + vmIndex + "' template='" + esc(template)
                + "' vmName='" + esc(vmName) + "'>" + metaNics + "</vr:vrouter></metadata>"
                + "<memory unit='MiB'>" + memoryMib + "</memory>"
                + "<vcpu>" + vcpus + "</vcpu>"
                + "<os><type arch='x86_64'>hvm</type>" + os + "</os>"
                + "<features><acpi/></features>"
                + "<on_poweroff>destroy</on_poweroff><on_reboot>restart</on_reboot><on_crash>destroy</on_crash>"
                + "<devices>" + devices
                + (disk == null ? "" : "<disk type='file' device='disk'><driver name='qemu' type='qcow2'/><source file='"
                        + esc(disk.toString()) + "'/><target dev='" + DISK_TARGET + "' bus='virtio'/></disk>")
                // SATA: a CD-ROM drive on either of QEMU's PC machines (i440fx and q35), which SeaBIOS and Linux know.
                + (boot.seed() == null ? "" : "<disk type='file' device='cdrom'><driver name='qemu' type='raw'/><source file='"
                        + esc(boot.seed().toString()) + "'/><target dev='" + SEED_TARGET + "' bus='sata'/><readonly/></disk>")
                + "<serial type='pty'><log file='" + esc(consoleLog.toString()) + "' append='on'/><target port='0'/></serial>"
                + "<console type='pty'><target type='serial' port='0'/></console>"
                + "<memballoon model='virtio'/>"
                + "</devices></domain>";
    }

    private static Document document(String xml) throws DriverException {
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setNamespaceAware(true);
            f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            return f.newDocumentBuilder().parse(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
        } catch (Exception e) {
            throw new DriverException("LIBVIRT_ERROR", "libvirt returned domain XML vrouter cannot read: " + e.getMessage(), e);
        }
    }

    /** A NIC's device element: virtio, on its bridge, with its MAC (also what hot-plug attaches and detaches). */
    static String interfaceXml(Nic n) {
        if (n.peer() != null) return LibvirtLinks.interfaceXml(n.mac(), n.peer());
        return "<interface type='bridge'><source bridge='" + esc(n.bridge()) + "'/><mac address='" + n.mac()
                + "'/><model type='virtio'/></interface>";
    }

    /** The VR facts of a domain's XML, or null when it carries no vrouter metadata (not ours). */
    static Parsed parse(String xml) throws DriverException {
        Document doc = document(xml);
        NodeList meta = doc.getElementsByTagNameNS(NS, "vrouter");
        if (meta.getLength() == 0) return null;
        Element m = (Element) meta.item(0);
        List<String> indexesByMac = new ArrayList<>();
        List<Nic> declared = new ArrayList<>();
        NodeList mi = m.getElementsByTagNameNS(NS, "interface");
        for (int i = 0; i < mi.getLength(); i++) {
            Element e = (Element) mi.item(i);
            String address = e.getAttribute("address");
            String[] peer = e.getAttribute("peer").split("\\.");
            declared.add(new Nic(Integer.parseInt(e.getAttribute("index")), null, e.getAttribute("mac"),
                    address.isEmpty() ? null : address, peer.length < 2 ? null : new LibvirtLinks.Peer(Integer.parseInt(peer[0]),
                    Integer.parseInt(peer[1]), Integer.parseInt(e.getAttribute("local-port")), Integer.parseInt(e.getAttribute("remote-port")))));
            indexesByMac.add(e.getAttribute("mac"));
        }
        List<Nic> nics = new ArrayList<>();
        NodeList ifs = doc.getElementsByTagName("interface");
        for (int i = 0; i < ifs.getLength(); i++) {
            Element e = (Element) ifs.item(i);
            if (NS.equals(e.getNamespaceURI())) continue;
            String mac = attr(e, "mac", "address");
            int at = indexesByMac.indexOf(mac);
            if (at < 0) continue; // a NIC added by hand: not one of the VR's interfaces
            Nic d = declared.get(at);
            nics.add(new Nic(d.index(), attr(e, "source", "bridge"), mac, d.address(), d.peer()));
        }
        long memoryKib = Long.parseLong(text(doc, "memory", "0"));
        String unit = ((Element) doc.getElementsByTagName("memory").item(0)).getAttribute("unit");
        if (!unit.isEmpty() && !unit.equals("KiB")) throw new DriverException("LIBVIRT_ERROR", "domain memory in " + unit);
        String log = null;
        NodeList logs = doc.getElementsByTagName("log");
        if (logs.getLength() > 0) log = ((Element) logs.item(0)).getAttribute("file");
        String disk = null;
        NodeList disks = doc.getElementsByTagName("disk");
        for (int i = 0; i < disks.getLength(); i++) {
            Element e = (Element) disks.item(i);
            if (DISK_TARGET.equals(attr(e, "target", "dev"))) disk = attr(e, "source", "file");
        }
        return new Parsed(Integer.parseInt(m.getAttribute("vmIndex")), m.getAttribute("vmName"), m.getAttribute("template"),
                nics, Integer.parseInt(text(doc, "vcpu", "1")), memoryKib, log, disk);
    }

    /** The host device (tap) of each NIC of a running domain's XML, by MAC. */
    static Map<String, String> hostDevices(String xml) throws DriverException {
        Map<String, String> out = new HashMap<>();
        NodeList ifs = document(xml).getElementsByTagName("interface");
        for (int i = 0; i < ifs.getLength(); i++) {
            Element e = (Element) ifs.item(i);
            String mac = attr(e, "mac", "address");
            String dev = attr(e, "target", "dev");
            if (mac != null && dev != null && !NS.equals(e.getNamespaceURI())) out.put(mac, dev);
        }
        return out;
    }

    /** The bridges every NIC of a domain's XML is on. */
    static List<String> bridges(String xml) throws DriverException {
        List<String> out = new ArrayList<>();
        NodeList ifs = document(xml).getElementsByTagName("interface");
        for (int i = 0; i < ifs.getLength(); i++) {
            Element e = (Element) ifs.item(i);
            String bridge = attr(e, "source", "bridge");
            if (bridge != null && !NS.equals(e.getNamespaceURI())) out.add(bridge);
        }
        return out;
    }

    private static String attr(Element parent, String child, String attribute) {
        NodeList l = parent.getElementsByTagName(child);
        if (l.getLength() == 0) return null;
        String v = ((Element) l.item(0)).getAttribute(attribute);
        return v.isEmpty() ? null : v;
    }

    private static String text(Document doc, String tag, String otherwise) {
        NodeList l = doc.getElementsByTagName(tag);
        return l.getLength() == 0 ? otherwise : l.item(0).getTextContent().strip();
    }

    private static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("'", "&apos;").replace("\"", "&quot;");
    }
}
