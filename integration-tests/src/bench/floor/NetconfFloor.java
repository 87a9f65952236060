import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.sshd.common.util.net.SshdSocketAddress;
import org.apache.sshd.core.CoreModuleProperties;
import org.apache.sshd.server.Environment;
import org.apache.sshd.server.ExitCallback;
import org.apache.sshd.server.SshServer;
import org.apache.sshd.server.auth.password.UserAuthPasswordFactory;
import org.apache.sshd.server.channel.ChannelSession;
import org.apache.sshd.server.command.Command;
import org.apache.sshd.server.keyprovider.SimpleGeneratorHostKeyProvider;
import org.apache.sshd.server.subsystem.SubsystemFactory;

/**
 * The floor of a NETCONF round trip on this machine (issue 16): Apache MINA SSHD, set up as vrouter's
 * NETCONF server sets it up (a generated host key, password login, TCP_NODELAY, the subsystem
 * "netconf" on a thread of its own), answering every rpc with a fixed {@code <ok/>} and doing nothing
 * else: no XML parsing, no datastore, no journal, no events. What a client's request costs here is what
 * the SSH transport and RFC 6242 framing cost, with none of vrouter's code.
 *
 * <p>Run by the benchmark (vrbench) from this source file, on the classpath of the packaged server
 * (for its copy of MINA SSHD, the same version): {@code java -cp vrouter.jar NetconfFloor.java PORT DIR}.
 * It prints "listening" once it accepts connections and runs until killed.
 */
public final class NetconfFloor {
    private static final String BASE = "urn:ietf:params:xml:ns:netconf:base:1.0";
    private static final Pattern MESSAGE_ID = Pattern.compile("message-id\\s*=\\s*[\"']([^\"']*)[\"']");

    public static void main(String[] args) throws Exception {
        SshServer sshd = SshServer.setUpDefaultServer();
        sshd.setHost("127.0.0.1");
        sshd.setPort(Integer.parseInt(args[0]));
        sshd.setKeyPairProvider(new SimpleGeneratorHostKeyProvider(Path.of(args[1], "floor-host-key")));
        sshd.setPasswordAuthenticator((user, password, session) -> "admin".equals(user) && "admin".equals(password));
        sshd.setPublickeyAuthenticator((user, key, session) -> false);
        sshd.setKeyboardInteractiveAuthenticator(null);
        sshd.setUserAuthFactories(List.of(UserAuthPasswordFactory.INSTANCE));
        CoreModuleProperties.TCP_NODELAY.set(sshd, true);
        sshd.setSubsystemFactories(List.of(new SubsystemFactory() {
            @Override
            public String getName() {
                return "netconf";
            }

            @Override
            public Command createSubsystem(ChannelSession channel) {
                return new Ok();
            }
        }));
        sshd.start();
        System.out.println("listening on " + SshdSocketAddress.toAddressString(sshd.getBoundAddresses().iterator().next()));
        System.out.flush();
        Thread.currentThread().join();
    }

    /** One session: the hello exchange, then an {@code <ok/>} for every rpc until close-session or EOF. */
    private static final class Ok implements Command, Runnable {
        private InputStream in;
        private OutputStream out;
        private ExitCallback exit;
        private boolean chunked;

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
        }

        @Override
        public void setExitCallback(ExitCallback callback) {
            this.exit = callback;
        }

        @Override
        public void start(ChannelSession channel, Environment env) {
            Thread t = new Thread(this, "floor-session");
            t.setDaemon(true);
            t.start();
        }

        @Override
        public void destroy(ChannelSession channel) {
        }

        @Override
        public void run() {
            try {
                send("<?xml version=\"1.0\" encoding=\"UTF-8\"?><hello xmlns=\"" + BASE + "\"><capabilities>"
                        + "<capability>urn:ietf:params:netconf:base:1.0</capability>"
                        + "<capability>urn:ietf:params:netconf:base:1.1</capability>"
                        + "</capabilities><session-id>1</session-id></hello>");
                String hello = next();
                if (hello == null) return;
                chunked = hello.contains("urn:ietf:params:netconf:base:1.1");
                for (String rpc = next(); rpc != null; rpc = next()) {
                    Matcher m = MESSAGE_ID.matcher(rpc);
                    send("<rpc-reply xmlns=\"" + BASE + "\"" + (m.find() ? " message-id=\"" + m.group(1) + "\"" : "")
                            + "><ok/></rpc-reply>");
                    if (rpc.contains("close-session")) break;
                }
            } catch (IOException e) {
                // the client went away
            } finally {
                exit.onExit(0);
            }
        }

        private void send(String message) throws IOException {
            byte[] b = message.getBytes(StandardCharsets.UTF_8);
            if (chunked) {
                out.write(("\n#" + b.length + "\n").getBytes(StandardCharsets.US_ASCII));
                out.write(b);
                out.write("\n##\n".getBytes(StandardCharsets.US_ASCII));
            } else {
                out.write(b);
                out.write("]]>]]>".getBytes(StandardCharsets.US_ASCII));
            }
            out.flush();
        }

        /** The next message (RFC 6242: end-of-message or chunked framing), null at the end of the stream. */
        private String next() throws IOException {
            ByteArrayOutputStream msg = new ByteArrayOutputStream();
            if (!chunked) {
                byte[] end = "]]>]]>".getBytes(StandardCharsets.US_ASCII);
                int matched = 0;
                for (int c = in.read(); c >= 0; c = in.read()) {
                    msg.write(c);
                    matched = c == end[matched] ? matched + 1 : (c == end[0] ? 1 : 0);
                    if (matched == end.length) {
                        String s = msg.toString(StandardCharsets.UTF_8);
                        return s.substring(0, s.length() - end.length);
                    }
                }
                return null;
            }
            while (true) {  // chunks: LF # size LF data ..., then LF ## LF
                if (in.read() != '\n' || in.read() != '#') return null;
                int c = in.read();
                if (c == '#') {
                    in.read();
                    return msg.toString(StandardCharsets.UTF_8);
                }
                int size = 0;
                for (; c >= '0' && c <= '9'; c = in.read()) size = size * 10 + (c - '0');
                byte[] chunk = in.readNBytes(size);
                if (chunk.length < size) return null;
                msg.write(chunk);
            }
        }
    }
}
