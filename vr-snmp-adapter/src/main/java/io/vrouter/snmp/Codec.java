package io.vrouter.snmp;

import io.vrouter.core.model.InetAddressType;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Locale;
import java.util.UUID;
import org.snmp4j.smi.Integer32;
import org.snmp4j.smi.OctetString;

/** Conversions between the model's text values and their SNMP encodings. */
final class Codec {
    private Codec() {
    }

    static OctetString text(String s) {
        return new OctetString(s == null ? "" : s);
    }

    static String text(OctetString s) {
        return new String(s.getValue(), StandardCharsets.UTF_8);
    }

    static Integer32 truth(boolean b) {
        return new Integer32(b ? 1 : 2);
    }

    /** "02:00:00:00:00:01" as six octets; empty when absent or malformed. */
    static OctetString mac(String mac) {
        if (mac == null) return new OctetString();
        try {
            return new OctetString(HexFormat.ofDelimiter(":").parseHex(mac));
        } catch (IllegalArgumentException e) {
            return new OctetString();
        }
    }

    static String mac(OctetString octets) {
        return HexFormat.ofDelimiter(":").formatHex(octets.getValue()).toLowerCase(Locale.ROOT);
    }

    /** An address in text form as RFC 4001 InetAddress octets; empty when absent or malformed. */
    static OctetString inet(String address) {
        if (address == null || address.isEmpty()) return new OctetString();
        if (!address.matches("[0-9a-fA-F:.]+")) return new OctetString();
        try {
            return new OctetString(InetAddress.getByName(address).getAddress());
        } catch (UnknownHostException e) {
            return new OctetString();
        }
    }

    /** RFC 4001 InetAddress octets (4 or 16) in text form. */
    static String inet(OctetString octets) throws UnknownHostException {
        return InetAddress.getByAddress(octets.getValue()).getHostAddress();
    }

    /** The address type of InetAddress octets of the given length. */
    static InetAddressType inetType(int length) {
        return length == 4 ? InetAddressType.IPV4 : length == 16 ? InetAddressType.IPV6 : InetAddressType.UNKNOWN;
    }

    /** A UUID in text form as 16 octets, empty when absent or not a UUID. */
    static OctetString uuid(String uuid) {
        if (uuid == null) return new OctetString();
        try {
            UUID u = UUID.fromString(uuid);
            ByteBuffer b = ByteBuffer.allocate(16);
            b.putLong(u.getMostSignificantBits()).putLong(u.getLeastSignificantBits());
            return new OctetString(b.array());
        } catch (IllegalArgumentException e) {
            return new OctetString();
        }
    }

    static int clampInt(Long v) {
        if (v == null) return 0;
        return (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, v));
    }

    static long unsigned32(Long v) {
        if (v == null) return 0;
        return Math.max(0, Math.min(0xFFFF_FFFFL, v));
    }
}
