package io.vrouter.core.service;

import io.vrouter.core.model.Column;
import io.vrouter.core.model.ConfigColumn;
import io.vrouter.core.model.InetAddressType;
import io.vrouter.core.model.LinkType;
import io.vrouter.core.model.NetworkColumn;
import io.vrouter.core.model.Schema;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import io.vrouter.core.spi.ValidationException;
import java.math.BigInteger;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The values a row may hold, column by column, from the bounds of the column tables
 * ({@link ConfigColumn}, {@link NetworkColumn}) and the formats of their kinds. What may change
 * when, and between VRs, is {@link ChangeCheck}'s.
 */
final class Validator {
    static final int MAX_VM_INDEX = Integer.MAX_VALUE;
    // The patterns the OpenAPI document declares, so that a client checking against it is refused for nothing else.
    private static final Pattern NAME = Pattern.compile(VmConfigEntry.NAME_PATTERN);
    private static final Pattern MAC = Pattern.compile(VmNetworkConfigEntry.MAC_PATTERN);
    private static final Pattern IPV4 = Pattern.compile(
            "((25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)");
    private static final Pattern IPV6 = Pattern.compile("[0-9a-fA-F:.]{2,45}");
    private static final String ZERO_MAC = "00:00:00:00:00:00";

    private Validator() {
    }

    /** Checks every column of a VR's row that has a value; vmName is required. */
    static void row(VmConfigEntry c) {
        if (c.vmIndex != null && c.vmIndex < 1) {
            throw new ValidationException("vmIndex", "must be between 1 and " + MAX_VM_INDEX);
        }
        if (c.vmName == null) throw ValidationException.missing("vmName");
        if (!NAME.matcher(c.vmName).matches()) {
            throw new ValidationException("vmName", "must be 1 to 64 letters, digits, '.', '_' or '-',"
                    + " starting with a letter or digit");
        }
        for (ConfigColumn col : ConfigColumn.values()) value(col, col.get(c));
    }

    /**
     * Checks an interface and completes it: its index when absent (the lowest one not in
     * {@code used}, which it is then added to), the address type and prefix length from the address,
     * the MAC in lower case. The MAC itself, when absent, is the driver's to generate.
     */
    static VmNetworkConfigEntry iface(VmNetworkConfigEntry request, Set<Integer> used) {
        VmNetworkConfigEntry n = request.copy();
        if (n.vmNetworkConfigIndex == null) {
            int i = 1;
            while (used.contains(i)) i++;
            n.vmNetworkConfigIndex = i;
            used.add(i);
        }
        range(Schema.Table.NETWORK_CONFIG.rowKey(), n.vmNetworkConfigIndex, 1, NetworkColumn.MAX_INDEX);
        for (NetworkColumn col : NetworkColumn.values()) value(col, col.get(n));
        attachment(n);
        if (n.vmNetworkConfigPhysAddress != null) {
            n.vmNetworkConfigPhysAddress = n.vmNetworkConfigPhysAddress.toLowerCase(Locale.ROOT);
            if ((Integer.parseInt(n.vmNetworkConfigPhysAddress.substring(0, 2), 16) & 1) != 0) {
                throw new ValidationException("vmNetworkConfigPhysAddress", "must be a unicast address");
            }
            if (n.vmNetworkConfigPhysAddress.equals(ZERO_MAC)) {
                throw new ValidationException("vmNetworkConfigPhysAddress", "00:00:00:00:00:00 is no interface's address");
            }
        }
        if (n.vmNetworkConfigAddress != null) {
            if (n.vmNetworkConfigAddressType == null) {
                n.vmNetworkConfigAddressType = n.vmNetworkConfigAddress.contains(":")
                        ? InetAddressType.IPV6 : InetAddressType.IPV4;
            }
            boolean v4 = n.vmNetworkConfigAddressType == InetAddressType.IPV4;
            byte[] address = address(n.vmNetworkConfigAddressType, n.vmNetworkConfigAddress, "vmNetworkConfigAddress");
            if (n.vmNetworkConfigPrefixLength == null) n.vmNetworkConfigPrefixLength = VmNetworkConfigEntry.defaultPrefixLength(v4);
            range("vmNetworkConfigPrefixLength", n.vmNetworkConfigPrefixLength, 0, v4 ? 32 : 128);
            String misuse = notAnInterfaceAddress(address, n.vmNetworkConfigPrefixLength);
            if (misuse != null) {
                throw new ValidationException("vmNetworkConfigAddress", "'" + n.vmNetworkConfigAddress + "' is " + misuse
                        + ", not an interface's address");
            }
        } else if (n.vmNetworkConfigPrefixLength != null) {
            throw new ValidationException("vmNetworkConfigPrefixLength", "given without vmNetworkConfigAddress");
        }
        return n;
    }

