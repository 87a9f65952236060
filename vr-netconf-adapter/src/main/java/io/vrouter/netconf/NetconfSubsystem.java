package io.vrouter.netconf;

import io.vrouter.core.config.Caller;
import io.vrouter.netconf.protocol.NetconfServerContext;
import io.vrouter.netconf.protocol.NetconfSession;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.sshd.common.AttributeRepository;
import org.apache.sshd.server.Environment;
import org.apache.sshd.server.ExitCallback;
import org.apache.sshd.server.channel.ChannelSession;
import org.apache.sshd.server.command.Command;
import org.apache.sshd.server.subsystem.SubsystemFactory;

/** The SSH subsystem "netconf" (RFC 6242): one {@link NetconfSession} per channel, on its own thread. */
final class NetconfSubsystem implements Command {
    /** Who the SSH authentication found the user to be (user, tenant, role, source). */
    static final AttributeRepository.AttributeKey<Caller> CALLER = new AttributeRepository.AttributeKey<>();

    private final NetconfServerContext ctx;
    private InputStream in;
    private OutputStream out;
    private ExitCallback exit;
    private NetconfSession session;
    private final AtomicBoolean closed = new AtomicBoolean();

    NetconfSubsystem(NetconfServerContext ctx) {
        this.ctx = ctx;
    }

    static SubsystemFactory factory(NetconfServerContext ctx) {
        return new SubsystemFactory() {
            @Override
            public String getName() {
                return "netconf";
            }

            @Override
            public Command createSubsystem(ChannelSession channel) {
                return new NetconfSubsystem(ctx);
            }
        };
    }

    @Override
    public void setInputStream(InputStream in) {
        this.in = in;
    }

    @Override
    public void setOutputStream(OutputStream out) {
        this.out = out;
    }

    @Override
    public void setErrorStream(OutputStream err) {
        // NETCONF does not use the error stream.
    }

    @Override
    public void setExitCallback(ExitCallback callback) {
        this.exit = callback;
    }

    @Override
    public void start(ChannelSession channel, Environment env) {
        var ssh = channel.getSession();
        Caller caller = ssh.getAttribute(CALLER);
        if (caller == null) {
            // Not authenticated by our authenticators: nothing to serve.
            if (closed.compareAndSet(false, true)) exit.onExit(1);
            return;
        }
        SocketAddress remote = ssh.getIoSession().getRemoteAddress();
        String host = remote instanceof InetSocketAddress isa ? isa.getAddress().getHostAddress() : String.valueOf(remote);
        session = new NetconfSession(ctx, caller.via("netconf", host), in, out, () -> {
            if (closed.compareAndSet(false, true)) exit.onExit(0);
        });
        session.setKeepAlive(ssh::resetIdleTimeout);
        Thread t = new Thread(session::run, "netconf-session-" + session.id());
        t.setDaemon(true);
        t.start();
    }

    @Override
    public void destroy(ChannelSession channel) {
        closed.set(true);
        if (session != null) session.kill();
    }
}
