package io.vrouter.server;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * The settings every form of the server shares, before its own overrides (the command line, or a
 * Tomcat deployment's system properties): the config file, then the environment.
 */
public final class SettingsLoader {
    /** The keys that environment variables may set: {@code VROUTER_REST_PORT} sets {@code rest-port}. */
    public static final List<String> KEYS = List.of("config", "data-dir", "bind", "rest-port", "snmp-port", "netconf-port",
            "gnmi-port", "console", "driver", "sim-latency", "snmp-trap-target");

    private SettingsLoader() {
    }

    /**
     * Reads the config file (the one given, else the one {@code VROUTER_CONFIG} names, else none) and
     * lays the environment over it.
     */
    public static Map<String, String> load(Path configFile, Map<String, String> env) throws IOException {
        Map<String, String> fromEnv = new LinkedHashMap<>();
        for (String key : KEYS) {
            String v = env.get("VROUTER_" + key.toUpperCase(Locale.ROOT).replace('-', '_'));
            if (v != null) fromEnv.put(key, v);
        }
        Path file = configFile != null ? configFile : fromEnv.containsKey("config") ? Path.of(fromEnv.get("config")) : null;
        Map<String, String> values = new LinkedHashMap<>();
        if (file != null) {
            if (!Files.isReadable(file)) throw new IllegalArgumentException("cannot read config file " + file);
            Properties p = new Properties();
            try (InputStream in = Files.newInputStream(file)) {
                p.load(in);
            }
            p.stringPropertyNames().forEach(k -> values.put(k, p.getProperty(k)));
        }
        values.putAll(fromEnv);
        return values;
    }
}