    /**
     * The columns an interface's link type needs, and none of another type's: a bridge or macvlan
     * interface names its parent; a peer link its far VR and interface and no parent; a VXLAN link its
     * VNI, the far router's underlay address and the local underlay device. Which VRs a peer link may
     * join is checked across the VRs ({@code ChangeCheck}).
     */
    private static void attachment(VmNetworkConfigEntry n) {
        LinkType type = LinkType.of(n);
        boolean peer = type == LinkType.PEER;
        boolean vxlan = type == LinkType.VXLAN;
        if (!peer && n.vmNetworkConfigParent == null) {
            throw ValidationException.missing("vmNetworkConfigParent");
        }
        if (peer && n.vmNetworkConfigParent != null) {
            throw new ValidationException("vmNetworkConfigParent", "a peer link has no host parent: it joins the VR"
                    + " straight to vmNetworkConfigPeerInterface of vmNetworkConfigPeerRouter");
        }
        only(peer, type, "vmNetworkConfigPeerRouter", n.vmNetworkConfigPeerRouter);
        only(peer, type, "vmNetworkConfigPeerInterface", n.vmNetworkConfigPeerInterface);
        only(vxlan, type, "vmNetworkConfigVni", n.vmNetworkConfigVni);
        only(vxlan, type, "vmNetworkConfigRemote", n.vmNetworkConfigRemote);
        if (vxlan) {
            byte[] remote = address(n.vmNetworkConfigRemote.contains(":") ? InetAddressType.IPV6 : InetAddressType.IPV4,
                    n.vmNetworkConfigRemote, "vmNetworkConfigRemote");
            String misuse = notAnInterfaceAddress(remote, remote.length * 8);
            if (misuse != null) {
                throw new ValidationException("vmNetworkConfigRemote", "'" + n.vmNetworkConfigRemote + "' is " + misuse
                        + ", not a router's underlay address");
            }
        }
    }

    /** A column that a link of the given type must have ({@code needed}) or must not. */
    private static void only(boolean needed, LinkType type, String column, Object value) {
        if (needed && value == null) throw ValidationException.missing(column);
        if (!needed && value != null) {
            throw new ValidationException(column, "is not a column of a " + type.label() + " interface");
        }
    }

