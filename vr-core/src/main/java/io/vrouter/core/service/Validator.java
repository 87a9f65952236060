package io.vrouter.core.service;

import io.vrouter.core.model.AdminState;
import io.vrouter.core.model.InetAddressType;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.model.VmNetworkConfigEntry;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/** Checks and completes what a client writes, so every interface enforces the same rules. */
public final class Validator {
    public static final int MAX_VM_INDEX = Integer.MAX_VALUE;
    public static final int MAX_NETWORK_INDEX = 65535;
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
    private static final Pattern MAC = Pattern.compile("[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}");
    private static final Pattern IPV4 = Pattern.compile(
            "((25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)");
    private static final Pattern IPV6 = Pattern.compile("[0-9a-fA-F:.]{2,45}");

    private Validator() {
    }

    /** Returns a completed copy of a creation request: defaults filled in, interfaces numbered. */
    public static VmConfigEntry forCreate(VmConfigEntry request) {
        if (request == null) throw new ValidationException("body", "a VR description is required");
        VmConfigEntry c = request.copy();
        if (c.vmIndex != null && (c.vmIndex < 1)) {
            throw new ValidationException("vmIndex", "must be between 1 and " + MAX_VM_INDEX);
        }
        name(c.vmName);
        if (c.vmAdminState == null) c.vmAdminState = AdminState.RUNNING;
        if (c.vmAdminState != AdminState.RUNNING && c.vmAdminState != AdminState.SHUTDOWN) {
            throw new ValidationException("vmAdminState", "a VR is created running or shutdown, not "
                    + c.vmAdminState.label());
        }
        // The default template is the driver's: the service fills it in.
        if (c.vmConfigTemplate != null) text("vmConfigTemplate", c.vmConfigTemplate);
        if (c.vmConfigCpuNumber == null) c.vmConfigCpuNumber = VmConfigEntry.Defaults.CPU_NUMBER;
        range("vmConfigCpuNumber", c.vmConfigCpuNumber, 1, 64);
        if (c.vmConfigMemory == null) c.vmConfigMemory = VmConfigEntry.Defaults.MEMORY_MIB;
        range("vmConfigMemory", c.vmConfigMemory, 64, 1_048_576);
        if (c.vmConfigAutoStart == null) c.vmConfigAutoStart = Boolean.FALSE;
        List<VmNetworkConfigEntry> ifaces = new ArrayList<>();
        Set<Integer> used = new HashSet<>();
        for (VmNetworkConfigEntry n : c.interfaces()) {
            if (n == null) throw new ValidationException("vmNetworkConfigTable", "an interface entry is empty");
            if (n.vmNetworkConfigIndex != null && !used.add(n.vmNetworkConfigIndex)) {
                throw new ValidationException("vmNetworkConfigIndex", "interface " + n.vmNetworkConfigIndex
                        + " is given twice");
            }
        }
        for (VmNetworkConfigEntry n : c.interfaces()) {
            ifaces.add(forInterface(n, used, c.vmIndex == null ? 0 : c.vmIndex));
        }
        c.vmNetworkConfigTable = ifaces.isEmpty() ? null : List.copyOf(ifaces);
        return c;
    }

