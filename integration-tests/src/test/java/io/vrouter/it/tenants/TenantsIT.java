package io.vrouter.it.tenants;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vrouter.it.ServerProcess;
import io.vrouter.it.tenants.TenantClient.Outcome;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tenants on every interface: one table of cases (who does what to which VR, and what must come of
 * it) run against the packaged server over each interface's own protocol, through a
 * {@link TenantClient} per interface. Tenant acme's operator (alice) creates, reads, changes and
 * removes its VRs; bravo's operator (bob) cannot see, read, change, remove or follow them; acme's
 * viewer (ann) reads them and changes nothing; a tenant at its quota (capped, carl) and a VR bigger
 * than the host's capacity are refused and change nothing; the provider (admin) sees all.
 *
 * <p>Each interface's rows use VRs of their own (named after it): its A (acme's, made by the table),
 * its B (bravo's) and its P (the provider's), the two last made by the provider over REST first.
 * {@code -Dtenants.clients=netconf,snmp} runs the table against some interfaces only.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TenantsIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The users of the table, as the server's settings declare them. */
    enum User {
        ADMIN("admin", "admin", null),
        ALICE("alice", "alice-secret", "acme"),
        ANN("ann", "ann-secret", "acme"),
        BOB("bob", "bob-secret", "bravo"),
        CARL("carl", "carl-secret", "capped");

        final String name;
        final String password;
        final String tenant;

        User(String name, String password, String tenant) {
            this.name = name;
            this.password = password;
            this.tenant = tenant;
        }
    }

    /** The server's settings: the users and tenants above, and a simulated host of 8 CPUs and 64 GiB. */
    static final List<String> SETTINGS = List.of(
            "user.admin = operator:admin",
            "user.alice = operator@acme:alice-secret",
            "user.ann = viewer@acme:ann-secret",
            "user.bob = operator@bravo:bob-secret",
            "user.carl = operator@capped:carl-secret",
            "tenant.acme = vrs=20, vcpus=40",
            "tenant.bravo = vrs=20",
            "tenant.capped = vrs=1",
            // 8 CPUs times the default overcommit of 4: the VRs may commit 32 vCPUs
            "sim.host-cpus = 8",
            "sim.host-memory = 65536",
            // The same users over SNMPv3 (SnmpClient): a v3 user is bound to a tenant after its access.
            "snmp.user.admin = SHA:admin-auth-pass:AES:admin-priv-pass:write",
            "snmp.user.alice = SHA:alice-auth-pass:AES:alice-priv-pass:write@acme",
            "snmp.user.ann = SHA:ann-auth-pass:AES:ann-priv-pass:read@acme",
            "snmp.user.bob = SHA:bob-auth-pass:AES:bob-priv-pass:write@bravo",
            "snmp.user.carl = SHA:carl-auth-pass:AES:carl-priv-pass:write@capped");

    /** What a row does. */
    enum Action { CREATE, CREATE_64_CPUS, LIST, READ, DESCRIBE, GIVE_TO_BRAVO, REMOVE, EVENTS }

    /** Which VR a row is about (the interface's own). */
    enum Vr { A, B, P, NEW }

    /** What must come of a row: an outcome, or (LIST, EVENTS) the VRs seen. */
    record Expect(Outcome.Kind kind, boolean hidden, Set<Vr> seen) {
        static Expect outcome(Outcome.Kind kind) {
            return new Expect(kind, false, null);
        }

        /**
         * A VR the user cannot see: the protocol's answer to the same action on a VR that does not
         * exist, word for word (its index aside), so that no answer tells the two apart.
         */
        static Expect asMissing() {
            return new Expect(null, true, null);
        }

        static Expect sees(Vr... vrs) {
            return new Expect(null, false, Set.of(vrs));
        }
    }

    /** After the row, as the provider reads it over REST: whether A exists, and its description and owner. */
    record After(boolean aExists, String aDescription, String aTenant) {
    }

    record Row(String what, User who, Action action, Vr vr, Expect expect, After after) {
    }

    private static final String DESCRIBED = "changed by its own tenant";

    static final List<Row> TABLE = List.of(
            new Row("acme's operator creates a VR, which is acme's", User.ALICE, Action.CREATE, Vr.NEW,
                    Expect.outcome(Outcome.Kind.OK), new After(true, null, "acme")),
            new Row("acme's operator lists acme's VRs only", User.ALICE, Action.LIST, null,
                    Expect.sees(Vr.A), null),
            new Row("bravo's operator lists bravo's VRs only", User.BOB, Action.LIST, null,
                    Expect.sees(Vr.B), null),
            new Row("bravo's operator cannot read acme's VR", User.BOB, Action.READ, Vr.A,
                    Expect.asMissing(), null),
            new Row("bravo's operator cannot change acme's VR", User.BOB, Action.DESCRIBE, Vr.A,
                    Expect.asMissing(), new After(true, null, "acme")),
            new Row("bravo's operator cannot remove acme's VR", User.BOB, Action.REMOVE, Vr.A,
                    Expect.asMissing(), new After(true, null, "acme")),
            new Row("bravo's operator cannot take acme's VR", User.BOB, Action.GIVE_TO_BRAVO, Vr.A,
                    Expect.asMissing(), new After(true, null, "acme")),
            new Row("acme's viewer reads acme's VR", User.ANN, Action.READ, Vr.A,
                    Expect.outcome(Outcome.Kind.OK), null),
            new Row("acme's viewer changes nothing", User.ANN, Action.DESCRIBE, Vr.A,
                    Expect.outcome(Outcome.Kind.DENIED), new After(true, null, "acme")),
            new Row("acme's operator changes its VR", User.ALICE, Action.DESCRIBE, Vr.A,
                    Expect.outcome(Outcome.Kind.OK), new After(true, DESCRIBED, "acme")),
            new Row("acme's operator cannot give its VR to another tenant", User.ALICE, Action.GIVE_TO_BRAVO, Vr.A,
                    Expect.outcome(Outcome.Kind.DENIED), new After(true, DESCRIBED, "acme")),
            new Row("acme's operator cannot read the provider's VR", User.ALICE, Action.READ, Vr.P,
                    Expect.asMissing(), null),
            new Row("acme's operator cannot change the provider's VR", User.ALICE, Action.DESCRIBE, Vr.P,
                    Expect.asMissing(), null),
            new Row("a tenant at its quota creates nothing", User.CARL, Action.CREATE, Vr.NEW,
                    Expect.outcome(Outcome.Kind.QUOTA), new After(true, DESCRIBED, "acme")),
            new Row("a VR beyond the host's CPUs times the overcommit is refused", User.ADMIN, Action.CREATE_64_CPUS,
                    Vr.NEW, Expect.outcome(Outcome.Kind.QUOTA), new After(true, DESCRIBED, "acme")),
            new Row("the provider lists every VR", User.ADMIN, Action.LIST, null,
                    Expect.sees(Vr.A, Vr.B, Vr.P), null),
            new Row("bravo's operator's events tell nothing of acme's VR", User.BOB, Action.EVENTS, null,
                    Expect.sees(Vr.B), null),
            new Row("acme's operator's events tell of acme's VR only", User.ALICE, Action.EVENTS, null,
                    Expect.sees(Vr.A), null),
            new Row("acme's operator removes its VR", User.ALICE, Action.REMOVE, Vr.A,
                    Expect.outcome(Outcome.Kind.OK), new After(false, null, null)));

    @TempDir
    static Path dir;
    ServerProcess server;
    RestClient provider;

    /** Every interface's client; a helper adding an interface adds its line here. */
    List<TenantClient> clients() {
        return List.of(
                new RestClient(server),
                new RestconfClient(server),
                new NetconfClient(server),
                new SnmpClient(server));
    }

    @BeforeAll
    void start() throws Exception {
        Path config = dir.resolve("vrouter.conf");
        Files.write(config, SETTINGS);
        server = ServerProcess.start(dir.resolve("server"), "--config", config.toString());
        provider = new RestClient(server);
    }

    @AfterAll
    void stop() throws Exception {
        if (server != null) server.close();
    }

    private static String name(Vr vr, TenantClient c) {
        return vr.name().toLowerCase() + "-" + c.name();
    }

    @Test
    void everyInterfaceShowsAndLetsChangeOnlyWhatTheUsersTenantOwns() throws Exception {
        String only = System.getProperty("tenants.clients", "");
        Set<String> selected = only.isBlank() ? null : Arrays.stream(only.split(",")).map(String::trim).collect(Collectors.toSet());
        List<TenantClient> clients = new ArrayList<>();
        for (TenantClient c : clients()) if (selected == null || selected.contains(c.name())) clients.add(c);
        assertThat(clients).as("clients selected by -Dtenants.clients=" + only).isNotEmpty();

        // capped is at its quota of one VR from the start
        assertThat(provider.createFor("capped-0", "capped").kind()).isEqualTo(Outcome.Kind.OK);
        SoftAssertions soft = new SoftAssertions();
        for (TenantClient c : clients) run(c, soft);
        soft.assertAll();
    }

    private void run(TenantClient c, SoftAssertions soft) throws Exception {
        Map<Vr, Integer> index = new java.util.EnumMap<>(Vr.class);
        Outcome b = provider.createFor(name(Vr.B, c), "bravo");
        Outcome p = provider.createFor(name(Vr.P, c), null);
        assertThat(b.kind()).as(b.said()).isEqualTo(Outcome.Kind.OK);
        assertThat(p.kind()).as(p.said()).isEqualTo(Outcome.Kind.OK);
        index.put(Vr.B, b.vmIndex());
        index.put(Vr.P, p.vmIndex());
        Function<Set<String>, Set<Vr>> ours = names -> {
            Set<Vr> vrs = new TreeSet<>();
            for (Vr vr : List.of(Vr.A, Vr.B, Vr.P)) if (names.contains(name(vr, c))) vrs.add(vr);
            return vrs;
        };
        for (Row row : TABLE) {
            String as = c.name() + ": " + row.what();
            Integer vm = row.vr() == null || row.vr() == Vr.NEW ? null : index.get(row.vr());
            if (row.vr() == Vr.A && vm == null) {
                soft.fail(as + ": acme's VR was never made");
                continue;
            }
            Outcome outcome = null;
            Set<String> seen = null;
            switch (row.action()) {
                case CREATE -> outcome = c.create(row.who(), row.who() == User.ALICE ? name(Vr.A, c) : "new-" + c.name(), 1);
                case CREATE_64_CPUS -> outcome = c.create(row.who(), "big-" + c.name(), 64);
                case LIST -> seen = c.names(row.who());
                case EVENTS -> {
                    Optional<Set<String>> events = c.eventNames(row.who());
                    if (events.isEmpty()) continue;
                    seen = events.get();
                }
                default -> outcome = act(c, row, vm);
            }
            if (row.action() == Action.CREATE && row.who() == User.ALICE && outcome.kind() == Outcome.Kind.OK) {
                index.put(Vr.A, outcome.vmIndex());
            }
            Expect e = row.expect();
            if (e.seen() != null) {
                soft.assertThat(ours.apply(seen)).as(as + " (saw " + seen + ")").isEqualTo(new TreeSet<>(e.seen()));
            } else if (e.hidden()) {
                Outcome missing = act(c, row, MISSING);
                soft.assertThat(outcome.kind() + " " + outcome.said()).as(as + ": answered as for a VR that does not exist")
                        .isEqualTo(missing.kind() + " " + missing.said().replace(Integer.toString(MISSING), Integer.toString(vm)));
            } else {
                soft.assertThat(outcome.kind()).as(as + " (the protocol said: " + outcome.said() + ")").isEqualTo(e.kind());
            }
            if (row.after() != null) after(c, soft, as, index.get(Vr.A), row.after());
        }
    }

    /** A vmIndex no VR has. */
    private static final int MISSING = 4_000_001;

    /** A row's action on one VR. */
    private static Outcome act(TenantClient c, Row row, int vm) {
        return switch (row.action()) {
            case READ -> c.read(row.who(), vm);
            case DESCRIBE -> c.describe(row.who(), vm, DESCRIBED);
            case GIVE_TO_BRAVO -> c.giveTo(row.who(), vm, "bravo");
            case REMOVE -> c.remove(row.who(), vm);
            default -> throw new IllegalStateException(row.action() + " is not an action on one VR");
        };
    }

    /** The VR A as the provider reads it over REST once the row is done. */
    private void after(TenantClient c, SoftAssertions soft, String as, Integer a, After after) throws Exception {
        if (a == null) return;
        if (!after.aExists()) {
            soft.assertThat(provider.awaitGone(a)).as(as + ": acme's VR is gone").isTrue();
            return;
        }
        JsonNode vr = provider.row(a);
        soft.assertThat(vr).as(as + ": acme's VR is still there").isNotNull();
        if (vr == null) return;
        soft.assertThat(vr.path("vmConfigDescription").isMissingNode() ? null : vr.path("vmConfigDescription").asText())
                .as(as + ": acme's VR's description").isEqualTo(after.aDescription());
        soft.assertThat(vr.path("vmConfigTenant").asText(null)).as(as + ": acme's VR's owner").isEqualTo(after.aTenant());
    }

    static long deadline(int seconds) {
        return System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    }
}
