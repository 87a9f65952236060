package io.vrouter.core.config;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/**
 * What this build of vrouter is, as its jar's manifest says: the project's version
 * (Implementation-Version, which every module's jar carries) and, in the packaged server, the git
 * commit it was built from (Implementation-Build, stamped by vr-server's build). Run from classes
 * (an IDE, the unit tests) there is no manifest: a development build.
 */
public final class Build {
    private static final String VERSION = Build.class.getPackage().getImplementationVersion();
    private static final String COMMIT = commitOf();

    private Build() {
    }

    /** The project's version (0.1.0-SNAPSHOT), or null for a development build. */
    public static String version() {
        return VERSION;
    }

    /** The git commit the server was built from (12 hex digits), or null when unknown. */
    public static String commit() {
        return COMMIT;
    }

    /** As a person reads it: {@code 0.1.0-SNAPSHOT (commit 1a2b3c4d5e6f)}, or {@code development build}. */
    public static String describe() {
        if (VERSION == null) return "development build";
        return COMMIT == null ? VERSION : VERSION + " (commit " + COMMIT + ")";
    }

    private static String commitOf() {
        try {
            Path jar = Path.of(Build.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            if (!Files.isRegularFile(jar)) return null;
            try (JarFile file = new JarFile(jar.toFile())) {
                Manifest m = file.getManifest();
                String commit = m == null ? null : m.getMainAttributes().getValue("Implementation-Build");
                return commit == null || commit.isBlank() || commit.startsWith("$") ? null : commit.trim();
            }
        } catch (IOException | URISyntaxException | RuntimeException e) {
            return null; // no jar to read (a war unpacked elsewhere, a class loader without a code source)
        }
    }
}
