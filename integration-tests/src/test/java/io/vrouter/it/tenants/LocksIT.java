package io.vrouter.it.tenants;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vrouter.it.ServerProcess;
import io.vrouter.it.tenants.TenantClient.Outcome;
import io.vrouter.it.tenants.TenantsIT.User;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Running's lock for every interface (RFC 6241 section 7.5, docs/adr/0020): while a NETCONF session
 * holds it, a change over REST, RESTCONF, SNMP, gNMI, another NETCONF session and the web console is each
 * refused in its protocol's terms, naming the holder's session, and nothing changes; the holder's own
 * change passes; after its unlock, or once its session ends, every interface changes again. A
 * tenant's lock covers its own VRs only. The server is the packaged one, with {@link TenantsIT}'s users.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LocksIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dir;
    ServerProcess server;
    RestClient rest;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeAll
    void start() throws Exception {
        Path config = dir.resolve("vrouter.conf");
        Files.write(config, TenantsIT.SETTINGS);
        server = ServerProcess.start(dir.resolve("server"), "--config", config.toString());
        rest = new RestClient(server);
    }

    @AfterAll
    void stop() throws Exception {
        if (server != null) server.close();
    }

    /** A change of a VR's description by one interface, as a user. */
    private Map<String, BiFunction<User, Integer, Outcome>> changers(String text) {
        Map<String, BiFunction<User, Integer, Outcome>> by = new LinkedHashMap<>();
        by.put("rest", (u, vm) -> rest.describe(u, vm, text));
        by.put("restconf", (u, vm) -> new RestconfClient(server).describe(u, vm, text));
        by.put("snmp", (u, vm) -> snmp.describe(u, vm, text));
        by.put("netconf", (u, vm) -> new NetconfClient(server).describe(u, vm, text));
        by.put("console", (u, vm) -> console(u, vm, text));
        by.put("gnmi", (u, vm) -> gnmi(u, vm, text));
        return by;
    }

    /** A gNMI Set of the description from pygnmi (gnmi_set.py describe). */
    private Outcome gnmi(User user, int vmIndex, String text) {
        try {
            ServerProcess.Result r = ServerProcess.run(List.of("python3", "src/test/python/gnmi_set.py", "describe",
                    "--port", Integer.toString(server.gnmiPort), "--vm", Integer.toString(vmIndex),
                    "--user", user.name, "--password", user.password, "--text", text));
            String[] lines = r.out().strip().split("\n");
            JsonNode said = JSON.readTree(lines[lines.length - 1]);
            return said.path("error").isNull() ? Outcome.ok(vmIndex, said.toString()) : Outcome.of(Outcome.Kind.OTHER, said.toString());
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private SnmpClient snmp;

    /** The request the web console sends when its operator edits a description (js/router.js, js/api.js). */
    private Outcome console(User user, int vmIndex, String text) {
        HttpRequest r = rest.request(user, "/api/v1/routers/" + vmIndex).header("Accept", "application/json")
                .header("X-Requested-By", "vrouter-console").header("Content-Type", "application/json")
                .method("PATCH", HttpRequest.BodyPublishers.ofString(JSON.createObjectNode().put("vmConfigDescription", text).toString()))
                .build();
        try {
            HttpResponse<String> response = http.send(r, HttpResponse.BodyHandlers.ofString());
            String said = response.statusCode() + " " + response.body();
            return response.statusCode() / 100 == 2 ? Outcome.ok(vmIndex, said) : Outcome.of(Outcome.Kind.OTHER, said);
        } catch (IOException e) {
            throw new AssertionError(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** What each protocol must say of a change refused by the lock of {@code session}. */
    private static List<String> refusal(String iface, int session) {
        String holder = "session " + session;
        return switch (iface) {
            case "rest", "console" -> List.of("409 ", holder);
            case "restconf" -> List.of("409 ", "\"in-use\"", holder);
            case "snmp" -> List.of("resourceUnavailable");
            case "netconf" -> List.of("in-use", holder);
            case "gnmi" -> List.of("FAILED_PRECONDITION", holder);
            default -> throw new IllegalArgumentException(iface);
        };
    }

    @Test
    void aNetconfLockStopsEveryOtherInterfaceUntilUnlockedOrItsSessionEnds() throws Exception {
        snmp = new SnmpClient(server);
        Outcome made = rest.createFor("locked-vr", null);
        assertThat(made.kind()).as(made.said()).isEqualTo(Outcome.Kind.OK);
        int vm = made.vmIndex();
        int acmes = rest.createFor("acme-under-the-providers-lock", "acme").vmIndex();
        // SNMP's agent answers once /health/ready has; a first change before the lock makes sure it does
        assertThat(snmp.describe(User.ADMIN, vm, "before").kind()).isEqualTo(Outcome.Kind.OK);

        SoftAssertions soft = new SoftAssertions();
        try (Holder holder = new Holder(User.ADMIN)) {
            JsonNode locked = holder.first();
            assertThat(locked.path("ok").asBoolean()).as(locked.toString()).isTrue();
            int session = locked.path("session").asInt();

            changers("while locked").forEach((iface, change) -> {
                Outcome o = change.apply(User.ADMIN, vm);
                soft.assertThat(o.kind()).as(iface + " while locked: " + o.said()).isNotEqualTo(Outcome.Kind.OK);
                soft.assertThat(o.said()).as(iface + " names the refusal in its terms").contains(refusal(iface, session));
            });
            // a tenant's NETCONF session (another scope, with datastores of its own) is refused by the core
            Outcome byTenant = new NetconfClient(server).describe(User.ALICE, acmes, "by acme while locked");
            soft.assertThat(byTenant.said()).as("acme's NETCONF edit of its own VR").contains("in-use", "session " + session);
            try (Holder tenantHolder = new Holder(User.ALICE)) {
                JsonNode refused = tenantHolder.first();
                soft.assertThat(refused.path("tag").asText()).as("acme's lock: " + refused).isEqualTo("lock-denied");
                soft.assertThat(refused.path("said").asText()).contains("session " + session);
            }
            Outcome created = rest.createFor("created-while-locked", null);
            soft.assertThat(created.said()).as("a creation over REST while locked").startsWith("409 ");
            soft.assertThat(description(vm)).as("nothing changed while locked").isEqualTo("before");
            soft.assertThat(rest.names(User.ADMIN)).as("nothing created while locked").doesNotContain("created-while-locked");

            JsonNode own = holder.send("describe " + vm + " by the holder");
            soft.assertThat(own.path("ok").asBoolean()).as("the holder's own change: " + own).isTrue();
            soft.assertThat(description(vm)).isEqualTo("by the holder");

            JsonNode unlocked = holder.send("unlock");
            assertThat(unlocked.path("ok").asBoolean()).as(unlocked.toString()).isTrue();
            changers("after the unlock").forEach((iface, change) -> {
                Outcome o = change.apply(User.ADMIN, vm);
                soft.assertThat(o.kind()).as(iface + " after the unlock: " + o.said()).isEqualTo(Outcome.Kind.OK);
            });

            // locked again, and the session ends without unlocking: the lock goes with it
            assertThat(holder.send("lock").path("ok").asBoolean()).isTrue();
            soft.assertThat(rest.describe(User.ADMIN, vm, "x").said()).startsWith("409 ");
            holder.send("close");
        }
        // The server lets go of the lock as it ends the session, just after its reply to close-session.
        long end = TenantsIT.deadline(10);
        while (rest.describe(User.ADMIN, vm, "x").said().startsWith("409 ") && System.nanoTime() < end) Thread.sleep(20);
        changers("after the session").forEach((iface, change) -> {
            Outcome o = change.apply(User.ADMIN, vm);
            soft.assertThat(o.kind()).as(iface + " once the holder's session ended: " + o.said()).isEqualTo(Outcome.Kind.OK);
        });
        soft.assertAll();
    }

    @Test
    void aTenantsLockCoversItsOwnVrsOnly() throws Exception {
        snmp = new SnmpClient(server);
        Outcome acmes = rest.createFor("acme-locked", "acme");
        Outcome bravos = rest.createFor("bravo-free", "bravo");
        assertThat(acmes.kind()).as(acmes.said()).isEqualTo(Outcome.Kind.OK);
        assertThat(bravos.kind()).as(bravos.said()).isEqualTo(Outcome.Kind.OK);
        try (Holder holder = new Holder(User.ALICE)) {
            JsonNode locked = holder.first();
            assertThat(locked.path("ok").asBoolean()).as(locked.toString()).isTrue();
            int session = locked.path("session").asInt();
            Outcome byProvider = rest.describe(User.ADMIN, acmes.vmIndex(), "by the provider");
            assertThat(byProvider.said()).as("the provider's change of acme's VR").startsWith("409 ").contains("session " + session);
            Outcome byAcmesSnmp = snmp.describe(User.ALICE, acmes.vmIndex(), "by acme over snmp");
            assertThat(byAcmesSnmp.said()).as("acme's own change over SNMP").contains("resourceUnavailable");
            Outcome byBravo = rest.describe(User.BOB, bravos.vmIndex(), "bravo's own");
            assertThat(byBravo.kind()).as("bravo's VR is not acme's lock's: " + byBravo.said()).isEqualTo(Outcome.Kind.OK);
            assertThat(description(acmes.vmIndex())).isNull();
        }
    }

    private String description(int vmIndex) throws IOException {
        JsonNode row = rest.row(vmIndex);
        return row == null || row.path("vmConfigDescription").isMissingNode() ? null : row.path("vmConfigDescription").asText();
    }

    /** netconf_lock_holder.py: one NETCONF session that locks running, then does what it is told line by line. */
    private final class Holder implements AutoCloseable {
        private final Process process;
        private final BufferedReader out;
        private final Writer in;
        private final Path err;

        Holder(User user) throws IOException {
            err = dir.resolve("holder-" + user.name + ".err");
            process = new ProcessBuilder("python3", "src/test/python/netconf_lock_holder.py", "--port",
                    Integer.toString(server.netconfPort), "--user", user.name, "--password", user.password)
                    .redirectError(err.toFile()).start();
            out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        }

        /** The lock's answer. */
        JsonNode first() throws IOException {
            return read();
        }

        JsonNode send(String command) throws IOException {
            in.write(command + "\n");
            in.flush();
            return read();
        }

        private JsonNode read() throws IOException {
            String line = out.readLine();
            if (line == null) {
                throw new AssertionError("the NETCONF holder ended: " + Files.readString(err));
            }
            return JSON.readTree(line);
        }

        @Override
        public void close() throws Exception {
            process.getOutputStream().close();
            if (!process.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) process.destroyForcibly();
        }
    }
}
