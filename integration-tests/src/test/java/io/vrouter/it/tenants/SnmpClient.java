package io.vrouter.it.tenants;

import io.vrouter.it.ServerProcess;
import io.vrouter.it.snmp.NewVmmOids;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * SNMPv3 authPriv with net-snmp's tools (snmpget, snmpbulkwalk, snmpset), numeric OIDs of NEW-VMM-MIB,
 * as a network manager's scripts use them. Each user of the table is an SNMP user bound to the same
 * tenant ({@link TenantsIT#SETTINGS}: {@code snmp.user.NAME = SHA:NAME-auth-pass:AES:NAME-priv-pass:write@TENANT},
 * read for the viewer).
 */
final class SnmpClient implements TenantClient {
    private static final String DESCRIPTION = NewVmmOids.CONFIG + "8.";
    private static final String TENANT = NewVmmOids.CONFIG + "9.";
    private static final String NEXT_INDEX = NewVmmOids.MIB + ".1.14.0";
    private final ServerProcess server;
    private boolean listening;

    SnmpClient(ServerProcess server) {
        this.server = server;
    }

    static String authPass(TenantsIT.User user) {
        return user.name + "-auth-pass";
    }

    static String privPass(TenantsIT.User user) {
        return user.name + "-priv-pass";
    }

    @Override
    public String name() {
        return "snmp";
    }

    @Override
    public Outcome create(TenantsIT.User user, String vmName, int cpus) {
        ServerProcess.Result next = tool(user, "snmpget", "-Oqv", NEXT_INDEX);
        if (next.exit() != 0) return outcome(next);
        int vm = Integer.parseInt(next.out().trim());
        Outcome o = outcome(tool(user, "snmpset", NewVmmOids.ROW_STATUS + vm, "i", "4", NewVmmOids.NAME + vm, "s", vmName,
                NewVmmOids.CPUS + vm, "i", Integer.toString(cpus)));
        return o.kind() == Outcome.Kind.OK ? Outcome.ok(vm, o.said()) : o;
    }

    /** The vmName column, walked. */
    @Override
    public Set<String> names(TenantsIT.User user) {
        ServerProcess.Result r = tool(user, "snmpbulkwalk", "-Oqv", NewVmmOids.MIB + ".1.12.1.1");
        if (r.exit() != 0) throw new AssertionError("walk of vmName as " + user.name + ": " + r);
        Set<String> names = new TreeSet<>();
        for (String line : r.out().split("\n")) {
            String v = line.trim();
            if (v.startsWith("\"") && v.endsWith("\"") && v.length() >= 2) v = v.substring(1, v.length() - 1);
            if (!v.isEmpty() && !v.startsWith("No more variables")) names.add(v);
        }
        return names;
    }

    @Override
    public Outcome read(TenantsIT.User user, int vmIndex) {
        return outcome(tool(user, "snmpget", NewVmmOids.NAME + vmIndex));
    }

    @Override
    public Outcome describe(TenantsIT.User user, int vmIndex, String description) {
        return outcome(tool(user, "snmpset", DESCRIPTION + vmIndex, "s", description));
    }

    @Override
    public Outcome giveTo(TenantsIT.User user, int vmIndex, String tenant) {
        return outcome(tool(user, "snmpset", TENANT + vmIndex, "s", tenant));
    }

    @Override
    public Outcome remove(TenantsIT.User user, int vmIndex) {
        return outcome(tool(user, "snmpset", NewVmmOids.ROW_STATUS + vmIndex, "i", "6"));
    }

    /** SNMP has no subscription of a user's own: notifications go to the provider's trap targets. */
    @Override
    public Optional<Set<String>> eventNames(TenantsIT.User user) {
        return Optional.empty();
    }

    /**
     * What net-snmp printed, in the table's terms: a GET's "No Such Instance" is none; a SET's error
     * status noAccess (or VACM's authorizationError) refused, resourceUnavailable a quota or the host.
     */
    private static Outcome outcome(ServerProcess.Result r) {
        String said = (r.out() + " " + r.err()).trim();
        if (said.contains("No Such Instance") || said.contains("No Such Object")) return Outcome.of(Outcome.Kind.NOT_FOUND, said);
        if (said.contains("noAccess") || said.contains("authorizationError")) return Outcome.of(Outcome.Kind.DENIED, said);
        if (said.contains("resourceUnavailable")) return Outcome.of(Outcome.Kind.QUOTA, said);
        if (r.exit() == 0 && !said.contains("Error")) return Outcome.ok(null, said);
        return Outcome.of(Outcome.Kind.OTHER, said);
    }

    /** Runs a net-snmp tool as the user (SNMPv3 authPriv, SHA and AES), numeric OIDs, once the agent answers. */
    private ServerProcess.Result tool(TenantsIT.User user, String tool, String... args) {
        try {
            if (!listening) awaitAgent();
            return ServerProcess.run(command(user, tool, args));
        } catch (Exception e) {
            throw new AssertionError(tool + " as " + user.name + ": " + e, e);
        }
    }

    private List<String> command(TenantsIT.User user, String tool, String... args) {
        List<String> cmd = new ArrayList<>(List.of(tool, "-v3", "-l", "authPriv", "-u", user.name, "-a", "SHA",
                "-A", authPass(user), "-x", "AES", "-X", privPass(user), "-t", "5", "-r", "1", "-On",
                "udp:127.0.0.1:" + server.snmpPort));
        cmd.addAll(List.of(args));
        return cmd;
    }

    /** /health/ready may answer before the SNMP agent listens. */
    private void awaitAgent() throws Exception {
        long end = TenantsIT.deadline(30);
        while (System.nanoTime() < end) {
            if (ServerProcess.run(command(TenantsIT.User.ADMIN, "snmpget", NewVmmOids.MIB + ".1.2.0")).exit() == 0) {
                listening = true;
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("the SNMP agent never answered:\n" + server.log());
    }
}
