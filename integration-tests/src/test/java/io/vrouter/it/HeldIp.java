package io.vrouter.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * An {@code ip} for a driver to run (its {@code *.ip} setting) that, while the file {@code hold} exists,
 * waits in the calls whose arguments match a shell {@code case} pattern and says so by creating
 * {@code held}: so that a {@code kill -9} lands in the middle of provisioning. It does nothing more
 * once the server that ran it is gone.
 */
public final class HeldIp {
    private HeldIp() {
    }

    /** Writes the script to {@code dir/ip}; {@code argsPattern} matches {@code " $* "}, e.g. {@code *" -batch "*}. */
    public static Path write(Path dir, String argsPattern, Path hold, Path held) throws IOException {
        Path ip = dir.resolve("ip");
        Files.writeString(ip, String.join("\n", "#!/bin/sh",
                "case \" $* \" in " + argsPattern + ")",
                "  if [ -e " + hold + " ]; then",
                "    touch " + held,
                "    while [ -e " + hold + " ] && kill -0 $PPID 2>/dev/null; do sleep 0.02; done",
                "    kill -0 $PPID 2>/dev/null || exit 1",
                "  fi;;",
                "esac",
                "exec ip \"$@\"", ""));
        Files.setPosixFilePermissions(ip, PosixFilePermissions.fromString("rwxr-xr-x"));
        return ip;
    }
}
