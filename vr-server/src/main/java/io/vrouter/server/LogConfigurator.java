package io.vrouter.server;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.jul.LevelChangePropagator;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ConfiguratorRank;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.spi.ContextAwareBase;

/**
 * The server's logging set-up, in code: what a logback.xml would say, without logback's XML configurator
 * (Joran), which loads about 250 classes and their lambdas at start-up to read a file of 15 lines
 * (docs/adr/0004-footprint.md, "vrouter's own memory above the floor"). Found by logback through
 * META-INF/services. A logback.xml still wins when one is asked for ({@code -Dlogback.configurationFile}) or one
 * (or a logback-test.xml, the tests') is on the class path.
 *
 * <p>Console lines as {@code %d{HH:mm:ss.SSS} %-5level [%thread] %logger{20} - %msg%n}; the root at
 * {@code VROUTER_LOG_LEVEL} (default INFO), REST's request log ({@code io.vrouter.api.rest.requests}) at
 * {@code VROUTER_REQUEST_LOG} (default INFO), Jersey, MINA SSHD and snmp4j at WARN. Each setting is read from a
 * system property of that name first, then the environment, as logback's {@code ${NAME:-default}} does. JUL
 * (Jersey, Grizzly), bridged by jul-to-slf4j, gets the same levels, so it skips what is dropped.
 */
@ConfiguratorRank(ConfiguratorRank.CUSTOM_LOW_PRIORITY)
public final class LogConfigurator extends ContextAwareBase implements Configurator {
    static final String PATTERN = "%d{HH:mm:ss.SSS} %-5level [%thread] %logger{20} - %msg%n";

    @Override
    public ExecutionStatus configure(LoggerContext context) {
        if (anOperatorsFile(LogConfigurator.class.getClassLoader())) return ExecutionStatus.INVOKE_NEXT_IF_ANY;
        setUp(context);
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }

    /**
     * Whether logback is to read a file instead: one named by {@code -Dlogback.configurationFile}, or a
     * logback-test.xml or logback.xml on the class path (the server's jar holds neither, so one found there is
     * the tests' or the operator's, e.g. in a WAR's WEB-INF/classes).
     */
    static boolean anOperatorsFile(ClassLoader classes) {
        return System.getProperty("logback.configurationFile") != null
                || classes.getResource("logback-test.xml") != null
                || classes.getResource("logback.xml") != null;
    }

    static void setUp(LoggerContext context) {
        LevelChangePropagator jul = new LevelChangePropagator();
        jul.setContext(context);
        jul.setResetJUL(true);
        context.addListener(jul);
        jul.start();

        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern(PATTERN);
        encoder.start();
        ConsoleAppender<ILoggingEvent> console = new ConsoleAppender<>();
        console.setContext(context);
        console.setName("STDOUT");
        console.setEncoder(encoder);
        console.start();

        Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        root.setLevel(level("VROUTER_LOG_LEVEL"));
        root.addAppender(console);
        context.getLogger("io.vrouter.api.rest.requests").setLevel(level("VROUTER_REQUEST_LOG"));
        for (String quiet : new String[] {"org.glassfish", "org.apache.sshd", "org.snmp4j"}) {
            context.getLogger(quiet).setLevel(Level.WARN);
        }
    }

    /** A level named by a system property or environment variable, INFO when neither is set; as logback.xml's
     *  level attribute, a name it does not know is DEBUG. */
    static Level level(String name) {
        String v = System.getProperty(name);
        if (v == null) v = System.getenv(name);
        return v == null ? Level.INFO : Level.toLevel(v);
    }
}
