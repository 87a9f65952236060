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
 * the SSH transport and RFC 6242 framing cost, with none of vrouter's code. A get-config is answered
 * with the bytes vrouter's get-config of vmConfigTable gives for ENTRIES VRs (800000 on, as the
 * benchmark creates them, every column at its default), made once, sent in vrouter's 16 KiB chunks: what
 * sending that reply costs MINA SSHD.
 *
 * <p>Run by the benchmark (vrbench) from this source file, on the classpath of the packaged server
 * (for its copy of MINA SSHD, the same version): {@code java -cp vrouter.jar NetconfFloor.java PORT DIR [ENTRIES]}.
 * It prints "listening" once it accepts connections and runs until killed.
 */
public final class NetconfFloor {
    private static final String BASE = "urn:ietf:params:xml:ns:netconf:base:1.0";
    private static final Pattern MESSAGE_ID = Pattern.compile("message-id\\s*=\\s*[\"']([^\"']*)[\"']");
    private static final String VMM = "urn:ietf:params:xml:ns:yang:smiv2:NEW-VMM-MIB";
    /** The content of a get-config's rpc-reply: vmConfigTable as vrouter writes it. */
    private static byte[] configData = new byte[0];

    public static void main(String[] args) throws Exception {
        StringBuilder data = new StringBuilder("<data><NEW-VMM-MIB xmlns=\"" + VMM + "\"><vmConfigTable>");
        for (int i = 800000; i < 800000 + (args.length > 2 ? Integer.parseInt(args[2]) : 1000); i++) {
            data.append("<vmConfigEntry><vmIndex>").append(i).append("</vmIndex><vmName>vr-").append(i)
                    .append("</vmName><vmAdminState>running</vmAdminState><vmConfigTemplate>vyos</vmConfigTemplate>"
                            + "<vmConfigCpuNumber>1</vmConfigCpuNumber><vmConfigMemory>512</vmConfigMemory>"
                            + "<vmConfigAutoStart>false</vmConfigAutoStart></vmConfigEntry>");
        }
        configData = data.append("</vmConfigTable></NEW-VMM-MIB></data>").toString().getBytes(StandardCharsets.UTF_8);
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
                    String start = "<rpc-reply xmlns=\"" + BASE + "\""
                            + (m.find() ? " message-id=\"" + m.group(1) + "\"" : "") + ">";
                    if (rpc.contains("get-config")) {
                        send(("<?xml version=\"1.0\" encoding=\"UTF-8\"?>" + start).getBytes(StandardCharsets.UTF_8), configData,
                                "</rpc-reply>".getBytes(StandardCharsets.UTF_8));
                    } else {
                        send(start + "<ok/></rpc-reply>");
                    }
                    if (rpc.contains("close-session")) break;
                }
            } catch (IOException e) {
                // the client went away
            } finally {
                exit.onExit(0);
            }
        }

        private void send(String message) throws IOException {
            send(message.getBytes(StandardCharsets.UTF_8));
        }

        /** One message of these parts, in chunks of at most 16 KiB as vrouter's MessageWriter sends them. */
        private void send(byte[]... parts) throws IOException {
            ByteArrayOutputStream whole = new ByteArrayOutputStream();
            for (byte[] p : parts) whole.write(p);
            byte[] b = whole.toByteArray();
            if (chunked) {
                for (int off = 0; off < b.length; off += 16384) {
                    int n = Math.min(16384, b.length - off);
                    out.write(("\n#" + n + "\n").getBytes(StandardCharsets.US_ASCII));
                    out.write(b, off, n);
                }
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
