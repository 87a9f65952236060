package io.vrouter.netconf.transport;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Writes NETCONF messages to the session's stream (RFC 6242). Each message is written through the
 * stream {@link #begin()} returns, which sends what it buffered as it fills: a large reply leaves as
 * a series of chunks (base:1.1) or as a plain byte stream followed by {@code ]]>]]>} (base:1.0),
 * never whole in memory. One message at a time: callers serialize on this object.
 */
public final class MessageWriter {
    private static final byte[] EOM = "]]>]]>".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] END_OF_CHUNKS = "\n##\n".getBytes(StandardCharsets.US_ASCII);

    private final OutputStream out;
    /**
     * The one message's buffer, used again by every message (they are written one at a time): a
     * buffer per message would be allocated and zeroed for every reply of a few hundred bytes.
     */
    private final byte[] buf;
    private volatile boolean chunked;

    public MessageWriter(OutputStream out, int chunkSize) {
        this.out = out;
        this.buf = new byte[chunkSize];
    }

    public void useChunkedFraming() {
        this.chunked = true;
    }

    public boolean chunked() {
        return chunked;
    }

    /** Starts a message; closing the returned stream ends it (and flushes it to the peer). */
    public OutputStream begin() {
        return new MessageStream();
    }

    /** Writes one whole message. */
    public void write(byte[] message) throws IOException {
        try (OutputStream o = begin()) {
            o.write(message);
        }
    }

    private final class MessageStream extends OutputStream {
        private int len;
        private boolean closed;

        @Override
        public void write(int b) throws IOException {
            if (len == buf.length) drain();
            buf[len++] = (byte) b;
        }

        @Override
        public void write(byte[] b, int off, int n) throws IOException {
            while (n > 0) {
                if (len == buf.length) drain();
                int k = Math.min(n, buf.length - len);
                System.arraycopy(b, off, buf, len, k);
                len += k;
                off += k;
                n -= k;
            }
        }

        /** Sends the buffer: as one chunk when chunked, as raw bytes otherwise. */
        private void drain() throws IOException {
            if (len == 0) return;
            if (chunked) out.write(("\n#" + len + "\n").getBytes(StandardCharsets.US_ASCII));
            out.write(buf, 0, len);
            len = 0;
        }

        @Override
        public void flush() {
            // Partial chunks are sent when the buffer fills or the message ends, not on every flush
            // of an XML writer: that would cut the reply into many tiny chunks.
        }

        @Override
        public void close() throws IOException {
            if (closed) return;
            closed = true;
            drain();
            out.write(chunked ? END_OF_CHUNKS : EOM);
            out.flush();
        }
    }
}
