package io.vrouter.it.console;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Debian's chromium, headless, driven by Debian's chromium-driver (no browser or driver download: the
 * paths are given, so Selenium Manager is never asked). A fresh profile per browser; the flags keep
 * chromium from reaching out to the network, which this machine's closed network would stall.
 */
public final class Browser implements AutoCloseable {
    static final String CHROMIUM = System.getProperty("chromium.binary", "/usr/bin/chromium");
    static final String CHROMEDRIVER = System.getProperty("chromium.driver", "/usr/bin/chromedriver");

    public final ChromeDriver driver;
    private final Path screenshots;

    public Browser(Path profile, Path screenshots) throws IOException {
        this.screenshots = screenshots;
        Files.createDirectories(screenshots);
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM);
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", "--user-data-dir=" + profile, "--window-size=1280,900",
                "--force-device-scale-factor=1", "--lang=en-US");
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, java.util.logging.Level.ALL);
        options.setCapability("goog:loggingPrefs", logs);
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(CHROMEDRIVER)).usingAnyFreePort().build();
        driver = new ChromeDriver(service, options);
        driver.manage().timeouts().scriptTimeout(Duration.ofSeconds(20));
    }

    /**
     * A config file that lets one address hold many event streams. Every page load opens a stream,
     * and the server notices that the page before has gone only when its next keep-alive fails (up to
     * 15 s later): tests that reload the console often would otherwise meet the default cap of 4.
     */
    public static Path manyStreams(Path dir) throws IOException {
        return Files.writeString(dir.resolve("many-streams.properties"), "rest.max-event-streams-per-client = 64\n");
    }

    public void open(String url) {
        driver.get(url);
    }

    public WebElement find(String css) {
        return driver.findElement(By.cssSelector(css));
    }

    public List<WebElement> all(String css) {
        return driver.findElements(By.cssSelector(css));
    }

    /** Waits (at most the given seconds) until the condition holds, and returns its value. */
    public <T> T await(int seconds, Function<WebDriver, T> condition) {
        return new WebDriverWait(driver, Duration.ofSeconds(seconds), Duration.ofMillis(50)).until(condition);
    }

    public Object script(String js, Object... args) {
        return ((JavascriptExecutor) driver).executeScript(js, args);
    }

    public Object asyncScript(String js, Object... args) {
        return ((JavascriptExecutor) driver).executeAsyncScript(js, args);
    }

    public void signIn(String user, String password) {
        find("#login-user").clear();
        find("#login-user").sendKeys(user);
        find("#login-password").sendKeys(password);
        find("#login-form button[type=submit]").click();
    }

    /** Saves a PNG of the page (the window's size) under the screenshot directory. */
    public Path screenshot(String name) throws IOException {
        Path file = screenshots.resolve(name + ".png");
        Files.write(file, driver.getScreenshotAs(OutputType.BYTES));
        return file;
    }

    /** The messages the page logged (errors, Content-Security-Policy refusals) since the last call. */
    public List<String> consoleMessages() {
        return driver.manage().logs().get(LogType.BROWSER).getAll().stream().map(LogEntry::getMessage).toList();
    }

    /**
     * Lays the page out as a phone of the given width would (chromium's window cannot be narrower
     * than 500 px): the viewport, the device-width meta tag and media queries follow it. Null: the window again.
     */
    public void emulateWidth(Integer width) {
        if (width == null) {
            driver.executeCdpCommand("Emulation.clearDeviceMetricsOverride", Map.of());
        } else {
            driver.executeCdpCommand("Emulation.setDeviceMetricsOverride",
                    Map.of("width", width, "height", 740, "deviceScaleFactor", 1, "mobile", true));
        }
    }

    /**
     * Runs axe-core (its axe.min.js, given as text) on the page with the WCAG 2.0 and 2.1 A and AA rules,
     * and returns its violations, each as "rule: what, where" (empty: none).
     */
    @SuppressWarnings("unchecked")
    public List<String> accessibilityViolations(String axeSource) {
        script(axeSource);
        Object result = asyncScript("const done = arguments[arguments.length - 1];"
                + "axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']},"
                + " resultTypes: ['violations']})"
                + ".then(r => done(r.violations.flatMap(v => v.nodes.map(n => v.id + ': ' + v.help + ', at '"
                + " + n.target.join(' ') + ' (' + (n.failureSummary || '').replace(/\\s+/g, ' ') + ')'))),"
                + " e => done(['axe failed: ' + e]))");
        return (List<String>) result;
    }

    public Map<?, ?> timing(String mark) {
        return (Map<?, ?>) script("const m = performance.getEntriesByName(arguments[0]); return m.length ? {t: m[m.length - 1].startTime} : null;", mark);
    }

    @Override
    public void close() {
        driver.quit();
    }
}
