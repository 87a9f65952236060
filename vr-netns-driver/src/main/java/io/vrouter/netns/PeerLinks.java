package io.vrouter.netns;

import io.vrouter.core.driver.DriverException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Peer links between VRs of this host as veth pairs straight between their namespaces, no bridge
 * (docs/adr/0018-links.md). Each end is declared on its own, so a link may have one end while the
 * other is not declared yet: that end's veth partner then waits on the host, down, named as the host
 * side of the waiting interface ({@code vr5-2}) and with an alias that says which end it waits for.
 * The far end, when declared, takes the waiting partner into its namespace; when it goes, it hands its
 * side back to the host, where it waits again. Removing an end whose partner waits deletes the pair.
 */
final class PeerLinks {
    private static final String MARK = "peer:";

    private final Names names;
    private final Commands commands;
    /** One lock per link, by its ends in order, so that both ends never build a pair each. */
    private final Map<String, Object> locks = new ConcurrentHashMap<>();

    PeerLinks(Names names, Commands commands) {
        this.names = names;
        this.commands = commands;
    }

    /** What the host record keeps of a peer interface in place of a bridge: its far end. */
    static String mark(int farVm, int farIf) {
        return MARK + farVm + "." + farIf;
    }

    static boolean isMark(String parent) {
        return parent.startsWith(MARK);
    }

    /** The far end (vmIndex, interface index) of a mark. */
    static int[] far(String mark) {
        String[] parts = mark.substring(MARK.length()).split("\\.");
        return new int[] {Integer.parseInt(parts[0]), Integer.parseInt(parts[1])};
    }

    /** The alias of the partner that waits for the far end of (vm, n): only that end takes it. */
    private static String waitingFor(int vm, int n, int farVm, int farIf) {
        return "vrouter-peer-" + vm + "." + n + "-for-" + farVm + "." + farIf;
    }

    private Object lock(int vm, int n, int farVm, int farIf) {
        String key = vm < farVm || (vm == farVm && n < farIf) ? vm + "." + n + "/" + farVm + "." + farIf
                : farVm + "." + farIf + "/" + vm + "." + n;
        return locks.computeIfAbsent(key, k -> new Object());
    }

    /**
     * Builds interface n of the VR in namespace netns as its end of the link to (farVm, farIf): takes the
     * far end's waiting partner when there is one, else makes a pair whose partner waits on the host.
     * Safe to run again: an end that exists in the namespace is kept.
     */
    void join(String netns, int vm, int n, int farVm, int farIf, String mac) throws DriverException {
        String dev = Names.vrSide(n);
        synchronized (lock(vm, n, farVm, farIf)) {
            if (commands.exists(netns, dev)) return;
            String farWaiting = names.hostVeth(farVm, farIf);
            if (HostLinks.exists(farWaiting) && waitingFor(farVm, farIf, vm, n).equals(HostLinks.alias(farWaiting))) {
                commands.batch(null, false, List.of("link set dev " + farWaiting + " netns " + netns));
                commands.batch(netns, false, List.of("link set dev " + farWaiting + " name " + dev,
                        "link set dev " + dev + " alias " + dev + (mac == null ? "" : " address " + mac)));
                return;
            }
            String own = names.hostVeth(vm, n);
            commands.batch(null, false, List.of(
                    "link add name " + own + " type veth peer name " + dev + (mac == null ? "" : " address " + mac)
                            + " netns " + netns,
                    // Waiting: layer 2 only, down, and saying whom it waits for.
                    "link set dev " + own + " addrgenmode none alias " + waitingFor(vm, n, farVm, farIf)));
        }
    }

    /**
     * Takes interface n of the VR out of its link: when its partner waits on the host, the pair is
     * deleted; when the far end has it, this end goes to the host and waits there for the far end's
     * next partner. Safe to run again.
     */
    void leave(String netns, int vm, int n, int farVm, int farIf) throws DriverException {
        String dev = Names.vrSide(n);
        synchronized (lock(vm, n, farVm, farIf)) {
            String own = names.hostVeth(vm, n);
            if (HostLinks.exists(own) && waitingFor(vm, n, farVm, farIf).equals(HostLinks.alias(own))) {
                commands.ip("link", "del", "dev", own);
                return;
            }
            if (!commands.exists(netns, dev)) return;
            String forFar = names.hostVeth(farVm, farIf);
            long self = ProcessHandle.current().pid();
            commands.batch(netns, false, List.of("link set dev " + dev + " down",
                    "addr flush dev " + dev,
                    "link set dev " + dev + " name " + forFar + " alias " + waitingFor(farVm, farIf, vm, n),
                    // Into the namespace vrouter itself runs in: the host's, or a router's own in a test.
                    "link set dev " + forFar + " netns " + self));
            commands.ip("link", "set", "dev", forFar, "addrgenmode", "none");
        }
    }
}
