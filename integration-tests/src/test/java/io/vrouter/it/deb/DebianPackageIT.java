package io.vrouter.it.deb;

import static io.vrouter.it.deb.DebTools.run;
import static org.assertj.core.api.Assertions.assertThat;

import io.vrouter.it.ServerProcess;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Debian package that vr-deb builds (target/vrouter_VERSION_all.deb): lintian finds nothing to
 * say, its files are where the README says, and in a container of the project's base image
 * (docker/base-image.sh) it installs, runs as the user vrouter on the packaged settings, is upgraded
 * over itself keeping the data and the edited settings, is removed keeping them, and purged keeping the data.
 */
class DebianPackageIT {
    private static final String ADMIN = "admin:admin"; // the development credentials, loopback only
    private Path deb;
    private final String container = "vrouter-deb-it-" + UUID.randomUUID().toString().substring(0, 8);

    @BeforeEach
    void theBuiltPackage() throws Exception {
        deb = DebTools.builtPackage();
    }

    @AfterEach
    void removeTheContainer() throws Exception {
        ServerProcess.run(List.of("docker", "rm", "-f", container));
    }

    @Test
    void lintianHasNothingToSayAndTheFilesAreWhereTheReadmeSays() throws Exception {
        ServerProcess.Result lintian = ServerProcess.run(List.of("lintian", "--fail-on", "error,warning,info",
                deb.toString()));
        assertThat(lintian.exit()).as(lintian.toString()).isZero();
        assertThat(lintian.out()).as(lintian.toString()).doesNotContainPattern("(?m)^[EWIP]: ");

        assertThat(run("dpkg-deb", "-f", deb.toString(), "Package", "Architecture", "Depends"))
                .contains("Package: vrouter", "Architecture: all",
                        "Depends: default-jre-headless (>= 2:1.17) | java17-runtime-headless, adduser");
        assertThat(run("dpkg-deb", "--info", deb.toString(), "conffiles").strip()).isEqualTo("/etc/vrouter/vrouter.properties");
        assertThat(run("dpkg-deb", "-c", deb.toString())).contains("./usr/share/vrouter/vrouter.jar", "./usr/bin/vrouter",
                "./etc/vrouter/vrouter.properties", "./var/lib/vrouter/", "./usr/share/snmp/mibs/NEW-VMM-MIB",
                "./usr/share/yang/modules/vrouter/NEW-VMM-MIB@", "./usr/share/doc/vrouter/copyright",
                "./usr/share/doc/vrouter/changelog.gz");
    }

    @Test
    void installRunUpgradeRemoveAndPurgeInABaseImageContainer() throws Exception {
        // --init: an init that reaps the server once it exits (sleep, as PID 1, would leave it a zombie).
        run("docker", "run", "-d", "--init", "--name", container, "-v", deb.getParent() + ":/pkg:ro", "vrouter/base:bookworm",
                "sleep", "600");
        String pkg = "/pkg/" + deb.getFileName();

        exec("dpkg -i " + pkg);
        assertThat(exec("getent passwd vrouter; stat -c '%n %U:%G %a' /var/lib/vrouter /etc/vrouter/vrouter.properties"))
                .contains("vrouter:x:", ":/var/lib/vrouter:/usr/sbin/nologin", "/var/lib/vrouter vrouter:vrouter 750",
                        "/etc/vrouter/vrouter.properties root:vrouter 640");

        startServer();
        assertThat(http("POST /api/v1/routers?wait=30s", "{\"vmName\":\"pkg-vr\"}")).startsWith("HTTP/1.1 201");
        stopServer();
        assertThat(exec("stat -c '%U' /var/lib/vrouter/config.snapshot.json /var/lib/vrouter/snmp/engine.properties"))
                .isEqualTo("vrouter\nvrouter\n");

        // An upgrade (the package installed over itself) keeps the data and the operator's settings.
        exec("echo '# the operator was here' >> /etc/vrouter/vrouter.properties");
        exec("dpkg -i " + pkg);
        assertThat(exec("tail -1 /etc/vrouter/vrouter.properties")).isEqualTo("# the operator was here\n");
        startServer();
        assertThat(http("GET /api/v1/routers?name=pkg-vr", null)).contains("\"total\":1");
        stopServer();

        // remove keeps the data and the settings; purge removes the settings and keeps the data and the user,
        // which no reinstall gives back (issue 38 item 4), and says so.
        exec("dpkg -r vrouter");
        assertThat(exec("test ! -e /usr/bin/vrouter && ls /var/lib/vrouter /etc/vrouter")).contains("config.snapshot.json",
                "vrouter.properties");
        assertThat(exec("dpkg -P vrouter 2>&1")).contains("kept /var/lib/vrouter");
        assertThat(exec("test ! -e /etc/vrouter && ls /var/lib/vrouter && getent passwd vrouter"))
                .contains("config.snapshot.json", "vrouter:x:");
        // Installed again, it finds every VR as it was.
        exec("dpkg -i " + pkg);
        startServer();
        assertThat(http("GET /api/v1/routers?name=pkg-vr", null)).contains("\"total\":1");
        stopServer();
    }

    /** Starts the installed server as the service would (user vrouter, the packaged settings) and waits until it is up. */
    private void startServer() throws Exception {
        exec("runuser -u vrouter -- sh -c 'vrouter --config /etc/vrouter/vrouter.properties >/tmp/vrouter.log 2>&1 &"
                + " echo $! >/tmp/vrouter.pid'");
        exec("for i in $(seq 600); do grep -q 'vrouter started' /tmp/vrouter.log && exit 0;"
                + " kill -0 $(cat /tmp/vrouter.pid) 2>/dev/null || break; sleep 0.1; done; cat /tmp/vrouter.log; exit 1");
    }

    /** Stops it with SIGTERM and waits until it is gone. */
    private void stopServer() throws Exception {
        exec("pid=$(cat /tmp/vrouter.pid); kill -TERM $pid; for i in $(seq 300); do kill -0 $pid 2>/dev/null || exit 0;"
                + " sleep 0.1; done; exit 1");
    }

    private String http(String requestLine, String json) throws Exception {
        return exec(DebTools.httpScript(ADMIN, requestLine, json));
    }

    private String exec(String script) throws Exception {
        return run("docker", "exec", container, "bash", "-c", script);
    }
}
