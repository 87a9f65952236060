package io.vrouter.it.libvirt;

import static io.vrouter.it.ServerProcess.operState;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vrouter.it.ServerProcess;
import io.vrouter.libvirt.GuestUptime;
import io.vrouter.libvirt.SecondLibvirtd;
import io.vrouter.netns.TestHost;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A VM VR moved live between two vrouter servers on the libvirt driver, as bin/vrouter starts them: A on
 * this host's libvirtd, B on a {@link SecondLibvirtd} (its own config, sockets, state and host UUID,
 * TCP on 127.0.0.1), each knowing the other as a peer, QEMU under TCG. A move to peer c, a server whose
 * (simulated) driver cannot take a machine from the hypervisor, is refused and the VR runs on in the same
 * QEMU on A; the move to b over REST ends with the VR running on B (its REST, its libvirtd, a host behind
 * its bridge reaching it) and gone from A (its REST, {@code virsh list --all}), the guest's kernel clock
 * going on from where it was: it was moved, not booted again.
 */
class LibvirtLiveMigrationIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long BOOT_SECONDS = LibvirtDriverIT.BOOT_SECONDS;
    private static final String HERE = "qemu:///system";

    @TempDir
    Path dir;

    @Test
    void aVmVrMovesLiveToThePeerOnAnotherLibvirtdItsGuestRunningOnAndAPeerThatCannotTakeItLeavesItHere() throws Exception {
        // QEMU runs as libvirt's user: it must reach the images and run directories under the test's.
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path images = dir.resolve("images");
        TestHost.ok(Path.of("..", "vr-libvirt-driver", "appliance", "build.sh").toAbsolutePath().normalize().toString(), images.toString());
        TestHost host = new TestHost();
        String prefixA = host.prefix + "a-";
        String prefixB = host.prefix + "b-";
        String bridge = host.bridge("m");
        SecondLibvirtd second = null;
        ServerProcess a = null;
        ServerProcess b = null;
        ServerProcess c = null;
        try {
            second = new SecondLibvirtd(Files.createTempDirectory("second-libvirtd"));
            Path runB = dir.resolve("run-b");
            b = ServerProcess.start(dir.resolve("b"), "--driver", "libvirt", "--config", config("b", "user.admin = operator:admin",
                    "libvirt.prefix = " + prefixB, "libvirt.image-dir = " + images, "libvirt.run-dir = " + runB, "libvirt.accel = tcg",
                    "libvirt.uri = " + second.uri, "libvirt.migration-uri = " + second.uri).toString());
            c = ServerProcess.start(dir.resolve("c"), "--config", config("c", "user.admin = operator:admin").toString());
            Path runA = dir.resolve("run-a");
            // A is only a source here: its migration-uri (which B's libvirtd would dial were B to move a VR to A)
            // just turns live migration on; this host's libvirtd takes no TCP.
            a = ServerProcess.start(dir.resolve("a"), "--driver", "libvirt", "--config", config("a", "user.admin = operator:admin",
                    "libvirt.prefix = " + prefixA, "libvirt.image-dir = " + images, "libvirt.run-dir = " + runA, "libvirt.accel = tcg",
                    "libvirt.stop-timeout = 120s", "libvirt.migration-uri = qemu+tcp://127.0.0.1/system",
                    "peer.b = " + b.restBase(), "peer.b.user = admin", "peer.b.password = admin",
                    "peer.c = " + c.restBase(), "peer.c.user = admin", "peer.c.password = admin").toString());

            HttpResponse<String> created = a.post("/api/v1/routers?wait=60s", "{\"vmIndex\":3,\"vmName\":\"mover\","
                    + "\"vmConfigTemplate\":\"bird\",\"vmConfigMemory\":256,\"vmNetworkConfigTable\":[{\"vmNetworkConfigParent\":\""
                    + bridge + "\",\"vmNetworkConfigAddress\":\"192.0.2.1\",\"vmNetworkConfigPrefixLength\":24}]}");
            assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
            Path consoleA = runA.resolve(prefixA + 3).resolve("console.log");
            assertThat(TestHost.await(() -> GuestUptime.console(consoleA).contains("vrouter appliance: VR 3 up"), BOOT_SECONDS))
                    .as("boot:%n%s", GuestUptime.console(consoleA)).isTrue();
            host.allowBridged(bridge);
            String outside = host.hostOn(bridge, "192.0.2.10/24", "192.0.2.1");
            assertThat(TestHost.await(() -> reaches(host, outside), BOOT_SECONDS)).as("the VR answers on its bridge").isTrue();
            String qemu = qemuPid(prefixA + 3);

            // c's driver offers no live migration: refused, nothing changed on either side
            HttpResponse<String> refused = a.post("/api/v1/routers/3/migrate?wait=" + (BOOT_SECONDS - 5) + "s", "{\"peer\":\"c\"}", Duration.ofSeconds(BOOT_SECONDS));
            assertThat(refused.statusCode()).as(refused.body()).isEqualTo(409);
            assertThat(refused.body()).contains("cannot take a VR from the hypervisor").contains("stays here");
            assertThat(a.awaitRouter(3, vr -> operState(vr).equals("running"), "running again after the refusal")).isNotNull();
            assertThat(qemuPid(prefixA + 3)).as("the same QEMU").isEqualTo(qemu);
            assertThat(JSON.readTree(c.get("/api/v1/routers").body()).path("virtualRouter")).isEmpty();

            double before = GuestUptime.read(HERE, prefixA + 3, consoleA);
            long sent = System.nanoTime();
            HttpResponse<String> moved = a.post("/api/v1/routers/3/migrate?wait=" + (BOOT_SECONDS - 5) + "s", "{\"peer\":\"b\"}", Duration.ofSeconds(BOOT_SECONDS));
            double took = (System.nanoTime() - sent) / 1e9;
            assertThat(moved.statusCode()).as(moved.body()).isEqualTo(200);
            int onB = JSON.readTree(moved.body()).path("peerIndex").asInt();
            assertThat(onB).isEqualTo(3); // kept: free on B

            // gone from A: its REST and its libvirtd
            assertThat(a.get("/api/v1/routers/3").statusCode()).isEqualTo(404);
            assertThat(TestHost.ok("virsh", "-c", HERE, "list", "--all", "--name")).doesNotContain(prefixA + 3);
            // on B: its REST, and running and persistent on its libvirtd under B's name for it
            assertThat(operState(b.router(onB))).isEqualTo("running");
            assertThat(b.router(onB).path("vmName").asText()).isEqualTo("mover");
            assertThat(TestHost.ok("virsh", "-c", second.uri, "domstate", prefixB + onB).strip()).isEqualTo("running");
            assertThat(TestHost.ok("virsh", "-c", second.uri, "list", "--persistent", "--name")).contains(prefixB + onB);
            Path consoleB = runB.resolve(prefixB + onB).resolve("console.log");
            double after = GuestUptime.read(second.uri, prefixB + onB, consoleB);
            System.out.printf("guest uptime %.1f s before the move, %.1f s after it; REST migrate took %.1f s%n", before, after, took);
            assertThat(after).as("the guest's clock went on: it did not boot again").isGreaterThan(before);
            assertThat(GuestUptime.console(consoleB)).doesNotContain("Linux version");
            assertThat(TestHost.await(() -> reaches(host, outside), 60)).as("the VR answers on its bridge after the move").isTrue();

            host.removeHosts();
            HttpResponse<String> removed = b.delete("/api/v1/routers/" + onB + "?wait=60s");
            assertThat(removed.statusCode()).as(removed.body()).isIn(202, 204);
        } finally {
            for (ServerProcess s : new ServerProcess[] {a, b, c}) {
                try {
                    if (s != null) s.close();
                } catch (Exception e) {
                    System.err.println("stopping a server: " + e); // the domains and the daemon go all the same
                }
            }
            // whatever a failure left: the domains of this run on both daemons, the second daemon, the bridge
            removeDomains(HERE, host.prefix);
            if (second != null) {
                removeDomains(second.uri, host.prefix);
                second.close();
            }
            TestHost.uncheckedOk("ip", "link", "del", bridge);
            host.close();
        }
    }

    private Path config(String name, String... lines) throws Exception {
        Path conf = dir.resolve(name + ".properties");
        Files.write(conf, List.of(lines));
        return conf;
    }

    private static boolean reaches(TestHost host, String ns) {
        try {
            return host.reaches(ns, "192.0.2.1");
        } catch (Exception e) {
            return false;
        }
    }

    private static String qemuPid(String domain) throws Exception {
        return TestHost.ok("pgrep", "-f", "guest=" + domain + ",").strip();
    }

    private static void removeDomains(String uri, String prefix) {
        for (String domain : TestHost.uncheckedOk("virsh", "-c", uri, "list", "--all", "--name").split("\n")) {
            if (!domain.strip().startsWith(prefix)) continue;
            TestHost.uncheckedOk("virsh", "-c", uri, "destroy", domain.strip());
            TestHost.uncheckedOk("virsh", "-c", uri, "undefine", domain.strip());
        }
    }
}
