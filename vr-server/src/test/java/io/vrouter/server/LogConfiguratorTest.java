package io.vrouter.server;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ServiceLoader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The logging set-up in code says what the server's logback.xml said (issue 22 item 6). */
class LogConfiguratorTest {
    private final LoggerContext context = new LoggerContext();

    @AfterEach
    void clear() {
        System.clearProperty("VROUTER_LOG_LEVEL");
        System.clearProperty("VROUTER_REQUEST_LOG");
        context.stop();
    }

    @Test
    void levelsAsTheXmlSetThemAndJulFollows() {
        System.setProperty("VROUTER_REQUEST_LOG", "DEBUG");
        LogConfigurator.setUp(context);

        assertThat(context.getLogger(Logger.ROOT_LOGGER_NAME).getLevel())
                .isEqualTo(System.getenv("VROUTER_LOG_LEVEL") == null ? Level.INFO : Level.toLevel(System.getenv("VROUTER_LOG_LEVEL")));
        assertThat(context.getLogger("io.vrouter.api.rest.requests").getLevel()).isEqualTo(Level.DEBUG);
        for (String quiet : new String[] {"org.glassfish", "org.apache.sshd", "org.snmp4j"}) {
            assertThat(context.getLogger(quiet).getLevel()).isEqualTo(Level.WARN);
        }
        // LevelChangePropagator: JUL (Jersey's) drops what logback drops, before formatting it
        assertThat(java.util.logging.Logger.getLogger("org.glassfish").getLevel()).isEqualTo(java.util.logging.Level.WARNING);
    }

    @Test
    void levelNamesAsLogbackReadsThem() {
        System.setProperty("VROUTER_LOG_LEVEL", "warn");
        assertThat(LogConfigurator.level("VROUTER_LOG_LEVEL")).isEqualTo(Level.WARN);
        System.setProperty("VROUTER_LOG_LEVEL", "loud");
        assertThat(LogConfigurator.level("VROUTER_LOG_LEVEL")).isEqualTo(Level.DEBUG); // logback.xml's reading of an unknown name
        assertThat(LogConfigurator.level("VROUTER_NO_SUCH_SETTING")).isEqualTo(Level.INFO);
    }

    @Test
    void consoleLinesInTheSameFormat() {
        LogConfigurator.setUp(context);
        Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        ConsoleAppender<?> console = (ConsoleAppender<?>) root.getAppender("STDOUT");
        PatternLayoutEncoder encoder = (PatternLayoutEncoder) console.getEncoder();
        assertThat(encoder.getPattern()).isEqualTo("%d{HH:mm:ss.SSS} %-5level [%thread] %logger{20} - %msg%n");

        Logger logger = context.getLogger("io.vrouter.server.VrouterServer");
        LoggingEvent event = new LoggingEvent(Logger.class.getName(), logger, Level.INFO, "SNMP on {}", null, new Object[] {"udp:1"});
        event.setThreadName("main");
        assertThat(new String(encoder.encode(event), StandardCharsets.UTF_8))
                .matches("\\d\\d:\\d\\d:\\d\\d\\.\\d{3} INFO  \\[main] i\\.v\\.s\\.VrouterServer - SNMP on udp:1\\R");
    }

    @Test
    void foundByLogbackAndYieldsToATestOrGivenFile() {
        assertThat(ServiceLoader.load(Configurator.class)).anyMatch(c -> c instanceof LogConfigurator);
        // this module's tests have a logback-test.xml: logback's own configurator reads it
        assertThat(new LogConfigurator().configure(context)).isEqualTo(Configurator.ExecutionStatus.INVOKE_NEXT_IF_ANY);
        assertThat(context.getLogger(Logger.ROOT_LOGGER_NAME).getAppender("STDOUT")).isNull();
    }

    @Test
    void anOperatorsLogbackXmlOnTheClassPathWins(@TempDir Path dir) throws Exception {
        try (URLClassLoader none = new URLClassLoader(new URL[] {dir.toUri().toURL()}, null)) {
            assertThat(LogConfigurator.anOperatorsFile(none)).isFalse();
        }
        Files.writeString(dir.resolve("logback.xml"), "<configuration/>");
        try (URLClassLoader withFile = new URLClassLoader(new URL[] {dir.toUri().toURL()}, null)) {
            assertThat(LogConfigurator.anOperatorsFile(withFile)).isTrue();
        }
    }
}
