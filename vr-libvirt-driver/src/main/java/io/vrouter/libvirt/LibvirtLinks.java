package io.vrouter.libvirt;

import io.vrouter.core.driver.DriverException;
import io.vrouter.core.model.VmNetworkConfigEntry;

/**
 * Peer links between VRs of this host without a bridge (docs/adr/0018-links.md): each end is a virtio
 * NIC on QEMU's UDP socket netdev ({@code <interface type='udp'>}), bound to its own port on the
 * loopback and sending to its far end's, so the two guests' NICs exchange frames through the two QEMU
 * processes alone: nothing of the link is on the host's bridges or interfaces. Each end is declared on
 * its own; an end whose far end is not running sends into nothing, and the two meet when both run.
 *
 * <p>Each end's port is its place (vmIndex, interface) above {@link #BASE_PORT}, so an end knows its
 * far end's port without asking it; two vrouter servers with libvirt on one host would share the range.
 */
final class LibvirtLinks {
    /** The first port of the range peer ends bind, on 127.0.0.1, above the usual ephemeral range's start (32768). */
    static final int BASE_PORT = 40_000;
    /** Interfaces per VR the range has room for. */
    static final int INTERFACES = 16;
    static final int MAX_VM = (65_535 - BASE_PORT) / INTERFACES;

    /** A peer end: its far end (vmIndex, interface) and the two sockets' ports. */
    record Peer(int farVm, int farIf, int localPort, int remotePort) {
        /** What vmNetworkParent shows of it, as the netns driver's. */
        String mark() {
            return "peer:" + farVm + "." + farIf;
        }
    }

    private LibvirtLinks() {
    }

    static int port(int vmIndex, int n) {
        return BASE_PORT + (vmIndex - 1) * INTERFACES + (n - 1);
    }

    /** The peer end of interface n of VR vmIndex, its row checked against the port range. */
    static Peer peer(int vmIndex, VmNetworkConfigEntry n) throws DriverException {
        int farVm = n.vmNetworkConfigPeerRouter, farIf = n.vmNetworkConfigPeerInterface;
        for (int[] end : new int[][] {{vmIndex, n.vmNetworkConfigIndex}, {farVm, farIf}}) {
            if (end[0] < 1 || end[0] > MAX_VM || end[1] < 1 || end[1] > INTERFACES) {
                throw new DriverException("INVALID_CONFIG", "a peer link end on libvirt must be an interface 1 to " + INTERFACES
                        + " of a VR 1 to " + MAX_VM + " (each end's UDP port is its place above " + BASE_PORT + "): "
                        + end[0] + "." + end[1] + " is not");
            }
        }
        return new Peer(farVm, farIf, port(vmIndex, n.vmNetworkConfigIndex), port(farVm, farIf));
    }

    /** The NIC's device element: virtio on a UDP socket netdev between the two ends' loopback ports. */
    static String interfaceXml(String mac, Peer p) {
        return "<interface type='udp'><mac address='" + mac + "'/><source address='127.0.0.1' port='" + p.remotePort()
                + "'><local address='127.0.0.1' port='" + p.localPort() + "'/></source><model type='virtio'/></interface>";
    }
}