    /**
     * The address's octets, parsed as its type says: dotted decimal for ipv4, RFC 4291 text for ipv6
     * (an IPv4 address given as ipv6, or the reverse, is refused, as is an IPv4-mapped IPv6 address).
     */
    private static byte[] address(InetAddressType type, String text, String field) {
        boolean v4Text = IPV4.matcher(text).matches();
        String wrong = switch (type) {
            case IPV4 -> v4Text ? null : "is not an IPv4 address";
            case IPV6 -> v4Text ? "is an IPv4 address, and vmNetworkConfigAddressType is ipv6" : null;
            default -> "has vmNetworkConfigAddressType unknown";
        };
        if (wrong != null) throw new ValidationException(field, "'" + text + "' " + wrong);
        if (v4Text) {
            String[] parts = text.split("\\.");
            byte[] b = new byte[4];
            for (int i = 0; i < 4; i++) b[i] = (byte) Integer.parseInt(parts[i]);
            return b;
        }
        // Only hex digits, colons and dots, with a colon, starting with a digit or a colon: the JDK parses
        // such a string as a literal and never looks it up as a host name.
        if (IPV6.matcher(text).matches() && text.contains(":") && (text.charAt(0) == ':' || Character.digit(text.charAt(0), 16) >= 0)) {
            try {
                InetAddress a = InetAddress.getByName(text);
                if (a instanceof Inet6Address) return a.getAddress();
                throw new ValidationException(field, "'" + text + "' is an IPv4-mapped address:"
                        + " give the IPv4 address with vmNetworkConfigAddressType ipv4");
            } catch (UnknownHostException e) {
                // not an address: said below
            }
        }
        throw new ValidationException(field, "'" + text + "' is not an IPv6 address");
    }

    /**
     * What an address is when it cannot be an interface's (the unspecified, loopback, multicast or
     * limited broadcast address, or the network or broadcast address of its own prefix), or null.
     * IPv4 /31 and /32 and IPv6 /127 and /128 have no network or broadcast address (RFC 3021, RFC 6164).
     */
    static String notAnInterfaceAddress(byte[] a, int prefixLength) {
        boolean v4 = a.length == 4;
        BigInteger value = new BigInteger(1, a);
        int bits = a.length * 8;
        BigInteger hostMask = BigInteger.ONE.shiftLeft(bits - prefixLength).subtract(BigInteger.ONE);
        BigInteger host = value.and(hostMask);
        if (value.signum() == 0) return "the unspecified address";
        if (v4 ? (a[0] & 0xff) == 127 : value.equals(BigInteger.ONE)) return "a loopback address";
        if (v4 ? (a[0] & 0xf0) == 0xe0 : (a[0] & 0xff) == 0xff) return "a multicast address";
        if (v4 && value.bitCount() == 32) return "the limited broadcast address";
        if (prefixLength < bits - 1 && prefixLength > 0) {
            String net = "/" + prefixLength;
            if (host.signum() == 0) return v4 ? "the network address of its prefix (" + net + ")"
                    : "the subnet-router anycast address of its prefix (" + net + ")";
            if (v4 && host.equals(hostMask)) return "the broadcast address of its prefix (" + net + ")";
        }
        return null;
    }

    /** A column's value within its kind's format and the column's bounds (null: absent, fine here). */
    private static void value(Column<?> col, Object v) {
        if (v == null) return;
        switch (col.kind()) {
            case TEXT -> text(col, (String) v);
            case INTEGER, UNSIGNED -> range(col.field(), (Integer) v, col.min(), col.max());
            case MAC -> {
                if (!MAC.matcher((String) v).matches()) {
                    throw new ValidationException(col.field(), "must be six colon-separated hex octets, like 02:00:00:00:00:01");
                }
            }
            default -> {
                // enumerations and booleans: every value of the type is allowed
            }
        }
    }

    private static void text(Column<?> col, String value) {
        int octets = value.getBytes(StandardCharsets.UTF_8).length;
        if (octets < col.min() || octets > col.max() || (col.min() > 0 && value.isBlank())) {
            throw new ValidationException(col.field(), col.min() == 0 ? "must be at most " + col.max() + " octets in UTF-8"
                    : "must be " + col.min() + " to " + col.max() + " characters");
        }
        for (int i = 0; i < value.length(); i++) {
            if (Character.isISOControl(value.charAt(i))) {
                throw new ValidationException(col.field(), "must not contain control characters");
            }
        }
    }

    private static void range(String field, long value, long min, long max) {
        if (value < min || value > max) {
            throw new ValidationException(field, "must be between " + min + " and " + max + ", not " + value);
        }
    }
}
