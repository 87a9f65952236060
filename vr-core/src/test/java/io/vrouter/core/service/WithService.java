package io.vrouter.core.service;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/** A fresh service (a {@link ServiceFixture}) in the test's own directory for each test; a test may replace {@link #f}. */
abstract class WithService {
    static final Duration WAIT = Duration.ofSeconds(10);

    @TempDir
    Path dir;
    ServiceFixture f;

    @BeforeEach
    void startService() throws Exception {
        f = new ServiceFixture(dir);
    }

    @AfterEach
    void stopService() {
        if (f != null) f.close();
    }
}
