package io.vrouter.netns;

import io.vrouter.core.driver.DriverException;

/**
 * VXLAN links to a VR on another router (docs/adr/0018-links.md): the VR's interface is a VXLAN
 * device made in vrouter's own namespace, where the underlay device is, and moved into the VR's. Its
 * UDP socket stays in the namespace it was made in, so the VR reaches nothing of the underlay but its
 * far end, and the far end's frames arrive only on the VNI both routers give. Each router holds its
 * own end; the two meet when both are configured, as in any VXLAN deployment. Deleting the VR's
 * namespace deletes the device with it.
 */
final class VxlanLinks {
    /** IANA's VXLAN port (RFC 7348), not the kernel's historical default of 8472. */
    static final int PORT = 4789;
    private static final String MARK = "vxlan:";

    private final MovedIn moved;

    VxlanLinks(MovedIn moved) {
        this.moved = moved;
    }

    /** What the host record keeps of a VXLAN interface in place of a bridge. */
    static String mark(int vni, String remote, String underlay) {
        return MARK + vni + "/" + remote + "/" + underlay;
    }

    static boolean isMark(String parent) {
        return parent.startsWith(MARK);
    }

    /**
     * Makes interface n of the VR in namespace netns as a VXLAN device to remote on vni over the underlay
     * device. Safe to run again: an interface that exists in the namespace is kept, a device left half
     * made in vrouter's namespace is made again.
     */
    void join(String netns, int vm, int n, int vni, String remote, String underlay, String mac) throws DriverException {
        moved.make(netns, vm, n, "type vxlan id " + vni + " remote " + remote + " dstport " + PORT + " dev " + underlay, mac);
    }

    /** Deletes interface n of the VR: the device, and with it its socket. Safe to run again. */
    void leave(String netns, int n) throws DriverException {
        moved.delete(netns, n);
    }
}
