package io.vrouter.it.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.vrouter.it.ServerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A benchmark, not a test (its name does not end in IT, so `mvn verify` does not run it): how long the
 * console takes from "Sign in" to the painted list of 1,000 VRs on loopback (the session call, the
 * event stream's opening, the list call, the first screenful of rows, the paint, as the browser's
 * Element Timing reports it), and until every row is in the table, beside the list call alone made
 * from the same page (the floor: what the API costs the browser). Medians of several fresh page
 * loads after a warm-up; the figures go to target/console-bench.txt. Run it with
 *
 * <pre>mvn -B -q package -DskipTests && mvn -B -q -pl integration-tests verify -Dit.test=ConsoleFirstPaintBench \
 *   -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false</pre>
 */
class ConsoleFirstPaintBench {
    private static final int VRS = Integer.getInteger("bench.vrs", 1000);
    private static final int ROUNDS = Integer.getInteger("bench.rounds", 15);
    private static final int WARMUP = 3;

    @Test
    void firstPaintOfTheListWithAThousandVrs() throws Exception {
        Path dir = Files.createTempDirectory("console-bench");
        try (ServerProcess server = ServerProcess.start(dir.resolve("server"), "--config", Browser.manyStreams(dir).toString());
             Browser browser = new Browser(dir.resolve("profile"), Path.of("target", "console-screenshots"))) {
            for (int first = 0; first < VRS; first += 100) {
                StringBuilder batch = new StringBuilder("{\"virtualRouter\":[");
                for (int i = first; i < Math.min(VRS, first + 100); i++) {
                    if (i > first) batch.append(',');
                    batch.append("{\"vmName\":\"vr-").append(i).append("\",\"vmNetworkConfigTable\":[{\"vmNetworkConfigParent\":\"xenbr")
                            .append(i % 4).append("\",\"vmNetworkConfigAddress\":\"192.0.2.").append(1 + i % 250)
                            .append("\"},{\"vmNetworkConfigParent\":\"mgmt\"}]}");
                }
                assertThat(server.post("/api/v1/routers/batch?wait=60s", batch.append("]}").toString()).statusCode()).isEqualTo(201);
            }
            List<Double> paint = new ArrayList<>();
            List<Double> complete = new ArrayList<>();
            List<Double> listCall = new ArrayList<>();
            for (int round = 0; round < WARMUP + ROUNDS; round++) {
                browser.open(server.restBase() + "/");
                // The browser's own report of when the list was painted (Element Timing on the list's summary).
                browser.script("window.painted = []; new PerformanceObserver(l => window.painted.push(...l.getEntries()))"
                        + ".observe({type: 'element', buffered: true});");
                browser.await(10, d -> browser.find("#login-user").isDisplayed());
                browser.signIn("admin", "admin");
                browser.await(30, d -> browser.script("return window.painted.length && performance.getEntriesByName('vr:list-complete').length")
                        instanceof Long n && n > 0);
                assertThat(browser.all(".vr-table tbody tr")).hasSize(VRS);
                String since = "performance.getEntriesByName('vr:login-submitted')[0].startTime";
                double ms = ((Number) browser.script("return window.painted[0].renderTime - " + since)).doubleValue();
                double all = ((Number) browser.script("return performance.getEntriesByName('vr:list-complete')[0].startTime - " + since))
                        .doubleValue();
                double api = ((Number) browser.asyncScript("const done = arguments[arguments.length - 1]; const t = performance.now();"
                        + "fetch('api/v1/routers?offset=0&limit=1000', {headers: {Authorization: 'Basic YWRtaW46YWRtaW4=',"
                        + " Accept: 'application/json'}, credentials: 'omit', cache: 'no-store'}).then(r => r.json())"
                        + ".then(() => done(performance.now() - t))")).doubleValue();
                if (round >= WARMUP) {
                    paint.add(ms);
                    complete.add(all);
                    listCall.add(api);
                }
            }
            browser.screenshot("bench-list-" + VRS);
            String report = String.format("console first paint, %d VRs, %d rounds after %d warm-up (ms): sign-in to painted list"
                    + " median %.1f (min %.1f, max %.1f); every row in the table median %.1f; the list call alone from the page"
                    + " median %.1f (min %.1f, max %.1f); first paint / list call %.2f%n", VRS, ROUNDS, WARMUP, median(paint),
                    Collections.min(paint), Collections.max(paint), median(complete), median(listCall), Collections.min(listCall),
                    Collections.max(listCall), median(paint) / median(listCall));
            System.out.print(report);
            Files.writeString(Path.of("target", "console-bench.txt"), report);
        }
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

}
