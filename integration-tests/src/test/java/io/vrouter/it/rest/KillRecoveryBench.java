package io.vrouter.it.rest;

import static org.assertj.core.api.Assertions.assertThat;

import io.vrouter.it.ServerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The long form of {@link KillRecoveryIT}'s rounds (issue 39), a benchmark-style job, not a test of
 * {@code mvn verify} (its name does not end in IT): hundreds of kill -9 under two tenants' writers on
 * every interface, to catch a loss of one acknowledgement in thousands. {@code -Dkill.rounds} kills
 * (default 300, about a kill every 15 s on 2 cores); the figures so far go to target/kill-recovery.txt after every round. Run it
 * with {@code integration-tests/bench.sh --kill-recovery}, or
 *
 * <pre>mvn -B -q package -DskipTests && mvn -B -q -pl integration-tests verify -Dit.test=KillRecoveryBench \
 *   -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false -Dkill.rounds=300</pre>
 */
class KillRecoveryBench {
    @Test
    void noAcknowledgementIsLostInHundredsOfKills() throws Exception {
        Path dir = Files.createTempDirectory("kill-recovery");
        Path settings = KillNineRounds.settings(dir);
        try (ServerProcess server = ServerProcess.start(dir.resolve("server"), "--config", settings.toString())) {
            Path figures = Files.createDirectories(Path.of("target")).resolve("kill-recovery.txt");
            KillNineRounds.Figures f = new KillNineRounds(server, settings, 150)
                    .run(Integer.getInteger("kill.rounds", 300), 40, 3000, figures);
            System.out.println("kill -9 rounds: " + f.summary());
            assertThat(f.lost()).as(f.summary()).isEmpty();
            assertThat(f.resentRefused()).as(f.summary()).isEmpty();
        }
    }
}
