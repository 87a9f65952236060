package io.vrouter.netconf;

import io.vrouter.core.config.Caller;
import io.vrouter.core.config.Credentials;
import io.vrouter.core.config.Settings;
import io.vrouter.core.migration.Peers;
import io.vrouter.core.spi.ManagementInterface;
import io.vrouter.core.spi.ServerContext;
import io.vrouter.yang.datastore.Datastores;
import io.vrouter.yang.nacm.Nacm;
import io.vrouter.netconf.protocol.NetconfServerContext;
import io.vrouter.netconf.protocol.NetconfSession;
import io.vrouter.netconf.transport.MessageMemory;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.sshd.common.SshConstants;
import org.apache.sshd.common.session.Session;
import org.apache.sshd.common.session.SessionListener;
import org.apache.sshd.common.compression.BuiltinCompressions;
import org.apache.sshd.core.CoreModuleProperties;
import org.apache.sshd.server.SshServer;
import org.apache.sshd.server.auth.password.PasswordAuthenticator;
import org.apache.sshd.server.auth.password.UserAuthPasswordFactory;
import org.apache.sshd.server.auth.pubkey.UserAuthPublicKeyFactory;
import org.apache.sshd.server.auth.pubkey.PublickeyAuthenticator;
import org.apache.sshd.server.config.keys.AuthorizedKeysAuthenticator;
import org.apache.sshd.server.forward.RejectAllForwardingFilter;
import org.apache.sshd.server.keyprovider.SimpleGeneratorHostKeyProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The NETCONF management interface: an SSH server (Apache MINA SSHD) whose only service is the
 * subsystem "netconf".
 *
 * <p>Settings: {@code bind} (127.0.0.1), {@code netconf-port} (8830; 0 picks a free port),
 * {@code data-dir} (the host key is kept there as {@code netconf-host-key}), and, in the config file,
 * {@code netconf.idle-timeout} (seconds, 600; 0 disables; a session with a notification subscription
 * is never idle), {@code netconf.max-sessions} (16 logged-in sessions), {@code netconf.login-grace-time}
 * (10 s from connecting to logging in), {@code netconf.max-unauthenticated} (32 connections not logged
 * in yet) and {@code netconf.max-unauthenticated-per-client} (4 of them from one address),
 * {@code netconf.authorized-keys} (an OpenSSH authorized_keys file; its keys log in with operator
 * rights), {@code netconf.max-message-bytes} (1 MiB), {@code netconf.nacm} (true; false turns NETCONF
 * access control off: the recovery path).
 */
public final class NetconfInterface implements ManagementInterface {
    private static final Logger log = LoggerFactory.getLogger(NetconfInterface.class);

    private SshServer sshd;
    private NetconfServerContext ctx;
    private SessionLimits limits;
    /** The settings it started with: what a reload compares with. */
    private Settings started;
    private java.util.concurrent.ScheduledExecutorService keepAlive;
    private String description = "NETCONF (not started)";

    public NetconfInterface() {
    }

    @Override
    public String name() {
        return "netconf";
    }