    /**
     * Returns the row that results from applying the non-null columns of {@code changes} to
     * {@code current}: vmName, vmConfigCpuNumber, vmConfigMemory, vmConfigAutoStart (and
     * vmConfigTemplate, which the service then refuses to change). vmIndex must name the row, if
     * given; vmAdminState and the interfaces have calls of their own (an empty interface list is
     * taken as absent).
     */
    public static VmConfigEntry forReconfigure(VmConfigEntry current, VmConfigEntry changes) {
        if (changes == null) throw new ValidationException("body", "the columns to change are required");
        if (changes.vmIndex != null && !changes.vmIndex.equals(current.vmIndex)) {
            throw new ValidationException("vmIndex", "cannot change: it names the VR");
        }
        if (changes.vmAdminState != null) {
            throw new ValidationException("vmAdminState", "is changed by starting, stopping, suspending or pausing the VR");
        }
        // An empty list is what generated clients send for "not set"; a non-empty one is an attempt.
        if (changes.vmNetworkConfigTable != null && !changes.vmNetworkConfigTable.isEmpty()) {
            throw new ValidationException("vmNetworkConfigTable", "interfaces are added and removed one at a time");
        }
        VmConfigEntry next = current.copy();
        if (changes.vmName != null) {
            name(changes.vmName);
            next.vmName = changes.vmName;
        }
        if (changes.vmConfigTemplate != null) {
            text("vmConfigTemplate", changes.vmConfigTemplate);
            next.vmConfigTemplate = changes.vmConfigTemplate;
        }
        if (changes.vmConfigCpuNumber != null) {
            range("vmConfigCpuNumber", changes.vmConfigCpuNumber, 1, 64);
            next.vmConfigCpuNumber = changes.vmConfigCpuNumber;
        }
        if (changes.vmConfigMemory != null) {
            range("vmConfigMemory", changes.vmConfigMemory, 64, 1_048_576);
            next.vmConfigMemory = changes.vmConfigMemory;
        }
        if (changes.vmConfigAutoStart != null) next.vmConfigAutoStart = changes.vmConfigAutoStart;
        return next;
    }

    /**
     * Returns a completed copy of an interface: its index (the lowest one not in {@code used}, which
     * it is then added to) and a MAC derived from the VR's index when absent.
     */
    public static VmNetworkConfigEntry forInterface(VmNetworkConfigEntry request, Set<Integer> used, int vmIndex) {
        VmNetworkConfigEntry n = request.copy();
        if (n.vmNetworkConfigIndex == null) {
            int i = 1;
            while (used.contains(i)) i++;
            n.vmNetworkConfigIndex = i;
            used.add(i);
        }
        range("vmNetworkConfigIndex", n.vmNetworkConfigIndex, 1, MAX_NETWORK_INDEX);
        if (n.vmNetworkConfigParent == null) {
            throw new ValidationException("vmNetworkConfigParent", "the host network to attach to is required");
        }
        text("vmNetworkConfigParent", n.vmNetworkConfigParent);
        if (n.vmNetworkConfigPhysAddress != null) {
            if (!MAC.matcher(n.vmNetworkConfigPhysAddress).matches()) {
                throw new ValidationException("vmNetworkConfigPhysAddress",
                        "must be six colon-separated hex octets, like 02:00:00:00:00:01");
            }
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
            if (n.vmNetworkConfigPrefixLength == null) n.vmNetworkConfigPrefixLength = v4 ? 24 : 64;
            range("vmNetworkConfigPrefixLength", n.vmNetworkConfigPrefixLength, 0, v4 ? 32 : 128);
        } else if (n.vmNetworkConfigPrefixLength != null) {
            throw new ValidationException("vmNetworkConfigPrefixLength", "given without vmNetworkConfigAddress");
        }
        return n;
    }

    static void name(String name) {
        if (name == null) throw new ValidationException("vmName", "is required");
        if (!NAME.matcher(name).matches()) {
            throw new ValidationException("vmName", "must be 1 to 64 letters, digits, '.', '_' or '-',"
                    + " starting with a letter or digit");
        }
    }

    private static void text(String field, String value) {
        if (value.isBlank() || value.length() > 64) {
            throw new ValidationException(field, "must be 1 to 64 characters");
        }
        for (int i = 0; i < value.length(); i++) {
            if (Character.isISOControl(value.charAt(i))) {
                throw new ValidationException(field, "must not contain control characters");
            }
        }
    }

    private static void range(String field, int value, int min, int max) {
        if (value < min || value > max) {
            throw new ValidationException(field, "must be between " + min + " and " + max + ", not " + value);
        }
    }
}
