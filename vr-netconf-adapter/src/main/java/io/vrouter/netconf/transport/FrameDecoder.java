package io.vrouter.netconf.transport;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Splits the byte stream of a NETCONF session into messages (RFC 6242): end-of-message framing
 * ({@code ]]>]]>}) until {@link #useChunkedFraming()} is called after the hello exchange, chunked
 * framing ({@code \n#LEN\n...\n##\n}) from then on. Reads need not align with frames: a message may
 * arrive split over many reads or several messages in one.
 */
public final class FrameDecoder {
    private static final byte[] EOM = "]]>]]>".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    /** RFC 6242: chunk-size is 1..4294967295. */
    private static final long MAX_CHUNK = 4294967295L;

    private final InputStream in;
    private final int maxMessageBytes;
    private volatile boolean chunked;

    public FrameDecoder(InputStream in, int maxMessageBytes) {
        this.in = in;
        this.maxMessageBytes = maxMessageBytes;
    }

    /** Switches to chunked framing for every message after the current one (base:1.1 agreed). */
    public void useChunkedFraming() {
        this.chunked = true;
    }

    public boolean chunked() {
        return chunked;
    }

    /**
     * The next message, or null when the peer closed the stream between messages.
     *
     * @throws FramingException on a framing error or a message over the size limit; also when the
     *                          stream ends inside a message
     */
    public byte[] next() throws IOException {
        return chunked ? nextChunked() : nextEom();
    }

    private byte[] nextEom() throws IOException {
        byte[] buf = new byte[1024];
        int len = 0;
        while (true) {
            int b = in.read();
            if (b < 0) {
                if (isBlank(buf, len)) return null;
                throw new FramingException("the stream ended inside a message (no ]]>]]>)");
            }
            if (len >= maxMessageBytes + EOM.length) {
                throw new FramingException("message larger than " + maxMessageBytes + " bytes");
            }
            if (len == buf.length) buf = java.util.Arrays.copyOf(buf, len * 2);
            buf[len++] = (byte) b;
            if (b == '>' && len >= EOM.length && endsWithEom(buf, len)) {
                return java.util.Arrays.copyOf(buf, len - EOM.length);
            }
        }
    }

    private static boolean endsWithEom(byte[] buf, int len) {
        for (int i = 0; i < EOM.length; i++) {
            if (buf[len - EOM.length + i] != EOM[i]) return false;
        }
        return true;
    }

    private byte[] nextChunked() throws IOException {
        ByteArrayOutputStream msg = new ByteArrayOutputStream(1024);
        boolean first = true;
        while (true) {
            int lf = in.read();
            if (lf < 0) {
                if (first) return null;
                throw new FramingException("the stream ended inside a chunked message");
            }
            if (lf != '\n') throw new FramingException("expected LF at the start of a chunk header, got " + describe(lf));
            expect('#');
            int c = readByte();
            if (c == '#') {
                expect('\n');
                if (first) throw new FramingException("end-of-chunks marker before any chunk");
                return msg.toByteArray();
            }
            if (c < '1' || c > '9') throw new FramingException("bad chunk size: starts with " + describe(c));
            long size = c - '0';
            int digits = 1;
            while (true) {
                c = readByte();
                if (c == '\n') break;
                if (c < '0' || c > '9') throw new FramingException("bad chunk size: " + describe(c) + " in the size");
                size = size * 10 + (c - '0');
                if (++digits > 10 || size > MAX_CHUNK) throw new FramingException("chunk size over 4294967295");
            }
            if (msg.size() + size > maxMessageBytes) {
                throw new FramingException("message larger than " + maxMessageBytes + " bytes");
            }
            byte[] buf = new byte[(int) size];
            int off = 0;
            while (off < buf.length) {
                int n = in.read(buf, off, buf.length - off);
                if (n < 0) throw new FramingException("the stream ended inside a chunk");
                off += n;
            }
            msg.write(buf, 0, buf.length);
            first = false;
        }
    }

    private int readByte() throws IOException {
        int b = in.read();
        if (b < 0) throw new FramingException("the stream ended inside a chunk header");
        return b;
    }

    private void expect(int wanted) throws IOException {
        int b = readByte();
        if (b != wanted) throw new FramingException("expected " + describe(wanted) + " in a chunk header, got " + describe(b));
    }

    private static String describe(int b) {
        return b >= 0x21 && b < 0x7f ? "'" + (char) b + "'" : String.format("0x%02x", b);
    }

    private static boolean isBlank(byte[] bytes, int len) {
        for (int i = 0; i < len; i++) {
            byte b = bytes[i];
            if (b != ' ' && b != '\n' && b != '\r' && b != '\t') return false;
        }
        return true;
    }
}
