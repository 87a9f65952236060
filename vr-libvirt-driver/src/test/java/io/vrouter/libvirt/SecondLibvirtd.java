package io.vrouter.libvirt;

import io.vrouter.netns.TestHost;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.UUID;

/**
 * A second libvirtd on this machine, as a second host for live migration: in a mount namespace of its
 * own whose /etc/libvirt, /run/libvirt, /var/lib/libvirt, /var/log/libvirt and /var/cache/libvirt are
 * directories of the test's (so its config, sockets and domain state are its own), listening on a TCP
 * port of 127.0.0.1 without authentication, with a host UUID of its own: libvirt refuses to migrate a
 * domain to a host whose UUID is its own ("Attempt to migrate guest to the same host"). It shares the
 * network namespace and file system, so the bridges and the appliance's images are there as on a
 * second host set up alike. QEMU's console goes to files (no virtlogd of its own). Shared (test-jar) with
 * integration-tests' LibvirtLiveMigrationIT.
 */
public final class SecondLibvirtd implements AutoCloseable {
    private static final List<String> MOUNTED = List.of("/etc/libvirt", "/run/libvirt", "/var/lib/libvirt", "/var/log/libvirt",
            "/var/cache/libvirt");
    public final String uri;
    private final Path dir;
    private final Process daemon;

    public SecondLibvirtd(Path dir) throws IOException, InterruptedException {
        this.dir = dir;
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        uri = "qemu+tcp://127.0.0.1:" + port + "/system";
        Path etc = dir.resolve("etc");
        TestHost.ok("cp", "-a", "/etc/libvirt/.", Files.createDirectories(etc).toString());
        Files.writeString(etc.resolve("libvirtd.conf"), String.join("\n", "listen_tls = 0", "listen_tcp = 1",
                "tcp_port = \"" + port + "\"", "listen_addr = \"127.0.0.1\"", "auth_tcp = \"none\"",
                "host_uuid = \"" + UUID.randomUUID() + "\"", ""));
        Files.writeString(etc.resolve("qemu.conf"), String.join("\n", "stdio_handler = \"file\"",
                "migration_port_min = " + (port % 1000 + 50000), "migration_port_max = " + (port % 1000 + 50063), ""));
        StringBuilder script = new StringBuilder("set -e\n");
        for (String m : MOUNTED) {
            Path mine = dir.resolve(m.substring(1).replace('/', '-'));
            if (!m.equals("/etc/libvirt")) Files.createDirectories(mine);
            script.append("mount --bind ").append(m.equals("/etc/libvirt") ? etc : mine).append(' ').append(m).append('\n');
        }
        // QEMU's home and state, as the package makes them, owned by the user it runs as
        Path qemu = dir.resolve("var-lib-libvirt").resolve("qemu");
        for (String sub : List.of("channel/target", "checkpoint", "dump", "nvram", "ram", "save", "snapshot")) {
            Files.createDirectories(qemu.resolve(sub));
        }
        TestHost.ok("chown", "-R", "libvirt-qemu:libvirt-qemu", qemu.toString());
        Files.createDirectories(dir.resolve("var-cache-libvirt").resolve("qemu"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        script.append("exec libvirtd --listen -p ").append(dir.resolve("libvirtd.pid")).append(" -f /etc/libvirt/libvirtd.conf\n");
        Path start = dir.resolve("start.sh");
        Files.writeString(start, script.toString());
        daemon = new ProcessBuilder("unshare", "-m", "--propagation", "private", "sh", start.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("libvirtd.log").toFile()).start();
        if (!TestHost.await(() -> daemon.isAlive() && !TestHost.uncheckedOk("virsh", "-c", uri, "version").isEmpty(), 60)) {
            String why = Files.exists(dir.resolve("libvirtd.log")) ? Files.readString(dir.resolve("libvirtd.log")) : "";
            close();
            throw new IllegalStateException("the second libvirtd did not come up at " + uri + ": " + why);
        }
    }

    @Override
    public void close() throws InterruptedException {
        daemon.destroy();
        if (!daemon.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) daemon.destroyForcibly().waitFor();
        TestHost.uncheckedOk("rm", "-rf", dir.toString());
    }
}
