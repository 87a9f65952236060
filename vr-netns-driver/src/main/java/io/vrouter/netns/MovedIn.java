package io.vrouter.netns;

import io.vrouter.core.driver.DriverException;
import java.util.List;

/**
 * A VR interface that is a device made in vrouter's own namespace, where the device it rides on is (a
 * VXLAN's underlay, a macvlan's host NIC), and moved into the VR's: what stays behind of it (a VXLAN's
 * socket, a macvlan's place on its NIC) stays in vrouter's namespace, out of the VR's reach. Deleting
 * the VR's namespace deletes the device with it.
 */
final class MovedIn {
    private final Names names;
    private final Commands commands;

    MovedIn(Names names, Commands commands) {
        this.names = names;
        this.commands = commands;
    }

    /**
     * Makes interface n of the VR in namespace netns with {@code ip link add NAME <how>}, then moves it in.
     * Safe to run again: an interface that exists in the namespace is kept, a device left half made in
     * vrouter's namespace is made again.
     */
    void make(String netns, int vm, int n, String how, String mac) throws DriverException {
        String dev = Names.vrSide(n);
        if (commands.exists(netns, dev)) return;
        // Made under the host-side name of the interface, which no other interface of the host has.
        String made = names.hostVeth(vm, n);
        if (HostLinks.exists(made)) commands.ip("link", "del", "dev", made);
        commands.batch(null, false, List.of(
                // The MAC before the type: what follows "type vxlan" is the type's own arguments, and "address" none of them.
                "link add name " + made + (mac == null ? "" : " address " + mac) + " " + how,
                "link set dev " + made + " netns " + netns));
        commands.batch(netns, false, List.of("link set dev " + made + " name " + dev, "link set dev " + dev + " alias " + dev));
    }

    /** Deletes interface n of the VR. Safe to run again. */
    void delete(String netns, int n) throws DriverException {
        String dev = Names.vrSide(n);
        if (commands.exists(netns, dev)) commands.batch(netns, false, List.of("link del dev " + dev));
    }
}
