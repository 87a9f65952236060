package io.vrouter.it.deb;

import static io.vrouter.it.snmp.NewVmmOids.MEMORY;
import static io.vrouter.it.snmp.NewVmmOids.NAME;
import static io.vrouter.it.snmp.NewVmmOids.ROW_STATUS;
import static io.vrouter.it.deb.DebTools.run;
import static org.assertj.core.api.Assertions.assertThat;

import io.vrouter.it.ServerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * vrouter.service, the package's systemd unit (docs/adr/0014-systemd-unit.md): systemd-analyze verify
 * finds nothing in the built package on the host, and in a container of the project's base image with
 * systemd as its init the package installs, enables and starts the unit (active only once REST answers),
 * serves REST and SNMP, reloads new users without dropping an open NETCONF session, restarts and stops
 * cleanly, is upgraded over itself, removed and purged.
 *
 * <p>The container is not --privileged (Docker refuses it on machines like this one: "unable to apply
 * caps"): CAP_SYS_ADMIN, a tmpfs /run and the host's cgroups read-only are what systemd and the unit's
 * sandboxing (mount namespaces, seccomp) need.
 */
class SystemdUnitIT {
    private static final String IMAGE = "vrouter/systemd-it:bookworm";
    /** The base image with systemd as init, net-snmp's tools and ssh; its Tomcat masked (it would take port 8080). */
    private static final String DOCKERFILE = """
            FROM vrouter/base:bookworm
            RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \\
                systemd systemd-sysv snmp openssh-client >/dev/null && rm -rf /var/lib/apt/lists/* \\
                && systemctl mask tomcat10.service
            STOPSIGNAL SIGRTMIN+3
            CMD ["/sbin/init"]
            """;
    private static final String ADMIN = "admin:admin"; // the development credentials: loopback, no user.* set
    private static final String BOB = "bob:bob-secret-1";
    private Path deb;
    private final String container = "vrouter-systemd-it-" + UUID.randomUUID().toString().substring(0, 8);

    @BeforeEach
    void theBuiltPackage() throws Exception {
        deb = DebTools.builtPackage();
    }

    @AfterEach
    void removeTheContainer() throws Exception {
        ServerProcess.run(List.of("docker", "rm", "-f", container));
    }

    @Test
    void theUnitInTheBuiltPackageVerifiesClean() throws Exception {
        // The package's files under a root of their own, with the targets the unit names and the
        // shell its ExecReload runs, taken from this host.
        Path root = Files.createTempDirectory("vrouter-unit-");
        try {
            run("dpkg-deb", "-x", deb.toString(), root.toString());
            run("sh", "-c", "mkdir -p '" + root + "/bin' && cp /bin/sh '" + root + "/bin/'"
                    + " && cp /lib/systemd/system/*.target '" + root + "/lib/systemd/system/'");
            ServerProcess.Result verify = ServerProcess.run(List.of("systemd-analyze", "verify", "--root=" + root,
                    root + "/lib/systemd/system/vrouter.service"));
            assertThat(verify.exit()).as(verify.toString()).isZero();
            assertThat(verify.out() + verify.err()).as("systemd-analyze verify says nothing").isBlank();
        } finally {
            ServerProcess.run(List.of("rm", "-rf", root.toString()));
        }
    }

    @Test
    void installStartServeReloadRestartStopUpgradeRemoveAndPurgeUnderSystemd() throws Exception {
        bootSystemdContainer();
        String pkg = "/pkg/" + deb.getFileName();

        // dpkg -i returns once postinst's start has returned, and a Type=notify start returns once
        // the server said READY=1: REST answers at once, with no waiting here.
        exec("dpkg -i " + pkg);
        assertThat(exec("systemctl is-enabled vrouter; systemctl is-active vrouter")).isEqualTo("enabled\nactive\n");
        assertThat(http(ADMIN, "POST /api/v1/routers?wait=30s", "{\"vmName\":\"rest-vr\"}")).startsWith("HTTP/1.1 201");
        assertThat(exec("journalctl -u vrouter -o cat --no-pager | grep -n 'vrouter started\\|^Started vrouter.service'"))
                .as("systemd calls it started after the server did").containsPattern("vrouter started[^\\n]*\\n[0-9]+:Started");

        // The sandbox: no capabilities, no new privileges, a syscall filter, a read-only / but the data directory.
        assertThat(exec("pid=$(systemctl show -p MainPID --value vrouter); stat -c %U /proc/$pid;"
                + " grep -E '^(CapEff|CapBnd|CapAmb|NoNewPrivs|Seccomp):' /proc/$pid/status;"
                + " awk '$5 == \"/\" || $5 == \"/var/lib/vrouter\" {print $5, substr($6, 1, 2)}' /proc/$pid/mountinfo"))
                .isEqualTo("vrouter\nCapEff:\t0000000000000000\nCapBnd:\t0000000000000000\nCapAmb:\t0000000000000000\n"
                        + "NoNewPrivs:\t1\nSeccomp:\t2\n/ ro\n/var/lib/vrouter rw\n");
        assertThat(exec("systemd-analyze verify /lib/systemd/system/vrouter.service 2>&1")).isEmpty();
        assertThat(exec("systemd-analyze security vrouter.service | tail -1"))
                .contains("Overall exposure level for vrouter.service: 1.6 OK");

        // SNMP: a row made with createAndGo is a VR.
        exec("snmpset -v2c -c private -t 8 -r 0 udp:127.0.0.1:1161 " + ROW_STATUS + "7 i 4 " + NAME + "7 s snmp-vr "
                + MEMORY + "7 i 384");
        assertThat(http(ADMIN, "GET /api/v1/routers?name=snmp-vr", null)).contains("\"total\":1");

        // An open NETCONF session; then a user added and `systemctl reload`: the user logs in, the
        // session (whose development credentials the new settings no longer have) goes on, the process is the same.
        openNetconfSession();
        String pid = exec("systemctl show -p MainPID --value vrouter");
        exec("h=$(printf 'bob-secret-1\\n' | vrouter --hash-password) && echo \"user.bob = operator:$h\" >> /etc/vrouter/vrouter.properties");
        assertThat(http(BOB, "GET /api/v1/routers", null)).startsWith("HTTP/1.1 401");
        exec("systemctl reload vrouter");
        awaitInContainer("bob logs in after the reload",
                "exec 3<>/dev/tcp/127.0.0.1/8080 && printf '" + DebTools.request(BOB, "GET /api/v1/routers", "") + "' >&3"
                        + " && head -1 <&3 | grep -q '200'");
        assertThat(http(ADMIN, "GET /api/v1/routers", null)).startsWith("HTTP/1.1 401");
        exec("printf '%s' '<rpc message-id=\"2\" xmlns=\"urn:ietf:params:xml:ns:netconf:base:1.0\"><get/></rpc>]]>]]>' >/tmp/nc.in");
        awaitInContainer("the NETCONF session opened before the reload answers", "grep -q 'snmp-vr' /tmp/nc.out");
        assertThat(exec("systemctl show -p MainPID --value vrouter")).isEqualTo(pid);

        // A restart finds the VRs.
        exec("systemctl restart vrouter");
        assertThat(http(BOB, "GET /api/v1/routers?name=*-vr", null)).contains("\"total\":2");
        assertThat(exec("systemctl show -p MainPID --value vrouter")).isNotEqualTo(pid);

        // SIGTERM: the server's clean shutdown, within the default stop timeout, not a failure.
        exec("systemctl stop vrouter");
        assertThat(exec("systemctl show -p ActiveState -p Result -p ExecMainStatus vrouter"))
                .contains("ActiveState=inactive", "Result=success", "ExecMainStatus=143");
        assertThat(exec("journalctl -u vrouter -o cat --no-pager")).contains("INFO  [vrouter-shutdown] i.v.server.Main - stopping")
                .doesNotContain("timed out").doesNotContain("Killing");

        // An upgrade (the package over itself) starts it again with the data and the settings kept.
        exec("dpkg -i " + pkg);
        assertThat(exec("systemctl is-active vrouter")).isEqualTo("active\n");
        assertThat(http(BOB, "GET /api/v1/routers?name=*-vr", null)).contains("\"total\":2");

        // remove stops it and masks the unit (the conffile left cannot start it); purge leaves no trace of the
        // unit, and the data directory as it was (issue 38 item 4).
        exec("dpkg -r vrouter");
        assertThat(exec("systemctl is-active vrouter || true; test ! -e /usr/bin/vrouter && ls /var/lib/vrouter"))
                .startsWith("inactive\n").contains("config.snapshot.json");
        exec("dpkg -P vrouter");
        assertThat(exec("ls /etc/systemd/system /etc/systemd/system/multi-user.target.wants | grep vrouter || true;"
                + " test -e /var/lib/vrouter/config.snapshot.json && echo kept")).isEqualTo("kept\n");
    }

    private void bootSystemdContainer() throws Exception {
        if (ServerProcess.run(List.of("docker", "image", "inspect", IMAGE)).exit() != 0) {
            Path dockerfile = Files.createTempFile("vrouter-systemd-it", ".Dockerfile");
            Files.writeString(dockerfile, DOCKERFILE);
            run("sh", "-c", "docker build -q -t " + IMAGE + " - < " + dockerfile);
            Files.delete(dockerfile);
        }
        run("docker", "run", "-d", "--name", container, "--cap-add", "SYS_ADMIN", "--tmpfs", "/run", "--tmpfs", "/run/lock",
                "-v", "/sys/fs/cgroup:/sys/fs/cgroup:ro", "-v", deb.getParent() + ":/pkg:ro", IMAGE);
        // Until systemd listens, systemctl cannot ask it. "degraded" would name a unit of the image
        // that failed; vrouter's own state is what is checked.
        assertThat(exec("for i in $(seq 300); do s=$(systemctl is-system-running --wait 2>/dev/null);"
                + " case $s in running|degraded) echo $s; exit 0;; esac; sleep 0.2; done; exit 1"))
                .as("systemd booted").containsAnyOf("running", "degraded");
    }

    /** ssh's netconf subsystem as user admin, fed from the fifo /tmp/nc.in, answers in /tmp/nc.out; after the hello. */
    private void openNetconfSession() throws Exception {
        exec("printf '#!/bin/sh\\necho admin\\n' >/tmp/askpass && chmod +x /tmp/askpass && mkfifo /tmp/nc.in &&"
                + " setsid sh -c 'sleep 600 >/tmp/nc.in & SSH_ASKPASS=/tmp/askpass SSH_ASKPASS_REQUIRE=force DISPLAY=:0"
                + " ssh -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o PubkeyAuthentication=no -p 8830"
                + " -s admin@127.0.0.1 netconf </tmp/nc.in >/tmp/nc.out 2>/tmp/nc.err' </dev/null >/dev/null 2>&1 &");
        exec("printf '%s' '<hello xmlns=\"urn:ietf:params:xml:ns:netconf:base:1.0\"><capabilities>"
                + "<capability>urn:ietf:params:netconf:base:1.0</capability></capabilities></hello>]]>]]>' >/tmp/nc.in");
        awaitInContainer("the server's NETCONF hello", "grep -q '</hello>' /tmp/nc.out");
    }

    /** Runs the check in the container every 0.2 s until it succeeds, for 30 s at most. */
    private void awaitInContainer(String what, String check) throws Exception {
        ServerProcess.Result r = ServerProcess.run(List.of("docker", "exec", container, "bash", "-c",
                "for i in $(seq 150); do (" + check + ") 2>/dev/null && exit 0; sleep 0.2; done; exit 1"));
        assertThat(r.exit()).as(what + "\n" + exec("cat /tmp/nc.out /tmp/nc.err 2>/dev/null; journalctl -u vrouter -n 20 --no-pager")).isZero();
    }

    private String http(String user, String requestLine, String json) throws Exception {
        return exec(DebTools.httpScript(user, requestLine, json));
    }

    private String exec(String script) throws Exception {
        return run("docker", "exec", container, "bash", "-c", script);
    }
}
