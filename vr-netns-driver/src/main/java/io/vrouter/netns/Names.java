package io.vrouter.netns;

import io.vrouter.core.driver.ConfigRefusedException;
import io.vrouter.core.model.VmNetworkConfigEntry;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What things are called on the host, and the checks every operator string passes before anything
 * is touched. Names come from the vmIndex and the interface index, never from vmName; the only
 * operator strings that reach the host are bridge names, MACs and addresses, each checked here and
 * written back in a canonical form.
 */
final class Names {
    /** Linux's longest interface name (IFNAMSIZ less the terminating NUL). */
    static final int IFNAMSIZ = 15;
    static final String CODE = "INVALID_CONFIG";
    private static final Pattern BRIDGE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,14}");
    private static final Pattern MAC = Pattern.compile("[0-9a-f]{2}(:[0-9a-f]{2}){5}");
    private static final Pattern IPV4 = Pattern.compile(
            "((25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)");
    private static final Pattern IPV6_CHARS = Pattern.compile("[0-9a-fA-F:.]{2,45}");
    private static final Pattern VR_SIDE = Pattern.compile("eth([1-9][0-9]{0,4})");

    private final String prefix;
    private final Pattern netns;
    private final Pattern hostVeth;
    /** The parents refused: every name of the forms the driver gives, leading zeros included. */
    private final Pattern reserved;

    Names(String prefix) {
        this.prefix = prefix;
        this.reserved = Pattern.compile(Pattern.quote(prefix) + "[0-9]+(-[0-9]+)?");
        this.netns = Pattern.compile(Pattern.quote(prefix) + "([1-9][0-9]{0,9})");
        this.hostVeth = Pattern.compile(Pattern.quote(prefix) + "([1-9][0-9]{0,9})-([1-9][0-9]{0,4})");
    }

    String prefix() {
        return prefix;
    }

    /** The VR's network namespace: {@code vr5}; its cgroup and run directory have the same name. */
    String netns(int vmIndex) {
        return prefix + vmIndex;
    }

    /** The host side of interface {@code n}: {@code vr5-2}, a port of the interface's bridge. */
    String hostVeth(int vmIndex, int networkIndex) {
        return netns(vmIndex) + "-" + networkIndex;
    }

    /** The VR side of interface {@code n}, inside the namespace: {@code eth2}. */
    static String vrSide(int networkIndex) {
        return "eth" + networkIndex;
    }

    /** The vmIndex of one of our namespace names, or empty. */
    OptionalInt vmIndexOfNetns(String name) {
        Matcher m = netns.matcher(name);
        return m.matches() ? parse(m.group(1)) : OptionalInt.empty();
    }

    /** The interface index of a host interface of the VR, or empty when the name is not one. */
    OptionalInt networkIndexOfHostVeth(String name, int vmIndex) {
        Matcher m = hostVeth.matcher(name);
        if (!m.matches() || parse(m.group(1)).orElse(-1) != vmIndex) return OptionalInt.empty();
        return parse(m.group(2));
    }

    /** The vmIndex a host interface name belongs to, or empty when it is not one of ours. */
    OptionalInt vmIndexOfHostVeth(String name) {
        Matcher m = hostVeth.matcher(name);
        return m.matches() ? parse(m.group(1)) : OptionalInt.empty();
    }

    static OptionalInt networkIndexOfVrSide(String name) {
        Matcher m = VR_SIDE.matcher(name);
        return m.matches() ? parse(m.group(1)) : OptionalInt.empty();
    }

    private static OptionalInt parse(String digits) {
        long v = Long.parseLong(digits);
        return v > Integer.MAX_VALUE ? OptionalInt.empty() : OptionalInt.of((int) v);
    }

    /** Checks that the VR's host interface names fit Linux's limit. */
    void checkFits(int vmIndex, int networkIndex) throws ConfigRefusedException {
        String name = hostVeth(vmIndex, networkIndex);
        if (name.length() > IFNAMSIZ) {
            throw new ConfigRefusedException("vmNetworkConfigIndex", "interface " + networkIndex + " of VR " + vmIndex
                    + " would be the host interface '" + name + "', longer than Linux's " + IFNAMSIZ + " characters: use a"
                    + " smaller vmIndex or interface index, or a shorter netns.prefix").about(networkIndex);
        }
    }

    /**
     * Checks a vmNetworkConfigParent: a Linux interface name (1 to 15 characters of those below) that
     * is none of vrouter's own: {@code PREFIX<digits>} or {@code PREFIX<digits>-<digits>}, leading zeros
     * or not (the driver never makes {@code vr05}, but it is still of the form the README reserves).
     */
    void checkBridge(String name) throws ConfigRefusedException {
        if (name == null || !BRIDGE.matcher(name).matches() || name.equals(".") || name.equals("..")) {
            throw new ConfigRefusedException("vmNetworkConfigParent", "'" + name + "' is not a Linux bridge name"
                    + " (1 to 15 letters, digits, '.', '_' or '-', starting with a letter or digit)");
        }
        if (reserved.matcher(name).matches()) {
            throw new ConfigRefusedException("vmNetworkConfigParent", "'" + name + "' is of the form " + prefix + "<digits> or "
                    + prefix + "<digits>-<digits>, the names vrouter gives its own VRs' namespaces and interfaces");
        }
    }

    /** An underlay device's name (a VXLAN link's parent): any Linux interface name but vrouter's own. */
    void checkDevice(String name) throws ConfigRefusedException {
        if (name == null || !BRIDGE.matcher(name).matches() || name.equals(".") || name.equals("..")) {
            throw new ConfigRefusedException("vmNetworkConfigParent", "'" + name + "' is not a Linux interface name"
                    + " (1 to 15 letters, digits, '.', '_' or '-', starting with a letter or digit)");
        }
        if (reserved.matcher(name).matches()) {
            throw new ConfigRefusedException("vmNetworkConfigParent", "'" + name + "' is one of vrouter's own VRs' interfaces,"
                    + " not an underlay");
        }
    }

    /** The interface's MAC in the form {@code ip} takes, or null when the kernel is to choose one. */
    static String mac(VmNetworkConfigEntry n) throws ConfigRefusedException {
        if (n.vmNetworkConfigPhysAddress == null) return null;
        String mac = n.vmNetworkConfigPhysAddress.toLowerCase(java.util.Locale.ROOT);
        if (!MAC.matcher(mac).matches() || (Integer.parseInt(mac.substring(0, 2), 16) & 1) != 0 || mac.equals("00:00:00:00:00:00")) {
            throw new ConfigRefusedException("vmNetworkConfigPhysAddress", "'" + n.vmNetworkConfigPhysAddress
                    + "' is not a unicast MAC address");
        }
        return mac;
    }

    /** The interface's address as {@code ip} takes it ({@code 192.0.2.1/24}), or null when it has none. */
    static String address(VmNetworkConfigEntry n) throws ConfigRefusedException {
        String a = n.vmNetworkConfigAddress;
        if (a == null) return null;
        InetAddress addr;
        try {
            if (IPV4.matcher(a).matches()) addr = InetAddress.getByName(a);
            else if (a.contains(":") && IPV6_CHARS.matcher(a).matches()
                    && (a.charAt(0) == ':' || Character.digit(a.charAt(0), 16) >= 0)) addr = InetAddress.getByName(a); // a literal: no lookup
            else throw new UnknownHostException(a);
        } catch (UnknownHostException e) {
            throw new ConfigRefusedException("vmNetworkConfigAddress", "'" + a + "' is not an IP address");
        }
        boolean v6 = addr instanceof Inet6Address;
        int max = v6 ? 128 : 32;
        int len = n.vmNetworkConfigPrefixLength == null ? (v6 ? 64 : 24) : n.vmNetworkConfigPrefixLength;
        if (len < 1 || len > max) {
            throw new ConfigRefusedException("vmNetworkConfigPrefixLength", len + " is out of range for " + a + " (1 to " + max + ")");
        }
        if (addr.isAnyLocalAddress() || addr.isLoopbackAddress() || addr.isMulticastAddress()) {
            throw new ConfigRefusedException("vmNetworkConfigAddress", "'" + a + "' cannot be an interface's address");
        }
        String text = addr.getHostAddress();
        int scope = text.indexOf('%');
        return (scope < 0 ? text : text.substring(0, scope)) + "/" + len;
    }
}
