package io.vrouter.api.server;

import io.vrouter.api.rest.RestInterface;
import io.vrouter.core.config.Settings;
import java.io.IOException;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.Map;

/** Whole servers for the HTTP tests: the simulated driver, a fresh data directory, every port chosen free. */
public final class TestServers {
    private TestServers() {
    }

    /** A server with the development users; {@code extra}: settings beside the data directory and the ports. */
    public static VrouterServer start(String name, Map<String, String> extra) throws Exception {
        Map<String, String> settings = new HashMap<>(extra);
        settings.put("data-dir", Files.createTempDirectory(name).toString());
        settings.put("rest-port", "0");
        settings.put("snmp-port", "0");
        settings.put("netconf-port", "0");
        // gNMI has no "any free port": off here, as vr-gnmi's and the integration tests cover it.
        settings.putIfAbsent("gnmi-port", "off");
        return VrouterServer.start(Settings.of(settings));
    }

    public static VrouterServer start(String name) throws Exception {
        return start(name, Map.of());
    }

    /** The port the server's REST interface (and RESTCONF, on the same server) listens on. */
    public static int restPort(VrouterServer server) throws IOException {
        return server.interfaces().stream().filter(i -> i instanceof RestInterface)
                .mapToInt(i -> ((RestInterface) i).port()).findFirst().orElseThrow(() -> new IOException("no REST interface"));
    }
}
