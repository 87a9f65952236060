package io.vrouter.libvirt;

import io.vrouter.core.driver.DriverException;
import java.io.ByteArrayInputStream;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.transform.OutputKeys;
import javax.xml.transform.TransformerFactory;
import javax.xml.transform.dom.DOMSource;
import javax.xml.transform.stream.StreamResult;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * The libvirt driver's live migration, libvirt's own: peer-to-peer ({@code virDomainMigrateToURI2} with
 * {@code VIR_MIGRATE_PEER2PEER}: this libvirtd connects to the destination's and drives the move), live
 * (the guest runs on while its memory is copied), the definition made persistent there and undefined here,
 * and the VR's disk (its qcow2 overlay, which no other host shares) copied with it
 * ({@code VIR_MIGRATE_NON_SHARED_INC}: the overlay's blocks; the template's image below it is at the same
 * place on both hosts). The domain arrives under the destination's name for it, with the destination's
 * vmIndex in its metadata and its files (console log, overlay, seed) in the destination's run directory,
 * through the destination XML that libvirt accepts for host-side parts.
 */
final class LibvirtMigration {
    /** What the destination's answer holds. */
    static final String URI = "libvirt.uri";
    static final String NAME = "libvirt.name";
    static final String INDEX = "libvirt.vmIndex";
    static final String DIR = "libvirt.dir";

    private static final long LIVE = 1;
    private static final long PEER2PEER = 2;
    private static final long PERSIST_DEST = 8;
    private static final long UNDEFINE_SOURCE = 16;
    private static final long NON_SHARED_INC = 128;
    /** VIR_DOMAIN_XML_SECURE | VIR_DOMAIN_XML_MIGRATABLE: the live definition as a destination may take it. */
    static final int XML_MIGRATABLE = 1 | 8;

    private LibvirtMigration() {
    }

    /** The destination's answer: where its libvirtd is, and the VR's name, vmIndex and directory there. */
    static Map<String, String> destination(String uri, String name, int vmIndex, Path dir) {
        Map<String, String> out = new LinkedHashMap<>();
        out.put(URI, uri);
        out.put(NAME, name);
        out.put(INDEX, Integer.toString(vmIndex));
        out.put(DIR, dir.toString());
        return out;
    }

    /** The flags of a move: with the disk's blocks when the domain has a writable disk. */
    static long flags(String xml) {
        boolean disk = xml.contains("device='disk'") || xml.contains("device=\"disk\"");
        return LIVE | PEER2PEER | PERSIST_DEST | UNDEFINE_SOURCE | (disk ? NON_SHARED_INC : 0);
    }

    static String require(Map<String, String> destination, String key) throws DriverException {
        String v = destination.get(key);
        if (v == null || v.isBlank()) throw new DriverException("INVALID_DESTINATION", "the destination's answer names no " + key);
        return v;
    }

    /**
     * The domain's live XML as it is to run on the destination: the vmIndex of its metadata and on its
     * kernel command line, and every file under {@code hereDir} moved under {@code thereDir}.
     */
    static String forDestination(String xml, int vmIndex, Path hereDir, Path thereDir) throws DriverException {
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setNamespaceAware(true);
            f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            Document doc = f.newDocumentBuilder().parse(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
            Element root = doc.getDocumentElement();
            // the name stays the source's here (libvirt checks it): the destination's comes as dname
            NodeList meta = root.getElementsByTagNameNS(DomainXml.NS, "vrouter");
            if (meta.getLength() == 0) throw new DriverException("NOT_OURS", "the domain carries no vrouter metadata");
            ((Element) meta.item(0)).setAttribute("vmIndex", Integer.toString(vmIndex));
            NodeList cmdline = root.getElementsByTagName("cmdline");
            if (cmdline.getLength() > 0) {
                Node c = cmdline.item(0);
                c.setTextContent(c.getTextContent().replaceAll("vrouter\\.index=\\d+", "vrouter.index=" + vmIndex));
            }
            String from = hereDir.toString() + "/";
            String to = thereDir.toString() + "/";
            for (String tag : new String[] {"source", "log"}) {
                NodeList nodes = root.getElementsByTagName(tag);
                for (int i = 0; i < nodes.getLength(); i++) {
                    Element e = (Element) nodes.item(i);
                    for (String attr : new String[] {"file", "path"}) {
                        if (e.getAttribute(attr).startsWith(from)) e.setAttribute(attr, to + e.getAttribute(attr).substring(from.length()));
                    }
                }
            }
            StringWriter out = new StringWriter();
            var t = TransformerFactory.newInstance().newTransformer();
            t.setOutputProperty(OutputKeys.OMIT_XML_DECLARATION, "yes");
            t.transform(new DOMSource(doc), new StreamResult(out));
            return out.toString();
        } catch (DriverException e) {
            throw e;
        } catch (Exception e) {
            throw new DriverException("LIBVIRT_ERROR", "cannot make the destination's domain XML: " + e.getMessage(), e);
        }
    }

}
