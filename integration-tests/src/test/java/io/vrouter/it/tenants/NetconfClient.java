package io.vrouter.it.tenants;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vrouter.it.ServerProcess;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * NETCONF over SSH, driven by ncclient (src/test/python/netconf_tenants.py) as an operator's script
 * would: one session per request, as the user, on running.
 */
final class NetconfClient implements TenantClient {
    private static final String SCRIPT = "src/test/python/netconf_tenants.py";
    private static final ObjectMapper JSON = new ObjectMapper();
    private final ServerProcess server;

    NetconfClient(ServerProcess server) {
        this.server = server;
    }

    @Override
    public String name() {
        return "netconf";
    }

    @Override
    public Outcome create(TenantsIT.User user, String vmName, int cpus) {
        JsonNode r = run(user, "create", "--name", vmName, "--cpus", Integer.toString(cpus));
        Outcome o = outcome(r);
        return o.kind() == Outcome.Kind.OK ? Outcome.ok(r.path("index").asInt(), o.said()) : o;
    }

    @Override
    public Set<String> names(TenantsIT.User user) {
        return names(run(user, "names"));
    }

    @Override
    public Outcome read(TenantsIT.User user, int vmIndex) {
        JsonNode r = run(user, "read", "--index", Integer.toString(vmIndex));
        // A get shows what the user may see: a VR it may not see is simply not there.
        return r.path("ok").asBoolean() ? Outcome.ok(vmIndex, r.path("said").asText())
                : Outcome.of(Outcome.Kind.NOT_FOUND, r.path("said").asText());
    }

    @Override
    public Outcome describe(TenantsIT.User user, int vmIndex, String description) {
        return outcome(run(user, "describe", "--index", Integer.toString(vmIndex), "--value", description));
    }

    @Override
    public Outcome giveTo(TenantsIT.User user, int vmIndex, String tenant) {
        return outcome(run(user, "give", "--index", Integer.toString(vmIndex), "--value", tenant));
    }

    @Override
    public Outcome remove(TenantsIT.User user, int vmIndex) {
        return outcome(run(user, "remove", "--index", Integer.toString(vmIndex)));
    }

    /** create-subscription with a startTime before the log began, up to replayComplete. */
    @Override
    public Optional<Set<String>> eventNames(TenantsIT.User user) {
        return Optional.of(names(run(user, "events")));
    }

    private static Set<String> names(JsonNode r) {
        Set<String> names = new TreeSet<>();
        r.path("names").forEach(n -> names.add(n.asText()));
        return names;
    }

    /** An rpc-reply in the table's terms: ok, access-denied, resource-denied (a quota or the host's capacity). */
    private static Outcome outcome(JsonNode r) {
        String said = r.path("said").asText();
        if (r.path("ok").asBoolean()) return Outcome.ok(null, said);
        return switch (r.path("tag").asText()) {
            case "access-denied" -> Outcome.of(Outcome.Kind.DENIED, said);
            case "data-missing" -> Outcome.of(Outcome.Kind.NOT_FOUND, said);
            case "resource-denied" -> Outcome.of(Outcome.Kind.QUOTA, said);
            default -> Outcome.of(Outcome.Kind.OTHER, said);
        };
    }

    private JsonNode run(TenantsIT.User user, String action, String... args) {
        List<String> cmd = new ArrayList<>(List.of("python3", SCRIPT, action, "--port", Integer.toString(server.netconfPort),
                "--user", user.name, "--password", user.password));
        cmd.addAll(List.of(args));
        try {
            ServerProcess.Result r = ServerProcess.run(cmd);
            if (r.exit() != 0) throw new AssertionError("netconf " + action + " as " + user.name + " failed: " + r);
            String[] lines = r.out().strip().split("\n");
            return JSON.readTree(lines[lines.length - 1]);
        } catch (AssertionError e) {
            throw e;
        } catch (Exception e) {
            throw new AssertionError("netconf " + action + " as " + user.name + ": " + e, e);
        }
    }
}