    @Override
    public void start(ServerContext context) throws IOException {
        Settings s = context.settings();
        started = s;
        Credentials credentials = context.credentials();
        InetAddress bind = InetAddress.getByName(s.get("bind", "127.0.0.1"));
        Credentials.requireLoopbackForDevelopmentDefaults(credentials.developmentDefaults(), bind, "NETCONF");
        int port = s.getInt("netconf-port", 8830);
        int idleSeconds = s.getInt("netconf.idle-timeout", 600);
        Duration loginGrace = s.getDuration("netconf.login-grace-time", "10s");
        int maxMessage = s.getInt("netconf.max-message-bytes", 1024 * 1024);
        limits = SessionLimits.from(s);

        // The application's access control, shared with RESTCONF and gNMI (alone, as in a test: its own).
        // netconf.nacm=false is the recovery path: no access control (RFC 8341's recovery session).
        Nacm nacm = context.shared(Nacm.class).orElseGet(() -> new Nacm(s.dataDir(), s.getBoolean("netconf.nacm", true)));
        // The application's datastores, shared with RESTCONF and gNMI (alone: its own, under its access control).
        Datastores datastores = context.shared(Datastores.class).orElseGet(() -> new Datastores(context.service(), nacm));
        ctx = new NetconfServerContext(context.service(), context.metrics(), maxMessage, MessageMemory.quarterOfHeap(),
                s.dataDir(), nacm, datastores);
        // The application's peers, their clients shared with REST and RESTCONF (alone, as in a test: its own).
        ctx.usePeers(context.shared(Peers.class).orElseGet(() -> Peers.from(s)).clients());
        context.shared(io.vrouter.core.migration.Drain.class).ifPresent(ctx::useDrain);
        // A confirmed commit the last run left unconfirmed is put back before anyone connects.
        ctx.recover();
        sshd = SshServer.setUpDefaultServer();
        sshd.setHost(bind.getHostAddress());
        sshd.setPort(port);

        Path dataDir = s.dataDir();
        Files.createDirectories(dataDir);
        sshd.setKeyPairProvider(hostKey(dataDir.resolve("netconf-host-key")));

        sshd.setPasswordAuthenticator((PasswordAuthenticator) (user, password, session) -> {
            InetAddress client = session.getClientAddress() instanceof InetSocketAddress a ? a.getAddress() : null;
            Credentials.Login login = credentials.login("netconf", client, user, password);
            // Who the session is, once, at authentication: every request of it goes through service.as(caller).
            Optional<Caller> caller = login.role().flatMap(r -> credentials.caller(user, r, "netconf", client));
            caller.ifPresent(c -> session.setAttribute(NetconfSubsystem.CALLER, c));
            return login.accepted() && caller.isPresent();
        });
        String keys = s.get("netconf.authorized-keys").orElse(null);
        if (keys != null) {
            Path keysFile = Path.of(keys);
            if (!Files.isReadable(keysFile)) {
                throw new IllegalArgumentException("setting 'netconf.authorized-keys': cannot read " + keysFile);
            }
            AuthorizedKeysAuthenticator authorized = new AuthorizedKeysAuthenticator(keysFile);
            sshd.setPublickeyAuthenticator((PublickeyAuthenticator) (user, key, session) -> {
                boolean ok = authorized.authenticate(user, key, session);
                if (ok) session.setAttribute(NetconfSubsystem.CALLER, keyCaller(credentials, user, session));
                return ok;
            });
        } else {
            sshd.setPublickeyAuthenticator((user, key, session) -> false);
        }
        sshd.setKeyboardInteractiveAuthenticator(null);
        sshd.setUserAuthFactories(keys == null ? List.of(UserAuthPasswordFactory.INSTANCE)
                : List.of(UserAuthPublicKeyFactory.INSTANCE, UserAuthPasswordFactory.INSTANCE));
        sshd.setForwardingFilter(RejectAllForwardingFilter.INSTANCE);
        sshd.setSubsystemFactories(List.of(NetconfSubsystem.factory(ctx)));
        CoreModuleProperties.IDLE_TIMEOUT.set(sshd, Duration.ofSeconds(idleSeconds));
        // A connection has this long from its first byte to a successful login, then it is closed.
        CoreModuleProperties.AUTH_TIMEOUT.set(sshd, loginGrace);
        // Replies and notifications are small writes: with Nagle on, a notification that follows a
        // reply waits for the client's delayed ACK (the benchmark measured 41 ms).
        CoreModuleProperties.TCP_NODELAY.set(sshd, true);
        // One NETCONF session per connection, so netconf.max-sessions counts them all (MINA allows any
        // number of channels); and at most 256 KiB of a client's data waiting unread (MINA's window,
        // 2 MiB by default), which MINA holds outside the memory kept for requests. MINA refuses a
        // channel when more than this many are open already: 0 lets one be open.
        CoreModuleProperties.MAX_CONCURRENT_CHANNELS.set(sshd, 0);
        CoreModuleProperties.WINDOW_SIZE.set(sshd, 256L * 1024);
        // SSH compression, as the paper planned for NETCONF's verbose XML (the client chooses; OpenSSH's
        // "Compression yes" and paramiko's use_compression() ask for zlib@openssh.com, which starts after
        // authentication). The evaluation report measures what it saves on batches and large gets.
        sshd.setCompressionFactories(List.of(BuiltinCompressions.none, BuiltinCompressions.delayedZlib,
                BuiltinCompressions.zlib));
        sshd.addSessionListener(limits);
        sshd.start();
        if (idleSeconds > 0) {
            // Sessions with a subscription wait for notifications: they are not idle.
            keepAlive = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "netconf-keepalive");
                t.setDaemon(true);
                return t;
            });
            long periodMillis = Math.max(200, idleSeconds * 1000L / 3);
            NetconfServerContext c = ctx;
            keepAlive.scheduleAtFixedRate(() -> c.sessions().values().forEach(NetconfSession::keepAliveIfSubscribed),
                    periodMillis, periodMillis, java.util.concurrent.TimeUnit.MILLISECONDS);
        }

        int bound = port;
        for (SocketAddress a : sshd.getBoundAddresses()) {
            if (a instanceof InetSocketAddress isa) bound = isa.getPort();
        }
        description = "NETCONF on ssh://" + bind.getHostAddress() + ":" + bound + " (subsystem netconf, "
                + (keys == null ? "password" : "password and public key") + " authentication)";
    }

    /**
     * Who a key login is: the keys of {@code netconf.authorized-keys} are the provider's to grant and
     * log in with operator rights, as the user named: a configured user keeps its tenant (so a
     * tenant's user with a key is still its tenant's), any other name is a provider's operator.
     */
    private static Caller keyCaller(Credentials credentials, String user, org.apache.sshd.server.session.ServerSession session) {
        InetAddress client = session.getClientAddress() instanceof InetSocketAddress a ? a.getAddress() : null;
        return credentials.caller(user, Credentials.Role.OPERATOR, "netconf", client)
                .orElseGet(() -> new Caller(user, null, Credentials.Role.OPERATOR, "netconf",
                        client == null ? null : client.getHostAddress()));
    }

    /**
     * The host key kept in the file, generated (once) now rather than at the first connection, and
     * readable by us alone. A file that holds no readable key stops the start: MINA would generate
     * another, and clients would take the changed host key for a man in the middle.
     */
    private static SimpleGeneratorHostKeyProvider hostKey(Path file) throws IOException {
        HostKeyFile hostKey = new HostKeyFile(file);
        if (Files.exists(file) && !hostKey.readable()) {
            throw new IOException("the SSH host key " + file + " is damaged (it holds no key that can be read): restore"
                    + " it from a backup, or delete it to have a new one generated (NETCONF clients will then see a new"
                    + " host key and must be told to accept it)");
        }
        if (hostKey.loadKeys(null).isEmpty()) throw new IOException("cannot create the SSH host key " + file);
        restrictToOwner(file);
        return hostKey;
    }

    private static final class HostKeyFile extends SimpleGeneratorHostKeyProvider {
        HostKeyFile(Path file) {
            super(file);
        }

        boolean readable() {
            try {
                Iterable<java.security.KeyPair> keys = readKeyPairs(null, getPath());
                return keys != null && keys.iterator().hasNext();
            } catch (IOException | java.security.GeneralSecurityException | RuntimeException e) {
                return false;
            }
        }
    }

    private static void restrictToOwner(Path file) throws IOException {
        if (Files.getFileStore(file).supportsFileAttributeView("posix")) {
            Files.setPosixFilePermissions(file, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        }
    }

    /** The TCP port the server listens on (useful when {@code netconf-port} is 0). */
    public int port() {
        for (SocketAddress a : sshd.getBoundAddresses()) {
            if (a instanceof InetSocketAddress isa) return isa.getPort();
        }
        return sshd.getPort();
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public void close() {
        if (keepAlive != null) keepAlive.shutdownNow();
        if (ctx != null) {
            for (NetconfSession s : ctx.sessions().values()) s.kill();
            ctx.close();
        }
        if (sshd != null) {
            try {
                sshd.stop(true);
            } catch (IOException e) {
                log.warn("stopping the NETCONF SSH server: {}", e.toString());
            }
        }
    }

    /**
     * The session limits change at once (sessions already open beyond a lowered limit go on; the
     * next ones are refused); the rest needs a restart: the SSH server, its host key and the memory
     * for messages are set up once.
     */
    @Override
    public Runnable reload(Settings next) {
        SessionLimits nextLimits = SessionLimits.from(next);
        started.logNeedsRestart(next, log, "bind", "netconf-port", "netconf.idle-timeout", "netconf.login-grace-time",
                "netconf.max-message-bytes", "netconf.authorized-keys", "netconf.nacm");
        SessionLimits running = limits;
        return () -> {
            if (running != null) running.take(nextLimits);
        };
    }

    /**
     * Connections not logged in yet are counted apart from sessions: a few idle connections (in all,
     * and from one client address) are closed at once beyond their caps, so they never take the
     * places of {@code netconf.max-sessions}, which count logged-in sessions only. When all places
     * for connections not logged in are taken, one from an address that holds at least two fewer of
     * them than the busiest address takes the place of that address's oldest: attackers holding
     * connections from a few addresses cannot keep out an operator from another one (the margin of
     * two keeps addresses with nearly equal shares from displacing each other back and forth).
     */
    private static final class SessionLimits implements SessionListener {
        // Changed by a reload (take), read under the lock.
        private int maxSessions;
        private int maxUnauthenticated;
        private int maxUnauthenticatedPerClient;
        private final Set<Session> authenticated = new HashSet<>();
        /** Oldest first. */
        private final Map<Session, InetAddress> unauthenticated = new java.util.LinkedHashMap<>();

        SessionLimits(int maxSessions, int maxUnauthenticated, int maxUnauthenticatedPerClient) {
            this.maxSessions = maxSessions;
            this.maxUnauthenticated = maxUnauthenticated;
            this.maxUnauthenticatedPerClient = maxUnauthenticatedPerClient;
        }

        static SessionLimits from(Settings s) {
            SessionLimits limits = new SessionLimits(s.getInt("netconf.max-sessions", 16),
                    s.getInt("netconf.max-unauthenticated", 32), s.getInt("netconf.max-unauthenticated-per-client", 4));
            if (limits.maxSessions < 1 || limits.maxUnauthenticated < 1 || limits.maxUnauthenticatedPerClient < 1) {
                throw new IllegalArgumentException("settings 'netconf.max-sessions' and "
                        + "'netconf.max-unauthenticated[-per-client]' must be at least 1");
            }
            return limits;
        }

        /** The limits of a reload, for the connections and logins from now on. */
        synchronized void take(SessionLimits next) {
            maxSessions = next.maxSessions;
            maxUnauthenticated = next.maxUnauthenticated;
            maxUnauthenticatedPerClient = next.maxUnauthenticatedPerClient;
        }

        @Override
        public void sessionCreated(Session session) {
            InetAddress client = session.getIoSession().getRemoteAddress() instanceof InetSocketAddress a
                    ? a.getAddress() : null;
            Session displaced = null;
            boolean admitted = false;
            synchronized (this) {
                Map<InetAddress, Integer> perClient = new HashMap<>();
                unauthenticated.values().forEach(c -> perClient.merge(c, 1, Integer::sum));
                int fromClient = perClient.getOrDefault(client, 0);
                if (fromClient < maxUnauthenticatedPerClient) {
                    if (unauthenticated.size() >= maxUnauthenticated) {
                        displaced = oldestOfBusiest(perClient, fromClient);
                        unauthenticated.remove(displaced);
                    }
                    admitted = unauthenticated.size() < maxUnauthenticated;
                    if (admitted) unauthenticated.put(session, client);
                }
            }
            if (displaced != null) {
                log.warn("closing an SSH connection from {} not logged in yet, for one from {}, an address holding fewer"
                        + " (netconf.max-unauthenticated)", displaced.getIoSession().getRemoteAddress(), client);
                displaced.close(true);
            }
            if (admitted) return;
            log.warn("refusing an SSH connection from {}: too many not logged in yet (netconf.max-unauthenticated"
                    + "[-per-client])", client);
            session.close(true);
        }

        /** The oldest connection of the address holding most, if it holds at least two more than {@code fewer}. */
        private Session oldestOfBusiest(Map<InetAddress, Integer> perClient, int fewer) {
            int most = perClient.values().stream().max(Integer::compare).orElse(0);
            if (most < fewer + 2) return null;
            for (Map.Entry<Session, InetAddress> e : unauthenticated.entrySet()) {
                if (perClient.get(e.getValue()) == most) return e.getKey();
            }
            return null;
        }

        @Override
        public void sessionEvent(Session session, Event event) {
            if (event != Event.Authenticated) return;
            boolean full;
            int open;
            synchronized (this) {
                unauthenticated.remove(session);
                open = authenticated.size();
                full = open >= maxSessions;
                if (!full) authenticated.add(session);
            }
            if (full) {
                log.warn("closing the session of '{}' from {}: {} sessions are open (netconf.max-sessions)",
                        session.getUsername(), session.getIoSession().getRemoteAddress(), open);
                try {
                    session.disconnect(SshConstants.SSH2_DISCONNECT_TOO_MANY_CONNECTIONS,
                            "too many sessions (netconf.max-sessions)");
                } catch (IOException e) {
                    session.close(true);
                }
            }
        }

        @Override
        public synchronized void sessionClosed(Session session) {
            unauthenticated.remove(session);
            authenticated.remove(session);
        }
    }
}
