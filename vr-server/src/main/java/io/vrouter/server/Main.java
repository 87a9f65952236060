package io.vrouter.server;

import io.vrouter.core.config.Build;
import io.vrouter.core.config.Settings;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.bridge.SLF4JBridgeHandler;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code java -jar vrouter.jar [options]}: starts every management interface not turned off (its port
 * {@code off}) on one service.
 * Settings come from, lowest first: defaults, {@code --config FILE} (Java properties whose keys are
 * the long option names), environment variables ({@code VROUTER_REST_PORT} for {@code --rest-port}),
 * and the command line.
 */
@Command(name = "vrouter", mixinStandardHelpOptions = true, versionProvider = Main.Version.class, sortOptions = false,
        description = "Provisions virtual routers on a hypervisor and manages them over REST, SNMP, NETCONF and gNMI.")
public final class Main implements Callable<Integer> {
    private static final Logger log = LoggerFactory.getLogger(Main.class);

    @Option(names = "--config", paramLabel = "FILE", description = "Settings file (Java properties, keys as the long options).")
    Path config;
    @Option(names = "--data-dir", paramLabel = "DIR", description = "Where the configuration is kept (default: ./data).")
    String dataDir;
    @Option(names = "--bind", paramLabel = "ADDR", description = "Address every interface listens on (default: 127.0.0.1).")
    String bind;
    @Option(names = "--rest-port", paramLabel = "N|off", converter = PortOrOff.class,
            description = "REST and RESTCONF port (default: 8080; off: no REST, RESTCONF nor console).")
    String restPort;
    @Option(names = "--snmp-port", paramLabel = "N|off", converter = PortOrOff.class,
            description = "SNMP UDP port (default: 1161; off: no SNMP).")
    String snmpPort;
    @Option(names = "--netconf-port", paramLabel = "N|off", converter = PortOrOff.class,
            description = "NETCONF over SSH port (default: 8830; off: no NETCONF).")
    String netconfPort;
    @Option(names = "--gnmi-port", paramLabel = "N|off", converter = PortOrOff.class,
            description = "gNMI (gRPC) port (default: 9339; off: no gNMI).")
    String gnmiPort;
    @Option(names = "--console", paramLabel = "on|off",
            description = "The web console's files at / on the REST port (default: on; off: REST and RESTCONF alone).")
    String console;
    @Option(names = "--driver", paramLabel = "sim|xen|netns|libvirt",
            description = "Hypervisor driver (default: sim, the simulated hypervisor; netns: Linux namespaces on this host;"
                    + " libvirt: QEMU virtual machines through libvirt).")
    String driver;
    @Option(names = "--sim-latency", paramLabel = "none|paper", description = "Simulated driver timings (default: none; paper: XenServer's of the paper).")
    String simLatency;
    @Option(names = "--recover", description = "Start from every intact record of a damaged journal or snapshot, "
            + "setting the damaged files aside (once, after start-up refused them).")
    Boolean recover;
    @Option(names = "--hash-password", description = "Read a password from standard input, print the form to store "
            + "in user.NAME = ROLE:FORM (a salted PBKDF2 hash), and exit.")
    boolean hashPassword;
    @Parameters(index = "0", arity = "0..1", paramLabel = "backup|restore", description = "On a stopped server's data"
            + " directory: backup writes its VRs to FILE (the document GET /api/v1/backup gives); restore adds"
            + " FILE's VRs the directory lacks, made on the host at the next start. Without it: starts the server.")
    String command;
    @Parameters(index = "1", arity = "0..1", paramLabel = "FILE", description = "The backup document.")
    Path file;
    @Option(names = "--snmp-trap-target", paramLabel = "udp:HOST:PORT", description = "Adds an SNMP notification target (repeatable).")
    List<String> trapTargets = new ArrayList<>();

    private final CountDownLatch stopped = new CountDownLatch(1);

    public static void main(String[] args) {
        SLF4JBridgeHandler.removeHandlersForRootLogger();
        SLF4JBridgeHandler.install();
        System.exit(commandLine().execute(args));
    }

