package io.vrouter.snmp;

import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.Column;
import io.vrouter.core.model.InetAddressType;
import io.vrouter.core.model.LinkType;
import io.vrouter.core.model.SmiEnum;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Locale;
import java.util.UUID;
import org.snmp4j.smi.Counter64;
import org.snmp4j.smi.Gauge32;
import org.snmp4j.smi.Integer32;
import org.snmp4j.smi.OctetString;
import org.snmp4j.smi.TimeTicks;
import org.snmp4j.smi.UnsignedInteger32;
import org.snmp4j.smi.Variable;

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

    /** A column's value in its SNMP encoding, by the column's kind; null when the row has none. */
    static Variable encode(Column.Kind kind, Object v) {
        return switch (kind) {
            // RFC 4001: no address is unknown(0) and an empty address, both present.
            case ADDRESS_TYPE -> new Integer32(v == null ? 0 : ((SmiEnum) v).code());
            // An interface that names no link type is a bridge's, as every interface was before links.
            case LINK_TYPE -> new Integer32(v == null ? LinkType.BRIDGE.code() : ((SmiEnum) v).code());
            case INET_ADDRESS -> inet((String) v);
            default -> v == null ? null : switch (kind) {
                case TEXT -> text((String) v);
                case INTEGER -> new Integer32((Integer) v);
                case UNSIGNED -> new UnsignedInteger32((Integer) v);
                case TRUTH -> truth((Boolean) v);
                case MAC -> mac((String) v);
                case UUID -> uuid((String) v);
                case INT64 -> new Integer32(clampInt((Long) v));
                case GAUGE32 -> new Gauge32(unsigned32((Long) v));
                case TIME_TICKS -> new TimeTicks(unsigned32((Long) v));
                case COUNTER64 -> new Counter64(Math.max(0, (Long) v));
                default -> new Integer32(((SmiEnum) v).code());
            };
        };
    }

    /** An enumerated SNMP value (TruthValue, an SMI enumeration) as the column's value; IllegalArgumentException when none. */
    static Object decode(Column.Kind kind, int code) {
        return switch (kind) {
            case TRUTH -> {
                if (code != 1 && code != 2) throw new IllegalArgumentException("TruthValue is true(1) or false(2)");
                yield code == 1;
            }
            case ADMIN_STATE -> AdminState.ofCode(code);
            case ADDRESS_TYPE -> InetAddressType.ofCode(code);
            case LINK_TYPE -> SmiEnum.ofCode(LinkType.class, code);
            default -> throw new IllegalArgumentException(kind + " is not enumerated");
        };
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

    /**
     * RFC 4001 InetAddress octets (4 or 16) in text form; IPv6 in RFC 5952's (the longest run of two
     * or more zero groups as "::"), as REST and NETCONF are given it, not Java's 2001:db8:0:0:0:0:0:1.
     */
    static String inet(OctetString octets) throws UnknownHostException {
        byte[] b = octets.getValue();
        String text = InetAddress.getByAddress(b).getHostAddress();
        if (b.length != 16) return text;
        int[] g = new int[8];
        for (int i = 0; i < 8; i++) g[i] = ((b[2 * i] & 0xff) << 8) | (b[2 * i + 1] & 0xff);
        int best = -1, bestLength = 1;
        for (int i = 0; i < 8; i++) {
            int j = i;
            while (j < 8 && g[j] == 0) j++;
            if (j - i > bestLength) {
                best = i;
                bestLength = j - i;
            }
            i = Math.max(i, j);
        }
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == best) {
                out.append("::");
                i += bestLength - 1;
                continue;
            }
            if (out.length() > 0 && out.charAt(out.length() - 1) != ':') out.append(':');
            out.append(Integer.toHexString(g[i]));
        }
        return out.toString();
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
