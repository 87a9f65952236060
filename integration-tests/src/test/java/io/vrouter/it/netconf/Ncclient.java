package io.vrouter.it.netconf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vrouter.it.ServerProcess;
import java.util.ArrayList;
import java.util.List;

/** Runs the ncclient scenarios of {@code src/test/python/netconf_scenarios.py} against a server. */
public final class Ncclient {
    static final String SCRIPT = "src/test/python/netconf_scenarios.py";
    private static final ObjectMapper JSON = new ObjectMapper();

    private Ncclient() {
    }

    /** Runs one scenario and returns the JSON object it printed last; fails with its output otherwise. */
    public static JsonNode scenario(ServerProcess server, String name, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("python3", SCRIPT, name, "--port", Integer.toString(server.netconfPort)));
        cmd.addAll(List.of(args));
        ServerProcess.Result r = ServerProcess.run(cmd);
        if (r.exit() != 0) throw new AssertionError("scenario " + name + " failed: " + r);
        String[] lines = r.out().strip().split("\n");
        return JSON.readTree(lines[lines.length - 1]);
    }

    /** GET on the REST interface: the JSON body, or null on 404. */
    static JsonNode rest(ServerProcess server, String path) throws Exception {
        var r = server.get(path);
        if (r.statusCode() == 404) return null;
        if (r.statusCode() != 200) throw new AssertionError("GET " + path + ": " + r.statusCode() + " " + r.body());
        return JSON.readTree(r.body());
    }
}
