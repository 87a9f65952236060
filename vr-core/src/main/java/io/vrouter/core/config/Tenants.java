package io.vrouter.core.config;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The tenants declared in the settings ({@code tenant.NAME = vrs=N, vcpus=N, memory=MiB, underlays=DEV DEV},
 * every part optional; underlays: the host devices the provider grants the tenant as VXLAN underlays
 * or macvlan parents) and how much of the host VRs may commit ({@code capacity.cpu-overcommit}, default 4;
 * {@code capacity.memory-overcommit}, default 1: none). A tenant's users are the {@code user.*} lines
 * whose role names it ({@code operator@NAME:PASSWORD}).
 */
public final class Tenants {
    /** What a tenant name looks like: it is also a NACM group, an SNMP context and a vmConfigTenant value. */
    public static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,31}");

    /** A tenant and its quotas (null: no limit), and the host devices granted it. */
    public record Tenant(String name, Integer vrs, Integer vcpus, Long memoryMib, Set<String> underlays) {
    }

    /** A Linux interface name. */
    private static final Pattern DEVICE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,14}");

    private final Map<String, Tenant> tenants;
    private final double cpuOvercommit;
    private final double memoryOvercommit;

    private Tenants(Map<String, Tenant> tenants, double cpuOvercommit, double memoryOvercommit) {
        this.tenants = Collections.unmodifiableMap(tenants);
        this.cpuOvercommit = cpuOvercommit;
        this.memoryOvercommit = memoryOvercommit;
    }

    /** No tenants, the default overcommit. */
    public static Tenants none() {
        return new Tenants(new LinkedHashMap<>(), 4, 1);
    }

    /** The {@code tenant.*} and {@code capacity.*} settings; throws naming the setting that is wrong. */
    public static Tenants from(Settings settings) {
        Map<String, Tenant> tenants = new LinkedHashMap<>();
        settings.withPrefix("tenant.").forEach((name, spec) -> {
            if (!NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("setting 'tenant." + name + "': a tenant name is 1 to 32 letters, "
                        + "digits, '.', '_' or '-', starting with a letter or digit");
            }
            Integer vrs = null;
            Integer vcpus = null;
            Long memory = null;
            Set<String> underlays = new TreeSet<>();
            for (String part : spec.split(",")) {
                if (part.isBlank()) continue;
                String[] kv = part.split("=", 2);
                String key = kv[0].trim().toLowerCase(Locale.ROOT);
                if (key.equals("underlays") && kv.length == 2) {
                    for (String dev : kv[1].trim().split("\\s+")) {
                        if (!DEVICE.matcher(dev).matches()) {
                            throw new IllegalArgumentException("setting 'tenant." + name + "': underlay '" + dev
                                    + "' is not a Linux interface name");
                        }
                        underlays.add(dev);
                    }
                    continue;
                }
                long value;
                try {
                    value = kv.length == 2 ? Long.parseLong(kv[1].trim()) : -1;
                } catch (NumberFormatException e) {
                    value = -1;
                }
                if (value < 0 || value > Integer.MAX_VALUE) {
                    throw new IllegalArgumentException("setting 'tenant." + name + "': '" + part.trim()
                            + "' must be vrs=N, vcpus=N or memory=MiB with N a whole number from 0, or underlays=DEV DEV");
                }
                switch (key) {
                    case "vrs" -> vrs = (int) value;
                    case "vcpus" -> vcpus = (int) value;
                    case "memory" -> memory = value;
                    default -> throw new IllegalArgumentException("setting 'tenant." + name + "': unknown quota '"
                            + key + "' (vrs, vcpus, memory, underlays)");
                }
            }
            tenants.put(name, new Tenant(name, vrs, vcpus, memory, Set.copyOf(underlays)));
        });
        return new Tenants(tenants, ratio(settings, "capacity.cpu-overcommit", 4),
                ratio(settings, "capacity.memory-overcommit", 1));
    }

    private static double ratio(Settings settings, String key, double defaultValue) {
        String v = settings.get(key).orElse(null);
        if (v == null) return defaultValue;
        try {
            double d = Double.parseDouble(v.trim());
            if (d > 0 && d <= 1000) return d;
        } catch (NumberFormatException e) {
            // below
        }
        throw new IllegalArgumentException("setting '" + key + "' must be a ratio above 0 (1: no overcommit), not '" + v + "'");
    }

    public Optional<Tenant> get(String name) {
        return Optional.ofNullable(name == null ? null : tenants.get(name));
    }

    public Collection<Tenant> all() {
        return tenants.values();
    }

    public boolean isEmpty() {
        return tenants.isEmpty();
    }

    public double cpuOvercommit() {
        return cpuOvercommit;
    }

    public double memoryOvercommit() {
        return memoryOvercommit;
    }
}
