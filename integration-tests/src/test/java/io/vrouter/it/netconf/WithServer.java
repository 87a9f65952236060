package io.vrouter.it.netconf;

import io.vrouter.it.ServerProcess;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/** One packaged server per test class; the tests of a class use VR indices of their own. */
abstract class WithServer {
    @TempDir
    static Path dir;
    static ServerProcess server;

    @BeforeAll
    static void startServer() throws Exception {
        server = ServerProcess.start(dir.resolve("server"));
    }

    @AfterAll
    static void stopServer() throws Exception {
        if (server != null) server.close();
        server = null;
    }
}
