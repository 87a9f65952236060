package io.vrouter.netns;

import io.vrouter.core.driver.DriverException;

/**
 * Macvlan links (docs/adr/0018-links.md): the VR's interface is a macvlan device on a host NIC (one
 * the provider grants), made in vrouter's namespace and moved into the VR's. Its frames leave by the
 * NIC's driver with no bridge, veth or host-side hop, so a VR that forwards to the outside gets the
 * NIC's native rate. Mode {@code bridge}: VRs on the same NIC reach each other inside the NIC's
 * macvlan set without a hairpin on the wire; the host itself, on the NIC's own address, does not (a
 * property of macvlan).
 */
final class MacvlanLinks {
    private static final String MARK = "macvlan:";

    private final MovedIn moved;

    MacvlanLinks(MovedIn moved) {
        this.moved = moved;
    }

    /** What the host record keeps of a macvlan interface in place of a bridge: its NIC. */
    static String mark(String nic) {
        return MARK + nic;
    }

    static boolean isMark(String parent) {
        return parent.startsWith(MARK);
    }

    /** Makes interface n of the VR in namespace netns as a macvlan on the host NIC. Safe to run again. */
    void join(String netns, int vm, int n, String nic, String mac) throws DriverException {
        moved.make(netns, vm, n, "link " + nic + " type macvlan mode bridge", mac);
    }
}
