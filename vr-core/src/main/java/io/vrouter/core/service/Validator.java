package io.vrouter.core.service;

import io.vrouter.core.model.Column;
import io.vrouter.core.model.ConfigColumn;
import io.vrouter.core.model.InetAddressType;
import io.vrouter.core.model.NetworkColumn;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
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
        range("vmNetworkConfigIndex", n.vmNetworkConfigIndex, 1, NetworkColumn.MAX_INDEX);
        if (n.vmNetworkConfigParent == null) throw ValidationException.missing("vmNetworkConfigParent");
        for (NetworkColumn col : NetworkColumn.values()) value(col, col.get(n));
        if (n.vmNetworkConfigPhysAddress != null) {
            if ((Integer.parseInt(n.vmNetworkConfigPhysAddress.substring(0, 2), 16) & 1) != 0) {
                throw new ValidationException("vmNetworkConfigPhysAddress", "must be a unicast address");
            }
            n.vmNetworkConfigPhysAddress = n.vmNetworkConfigPhysAddress.toLowerCase(Locale.ROOT);
        }
        if (n.vmNetworkConfigAddress != null) {
            if (n.vmNetworkConfigAddressType == null) {
                n.vmNetworkConfigAddressType = n.vmNetworkConfigAddress.contains(":")
                        ? InetAddressType.IPV6 : InetAddressType.IPV4;
            }
            boolean v4 = n.vmNetworkConfigAddressType == InetAddressType.IPV4;
            if (n.vmNetworkConfigAddressType == InetAddressType.UNKNOWN
                    || !(v4 ? IPV4 : IPV6).matcher(n.vmNetworkConfigAddress).matches()) {
                throw new ValidationException("vmNetworkConfigAddress", "'" + n.vmNetworkConfigAddress
                        + "' is not an " + (v4 ? "IPv4" : "IPv6") + " address");
            }
            if (n.vmNetworkConfigPrefixLength == null) n.vmNetworkConfigPrefixLength = VmNetworkConfigEntry.defaultPrefixLength(v4);
            range("vmNetworkConfigPrefixLength", n.vmNetworkConfigPrefixLength, 0, v4 ? 32 : 128);
        } else if (n.vmNetworkConfigPrefixLength != null) {
            throw new ValidationException("vmNetworkConfigPrefixLength", "given without vmNetworkConfigAddress");
        }
        return n;
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
