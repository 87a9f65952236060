package io.vrouter.api.rest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vrouter.core.config.Credentials;
import io.vrouter.core.config.Settings;
import io.vrouter.core.driver.sim.LatencyProfile;
import io.vrouter.core.driver.sim.SimulatedDriver;
import io.vrouter.core.metrics.VrMetrics;
import io.vrouter.core.persistence.ConfigStore;
import io.vrouter.core.persistence.EventLog;
import io.vrouter.core.service.VirtualRouterService;
import io.vrouter.core.spi.ServerContext;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The standard HTTP capabilities of the REST interface, over real HTTP: conditional requests
 * (RFC 9110), idempotent creation (Idempotency-Key), event stream resume (Last-Event-ID), and a
 * waited-for write whose VR ends crashed answered as the failure it is. On a service of its own, so
 * that the test can make the simulated hypervisor fail and restart the REST interface.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RestStandardsTest {
    private static final String ADMIN = RestClient.basic("admin", "admin");
    private static final String JSON = "application/json";

    private final ObjectMapper json = new ObjectMapper();
    private Path dataDir;
    private SimulatedDriver driver;
    private VirtualRouterService service;
    private ServerContext context;
    private RestInterface restInterface;
    private RestClient rest;

    @BeforeAll
    void start() throws Exception {
        dataDir = Files.createTempDirectory("vrouter-rest-standards");
        Settings settings = Settings.of(Map.of("data-dir", dataDir.toString(), "rest-port", "0",
                "user.admin", "operator:admin", "user.ops", "operator:ops"));
        driver = new SimulatedDriver(LatencyProfile.named("none"));
        service = new VirtualRouterService(driver, new ConfigStore(dataDir), VrMetrics.inMemory());
        service.events().recordTo(EventLog.open(dataDir, 1000, Duration.ofDays(1)));
        service.start();
        context = new ServerContext(service, settings, Credentials.from(settings), VrMetrics.inMemory());
        startRest();
    }

    private void startRest() throws Exception {
        restInterface = new RestInterface();
        restInterface.start(context);
        rest = new RestClient(restInterface.port());
    }

    @AfterAll
    void stop() {
        restInterface.close();
        service.close();
    }

    @AfterEach
    void healthyHost() {
        driver.clearFailures();
    }

    private JsonNode body(HttpResponse<String> r) throws Exception {
        return json.readTree(r.body());
    }

    private int create(String name) throws Exception {
        HttpResponse<String> r = rest.post("/api/v1/routers?wait=10s", ADMIN, JSON, "{\"vmName\":\"" + name + "\"}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        return body(r).get("vmIndex").asInt();
    }

    private HttpResponse<String> send(String method, String path, String body, String... headers) throws Exception {
        HttpRequest.Builder b = rest.request(path, ADMIN).header("Accept", JSON);
        if (headers.length > 0) b.headers(headers);
        if (body != null) b.header("Content-Type", JSON);
        return rest.send(b.method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(body)));
    }

    /** The VR's version a VR's ETag names: the tag without the digest of its counters. */
    static String versionOf(String etag) {
        return etag.replaceAll("\\.[0-9a-f]+\"$", "\"");
    }

    private static void assertProblem(HttpResponse<String> r, int status) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("application/problem+json");
    }

    // ------------------------------------------------------------ conditional requests

    @Test
    void aVrHasAStrongEtagAndAListAWeakOne() throws Exception {
        int i = create("etag");
        // shut down: its counters stand still, so its representation does too
        assertThat(send("POST", "/api/v1/routers/" + i + "/stop?wait=10s", null).statusCode()).isEqualTo(200);
        HttpResponse<String> read = send("GET", "/api/v1/routers/" + i, null);
        String etag = read.headers().firstValue("ETag").orElseThrow();
        assertThat(etag).matches("\"[^\"]+\"");
        assertThat(read.headers().firstValue("Last-Modified")).isPresent();
        // Its interfaces' tag is the VR's version (the VR's adds a digest of its counters), the list's a weak one.
        String version = send("GET", "/api/v1/routers/" + i + "/interfaces", null).headers().firstValue("ETag").orElseThrow();
        assertThat(etag).startsWith(version.substring(0, version.length() - 1) + ".");
        String listTag = send("GET", "/api/v1/routers", null).headers().firstValue("ETag").orElseThrow();
        assertThat(listTag).startsWith("W/\"");

        HttpResponse<String> same = send("GET", "/api/v1/routers/" + i, null, "If-None-Match", etag);
        assertThat(same.statusCode()).isEqualTo(304);
        assertThat(same.body()).isEmpty();
        assertThat(same.headers().firstValue("ETag")).hasValue(etag);
        assertThat(send("GET", "/api/v1/routers", null, "If-None-Match", listTag).statusCode()).isEqualTo(304);
        assertThat(send("GET", "/api/v1/routers/" + i, null, "If-None-Match", "\"other\", " + etag).statusCode())
                .isEqualTo(304);
        assertThat(send("GET", "/api/v1/routers/" + i, null, "If-None-Match", "\"other\"").statusCode()).isEqualTo(200);

        // If-Modified-Since (ignored when it cannot be read), If-Match on reads, malformed lists.
        String later = java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME.format(
                java.time.ZonedDateTime.now(java.time.ZoneOffset.UTC).plusMinutes(1));
        assertThat(send("GET", "/api/v1/routers/" + i, null, "If-Modified-Since", later).statusCode()).isEqualTo(304);
        assertThat(send("GET", "/api/v1/routers/" + i, null, "If-Modified-Since", "yesterday").statusCode()).isEqualTo(200);
        assertThat(send("GET", "/api/v1/routers", null, "If-Match", "*").statusCode()).isEqualTo(200);
        assertProblem(send("GET", "/api/v1/routers", null, "If-Match", listTag), 412);
        assertProblem(send("GET", "/api/v1/routers/" + i, null, "If-Match", "\"other\""), 412);
        assertProblem(send("GET", "/api/v1/routers/" + i, null, "If-None-Match", "garbage"), 400);
        assertProblem(send("GET", "/api/v1/routers", null, "If-None-Match", "\"a\", W/"), 400);

        // A change makes a new tag: the old one no longer answers 304, nor does the old list tag.
        HttpResponse<String> described = send("PATCH", "/api/v1/routers/" + i + "?wait=10s", "{\"vmConfigDescription\":\"new tag\"}");
        assertThat(described.statusCode()).as(described.body()).isEqualTo(200);
        String after = described.headers().firstValue("ETag").orElseThrow();
        assertThat(after).isNotEqualTo(version);
        assertThat(send("GET", "/api/v1/routers/" + i, null).headers().firstValue("ETag").orElseThrow())
                .startsWith(after.substring(0, after.length() - 1) + ".");
        assertThat(send("GET", "/api/v1/routers/" + i, null, "If-None-Match", etag).statusCode()).isEqualTo(200);
        assertThat(send("GET", "/api/v1/routers", null, "If-None-Match", listTag).statusCode()).isEqualTo(200);
    }

    /**
     * A running VR's representation carries the counters the host reports (vmUpTime moves every
     * centisecond), so its tag moves with them: a conditional read never answers 304 once they moved,
     * by its tag or by its date (RFC 9110 §8.8.1), and the tag read before still guards a write, as it
     * names the VR's version.
     */
    @Test
    void aConditionalReadNeverHidesACounterThatMoved() throws Exception {
        int i = create("counting");
        String path = "/api/v1/routers/" + i;
        HttpResponse<String> first = send("GET", path, null);
        String etag = first.headers().firstValue("ETag").orElseThrow();
        String date = first.headers().firstValue("Last-Modified").orElseThrow();
        long upTime = body(first).path("vmEntry").path("vmUpTime").asLong();
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
        while (body(send("GET", path, null)).path("vmEntry").path("vmUpTime").asLong() == upTime) {
            assertThat(System.nanoTime()).as("vmUpTime moves while the VR runs").isLessThan(deadline);
        }
        HttpResponse<String> byTag = send("GET", path, null, "If-None-Match", etag);
        assertThat(byTag.statusCode()).as("If-None-Match with the tag read before vmUpTime moved").isEqualTo(200);
        assertThat(body(byTag).path("vmEntry").path("vmUpTime").asLong()).isGreaterThan(upTime);
        assertThat(byTag.headers().firstValue("ETag")).isPresent().isNotEqualTo(Optional.of(etag));
        HttpResponse<String> byDate = send("GET", path, null, "If-Modified-Since", date);
        assertThat(byDate.statusCode()).as("If-Modified-Since with the date read before vmUpTime moved").isEqualTo(200);
        // The VR itself has not changed: the tag read first still guards a write of it.
        HttpResponse<String> patch = send("PATCH", path + "?wait=10s", "{\"vmConfigDescription\":\"guarded\"}", "If-Match", etag);
        assertThat(patch.statusCode()).as(patch.body()).isEqualTo(200);
        assertProblem(send("PATCH", path, "{\"vmConfigDescription\":\"stale\"}", "If-Match", etag), 412);
    }

    @Test
    void ifMatchGuardsEveryWriteOfAVr() throws Exception {
        int i = create("guarded");
        String etag = send("GET", "/api/v1/routers/" + i, null).headers().firstValue("ETag").orElseThrow();
        send("PATCH", "/api/v1/routers/" + i + "?wait=10s", "{\"vmConfigDescription\":\"changed by someone else\"}");

        // The tag read before the other change: every write is refused, and changes nothing.
        String stale = etag;
        HttpResponse<String> patch = send("PATCH", "/api/v1/routers/" + i, "{\"vmName\":\"lost-update\"}", "If-Match", stale);
        assertProblem(patch, 412);
        assertThat(body(patch).get("status").asInt()).isEqualTo(412);
        assertProblem(send("POST", "/api/v1/routers/" + i + "/stop", null, "If-Match", stale), 412);
        assertProblem(send("DELETE", "/api/v1/routers/" + i, null, "If-Match", stale), 412);
        assertProblem(send("PATCH", "/api/v1/routers/" + i + "/interfaces/1", "{\"vmNetworkConfigPrefixLength\":25}",
                "If-Match", stale), 412);
        // A weak tag never matches If-Match (strong comparison), even with the current value.
        String current = send("GET", "/api/v1/routers/" + i, null).headers().firstValue("ETag").orElseThrow();
        assertProblem(send("POST", "/api/v1/routers/" + i + "/stop", null, "If-Match", "W/" + current), 412);
        JsonNode vr = body(send("GET", "/api/v1/routers/" + i, null));
        assertThat(vr.get("vmName").asText()).isEqualTo("guarded");
        assertThat(vr.get("vmAdminState").asText()).isEqualTo("running");
        assertThat(versionOf(send("GET", "/api/v1/routers/" + i, null).headers().firstValue("ETag").orElseThrow()))
                .isEqualTo(versionOf(current));

        // If-None-Match on a write: refused when it names the VR's tag, or is *; another tag lets it through.
        assertProblem(send("PATCH", "/api/v1/routers/" + i, "{\"vmName\":\"lost-update\"}", "If-None-Match", current), 412);
        assertProblem(send("PATCH", "/api/v1/routers/" + i, "{\"vmName\":\"lost-update\"}", "If-None-Match", "*"), 412);
        assertThat(versionOf(send("GET", "/api/v1/routers/" + i, null).headers().firstValue("ETag").orElseThrow()))
                .isEqualTo(versionOf(current));

        // The current tag (or *) is accepted; a malformed one is a 400.
        assertProblem(send("POST", "/api/v1/routers/" + i + "/stop", null, "If-Match", "nonsense"), 400);
        HttpResponse<String> ok = send("PATCH", "/api/v1/routers/" + i + "?wait=10s", "{\"vmName\":\"renamed\"}",
                "If-Match", "\"x\", " + current, "If-None-Match", stale);
        assertThat(ok.statusCode()).as(ok.body()).isEqualTo(200);
        assertThat(send("POST", "/api/v1/routers/" + i + "/stop?wait=10s", null, "If-Match", "*").statusCode())
                .isEqualTo(200);
        String last = send("GET", "/api/v1/routers/" + i, null).headers().firstValue("ETag").orElseThrow();
        assertThat(send("DELETE", "/api/v1/routers/" + i + "?wait=10s", null, "If-Match", last).statusCode()).isEqualTo(204);
        // No VR: 404 before 412.
        assertProblem(send("DELETE", "/api/v1/routers/" + i, null, "If-Match", last), 404);
    }

    // ------------------------------------------------------------ paging links

    /** The Link header's targets by relation (RFC 8288), as paths with their queries. */
    private static Map<String, String> links(HttpResponse<String> r) {
        Map<String, String> byRel = new java.util.TreeMap<>();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("<([^>]*)>\\s*;\\s*rel=\"?([a-z]+)\"?")
                .matcher(String.join(",", r.headers().allValues("Link")));
        while (m.find()) {
            java.net.URI target = java.net.URI.create(m.group(1));
            byRel.put(m.group(2), target.getRawPath() + "?" + target.getRawQuery());
        }
        return byRel;
    }

    @Test
    void aPageLinksTheFirstPreviousNextAndLastPagesOfTheSameQuery() throws Exception {
        for (int i = 1; i <= 5; i++) create("paged-" + i);
        HttpResponse<String> middle = send("GET", "/api/v1/routers?name=paged-*&limit=2&offset=2", null);
        assertThat(middle.statusCode()).as(middle.body()).isEqualTo(200);
        assertThat(body(middle).get("total").asInt()).isEqualTo(5);
        Map<String, String> l = links(middle);
        assertThat(l).containsOnlyKeys("first", "prev", "next", "last");
        // The filters and the limit are kept, the offset is the page's.
        assertThat(l.get("first")).startsWith("/api/v1/routers?").contains("name=paged-*", "limit=2", "offset=0");
        assertThat(l.get("prev")).contains("name=paged-*", "limit=2", "offset=0");
        assertThat(l.get("next")).contains("name=paged-*", "limit=2", "offset=4");
        assertThat(l.get("last")).contains("name=paged-*", "limit=2", "offset=4");

        // Following next reaches the last page: one VR, no next.
        HttpResponse<String> last = send("GET", l.get("next"), null);
        assertThat(body(last).get("virtualRouter")).hasSize(1);
        assertThat(body(last).get("virtualRouter").get(0).get("vmName").asText()).isEqualTo("paged-5");
        assertThat(links(last)).containsOnlyKeys("first", "prev", "last");
        assertThat(links(last).get("prev")).contains("offset=2");
        // The first page has no prev; a query that matches nothing has one page, the first and last.
        assertThat(links(send("GET", l.get("first"), null))).containsOnlyKeys("first", "next", "last");
        Map<String, String> none = links(send("GET", "/api/v1/routers?name=nothing-here&limit=2", null));
        assertThat(none).containsOnlyKeys("first", "last");
        assertThat(none.get("last")).contains("name=nothing-here", "limit=2", "offset=0");
        // Past the end, prev leads back to the last page; limit 0 has no pages to link.
        assertThat(links(send("GET", "/api/v1/routers?name=paged-*&limit=2&offset=40", null)).get("prev")).contains("offset=4");
        assertThat(send("GET", "/api/v1/routers?limit=0", null).headers().allValues("Link")).isEmpty();
    }

    // ------------------------------------------------------------ a waited-for write that ends crashed

    @Test
    void aWaitedCreationThatFailsOnTheHostIsA502() throws Exception {
        driver.failOn("provision", "doomed", "no memory left on the host");
        HttpResponse<String> r = rest.post("/api/v1/routers?wait=10s", ADMIN, JSON, "{\"vmName\":\"doomed\"}");
        assertProblem(r, 502);
        assertThat(body(r).get("detail").asText()).contains("no memory left on the host");
        assertThat(service.findByName("doomed")).isEmpty();
        // Without waiting, the request is accepted all the same: its failure is for the events to say.
        HttpResponse<String> accepted = rest.post("/api/v1/routers", ADMIN, JSON, "{\"vmName\":\"doomed\"}");
        assertThat(accepted.statusCode()).as(accepted.body()).isEqualTo(202);
    }

    @Test
    void aWaitedActionOnAVrWhoseVmIsGoneIsA409() throws Exception {
        int i = create("vanishing");
        driver.deleteBehindTheBack(i);
        HttpResponse<String> r = send("POST", "/api/v1/routers/" + i + "/start?wait=10s", null);
        assertProblem(r, 409);
        assertThat(body(r).get("detail").asText()).contains("no VM with vmIndex " + i);
        assertThat(send("POST", "/api/v1/routers/" + i + "/start", null).statusCode()).isEqualTo(202);
    }

    @Test
    void aWaitedActionWhoseVrCrashesIsA502WithTheReason() throws Exception {
        int i = create("crashing");
        send("POST", "/api/v1/routers/" + i + "/stop?wait=10s", null);
        driver.failOn("start", "crashing", "the guest kernel panicked");
        HttpResponse<String> r = send("POST", "/api/v1/routers/" + i + "/start?wait=10s", null);
        assertProblem(r, 502);
        assertThat(body(r).get("detail").asText()).contains("the guest kernel panicked");
    }

    // ------------------------------------------------------------ interfaces, HEAD

    @Test
    void anInterfaceIsPatchedInPlace() throws Exception {
        HttpResponse<String> created = rest.post("/api/v1/routers?wait=10s", ADMIN, JSON, "{\"vmName\":\"ifpatch\","
                + "\"vmNetworkConfigTable\":[{\"vmNetworkConfigParent\":\"br0\",\"vmNetworkConfigAddress\":\"192.0.2.1\"}]}");
        int i = body(created).get("vmIndex").asInt();
        String path = "/api/v1/routers/" + i + "/interfaces/1";

        HttpResponse<String> moved = send("PATCH", path + "?wait=10s", "{\"vmNetworkConfigAddress\":\"198.51.100.7\","
                + "\"vmNetworkConfigPrefixLength\":25}");
        assertThat(moved.statusCode()).as(moved.body()).isEqualTo(200);
        assertThat(body(moved).get("vmNetworkConfigAddress").asText()).isEqualTo("198.51.100.7");
        assertThat(body(moved).get("vmNetworkConfigPrefixLength").asInt()).isEqualTo(25);
        assertThat(body(moved).get("vmNetworkConfigParent").asText()).isEqualTo("br0");
        assertThat(moved.headers().firstValue("ETag")).isPresent();

        // Shut down, a new MAC and an IPv6 address (its type and default prefix follow it).
        send("POST", "/api/v1/routers/" + i + "/stop?wait=10s", null);
        HttpResponse<String> v6 = send("PATCH", path + "?wait=10s", "{\"vmNetworkConfigPhysAddress\":\"02:00:5e:00:53:01\","
                + "\"vmNetworkConfigAddress\":\"2001:db8::1\"}");
        assertThat(v6.statusCode()).as(v6.body()).isEqualTo(200);
        JsonNode n = body(send("GET", path, null));
        assertThat(n.get("vmNetworkConfigPhysAddress").asText()).isEqualTo("02:00:5e:00:53:01");
        assertThat(n.get("vmNetworkConfigAddressType").asText()).isEqualTo("ipv6");
        assertThat(n.get("vmNetworkConfigPrefixLength").asInt()).isEqualTo(64);
        JsonNode state = body(send("GET", "/api/v1/routers/" + i, null)).at("/vmNetworkTable/0");
        assertThat(state.get("vmNetworkPhysAddress").asText()).isEqualTo("02:00:5e:00:53:01");

        // Refused whole: a bad address changes nothing; an interface that is not there is a 404.
        HttpResponse<String> bad = send("PATCH", path, "{\"vmNetworkConfigPrefixLength\":24,\"vmNetworkConfigAddress\":\"nope\"}");
        assertProblem(bad, 400);
        assertThat(body(bad).get("field").asText()).isEqualTo("vmNetworkConfigAddress");
        assertThat(body(send("GET", path, null)).get("vmNetworkConfigPrefixLength").asInt()).isEqualTo(64);
        assertProblem(send("PATCH", "/api/v1/routers/" + i + "/interfaces/9", "{\"vmNetworkConfigPrefixLength\":24}"), 404);
        assertProblem(send("PATCH", path, "{\"vmNetworkConfigIndex\":2}"), 400);
    }

    @Test
    void headIsAnsweredAndAllowed() throws Exception {
        int i = create("headed");
        HttpResponse<String> get = send("GET", "/api/v1/routers/" + i, null);
        HttpResponse<String> head = send("HEAD", "/api/v1/routers/" + i, null);
        assertThat(head.statusCode()).isEqualTo(200);
        assertThat(head.body()).isEmpty();
        // the same VR; the counters read with each may differ
        assertThat(versionOf(head.headers().firstValue("ETag").orElseThrow()))
                .isEqualTo(versionOf(get.headers().firstValue("ETag").orElseThrow()));
        HttpResponse<String> notAllowed = send("PUT", "/api/v1/routers/" + i, "{}");
        assertProblem(notAllowed, 405);
        assertThat(notAllowed.headers().firstValue("Allow").orElseThrow().split("\\s*,\\s*"))
                .contains("GET", "HEAD", "PATCH", "DELETE", "OPTIONS");
        HttpResponse<String> options = send("OPTIONS", "/api/v1/routers/" + i + "/interfaces/1", null);
        assertThat(options.headers().firstValue("Allow").orElseThrow().split("\\s*,\\s*"))
                .contains("GET", "HEAD", "PATCH", "DELETE");
    }

    // ------------------------------------------------------------ Idempotency-Key

    private HttpResponse<String> createWithKey(String path, String key, String body) throws Exception {
        return send("POST", path, body, "Idempotency-Key", key);
    }

    @Test
    void aCreationSentAgainWithItsKeyAnswersAsTheFirstTimeEvenAfterARestart() throws Exception {
        String body = "{\"vmName\":\"once\"}";
        HttpResponse<String> first = createWithKey("/api/v1/routers?wait=10s", "create-once-1", body);
        assertThat(first.statusCode()).as(first.body()).isEqualTo(201);
        int i = body(first).get("vmIndex").asInt();
        HttpResponse<String> again = createWithKey("/api/v1/routers?wait=10s", "create-once-1", body);
        assertThat(again.statusCode()).as(again.body()).isEqualTo(201);
        assertThat(body(again).get("vmIndex").asInt()).isEqualTo(i);
        assertThat(again.headers().firstValue("Location")).isEqualTo(first.headers().firstValue("Location"));
        assertThat(again.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        // The replayed representation carries the first answer's validators.
        assertThat(first.headers().firstValue("ETag")).isPresent();
        assertThat(again.headers().firstValue("ETag")).isEqualTo(first.headers().firstValue("ETag"));
        assertThat(again.headers().firstValue("Last-Modified")).isPresent()
                .isEqualTo(first.headers().firstValue("Last-Modified"));
        // Without the key the same body is a second creation, refused for its name: the key is what made it one.
        assertProblem(send("POST", "/api/v1/routers", body), 409);

        // The same key with another body: 422, and nothing created.
        HttpResponse<String> other = createWithKey("/api/v1/routers", "create-once-1", "{\"vmName\":\"twice\"}");
        assertProblem(other, 422);
        assertThat(service.findByName("twice")).isEmpty();
        // A key is the user's: the same key of another user is another request.
        HttpResponse<String> operator = rest.send(rest.request("/api/v1/routers", RestClient.basic("ops", "ops"))
                .header("Content-Type", JSON).header("Idempotency-Key", "create-once-1")
                .POST(HttpRequest.BodyPublishers.ofString("{\"vmName\":\"operators-own\"}")));
        assertThat(operator.statusCode()).as(operator.body()).isEqualTo(202);

        // The batch: a 202 answered again as a 202 with the same VRs.
        String batch = "{\"virtualRouter\":[{\"vmName\":\"b1\"},{\"vmName\":\"b2\"}]}";
        HttpResponse<String> b = createWithKey("/api/v1/routers/batch", "batch-1", batch);
        assertThat(b.statusCode()).as(b.body()).isEqualTo(202);
        assertThat(createWithKey("/api/v1/routers/batch", "batch-1", batch).body()).isEqualTo(b.body());
        assertProblem(createWithKey("/api/v1/routers/batch", "batch-1", "{\"virtualRouter\":[{\"vmName\":\"b3\"}]}"), 422);
        // A refused creation keeps no key: sent again, corrected, it is carried out.
        assertProblem(createWithKey("/api/v1/routers", "fixed-later", "{\"vmName\":\"once\"}"), 409);
        assertThat(createWithKey("/api/v1/routers", "fixed-later", "{\"vmName\":\"fixed\"}").statusCode()).isEqualTo(202);
        assertProblem(createWithKey("/api/v1/routers", "with\"quote", body), 400);

        // Kept across a restart of the interface (keys in the data directory).
        restInterface.close();
        startRest();
        HttpResponse<String> afterRestart = createWithKey("/api/v1/routers?wait=10s", "create-once-1", body);
        assertThat(afterRestart.statusCode()).as(afterRestart.body()).isEqualTo(201);
        assertThat(body(afterRestart).get("vmIndex").asInt()).isEqualTo(i);
        assertThat(afterRestart.headers().firstValue("ETag")).isEqualTo(first.headers().firstValue("ETag"));
        assertProblem(createWithKey("/api/v1/routers", "create-once-1", "{\"vmName\":\"twice\"}"), 422);
        assertThat(Files.readString(dataDir.resolve(IdempotencyKeys.FILE))).contains("create-once-1");
    }

    /**
     * Issue 39: kill -9 after a batch's journal record and before its answer was kept leaves the key's
     * begun line and no answer (here: the answer's line taken out of the file, the REST interface
     * started again on it). Sent again with its key, the batch answers with the VRs it made, not a 409
     * for the names it took itself.
     */
    @Test
    void aBatchWhoseAnswerTheKillCutOffAnswersWithItsVrsWhenSentAgainWithItsKey() throws Exception {
        String batch = "{\"virtualRouter\":[{\"vmName\":\"cut-1\"},{\"vmName\":\"cut-2\"}]}";
        HttpResponse<String> first = createWithKey("/api/v1/routers/batch", "cut-off", batch);
        assertThat(first.statusCode()).as(first.body()).isEqualTo(202);
        Path keys = dataDir.resolve(IdempotencyKeys.FILE);
        restInterface.close();
        Files.write(keys, Files.readAllLines(keys).stream()
                .filter(l -> !(l.contains("\"cut-off\"") && l.contains("\"status\""))).toList());
        startRest();

        HttpResponse<String> again = createWithKey("/api/v1/routers/batch", "cut-off", batch);
        assertThat(again.statusCode()).as(again.body()).isEqualTo(202);
        assertThat(again.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        List<Integer> made = new ArrayList<>();
        for (JsonNode vr : body(first).get("virtualRouter")) made.add(vr.get("vmIndex").asInt());
        List<Integer> answered = new ArrayList<>();
        for (JsonNode vr : body(again).get("virtualRouter")) answered.add(vr.get("vmIndex").asInt());
        assertThat(answered).isEqualTo(made);
        // Kept now, as a first answer is.
        assertThat(createWithKey("/api/v1/routers/batch", "cut-off", batch).body()).isEqualTo(again.body());
    }

    @Test
    void aKeyOlderThanTheWindowIsForgotten() throws Exception {
        Path dir = Files.createTempDirectory("vrouter-idempotency");
        IdempotencyKeys keys = new IdempotencyKeys(dir, Duration.ofMillis(1), 10);
        keys.once("k", "admin", "POST", "/p", "a", () -> jakarta.ws.rs.core.Response.status(201).entity(
                new io.vrouter.core.model.VirtualRouter()).build(), Optional::empty);
        Thread.sleep(5);
        // Expired: another body with the same key is a new request, not a 422.
        assertThat(keys.once("k", "admin", "POST", "/p", "b", () -> jakarta.ws.rs.core.Response.status(202).build(), Optional::empty)
                .getStatus()).isEqualTo(202);
        keys.close();
        // Bounded: at most max-keys are kept, the oldest go first, also in the file.
        IdempotencyKeys few = new IdempotencyKeys(dir, Duration.ofHours(1), 2);
        for (String k : new String[] {"k1", "k2", "k3", "k4", "k5"}) {
            few.once(k, "admin", "POST", "/p", k, () -> jakarta.ws.rs.core.Response.status(201).entity(
                    new io.vrouter.core.model.VirtualRouter()).build(), Optional::empty);
        }
        few.close();
        IdempotencyKeys reopened = new IdempotencyKeys(dir, Duration.ofHours(1), 2);
        assertThat(Files.readAllLines(dir.resolve(IdempotencyKeys.FILE))).hasSize(2);
        assertThat(reopened.once("k5", "admin", "POST", "/p", "k5", () -> jakarta.ws.rs.core.Response.status(500).build(), Optional::empty)
                .getStatus()).isEqualTo(201);
        assertThat(reopened.once("k1", "admin", "POST", "/p", "other", () -> jakarta.ws.rs.core.Response.status(202).build(), Optional::empty)
                .getStatus()).as("k1 was dropped").isEqualTo(202);
        reopened.close();
    }

    // ------------------------------------------------------------ Last-Event-ID

    @Test
    void theEventStreamResumesAfterLastEventIdThenGoesLive() throws Exception {
        int i = create("resumed");
        long seen = service.events().replayLog().orElseThrow().lastSequence();
        // Missed while away: a stop, a rename.
        send("POST", "/api/v1/routers/" + i + "/stop?wait=10s", null);
        send("PATCH", "/api/v1/routers/" + i + "?wait=10s", "{\"vmName\":\"resumed-2\"}");
        long missedUpTo = service.events().replayLog().orElseThrow().lastSequence();
        assertThat(missedUpTo).isGreaterThan(seen + 1);

        List<RestClient.Sse> got = rest.events(ADMIN, Long.toString(seen),
                l -> l.stream().anyMatch(e -> e.data().contains("\"vmName\":\"resumed-3\"")),
                () -> rest.http().sendAsync(rest.request("/api/v1/routers/" + i, ADMIN).header("Content-Type", JSON)
                        .method("PATCH", HttpRequest.BodyPublishers.ofString("{\"vmName\":\"resumed-3\"}")).build(),
                        HttpResponse.BodyHandlers.discarding()));
        List<Long> ids = got.stream().filter(e -> e.id() != null).map(e -> Long.parseLong(e.id())).toList();
        // Every missed event, in order, none twice, then replayComplete, then the live one.
        List<Long> expected = new ArrayList<>();
        for (long n = seen + 1; n <= missedUpTo; n++) expected.add(n);
        assertThat(ids.subList(0, expected.size())).isEqualTo(expected);
        assertThat(ids).doesNotHaveDuplicates().isSorted();
        assertThat(got.get(expected.size()).event()).isEqualTo("replayComplete");
        assertThat(got.get(got.size() - 1).id()).isNotNull();
        assertThat(Long.parseLong(got.get(got.size() - 1).id())).isGreaterThan(missedUpTo);
        assertThat(got).noneMatch(e -> "replayGap".equals(e.event()));
        assertThat(got.subList(0, expected.size())).anyMatch(e -> e.data().contains("\"vmOperState\":\"shuttingdown\""))
                .anyMatch(e -> e.data().contains("\"vmName\":\"resumed-2\""));

        // Nothing missed: replayComplete at once. A bad id: 400.
        long now = service.events().replayLog().orElseThrow().lastSequence();
        List<RestClient.Sse> none = rest.events(ADMIN, Long.toString(now), l -> !l.isEmpty(), () -> { });
        assertThat(none).extracting(RestClient.Sse::event).containsExactly("replayComplete");
        HttpResponse<String> bad = rest.send(rest.request("/api/v1/events", ADMIN).header("Accept", "text/event-stream")
                .header("Last-Event-ID", "yesterday").GET());
        assertThat(bad.statusCode()).isEqualTo(400);
    }

    @Test
    void aGapTooOldForTheLogIsSaidInTheStream() throws Exception {
        // A server of its own whose log keeps one event: the next compaction drops the rest.
        Path dir = Files.createTempDirectory("vrouter-rest-gap");
        Settings settings = Settings.of(Map.of("data-dir", dir.toString(), "rest-port", "0"));
        try (VirtualRouterService small = new VirtualRouterService(new SimulatedDriver(LatencyProfile.named("none")),
                new ConfigStore(dir), VrMetrics.inMemory())) {
            small.events().recordTo(EventLog.open(dir, 1, Duration.ofDays(1)));
            small.start();
            RestInterface smallRest = new RestInterface();
            smallRest.start(new ServerContext(small, settings, Credentials.from(settings), VrMetrics.inMemory()));
            try {
                RestClient client = new RestClient(smallRest.port());
                StringBuilder batch = new StringBuilder("{\"virtualRouter\":[");
                for (int n = 0; n < 40; n++) batch.append(n == 0 ? "" : ",").append("{\"vmName\":\"g").append(n).append("\"}");
                HttpResponse<String> created = client.post("/api/v1/routers/batch?wait=10s", ADMIN, JSON, batch + "]}");
                assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
                long oldest = small.events().replayLog().orElseThrow().oldestSequence().orElseThrow();
                assertThat(oldest).as("compacted").isGreaterThan(2);

                List<RestClient.Sse> got = client.events(ADMIN, "1", l -> l.stream().anyMatch(e -> "replayComplete".equals(e.event())),
                        () -> { });
                assertThat(got.get(0).event()).isEqualTo("replayGap");
                JsonNode gap = json.readTree(got.get(0).data());
                assertThat(gap.get("firstMissed").asLong()).isEqualTo(2);
                assertThat(gap.get("oldestKept").asLong()).isEqualTo(oldest);
                assertThat(got.get(1).id()).isEqualTo(Long.toString(oldest));
            } finally {
                smallRest.close();
            }
        }
    }
}