    /** The command line with its error handling: usage on bad options (exit 2), one line on start-up failure (1). */
    static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new Main());
        cli.setParameterExceptionHandler((e, args) -> {
            CommandLine cmd = e.getCommandLine();
            cmd.getErr().println("vrouter: " + e.getMessage());
            cmd.usage(cmd.getErr());
            return 2;
        });
        cli.setExecutionExceptionHandler((e, cmd, parsed) -> {
            cmd.getErr().println("vrouter: " + (e.getMessage() != null ? e.getMessage() : e.toString()));
            log.debug("start-up failed", e);
            return 1;
        });
        return cli;
    }

    @Override
    public Integer call() throws Exception {
        if (hashPassword) return hashPassword(System.in, System.out);
        Settings settings = settings(System.getenv());
        if (command != null) return offline(settings, System.out, System.err);
        long t0 = System.nanoTime();
        VrouterServer server = VrouterServer.start(settings);
        log.info("vrouter started in {} ms on driver '{}', data in {}", (System.nanoTime() - t0) / 1_000_000,
                settings.get("driver", "sim"), settings.dataDir());
        // SIGHUP (systemctl reload) reads the settings again instead of stopping the JVM, its default.
        // A process started with SIGHUP ignored (nohup) keeps it so: the JVM then installs no handler.
        if (sun.misc.Signal.handle(new sun.misc.Signal("HUP"), signal -> reload(server)) == sun.misc.SignalHandler.SIG_IGN) {
            log.warn("SIGHUP is ignored in this process (started under nohup?): the settings are not read again on"
                    + " SIGHUP; restart the server to change them, or start it without nohup");
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            log.info("stopping");
            server.close();
            stopped.countDown();
        }, "vrouter-shutdown"));
        notifySystemdReady(System.getenv("NOTIFY_SOCKET"));
        stopped.await();
        return 0;
    }

    /**
     * Under a Type=notify unit (vrouter.service), tells systemd that every interface listens. The JDK
     * has no datagram unix socket, so systemd-notify sends it (the unit's NotifyAccess=all lets a
     * child speak for the service; systemd-notify waits until systemd has read it). Elsewhere: nothing.
     */
    static void notifySystemdReady(String notifySocket) {
        if (notifySocket == null || notifySocket.isEmpty()) return;
        try {
            Process notify = new ProcessBuilder("systemd-notify", "--ready").inheritIO().start();
            if (!notify.waitFor(30, java.util.concurrent.TimeUnit.SECONDS) || notify.exitValue() != 0) {
                log.warn("systemd-notify --ready did not succeed: systemd will not see the service start");
            }
        } catch (IOException e) {
            log.warn("could not run systemd-notify: {}", e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Takes the users, trap targets and run-time limits of the settings as they are now; sessions go
     * on, a wrong setting changes nothing.
     */
    private void reload(VrouterServer server) {
        try {
            int users = server.reload(settings(System.getenv()));
            log.info("reloaded the settings on SIGHUP: {} users", users);
        } catch (Exception e) {
            log.warn("reload on SIGHUP refused, nothing changed: {}", e.getMessage());
        }
    }

    /** {@code backup FILE} or {@code restore FILE} on the settings' data directory, the server stopped. */
    int offline(Settings settings, java.io.PrintStream out, java.io.PrintStream err) {
        if (file == null) {
            err.println("vrouter " + command + ": which FILE? (vrouter " + command + " FILE [--data-dir DIR])");
            return 2;
        }
        return OfflineBackup.run(command, file, settings.dataDir(), settings.get("driver", "sim"), out, err);
    }

    /** Prints the stored form of the password on the first line of the input (a terminal does not echo it). */
    static int hashPassword(java.io.InputStream in, java.io.PrintStream out) throws IOException {
        java.io.Console console = System.console();
        String password;
        if (console != null && in == System.in) {
            char[] typed = console.readPassword("password: ");
            password = typed == null ? null : new String(typed);
        } else {
            password = new java.io.BufferedReader(new java.io.InputStreamReader(in, java.nio.charset.StandardCharsets.UTF_8))
                    .readLine();
        }
        if (password == null || password.isEmpty()) {
            System.err.println("vrouter: no password given on standard input");
            return 2;
        }
        out.println(io.vrouter.core.config.Credentials.hash(password));
        return 0;
    }

    /** Merges defaults, the config file, the environment and the command line. */
    Settings settings(Map<String, String> env) throws IOException {
        Map<String, String> values = SettingsLoader.load(config, env);
        put(values, "data-dir", dataDir);
        put(values, "bind", bind);
        put(values, "rest-port", restPort);
        put(values, "snmp-port", snmpPort);
        put(values, "netconf-port", netconfPort);
        put(values, "gnmi-port", gnmiPort);
        put(values, "console", console);
        put(values, "driver", driver);
        put(values, "sim-latency", simLatency);
        put(values, "recover", recover);
        if (!trapTargets.isEmpty()) {
            String existing = values.getOrDefault("snmp-trap-target", "");
            values.put("snmp-trap-target", (existing.isBlank() ? "" : existing + ",") + String.join(",", trapTargets));
        }
        return Settings.of(values);
    }

    private static void put(Map<String, String> values, String key, Object value) {
        if (value != null) values.put(key, value.toString());
    }

    /** A port number, or {@code off}: an interface turned off loads none of its classes. */
    static final class PortOrOff implements CommandLine.ITypeConverter<String> {
        @Override
        public String convert(String value) {
            if (value.trim().equalsIgnoreCase("off")) return "off";
            try {
                int port = Integer.parseInt(value.trim());
                if (port >= 0 && port <= 65535) return Integer.toString(port);
            } catch (NumberFormatException notANumber) {
                // said below
            }
            throw new CommandLine.TypeConversionException("'" + value + "' is neither a port (0 to 65535) nor off");
        }
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"vrouter " + Build.describe()};
        }
    }

    /** For tests: runs the CLI parser alone and returns the merged settings. */
    static Settings parse(String[] args, Map<String, String> env) throws IOException {
        Main main = new Main();
        CommandLine cli = new CommandLine(main);
        cli.setErr(new PrintWriter(System.err, true));
        cli.parseArgs(args);
        return main.settings(env);
    }
}
