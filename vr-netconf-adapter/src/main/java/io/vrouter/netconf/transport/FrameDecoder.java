package io.vrouter.netconf.transport;

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
    private final MessageMemory memory;
    private volatile boolean chunked;
    /**
     * Where chunks are read before the message keeps them: one for all the session's messages, not
     * one per message; small, because the session holds it for as long as it lasts.
     */
    private final byte[] chunkBuffer = new byte[8 * 1024];

    /** A decoder whose messages take whatever memory they need (clients reading replies, tests). */
    public FrameDecoder(InputStream in, int maxMessageBytes) {
        this(in, maxMessageBytes, new MessageMemory(Long.MAX_VALUE));
    }

    /** A decoder whose messages take their memory from the given, shared pool. */
    public FrameDecoder(InputStream in, int maxMessageBytes, MessageMemory memory) {
        this.in = in;
        this.maxMessageBytes = maxMessageBytes;
        this.memory = memory;
    }

    /** Switches to chunked framing for every message after the current one (base:1.1 agreed). */
    public void useChunkedFraming() {
        this.chunked = true;
    }

    public boolean chunked() {
        return chunked;
    }

    /**
     * The next message, or null when the peer closed the stream between messages. A message over
     * the size limit, or that the memory cannot take, is read to its end and returned
     * {@link Message#refused()}: the session answers it and goes on.
     *
     * @throws FramingException on a framing error; also when the stream ends inside a message
     */
    public Message read() throws IOException {
        Message m = new Message(memory);
        try {
            if (!(chunked ? readChunked(m) : readEom(m))) {
                m.close();
                return null;
            }
            return m;
        } catch (IOException | RuntimeException e) {
            m.close();
            throw e;
        }
    }

    /**
     * The next message's bytes, or null when the peer closed the stream between messages.
     *
     * @throws FramingException on a framing error or a message over the size limit; also when the
     *                          stream ends inside a message
     */
    public byte[] next() throws IOException {
        try (Message m = read()) {
            if (m == null) return null;
            if (m.refused() != null) throw new FramingException("message larger than " + maxMessageBytes + " bytes");
            return m.bytes();
        }
    }

    private boolean readEom(Message m) throws IOException {
        byte[] last = new byte[EOM.length];
        while (true) {
            int b = in.read();
            if (b < 0) {
                if (m.refused() == null && m.isBlank()) return false;
                throw new FramingException("the stream ended inside a message (no ]]>]]>)");
            }
            m.append(b);
            if (m.length() > maxMessageBytes + EOM.length) m.refuse(Message.Refusal.TOO_BIG);
            System.arraycopy(last, 1, last, 0, last.length - 1);
            last[last.length - 1] = (byte) b;
            if (b == '>' && m.length() >= EOM.length && java.util.Arrays.equals(last, EOM)) {
                m.dropLast(EOM.length);
                return true;
            }
        }
    }

    private boolean readChunked(Message m) throws IOException {
        boolean first = true;
        while (true) {
            int lf = in.read();
            if (lf < 0) {
                if (first) return false;
                throw new FramingException("the stream ended inside a chunked message");
            }
            if (lf != '\n') throw new FramingException("expected LF at the start of a chunk header, got " + describe(lf));
            expect('#');
            int c = readByte();
            if (c == '#') {
                expect('\n');
                if (first) throw new FramingException("end-of-chunks marker before any chunk");
                return true;
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
            for (long left = size; left > 0; ) {
                int n = in.read(chunkBuffer, 0, (int) Math.min(left, chunkBuffer.length));
                if (n < 0) throw new FramingException("the stream ended inside a chunk");
                m.append(chunkBuffer, 0, n);
                if (m.length() > maxMessageBytes) m.refuse(Message.Refusal.TOO_BIG);
                left -= n;
            }
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
}
