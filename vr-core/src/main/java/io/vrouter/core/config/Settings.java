package io.vrouter.core.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The server's settings: string values keyed by the long option name without its dashes
 * ({@code rest-port}, {@code snmp-trap-target}, ...). Values come, lowest precedence first, from the
 * defaults, the config file, the environment ({@code VROUTER_REST_PORT}) and the command line.
 * Repeated options are kept as comma-separated lists. Immutable.
 */
public final class Settings {
    private final Map<String, String> values;

    private Settings(Map<String, String> values) {
        this.values = Collections.unmodifiableMap(new TreeMap<>(values));
    }

    public static Settings of(Map<String, String> values) {
        return new Settings(values);
    }

    public static Settings empty() {
        return new Settings(Map.of());
    }

    public Optional<String> get(String key) {
        String v = values.get(key);
        return v == null || v.isBlank() ? Optional.empty() : Optional.of(v.trim());
    }

    public String get(String key, String defaultValue) {
        return get(key).orElse(defaultValue);
    }

    public int getInt(String key, int defaultValue) {
        Optional<String> v = get(key);
        if (v.isEmpty()) return defaultValue;
        try {
            return Integer.parseInt(v.get());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("setting '" + key + "' must be a whole number, not '" + v.get() + "'");
        }
    }

    public boolean getBoolean(String key, boolean defaultValue) {
        Optional<String> v = get(key);
        if (v.isEmpty()) return defaultValue;
        switch (v.get().toLowerCase(java.util.Locale.ROOT)) {
            case "true": case "yes": case "on": case "1": return true;
            case "false": case "no": case "off": case "0": return false;
            default: throw new IllegalArgumentException("setting '" + key + "' must be true or false, not '" + v.get() + "'");
        }
    }

    /** A duration: {@code 500ms}, {@code 30s}, {@code 2m}, {@code 12h}, {@code 7d}, or a number of seconds. */
    public Duration getDuration(String key, String defaultValue) {
        String v = get(key, defaultValue).toLowerCase(java.util.Locale.ROOT);
        try {
            if (v.endsWith("ms")) return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2).trim()));
            long unit = switch (v.charAt(v.length() - 1)) {
                case 's' -> 1_000L;
                case 'm' -> 60_000L;
                case 'h' -> 3_600_000L;
                case 'd' -> 86_400_000L;
                default -> 0L;
            };
            String number = unit == 0 ? v : v.substring(0, v.length() - 1).trim();
            Duration d = Duration.ofMillis((long) (Double.parseDouble(number) * (unit == 0 ? 1_000L : unit)));
            if (d.isNegative()) throw new NumberFormatException(v);
            return d;
        } catch (NumberFormatException | IndexOutOfBoundsException e) {
            throw new IllegalArgumentException("setting '" + key + "' must be a duration such as 30s, 500ms, 2m,"
                    + " 12h or 7d, not '" + v + "'");
        }
    }

    /** A comma-separated list, empty when unset. */
    public List<String> getList(String key) {
        List<String> out = new ArrayList<>();
        for (String s : get(key, "").split(",")) {
            if (!s.isBlank()) out.add(s.trim());
        }
        return out;
    }

    /** Every setting whose key starts with the prefix, keyed by the rest of the key. */
    public Map<String, String> withPrefix(String prefix) {
        Map<String, String> out = new LinkedHashMap<>();
        values.forEach((k, v) -> {
            if (k.startsWith(prefix)) out.put(k.substring(prefix.length()), v);
        });
        return out;
    }

    /** The data directory, where everything that must survive a restart is kept. */
    public Path dataDir() {
        return Path.of(get("data-dir", "data")).toAbsolutePath();
    }

    public Settings with(String key, String value) {
        Map<String, String> copy = new TreeMap<>(values);
        copy.put(key, value);
        return new Settings(copy);
    }

    /**
     * Logs each of the keys whose value differs in {@code next} as needing a restart (a reload leaves
     * it as it is). Keys ending in '.' stand for every key with that prefix.
     */
    public void logNeedsRestart(Settings next, org.slf4j.Logger log, String... keys) {
        for (String key : keys) {
            boolean changed = key.endsWith(".") ? !withPrefix(key).equals(next.withPrefix(key))
                    : !get(key).equals(next.get(key));
            if (changed) log.warn("reload: setting '{}{}' changed; it needs a restart and stays as it was", key,
                    key.endsWith(".") ? "*" : "");
        }
    }

    public Map<String, String> asMap() {
        return values;
    }

    @Override
    public String toString() {
        return values.toString();
    }
}
