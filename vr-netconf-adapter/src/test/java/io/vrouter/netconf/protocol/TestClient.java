package io.vrouter.netconf.protocol;

import io.vrouter.netconf.transport.FrameDecoder;
import io.vrouter.netconf.transport.MessageWriter;
import io.vrouter.netconf.xml.SecureXml;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.w3c.dom.Document;

/**
 * A minimal NETCONF client for tests: a {@link NetconfSession} served on a loopback TCP connection
 * (no SSH: the protocol engine alone), raw messages in and out.
 */
final class TestClient implements AutoCloseable {
    static final String BASE = "urn:ietf:params:xml:ns:netconf:base:1.0";
    static final String VMM = "urn:ietf:params:xml:ns:yang:smiv2:NEW-VMM-MIB";

    final NetconfSession session;
    final String serverHello;
    private final Socket socket;
    private final OutputStream rawOut;
    private final MessageWriter writer;
    private final FrameDecoder decoder;
    private final BlockingQueue<Object> received = new LinkedBlockingQueue<>();
    private int messageId;

    TestClient(NetconfServerContext ctx, String user, boolean readOnly, boolean base11) throws IOException {
        this(ctx, new io.vrouter.core.config.Caller(user, null, readOnly ? io.vrouter.core.config.Credentials.Role.VIEWER
                : io.vrouter.core.config.Credentials.Role.OPERATOR, "netconf", "127.0.0.1"), base11);
    }

    /** A session of the caller (its tenant and role), as the SSH authentication makes it. */
    TestClient(NetconfServerContext ctx, io.vrouter.core.config.Caller caller, boolean base11) throws IOException {
        Socket serverSide;
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            socket = new Socket(InetAddress.getLoopbackAddress(), listener.getLocalPort());
            serverSide = listener.accept();
        }
        session = new NetconfSession(ctx, caller, serverSide.getInputStream(),
                new Sent(serverSide.getOutputStream()), () -> {
                    try {
                        serverSide.close();
                    } catch (IOException ignored) {
                        // Closing.
                    }
                });
        // The stack bin/vrouter gives every thread (-Xss256k), so that what recurses fails here as it would there.
        Thread t = new Thread(null, session::run, "test-netconf-" + session.id(), 256 * 1024);
        t.setDaemon(true);
        t.start();
        InputStream in = new ChunkCounter(socket.getInputStream());
        rawOut = socket.getOutputStream();
        writer = new MessageWriter(rawOut, 4096);
        decoder = new FrameDecoder(in, 64 << 20);
        serverHello = new String(decoder.next(), StandardCharsets.UTF_8);
        writer.write(("<hello xmlns='" + BASE + "'><capabilities><capability>urn:ietf:params:netconf:base:1.0</capability>"
                + (base11 ? "<capability>urn:ietf:params:netconf:base:1.1</capability>" : "")
                + "</capabilities></hello>").getBytes(StandardCharsets.UTF_8));
        if (base11) {
            writer.useChunkedFraming();
            decoder.useChunkedFraming();
        }
        Thread reader = new Thread(() -> {
            try {
                while (true) {
                    byte[] m = decoder.next();
                    if (m == null) break;
                    received.add(new String(m, StandardCharsets.UTF_8));
                }
                received.add("EOF");
            } catch (IOException e) {
                received.add(e);
            }
        }, "test-netconf-reader");
        reader.setDaemon(true);
        reader.start();
    }

    /** What the server sent, flush by flush (a message each), with the thread that sent it. */
    record Flush(String thread, String bytes) {
    }

    final List<Flush> sent = new java.util.concurrent.CopyOnWriteArrayList<>();

    /**
     * The session's output, remembered flush by flush in {@link #sent} before it goes out (so that
     * what the client has received is there).
     */
    private final class Sent extends java.io.FilterOutputStream {
        private final java.io.ByteArrayOutputStream since = new java.io.ByteArrayOutputStream();

        Sent(OutputStream out) {
            super(out);
        }

        @Override
        public synchronized void write(int b) {
            since.write(b);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            since.write(b, off, len);
        }

        @Override
        public synchronized void flush() throws IOException {
            sent.add(new Flush(Thread.currentThread().getName(), since.toString(StandardCharsets.UTF_8)));
            since.writeTo(out);
            since.reset();
            out.flush();
        }
    }

    private final java.util.concurrent.atomic.AtomicLong chunks = new java.util.concurrent.atomic.AtomicLong();

    /** Chunk headers seen so far on the wire (base:1.1). */
    long chunksReceived() {
        return chunks.get();
    }

    /** Counts chunk headers ("\n#" followed by a digit) as bytes pass. */
    private final class ChunkCounter extends java.io.FilterInputStream {
        private int last1 = -1;
        private int last2 = -1;

        ChunkCounter(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) see(b);
            return b;
        }

        @Override
        public int read(byte[] buf, int off, int len) throws IOException {
            int n = super.read(buf, off, len);
            for (int i = 0; i < n; i++) see(buf[off + i] & 0xff);
            return n;
        }

        private void see(int b) {
            if (last2 == '\n' && last1 == '#' && b >= '1' && b <= '9') chunks.incrementAndGet();
            last2 = last1;
            last1 = b;
        }
    }

    /** Sends one message as it is (framed). */
    void send(String message) throws IOException {
        writer.write(message.getBytes(StandardCharsets.UTF_8));
    }

    /** Sends raw bytes, unframed. */
    void sendRaw(String bytes) throws IOException {
        rawOut.write(bytes.getBytes(StandardCharsets.UTF_8));
        rawOut.flush();
    }

    String rpcMessage(String operation) {
        return "<rpc message-id='" + (++messageId) + "' xmlns='" + BASE + "'>" + operation + "</rpc>";
    }

    /** Notifications that arrived while {@link #rpc} waited for a reply, for {@link #next} to return. */
    private final java.util.ArrayDeque<String> notifications = new java.util.ArrayDeque<>();

    /** The notifications received and not yet taken with {@link #next}, in order. */
    List<String> pendingNotifications() {
        return List.copyOf(notifications);
    }

    /**
     * Sends an rpc and returns its reply (the next rpc-reply); notifications that come first are kept
     * for {@link #next}.
     */
    String rpc(String operation) throws IOException, InterruptedException {
        send(rpcMessage(operation));
        while (true) {
            String m = take();
            if (m.contains("<notification xmlns=")) { // a notification, not a reply that names one (/nacm rules)
                notifications.add(m);
            } else {
                return m;
            }
        }
    }

    /** The next message from the server (notifications kept by {@link #rpc} first); fails after 10 s. */
    String next() throws InterruptedException, IOException {
        if (!notifications.isEmpty()) return notifications.poll();
        return take();
    }

    private String take() throws InterruptedException, IOException {
        Object m = received.poll(10, TimeUnit.SECONDS);
        if (m == null) throw new AssertionError("no message from the server within 10 s");
        if (m instanceof IOException e) throw e;
        return (String) m;
    }

    /** The next message, or null when none comes within the time. */
    String poll(long millis) throws InterruptedException {
        if (!notifications.isEmpty()) return notifications.poll();
        Object m = received.poll(millis, TimeUnit.MILLISECONDS);
        return m instanceof String s ? s : null;
    }

    static Document parse(String xml) throws Exception {
        return SecureXml.parse(xml.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
