package io.vrouter.it.deb;

import static org.assertj.core.api.Assertions.assertThat;

import io.vrouter.it.ServerProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.stream.Stream;

/** What the package's tests share: the package vr-deb built, commands that must succeed, HTTP over bash's /dev/tcp. */
final class DebTools {
    private DebTools() {
    }

    /** vr-deb/target/vrouter_VERSION_all.deb, the one package `mvn package` built. */
    static Path builtPackage() throws Exception {
        try (Stream<Path> files = Files.list(Path.of("..", "vr-deb", "target"))) {
            List<Path> debs = files.filter(f -> f.getFileName().toString().matches("vrouter_.*_all\\.deb")).toList();
            assertThat(debs).as("one package built by vr-deb (mvn package)").hasSize(1);
            return debs.get(0).toAbsolutePath().normalize();
        }
    }

    /** Runs the command, asserts it succeeded, returns its standard output. */
    static String run(String... cmd) throws Exception {
        ServerProcess.Result r = ServerProcess.run(new ArrayList<>(List.of(cmd)));
        assertThat(r.exit()).as(String.join(" ", cmd) + "\n" + r).isZero();
        return r.out();
    }

    /** A bash script that sends an HTTP/1.1 request to the server in a container (a minbase image has no curl) and prints the answer. */
    static String httpScript(String user, String requestLine, String json) {
        return "exec 3<>/dev/tcp/127.0.0.1/8080; printf \"" + request(user, requestLine, json == null ? "" : json)
                .replace("\"", "\\\"") + "\" >&3; cat <&3";
    }

    /** The request as a printf format (CRLFs escaped), basic authentication as user:password. */
    static String request(String user, String requestLine, String body) {
        String basic = Base64.getEncoder().encodeToString(user.getBytes(StandardCharsets.UTF_8));
        return requestLine + " HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nAuthorization: Basic " + basic
                + "\\r\\nAccept: application/json\\r\\nConnection: close\\r\\nContent-Type: application/json\\r\\nContent-Length: "
                + body.length() + "\\r\\n\\r\\n" + body;
    }
}
