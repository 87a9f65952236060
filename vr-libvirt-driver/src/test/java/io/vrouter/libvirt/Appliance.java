package io.vrouter.libvirt;

import io.vrouter.netns.TestHost;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The router appliance the tests boot, built by appliance/build.sh into target/appliance once, and again
 * when the script or the appliance's init is newer than what it built.
 */
public final class Appliance {
    private static final Path MODULE = Path.of(System.getProperty("basedir", ".")).toAbsolutePath();
    private static final Path IMAGES = MODULE.resolve("target/appliance");

    private Appliance() {
    }

    public static synchronized Path images() throws IOException, InterruptedException {
        Path built = IMAGES.resolve("bird/initrd.img");
        Path script = MODULE.resolve("appliance/build.sh");
        Path rc = MODULE.resolve("appliance/rc");
        if (!Files.exists(built) || Files.getLastModifiedTime(script).compareTo(Files.getLastModifiedTime(built)) > 0
                || Files.getLastModifiedTime(rc).compareTo(Files.getLastModifiedTime(built)) > 0) {
            TestHost.ok(script.toString(), IMAGES.toString());
        }
        return IMAGES;
    }
}
