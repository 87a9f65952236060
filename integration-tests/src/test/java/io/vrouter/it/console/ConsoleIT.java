package io.vrouter.it.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.vrouter.it.ServerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebElement;

/**
 * The web console in Debian's headless chromium against the packaged server, with the paper's
 * hypervisor timings so that transitions can be watched: the whole lifecycle through the pages, a
 * refused creation's error beside its field, a viewer without write controls, the CSRF defence, and
 * every page checked with axe-core (WCAG 2 A/AA) at a desktop's width and a phone's.
 * Screenshots go to target/console-screenshots; with -Dconsole.screenshots.docs=DIR the README's two
 * are written there too.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleIT {
    private static final Path SHOTS = Path.of("target", "console-screenshots");
    /** The accessibility checker's version, as .ci/install-test-deps caches it. */
    private static final String AXE_CORE = "4.14.1";
    private final ObjectMapper json = new ObjectMapper();
    private final List<String> pageMessages = new ArrayList<>();
    private Path dir;
    private ServerProcess server;
    private Browser browser;

    @BeforeAll
    void start() throws Exception {
        dir = Files.createTempDirectory("console-it");
        // A tenant, with a user of its own beside the provider's admin and viewer (issue 25).
        Path config = Browser.manyStreams(dir);
        Files.writeString(config, "tenant.acme = vrs=2\nuser.admin = operator:admin\nuser.viewer = viewer:viewer\n"
                + "user.ada = operator@acme:ada\n"
                // 16 CPUs times the default overcommit of 4: the VRs may commit 64 vCPUs (a rollback refused, below).
                + "sim.host-cpus = 16\n"
                // A peer nobody answers for (issue 34): the Host page says so.
                + "peer.far = http://127.0.0.1:" + ServerProcess.freeTcpPort() + "\npeer.far.user = migrator\npeer.far.password = unused\n",
                java.nio.file.StandardOpenOption.APPEND);
        server = ServerProcess.start(dir.resolve("server"), "--sim-latency", "paper", "--config", config.toString());
        browser = new Browser(dir.resolve("chromium-profile"), SHOTS);
    }

    @AfterAll
    void stop() throws Exception {
        if (browser != null) browser.close();
        if (server != null) server.close();
    }

    private void signInAs(String user) {
        browser.open(server.restBase() + "/");
        browser.await(10, d -> browser.find("#login-user").isDisplayed());
        browser.signIn(user, user);
        browser.await(10, d -> !browser.all(".vr-table").isEmpty());
        // Set once per page load: still there at the end means nothing reloaded the page.
        browser.script("window.vrouterTestPage = 'not reloaded'");
    }

    private void go(String hash) {
        browser.script("location.hash = arguments[0]", hash);
    }

    /** The state the VR's page shows (read in the page: the pill is redrawn on every change). */
    private String shownState() {
        return (String) browser.script("const p = document.querySelector('.head-state .pill'); return p && p.dataset.state;");
    }

    /** The VR page's description, as shown (not being edited); read in the page, as it is redrawn with every sample. */
    private String shownDescription() {
        return (String) browser.script("const t = document.querySelector('.description-text');"
                + " return !document.querySelector('.description-form') && t ? t.textContent : null;");
    }

    private String operState() {
        return browser.await(10, d -> shownState());
    }

    private void awaitState(String state, int seconds) {
        browser.await(seconds, d -> state.equals(shownState()));
    }

    private void collectMessages() {
        pageMessages.addAll(browser.consoleMessages());
    }

    @Test
    @Order(1)
    void anOperatorCreatesStopsStartsAndDeletesAVrWithoutReloading() throws Exception {
        signInAs("admin");
        browser.find(".page-head a[href='#/create']").click();
        browser.await(10, d -> !browser.all("form.form").isEmpty());
        browser.find("[name=vmName]").sendKeys("web1");
        browser.find("[name=vmConfigMemory]").clear();
        browser.find("[name=vmConfigMemory]").sendKeys("256");
        browser.find(".if-row [name=vmNetworkConfigParent]").sendKeys("xenbr0");
        browser.find(".if-row [name=vmNetworkConfigAddress]").sendKeys("192.0.2.10");
        browser.find("[name=vmConfigDescription]").sendKeys("web tier, rack 2");
        // Every state the VR's page draws, recorded by the page as it draws it: polled over WebDriver, the
        // second or so the VR is preparing could pass unseen on a loaded machine.
        browser.script("window.statesShown = []; new MutationObserver(() => {"
                + " const p = document.querySelector('.head-state .pill'); const s = p && p.dataset.state;"
                + " if (s && window.statesShown[window.statesShown.length - 1] !== s) window.statesShown.push(s); })"
                + ".observe(document.body, {subtree: true, childList: true, attributes: true, attributeFilter: ['data-state']});");
        // And each chart's time axis as first drawn, from one sample, with the page's clock then.
        browser.script("window.firstTimeAxes = []; new MutationObserver((changes) => { for (const c of changes) {"
                + " const f = c.target; if (f.dataset.samples !== '1' || f.dataset.firstAxis) continue; f.dataset.firstAxis = 'seen';"
                + " window.firstTimeAxes.push([f.dataset.timeAxis, new Date().toLocaleTimeString('en-GB')]); } })"
                + ".observe(document.body, {subtree: true, attributes: true, attributeFilter: ['data-time-axis']});");
        browser.find("form.form button[type=submit]").click();

        // The VR's page: accepted as preparing, then running when the event says so.
        browser.await(10, d -> d.getCurrentUrl().matches(".*#/vr/\\d+$"));
        String url = browser.driver.getCurrentUrl();
        int vmIndex = Integer.parseInt(url.substring(url.lastIndexOf('/') + 1));
        awaitState("running", 15);
        @SuppressWarnings("unchecked")
        List<Object> shown = (List<Object>) browser.script("return window.statesShown");
        assertThat(shown).as("states shown").startsWith("preparing").endsWith("running");
        assertThat(browser.find("#view h1").getText()).isEqualTo("web1");
        browser.await(10, d -> "web tier, rack 2".equals(shownDescription()));
        assertThat(browser.find(".cards").getText()).contains("256 MiB");
        // Read in the page: the tables are redrawn with every sample.
        assertThat((List<?>) browser.script("return [...document.querySelectorAll('#view tbody tr')].map(r => r.innerText)"))
                .anyMatch(row -> row.toString().contains("xenbr0") && row.toString().contains("192.0.2.10/24"));

        browser.find("[data-action=stop]").click();
        awaitState("shutdown", 15);
        assertThat(browser.find("[data-action=stop]").isEnabled()).isFalse();
        browser.find("[data-action=start]").click();
        awaitState("running", 15);
        // Straight on, as a person clicks: the answer to start must not put back an older state.
        browser.find("[data-action=pause]").click();
        awaitState("paused", 15);
        browser.find("[data-action=start]").click();
        awaitState("running", 15);
        // The charts fill from samples taken every few seconds.
        browser.await(15, d -> browser.find(".chart .chart-latest").getText().contains("%"));
        browser.screenshot("vr");
        // A chart of one sample: its time axis is the minute before that sample, not 1970's or new year's midnights.
        List<?> firstAxis = browser.await(15, d -> (List<?>) browser.script("return window.firstTimeAxes[0]"));
        LocalTime drawnAt = LocalTime.parse((String) firstAxis.get(1));
        List<String> ticks = List.of(((String) firstAxis.get(0)).split(" "));
        assertThat(ticks).as("time axis of one sample, drawn at " + drawnAt).isNotEmpty().doesNotHaveDuplicates()
                .allSatisfy(tick -> assertThat(Math.floorMod(Duration.between(LocalTime.parse(tick), drawnAt).toSeconds(), 86400L))
                        .as(tick + " before " + drawnAt).isBetween(0L, 120L));

        // The description: edited in place, a refusal shown beside the field, then saved. Its button keeps
        // the keyboard's focus while the page redraws with the next sample.
        browser.script("document.querySelector('[data-action=describe]').focus()");
        String samples = browser.find(".chart").getAttribute("data-samples");
        browser.await(15, d -> !samples.equals(browser.find(".chart").getAttribute("data-samples")));
        assertThat(browser.script("return document.activeElement.dataset.action")).isEqualTo("describe");
        browser.find("[data-action=describe]").click();
        WebElement description = browser.await(10, d -> browser.find(".description-form [name=vmConfigDescription]"));
        assertThat(description.getAttribute("value")).isEqualTo("web tier, rack 2");
        description.clear();
        description.sendKeys("x".repeat(256));
        browser.find(".description-form [type=submit]").click();
        browser.await(10, d -> "true".equals(description.getAttribute("aria-invalid")));
        assertThat(browser.find("#" + description.getAttribute("aria-describedby").split(" ")[0]).getText()).contains("255 octets");
        description.clear();
        description.sendKeys("web tier, rack 3");
        browser.find(".description-form [type=submit]").click();
        browser.await(10, d -> "web tier, rack 3".equals(shownDescription()));
        assertThat(json.readTree(server.get("/api/v1/routers/" + vmIndex).body()).get("vmConfigDescription").asText())
                .isEqualTo("web tier, rack 3");

        // The list shows it running, updated live.
        go("#/");
        browser.await(10, d -> "running".equals(browser.script(
                "const r = document.querySelector(`tr[data-index='${arguments[0]}']`); return r && r.dataset.state;", vmIndex)));
        // The new description comes with the change's event.
        browser.await(10, d -> "web tier, rack 3".equals(browser.script("const d = document.querySelector("
                + "`tr[data-index='${arguments[0]}'] .vr-description`); return d && d.textContent;", vmIndex)));
        browser.screenshot("list-live");

        // The same name again: the server's 409 shown next to the name field.
        go("#/create");
        browser.await(10, d -> !browser.all("form.form").isEmpty());
        WebElement name = browser.find("[name=vmName]");
        name.sendKeys("web1");
        browser.find("form.form button[type=submit]").click();
        WebElement error = browser.await(10, d -> {
            WebElement e = browser.find("#" + name.getAttribute("aria-describedby").split(" ")[0]);
            return e.getText().isEmpty() ? null : e;
        });
        assertThat(error.getText()).contains("already exists");
        assertThat(name.getAttribute("aria-invalid")).isEqualTo("true");
        // Next to its field: the message sits in the name input's own field box.
        assertThat(error.findElement(By.xpath("..")).findElement(By.cssSelector("input")).getAttribute("name")).isEqualTo("vmName");
        browser.screenshot("create-refused");

        // Delete, confirmed in a dialog; back on the list the row goes when the event says it is gone.
        go("#/vr/" + vmIndex);
        awaitState("running", 10);
        browser.find("[data-action=delete]").click();
        WebElement dialog = browser.await(10, d -> browser.find("dialog[open]"));
        assertThat(dialog.getText()).contains("Delete web1?");
        dialog.findElement(By.cssSelector(".btn-danger")).click();
        browser.await(10, d -> d.getCurrentUrl().endsWith("#/"));
        browser.await(20, d -> browser.all("tr[data-index='" + vmIndex + "']").isEmpty());
        assertThat(server.get("/api/v1/routers/" + vmIndex).statusCode()).isEqualTo(404);

        assertThat(browser.script("return window.vrouterTestPage")).isEqualTo("not reloaded");
        // The credentials live in the page's memory only.
        assertThat(browser.script("return localStorage.length + sessionStorage.length + document.cookie.length")).isEqualTo(0L);
        collectMessages();
    }

    @Test
    @Order(2)
    void theListFiltersByNameAndStateFromTheKeyboard() throws Exception {
        // A small router: two edges, a core that is stopped, a firewall paused, a lab VR suspended.
        Map<String, String> made = new java.util.LinkedHashMap<>();
        String[][] vrs = {{"edge1", "2", "1024", "192.0.2.1"}, {"edge2", "2", "1024", "192.0.2.2"}, {"core1", "4", "2048", "198.51.100.1"},
            {"dmz-fw", "1", "512", "203.0.113.1"}, {"lab", "1", "256", "198.51.100.9"}};
        for (String[] v : vrs) {
            String body = "{\"vmName\":\"" + v[0] + "\",\"vmConfigCpuNumber\":" + v[1] + ",\"vmConfigMemory\":" + v[2]
                    + ",\"vmNetworkConfigTable\":[{\"vmNetworkConfigParent\":\"xenbr0\",\"vmNetworkConfigAddress\":\"" + v[3]
                    + "\"},{\"vmNetworkConfigParent\":\"" + (v[0].startsWith("edge") ? "uplink" : "xenbr1") + "\"}]}";
            var r = server.post("/api/v1/routers?wait=10s", body);
            assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
            made.put(v[0], json.readTree(r.body()).get("vmIndex").asText());
        }
        assertThat(server.post("/api/v1/routers/" + made.get("core1") + "/stop?wait=10s", "").statusCode()).isEqualTo(200);
        assertThat(server.post("/api/v1/routers/" + made.get("dmz-fw") + "/pause?wait=10s", "").statusCode()).isEqualTo(200);
        assertThat(server.post("/api/v1/routers/" + made.get("lab") + "/suspend?wait=10s", "").statusCode()).isEqualTo(200);
        signInAs("admin");
        browser.screenshot("list");
        // "/" jumps to the filter.
        browser.find("body").sendKeys("/");
        browser.driver.switchTo().activeElement().sendKeys("edge*");
        browser.await(10, d -> visibleNames().equals(List.of("edge1", "edge2")));
        browser.find("#filter-name").sendKeys(Keys.chord(Keys.CONTROL, "a"), Keys.DELETE);
        new org.openqa.selenium.support.ui.Select(browser.find("#filter-state")).selectByValue("shutdown");
        browser.await(10, d -> visibleNames().equals(List.of("core1")));
        assertThat(browser.find("#list-summary").getText()).contains("1 shutdown").contains("1 shown");
        // A filter given in the address is followed, and so is Back.
        go("#/?name=edge*");
        browser.await(10, d -> visibleNames().equals(List.of("edge1", "edge2")));
        assertThat(browser.find("#filter-name").getAttribute("value")).isEqualTo("edge*");
        go("#/?state=paused");
        browser.await(10, d -> visibleNames().equals(List.of("dmz-fw")));
        assertThat(browser.find("#filter-state").getAttribute("value")).isEqualTo("paused");
        browser.driver.navigate().back();
        browser.await(10, d -> visibleNames().equals(List.of("edge1", "edge2")));

        // The topology draws each VR with a port on each network it is plugged into.
        go("#/topology");
        browser.find("#topology-filter").sendKeys("edge*");
        browser.await(10, d -> browser.all(".topology .vr-node").size() == 2);
        assertThat(browser.all(".topology .net-label").stream().map(WebElement::getText).toList()).containsExactly("uplink", "xenbr0");
        assertThat(browser.all(".topology .link")).hasSize(4);
        browser.find("#topology-filter").sendKeys(Keys.chord(Keys.CONTROL, "a"), Keys.DELETE);
        browser.await(10, d -> browser.all(".topology .vr-node").size() >= vrs.length);
        browser.screenshot("topology");
        go("#/host");
        browser.await(10, d -> browser.find("#h-driver").findElement(By.xpath("..")).getText().contains("ready"));
        browser.await(10, d -> browser.find(".counts").getText().contains("shutdown"));
        browser.screenshot("host");

        // A VR that has run for a while: its charts (CPU, interface traffic: the simulated host counts it now, disk) have several samples.
        go("#/vr/" + made.get("edge1"));
        browser.await(30, d -> browser.all(".chart[data-samples]").stream()
                .allMatch(f -> Integer.parseInt(f.getAttribute("data-samples")) >= 5) && browser.all(".chart[data-samples]").size() == 3);
        browser.screenshot("vr-running");
        collectMessages();
    }

    @SuppressWarnings("unchecked")
    private List<String> visibleNames() {
        return (List<String>) browser.script("return [...document.querySelectorAll('.vr-table tbody tr')]"
                + ".filter(r => !r.hidden).map(r => r.querySelector('.vr-link').textContent)");
    }

    @Test
    @Order(3)
    void aViewerSeesNoWriteControlsAndTheServerRefusesTheirWritesAnyway() throws Exception {
        int vmIndex = json.readTree(server.post("/api/v1/routers?wait=10s", "{\"vmName\":\"seen\"}").body()).get("vmIndex").asInt();
        // A wrong password: said on the form, in the page (no browser prompt), and nothing else shown.
        browser.open(server.restBase() + "/");
        browser.await(10, d -> browser.find("#login-user").isDisplayed());
        browser.signIn("viewer", "wrong");
        browser.await(10, d -> browser.find("#login-error").getText().contains("Wrong user name or password"));
        assertThat(browser.find("#view").isDisplayed()).isFalse();
        signInAs("viewer");
        assertThat(browser.find("#who").getText()).contains("viewer");
        assertThat(browser.all("a[href='#/create']").stream().filter(WebElement::isDisplayed)).isEmpty();
        go("#/vr/" + vmIndex);
        assertThat(operState()).isEqualTo("running");
        assertThat(browser.all("[data-action]")).isEmpty();
        assertThat(browser.all("form")).noneMatch(WebElement::isDisplayed);
        assertThat(browser.all("button").stream().filter(WebElement::isDisplayed).map(WebElement::getText).toList())
                .containsExactly("Sign out");
        browser.screenshot("viewer");
        // Even with the console's header, the server refuses a viewer's write.
        Object status = browser.asyncScript("const done = arguments[arguments.length - 1];"
                + "fetch('api/v1/routers/' + arguments[0] + '/stop', {method: 'POST', credentials: 'omit',"
                + " headers: {Authorization: 'Basic ' + btoa('viewer:viewer'), 'X-Requested-By': 'test'}})"
                + ".then(r => done(r.status))", vmIndex);
        assertThat(status).isEqualTo(403L);
        assertThat(json.readTree(server.get("/api/v1/routers/" + vmIndex).body()).at("/vmEntry/vmOperState").asText())
                .isEqualTo("running");
        collectMessages();
    }

    @Test
    @Order(6)
    void aBrowsersWriteWithoutTheCsrfDefenceIsRefused() throws Exception {
        int vmIndex = json.readTree(server.post("/api/v1/routers?wait=10s", "{\"vmName\":\"guarded\"}").body()).get("vmIndex").asInt();
        browser.open(server.restBase() + "/");
        // From the console's own origin, with the operator's credentials, but without X-Requested-By
        // (a form, or a script that is not the console): chromium sends Origin and Sec-Fetch-Site.
        String call = "const done = arguments[arguments.length - 1];"
                + "fetch('api/v1/routers/' + arguments[0] + '/stop', {method: 'POST', credentials: 'omit', headers: arguments[1]})"
                + ".then(r => r.json().then(p => done([r.status, p.detail || ''])))";
        List<?> refused = (List<?>) browser.asyncScript(call, vmIndex, Map.of("Authorization", "Basic YWRtaW46YWRtaW4="));
        assertThat(refused.get(0)).isEqualTo(403L);
        assertThat((String) refused.get(1)).contains("X-Requested-By");
        assertThat(json.readTree(server.get("/api/v1/routers/" + vmIndex).body()).at("/vmEntry/vmOperState").asText())
                .isEqualTo("running");
        // The same with the console's header is the console's own write: accepted.
        List<?> accepted = (List<?>) browser.asyncScript(call, vmIndex,
                Map.of("Authorization", "Basic YWRtaW46YWRtaW4=", "X-Requested-By", "vrouter-console"));
        assertThat(accepted.get(0)).isEqualTo(202L);
        collectMessages();
        // Nothing on any page broke the Content-Security-Policy or failed.
        assertThat(pageMessages).noneMatch(m -> m.contains("Content Security Policy") || m.contains("Uncaught"));
        docsScreenshots();
    }

    /**
     * Links from the console (issue 33): a peer link declared from each VR's page, drawn on the
     * topology as one lane, waiting while one end is declared and up with the simulated driver's
     * measured delay (40 µs) once both are; a VXLAN end drawn to its remote router; a VR stopped
     * behind the console's back turns the link down live; a link to the VR itself refused with the
     * server's words beside the field, nothing added. Before the accessibility check, which so sees links too.
     */
    @Test
    @Order(4)
    void anOperatorLinksTwoVrsAndSeesTheLinkDrawnWithItsHealth() throws Exception {
        int a = json.readTree(server.post("/api/v1/routers?wait=10s", "{\"vmName\":\"link-a\"}").body()).get("vmIndex").asInt();
        int b = json.readTree(server.post("/api/v1/routers?wait=10s", "{\"vmName\":\"link-b\"}").body()).get("vmIndex").asInt();
        String ends = a + ".1-" + b + ".1";
        String link = ".peer-link[data-ends='" + ends + "']";
        signInAs("admin");

        go("#/vr/" + a);
        addLink(Map.of("vmNetworkConfigLinkType", "peer", "vmNetworkConfigPeerRouter", String.valueOf(b),
                "vmNetworkConfigPeerInterface", "1", "vmNetworkConfigRateOut", "2000"));
        // Read in the page: the row is redrawn with every sample.
        String added = browser.await(20, d -> (String) browser.script("const r = document.querySelector(\"#view tr[data-interface='1']\");"
                + " return r && r.innerText;"));
        assertThat(added).contains("peer link to link-b if1").contains("out ≤ 2 Mbit/s");
        go("#/topology");
        browser.await(10, d -> "waiting".equals(drawn(link).get("status")));

        go("#/vr/" + b);
        addLink(Map.of("vmNetworkConfigLinkType", "peer", "vmNetworkConfigPeerRouter", String.valueOf(a),
                "vmNetworkConfigPeerInterface", "1"));
        browser.await(20, d -> !browser.all("#view tr[data-interface='1']").isEmpty());
        addLink(Map.of("vmNetworkConfigLinkType", "vxlan", "vmNetworkConfigVni", "100", "vmNetworkConfigRemote", "203.0.113.2",
                "vmNetworkConfigParent", "eth0", "vmNetworkConfigRateIn", "5000"));
        browser.await(20, d -> !browser.all("#view tr[data-interface='2']").isEmpty());
        assertThat(browser.find("#view tr[data-interface='2']").getText()).contains("VXLAN 100 to 203.0.113.2 over eth0");

        // One lane for the link declared at both ends, up, with the delay measured and a's rate limit towards b;
        // the VXLAN end: a line from link-b to a node for its remote router, labelled with its VNI and rate limit.
        go("#/topology");
        String vxlan = ".vxlan-link[data-end='" + b + ".2']";
        browser.await(20, d -> "up".equals(drawn(link).get("status")) && !drawn(vxlan).isEmpty());
        Map<?, ?> peer = drawn(link);
        assertThat(peer.get("count")).isEqualTo(1L);
        assertThat(peer.get("delay")).isEqualTo("40");
        assertThat((String) peer.get("label")).contains("up").contains("0.04 ms").contains("↓ 2 Mbit/s");
        Map<?, ?> tunnel = drawn(vxlan);
        assertThat(tunnel.get("remote")).isEqualTo("203.0.113.2");
        assertThat((String) tunnel.get("label")).contains("VNI 100").contains("← 5 Mbit/s");
        assertThat(browser.script("return document.querySelectorAll(\".remote-node[data-remote='203.0.113.2']\").length")).isEqualTo(1L);
        assertThat(browser.script("return document.querySelector('.topology-scroll + ul').textContent").toString())
                .contains("Peer link link-a if1 to link-b if1: up, delay 0.04 ms, loss 0 %, link-a if1 to link-b if1 at most 2 Mbit/s")
                .contains("VXLAN link link-b if2 to remote router 203.0.113.2 (VNI 100, over eth0)");
        browser.screenshot("topology-links");

        // Stopped behind the console's back: the link goes down on the drawing, from the event stream.
        assertThat(server.post("/api/v1/routers/" + b + "/stop?wait=20s", "").statusCode()).isEqualTo(200);
        browser.await(20, d -> "down".equals(drawn(link).get("status")));
        assertThat(server.post("/api/v1/routers/" + b + "/start?wait=20s", "").statusCode()).isEqualTo(200);
        browser.await(20, d -> "up".equals(drawn(link).get("status")));

        // A link to itself: the server's refusal beside the far VR's field, and nothing added.
        go("#/vr/" + a);
        addLink(Map.of("vmNetworkConfigLinkType", "peer", "vmNetworkConfigPeerRouter", String.valueOf(a),
                "vmNetworkConfigPeerInterface", "5"));
        WebElement far = browser.find(".inline-form [name=vmNetworkConfigPeerRouter]");
        browser.await(10, d -> "true".equals(far.getAttribute("aria-invalid")));
        assertThat(browser.find("#" + far.getAttribute("aria-describedby").split(" ")[0]).getText())
                .isEqualTo("vmNetworkConfigPeerRouter: a VR cannot be linked to itself");
        browser.script("document.querySelector('.inline-form').scrollIntoView()");
        browser.screenshot("link-refused");
        assertThat(json.readTree(server.get("/api/v1/routers/" + a).body()).get("vmNetworkConfigTable")).hasSize(1);
        assertThat(browser.all("#view tr[data-interface]")).hasSize(1);
        assertThat(browser.script("return window.vrouterTestPage")).isEqualTo("not reloaded");
        collectMessages();
    }

    /** A link as the topology draws it now (read in the page: it is redrawn on every change), or an empty map. */
    private Map<?, ?> drawn(String css) {
        Object found = browser.script("const l = document.querySelector(arguments[0]); return l && {status: l.dataset.status,"
                + " delay: l.dataset.delay, remote: l.dataset.remote || null, label: l.querySelector('.link-status-label').textContent,"
                + " count: document.querySelectorAll(arguments[0]).length};", css);
        return found == null ? Map.of() : (Map<?, ?>) found;
    }

    /** Fills the VR page's add-interface form (the link type first: it shows that type's fields) and sends it. */
    private void addLink(Map<String, String> values) {
        WebElement form = browser.await(10, d -> browser.find(".inline-form"));
        new org.openqa.selenium.support.ui.Select(form.findElement(By.name("vmNetworkConfigLinkType")))
                .selectByValue(values.get("vmNetworkConfigLinkType"));
        values.forEach((name, value) -> {
            if (name.equals("vmNetworkConfigLinkType")) return;
            WebElement input = form.findElement(By.name(name));
            if (input.getTagName().equals("select")) {
                browser.await(10, d -> !input.findElements(By.cssSelector("option[value='" + value + "']")).isEmpty());
                new org.openqa.selenium.support.ui.Select(input).selectByValue(value);
            } else {
                input.clear();
                input.sendKeys(value);
            }
        });
        form.findElement(By.cssSelector("button[type=submit]")).click();
    }

    /**
     * A tenant's user sees its tenant's VRs alone (the REST API's view of it, nothing of the console's
     * own); the provider's user sees the tenants on the host page, with their usage against their quotas.
     */
    @Test
    @Order(7)
    void aTenantsUserSeesItsVrsAloneAndTheProviderSeesTheTenantsUsage() throws Exception {
        String given = "{\"vmName\":\"acme-owned\",\"vmConfigTenant\":\"acme\"}";
        assertThat(server.post("/api/v1/routers?wait=10s", given).statusCode()).isEqualTo(201);
        signInAs("ada");
        assertThat(browser.find("#who").getText()).contains("ada").contains("acme");
        browser.await(10, d -> visibleNames().equals(List.of("acme-owned")));
        go("#/host");
        browser.await(10, d -> browser.find("#h-tenants").isDisplayed());
        assertThat(browser.all(".tenants tbody tr").stream().map(WebElement::getText).toList())
                .singleElement().satisfies(row -> assertThat(row).startsWith("acme").contains("1 of 2"));
        browser.find("#logout").click();
        signInAs("admin");
        assertThat(visibleNames()).contains("acme-owned").hasSizeGreaterThan(1);
        go("#/host");
        browser.await(10, d -> browser.find(".tenants tbody tr[data-tenant='acme']").getText().contains("1 of 2"));
        assertThat(browser.find(".tenants tbody tr[data-tenant='acme'] meter").getAttribute("value")).isEqualTo("1");
        browser.screenshot("host-tenants");
        assertThat(browser.consoleMessages()).noneMatch(m -> m.contains("Content Security Policy") || m.contains("Uncaught"));
    }

    /**
     * A VR's page, by its address, for a VR the user cannot see: another tenant's (the API answers it as
     * it answers one that never was) and one deleted while it is shown. The page is the message and the
     * way back alone: no action buttons, cards, charts or add-interface form (issue 38 item 3).
     */
    @Test
    @Order(8)  // after the tenant's test, whose VR acme-owned is the list this one goes back to
    void aVrTheUserCannotSeeShowsTheMessageAloneWithTheWayBack() throws Exception {
        var created = server.post("/api/v1/routers?wait=10s", "{\"vmName\":\"providers-own\"}");
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        int providers = json.readTree(created.body()).get("vmIndex").asInt();

        signInAs("ada");
        go("#/vr/" + providers);
        assertThat(theMessageAlone()).contains("There is no VR #" + providers);
        browser.screenshot("vr-not-visible");
        browser.find("#view [role=alert] a[href='#/']").click();
        browser.await(10, d -> visibleNames().equals(List.of("acme-owned")));

        browser.find("#logout").click();
        signInAs("admin");
        go("#/vr/" + providers);
        browser.await(10, d -> "providers-own".equals(browser.find("#view h1").getText()));
        assertThat(browser.all("#view [data-action]")).isNotEmpty();
        assertThat(server.delete("/api/v1/routers/" + providers).statusCode()).isBetween(200, 299);
        assertThat(theMessageAlone()).contains("This VR no longer exists.");
        assertThat(browser.script("return window.vrouterTestPage")).isEqualTo("not reloaded");
        collectMessages();
    }

    /**
     * The history (issue 35 item 5): a rename made over REST is listed with its diff, and a rollback
     * chosen and confirmed on the page brings the old name back, as REST reads it.
     */
    @Test
    @Order(9)
    void theHistoryListsARenameMadeOverRestAndARollbackFromTheConsoleRestoresTheOldName() throws Exception {
        int vr = created("{\"vmName\":\"before-rename\"}");
        long created = lastCommit();
        assertThat(server.patch("/api/v1/routers/" + vr + "?wait=10s", "{\"vmName\":\"after-rename\"}").statusCode()).isEqualTo(200);
        long renamed = lastCommit();

        signInAs("admin");
        go("#/history");
        String row = browser.await(10, d -> shownCommit(renamed));
        assertThat(row).contains("after-rename").contains("admin").contains("rest");
        browser.find("tr[data-commit='" + renamed + "'] [aria-controls]").click();
        String diff = browser.await(10, d -> (String) browser.script("const d = document.getElementById(arguments[0]);"
                + " return d && !d.hidden && d.innerText.includes('vmName') ? d.innerText : null;", "diff-" + renamed));
        assertThat(diff).contains("before-rename").contains("after-rename");
        browser.screenshot("history");

        rollBackOnThePage(created);
        // The console waits for the rollback's end before it says so.
        browser.await(30, d -> browser.all(".toast").stream().anyMatch(t -> t.getText().contains("Rolled back to commit " + created)));
        assertThat(server.router(vr).get("vmName").asText()).isEqualTo("before-rename");
        long rollback = lastCommit();
        browser.await(10, d -> shownCommit(rollback) != null && shownCommit(rollback).contains("rollback to " + created));
        assertThat(browser.script("return window.vrouterTestPage")).isEqualTo("not reloaded");
        collectMessages();
    }

    /**
     * A rollback the service refuses: a tenant's user rolls back to before its VR was removed, which
     * would make it again, but the host's vCPUs have gone to a provider's VR since (which the tenant's
     * rollback cannot touch). The page shows the refusal's own message; nothing changed. The tenant's
     * user sees its tenant's commits alone.
     */
    @Test
    @Order(10)
    void aRefusedRollbackShowsItsMessageAndChangesNothing() throws Exception {
        int big = created("{\"vmName\":\"acme-big\",\"vmConfigTenant\":\"acme\",\"vmConfigCpuNumber\":16}");
        long made = lastCommit();
        assertThat(server.delete("/api/v1/routers/" + big + "?wait=10s").statusCode()).isBetween(200, 204);
        int committed = json.readTree(server.get("/api/v1/hypervisor").body()).get("vmCommittedCpus").asInt();
        created("{\"vmName\":\"wide\",\"vmConfigCpuNumber\":" + (64 - committed - 8) + "}");
        String historyBefore = server.get("/api/v1/commits").body();

        signInAs("ada");
        go("#/history");
        browser.await(10, d -> !browser.all("tr[data-commit='" + made + "']").isEmpty());
        assertThat((List<?>) browser.script("return [...document.querySelectorAll('.commits tr[data-commit] td:nth-child(5)')].map(c => c.innerText)"))
                .as("acme's commits alone").isNotEmpty().allMatch(vrs -> String.valueOf(vrs).startsWith("acme-"));
        rollBackOnThePage(made);
        WebElement refusal = browser.await(30, d -> browser.all("#view .alert").stream().filter(WebElement::isDisplayed).findFirst().orElse(null));
        assertThat(refusal.getText()).startsWith("Rollback to commit " + made + " refused:").contains("vCPUs");
        browser.screenshot("history-refused");
        assertThat(server.get("/api/v1/routers?name=acme-big").body()).doesNotContain("\"acme-big\"");
        assertThat(server.get("/api/v1/commits").body()).isEqualTo(historyBefore);
        collectMessages();
    }

    /** The peers' reachability on the Host page (issue 34 item 1): the provider sees where and why, a tenant's user the name and state. */
    @Test
    @Order(11)
    void theHostPageShowsAConfiguredPeerAsUnreachable() throws Exception {
        signInAs("admin");
        go("#/host");
        String row = browser.await(20, d -> shownPeer("far").contains("does not answer") ? shownPeer("far") : null);
        assertThat(row).startsWith("false:").contains("unreachable").contains("http://127.0.0.1:");
        browser.screenshot("host-peers");
        browser.find("#logout").click();
        signInAs("ada");
        go("#/host");
        String seen = browser.await(20, d -> shownPeer("far").isEmpty() ? null : shownPeer("far"));
        assertThat(seen).startsWith("false:").contains("unreachable").doesNotContain("http://");
        collectMessages();
        assertThat(pageMessages).noneMatch(m -> m.contains("Content Security Policy") || m.contains("Uncaught"));
    }

    /** A drained router (issue 34 item 4) says so on the Host page until it is opened. */
    @Test
    @Order(12)
    void theHostPageShowsTheRouterDrainedUntilOpened() throws Exception {
        signInAs("admin");
        go("#/host");
        String open = browser.await(20, d -> newVrs().equals("taken") ? newVrs() : null);
        assertThat(open).isEqualTo("taken");
        // its only peer does not answer: the drain moves nothing, and the router is drained all the same
        var drained = server.post("/api/v1/drain?wait=60s", "{}");
        assertThat(drained.statusCode()).as(drained.body()).isEqualTo(200);
        String shown = browser.await(30, d -> newVrs().startsWith("drained since") ? newVrs() : null);
        assertThat(shown).contains("refused until opened");
        browser.screenshot("host-drained");
        assertThat(server.post("/api/v1/open", "").statusCode()).isEqualTo(200);
        String opened = browser.await(30, d -> newVrs().equals("taken") ? newVrs() : null);
        assertThat(opened).isEqualTo("taken");
        collectMessages();
        assertThat(pageMessages).noneMatch(m -> m.contains("Content Security Policy") || m.contains("Uncaught"));
    }

    /** The Host page's "New VRs" fact, or "" (read in the page: the facts are redrawn with every refresh). */
    private String newVrs() {
        return (String) browser.script("const t = [...document.querySelectorAll('dl.facts dt')].find(d => d.innerText.trim() === 'New VRs');"
                + " return t && t.nextElementSibling ? t.nextElementSibling.innerText.trim() : '';");
    }

    /** The Host page's row of a peer as "reachable:text", or "" (read in the page: the rows are redrawn with every refresh). */
    private String shownPeer(String name) {
        return (String) browser.script("const r = document.querySelector(`.peers tr[data-peer='${arguments[0]}']`);"
                + " return r ? r.dataset.reachable + ':' + r.innerText : '';", name);
    }

    /** Makes a VR over REST, as the provider, and returns its vmIndex. */
    private int created(String body) throws Exception {
        var made = server.post("/api/v1/routers?wait=10s", body);
        assertThat(made.statusCode()).as(made.body()).isEqualTo(201);
        return json.readTree(made.body()).get("vmIndex").asInt();
    }

    /** On the history page: "Roll back" in the commit's row, and the dialog's question confirmed. */
    private void rollBackOnThePage(long number) {
        browser.find("tr[data-commit='" + number + "'] [data-action=rollback]").click();
        WebElement dialog = browser.await(10, d -> browser.find("dialog[open]"));
        assertThat(dialog.getText()).contains("Roll back to commit " + number + "?");
        dialog.findElement(By.cssSelector(".btn-danger")).click();
    }

    /** The newest commit's number, as the provider reads the history. */
    private long lastCommit() throws Exception {
        var commits = json.readTree(server.get("/api/v1/commits").body());
        return commits.get(commits.size() - 1).get("number").asLong();
    }

    /** The history page's row of a commit, as shown, or null (read in the page: the rows are redrawn with each change). */
    private String shownCommit(long number) {
        return (String) browser.script("const r = document.querySelector(`.commits tr[data-commit='${arguments[0]}']`);"
                + " return r && r.innerText;", number);
    }

    /** Waits for the VR page's message, checks that nothing of a VR's page is left beside it, and returns it. */
    private String theMessageAlone() {
        WebElement back = browser.await(20, d -> browser.all("#view [role=alert] a[href='#/']").stream().findFirst().orElse(null));
        assertThat(back.getText()).isEqualTo("Back to the list.");
        WebElement message = back.findElement(By.xpath(".."));
        assertThat(browser.all("#view button, #view form, #view .card, #view [data-action], #view canvas")).isEmpty();
        assertThat(browser.find("#view").getText()).doesNotContain("Sampling every few seconds", "Start", "Delete");
        return message.getText();
    }

    /**
     * Every page, at a desktop's width and at a phone's (360 px), once each: no violation of axe-core's
     * WCAG 2.0/2.1 A and AA rules; on the phone nothing wider than the screen, the header's links on
     * the header, the add-interface fields (of each link type) wide enough to type in, the topology scrolling in its own box.
     * The main navigation shows only while signed in.
     */
    @Test
    @Order(5)
    void everyPageIsAccessibleAndFitsAPhone() throws Exception {
        String axe = axeSource();
        int edge1 = json.readTree(server.get("/api/v1/routers?name=edge1").body()).at("/virtualRouter/0/vmIndex").asInt();
        Map<String, List<String>> violations = new java.util.LinkedHashMap<>();
        List<String> layout = new ArrayList<>();
        try {
            for (Integer phone : java.util.Arrays.asList(null, 360)) {
                String width = phone == null ? "desktop" : phone + "px";
                browser.emulateWidth(phone);
                browser.open(server.restBase() + "/");
                browser.await(10, d -> browser.find("#login-user").isDisplayed());
                assertThat(browser.find("#nav").isDisplayed()).as("navigation before sign-in").isFalse();
                checkPage("sign-in", width, axe, violations, layout);
                browser.signIn("admin", "admin");
                browser.await(10, d -> !browser.all(".vr-table tbody tr").isEmpty());
                assertThat(browser.find("#nav").isDisplayed()).as("navigation once signed in").isTrue();
                checkPage("list", width, axe, violations, layout);
                go("#/vr/" + edge1);
                browser.await(20, d -> !browser.all(".chart[data-samples]").isEmpty() && !browser.all("#view tbody tr").isEmpty());
                checkPage("vr", width, axe, violations, layout);
                // The add form with a peer link's fields, then a VXLAN link's.
                for (String type : List.of("peer", "vxlan")) {
                    new org.openqa.selenium.support.ui.Select(browser.find(".inline-form [name=vmNetworkConfigLinkType]")).selectByValue(type);
                    checkPage("vr-" + type + "-form", width, axe, violations, layout);
                }
                if (phone != null) {
                    // The fields each link type shows (the others are hidden).
                    layout.addAll(((List<?>) browser.script("const type = document.querySelector('.inline-form [name=vmNetworkConfigLinkType]');"
                            + " const out = []; for (const t of [...type.options].map(o => o.value)) {"
                            + " type.value = t; type.dispatchEvent(new Event('change'));"
                            + " out.push(...[...document.querySelectorAll('.inline-form :is(input, select)')].filter(i => i.getClientRects().length)"
                            + ".filter(i => i.getBoundingClientRect().width < 120).map(i => 'add-interface field ' + i.name + ' (' + t + ') is '"
                            + " + Math.round(i.getBoundingClientRect().width) + ' px wide')); }"
                            + " type.value = 'bridge'; type.dispatchEvent(new Event('change')); return out;"))
                            .stream().map(String::valueOf).toList());
                }
                go("#/host");
                browser.await(10, d -> browser.find("#h-driver").findElement(By.xpath("..")).getText().contains("ready"));
                checkPage("host", width, axe, violations, layout);
                go("#/history");
                browser.await(10, d -> !browser.all(".commits tr[data-commit]").isEmpty());
                browser.find(".commits tr[data-commit] [aria-controls]").click();
                browser.await(10, d -> !browser.all(".commits .diff tbody tr").isEmpty());
                checkPage("history", width, axe, violations, layout);
                go("#/topology");
                browser.await(10, d -> !browser.all(".topology .vr-node").isEmpty());
                checkPage("topology", width, axe, violations, layout);
                // All of the drawing can be reached: it fits, or its own box scrolls to its far side.
                layout.addAll(((List<?>) browser.script("const box = document.querySelector('.topology-scroll');"
                        + " const picture = box.querySelector('svg').getBoundingClientRect(); const b = box.getBoundingClientRect();"
                        + " const scrolls = ['auto', 'scroll'].includes(getComputedStyle(box).overflowX);"
                        + " return (picture.width <= b.width || (scrolls && box.scrollWidth >= picture.width)) && b.right <= innerWidth ? []"
                        + " : ['topology: a ' + Math.round(picture.width) + ' px drawing in a ' + Math.round(b.width) + ' px box that does not scroll']"))
                        .stream().map(String::valueOf).toList());
                go("#/create");
                browser.await(10, d -> !browser.all("form.form").isEmpty());
                checkPage("create", width, axe, violations, layout);
                browser.find("#logout").click();
                browser.await(10, d -> browser.find("#login-user").isDisplayed());
                assertThat(browser.find("#nav").isDisplayed()).as("navigation after sign-out").isFalse();
            }
        } finally {
            browser.emulateWidth(null);
        }
        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(violations).as("axe-core's WCAG 2 A/AA violations by page").isEmpty();
            soft.assertThat(layout).as("layout at 360 px").isEmpty();
        });
        collectMessages();
    }

    /** Runs axe on the page and, on a phone, checks that nothing sticks out; takes its screenshot. */
    private void checkPage(String page, String width, String axe, Map<String, List<String>> violations, List<String> layout)
            throws Exception {
        browser.screenshot(page + "-" + width);
        List<String> found = browser.accessibilityViolations(axe);
        if (!found.isEmpty()) violations.put(page + " at " + width, found);
        if (width.equals("desktop")) return;
        layout.addAll(((List<?>) browser.script("const out = []; const root = document.documentElement;"
                + " if (root.scrollWidth > root.clientWidth) out.push(arguments[0] + ': the page is ' + root.scrollWidth + ' px wide on a '"
                + " + root.clientWidth + ' px screen');"
                + " const bar = document.querySelector('.topbar').getBoundingClientRect();"
                + " for (const e of document.querySelectorAll('.topbar a, .topbar button, #live, #who')) {"
                + "   const r = e.getBoundingClientRect(); if (!r.width) continue;"
                + "   if (r.left < bar.left || r.right > bar.right || r.top < bar.top || r.bottom > bar.bottom || r.right > root.clientWidth)"
                + "     out.push(arguments[0] + ': header item \"' + e.textContent.trim() + '\" is off the header'); }"
                + " return out;", page)).stream().map(String::valueOf).toList());
    }

    /** axe-core's script, from npm's cache where .ci/install-test-deps put this version (no download here). */
    private String axeSource() throws Exception {
        Path npm = Files.createDirectories(dir.resolve("npm"));
        ServerProcess.Result pack = ServerProcess.run(List.of("npm", "pack", "axe-core@" + AXE_CORE, "--prefer-offline",
                "--pack-destination", npm.toString()));
        assertThat(pack.exit()).as(pack.toString()).isZero();
        String tgz = pack.out().lines().filter(l -> l.endsWith(".tgz")).reduce((x, y) -> y).orElseThrow();
        ServerProcess.Result untar = ServerProcess.run(List.of("tar", "xzf", npm.resolve(tgz).toString(), "-C", npm.toString()));
        assertThat(untar.exit()).as(untar.toString()).isZero();
        return Files.readString(npm.resolve("package/axe.min.js"));
    }

    /** The README's two pictures, when asked for: the list and one VR's page. */
    private void docsScreenshots() throws Exception {
        String docs = System.getProperty("console.screenshots.docs");
        if (docs == null || docs.isBlank()) return;
        Files.copy(SHOTS.resolve("list.png"), Path.of(docs, "console-list.png"), StandardCopyOption.REPLACE_EXISTING);
        Files.copy(SHOTS.resolve("vr-running.png"), Path.of(docs, "console-vr.png"), StandardCopyOption.REPLACE_EXISTING);
    }
}
