package io.vrouter.netconf.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class FrameDecoderTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String s(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    /** An input stream that hands out one byte per read, as a slow network would. */
    private static InputStream trickle(String data) {
        byte[] bytes = b(data);
        return new InputStream() {
            int pos;

            @Override
            public int read() {
                return pos < bytes.length ? bytes[pos++] & 0xff : -1;
            }

            @Override
            public int read(byte[] buf, int off, int len) {
                if (pos >= bytes.length) return -1;
                if (len == 0) return 0;
                buf[off] = bytes[pos++];
                return 1;
            }
        };
    }

    private static FrameDecoder chunked(InputStream in) {
        FrameDecoder d = new FrameDecoder(in, 1 << 20);
        d.useChunkedFraming();
        return d;
    }

    @Test
    void endOfMessageFramingSplitsCoalescedMessagesAndKeepsPartialMarkers() throws IOException {
        FrameDecoder d = new FrameDecoder(new ByteArrayInputStream(b("<a/>]]>]]><b>]]]>]]></b>]]>]]>\n")), 1 << 20);
        assertThat(s(d.next())).isEqualTo("<a/>");
        // "]]]>]]>" ends a message after its first ']'.
        assertThat(s(d.next())).isEqualTo("<b>]");
        assertThat(s(d.next())).isEqualTo("</b>");
        assertThat(d.next()).isNull();
    }

    @Test
    void endOfMessageFramingSurvivesOneByteReads() throws IOException {
        FrameDecoder d = new FrameDecoder(trickle("<hello>]]></hello>]]>]]><rpc/>]]>]]>"), 1 << 20);
        assertThat(s(d.next())).isEqualTo("<hello>]]></hello>");
        assertThat(s(d.next())).isEqualTo("<rpc/>");
        assertThat(d.next()).isNull();
    }

    @Test
    void endOfMessageStreamEndingInsideAMessageIsAFramingError() {
        FrameDecoder d = new FrameDecoder(new ByteArrayInputStream(b("<rpc>")), 1 << 20);
        assertThatThrownBy(d::next).isInstanceOf(FramingException.class);
    }

    @Test
    void chunkedFramingJoinsChunksAndSplitsCoalescedMessages() throws IOException {
        FrameDecoder d = chunked(new ByteArrayInputStream(b("\n#4\n<rpc\n#3\n/>x\n##\n\n#2\nab\n##\n")));
        assertThat(s(d.next())).isEqualTo("<rpc/>x");
        assertThat(s(d.next())).isEqualTo("ab");
        assertThat(d.next()).isNull();
    }

    @Test
    void chunkedFramingSurvivesOneByteReads() throws IOException {
        FrameDecoder d = chunked(trickle("\n#10\n0123456789\n#1\nA\n##\n\n#12\n<rpc>\n##\n</>\n##\n"));
        assertThat(s(d.next())).isEqualTo("0123456789A");
        // Chunk data may contain anything, including what looks like a chunk header.
        assertThat(s(d.next())).isEqualTo("<rpc>\n##\n</>");
        assertThat(d.next()).isNull();
    }

    @Test
    void badChunkHeadersAreFramingErrors() {
        String[] bad = {
            "#4\nabcd\n##\n",          // no LF before '#'
            "\n4\nabcd\n##\n",         // no '#'
            "\n#0\n\n##\n",            // size zero
            "\n#04\nabcd\n##\n",       // leading zero
            "\n#a\nabcd\n##\n",        // not a number
            "\n#4x\nabcd\n##\n",       // junk after the size
            "\n#4294967296\n",         // over 4294967295
            "\n##\n",                  // end of chunks before any chunk
            "\n#4\nab",                // stream ends inside a chunk
            "\n#4\nabcd\n#",           // stream ends inside a header
            "\n#4\nabcdX#2\nab\n##\n", // data longer than the size
        };
        for (String in : bad) {
            FrameDecoder d = chunked(new ByteArrayInputStream(b(in)));
            assertThatThrownBy(d::next).as("%s", in.replace("\n", "\\n")).isInstanceOf(FramingException.class);
        }
    }

    /** The server's way: a message over the limit is read to its end, not kept, and the next one is read. */
    @Test
    void aMessageOverTheLimitIsReadToItsEndAndRefusedAndTheNextOneIsRead() throws IOException {
        String big = "<rpc message-id='7'>" + "x".repeat(200) + "</rpc>";
        for (boolean chunkedFraming : new boolean[] {false, true}) {
            String data = chunkedFraming ? "\n#" + big.length() + "\n" + big + "\n##\n\n#5\nhello\n##\n" : big + "]]>]]>hello]]>]]>";
            FrameDecoder d = new FrameDecoder(trickle(data), 64);
            if (chunkedFraming) d.useChunkedFraming();
            try (Message m = d.read()) {
                assertThat(m.refused()).isEqualTo(Message.Refusal.TOO_BIG);
                assertThat(m.length()).isEqualTo(big.length());
                assertThat(s(m.stream().readAllBytes())).startsWith("<rpc message-id='7'>");
            }
            assertThat(s(d.next())).isEqualTo("hello");
        }
    }

    @Test
    void messagesTakeTheirMemoryFromTheSharedPoolAndGiveItBackWhenClosed() throws IOException {
        MessageMemory memory = new MessageMemory(3 * Message.BLOCK);
        String twoBlocks = "x".repeat(Message.BLOCK + 1);
        FrameDecoder d = new FrameDecoder(new ByteArrayInputStream(b((twoBlocks + "]]>]]>").repeat(3))), 1 << 20, memory);
        Message first = d.read();
        assertThat(first.refused()).isNull();
        assertThat(memory.used()).isEqualTo(2 * Message.BLOCK);
        try (Message second = d.read()) {
            assertThat(second.refused()).isEqualTo(Message.Refusal.NO_MEMORY);
            assertThat(second.length()).isEqualTo(twoBlocks.length());
        }
        assertThat(memory.used()).isEqualTo(2 * Message.BLOCK);
        first.close();
        assertThat(memory.used()).isZero();
        try (Message third = d.read()) {
            assertThat(third.refused()).isNull();
            assertThat(s(third.bytes())).isEqualTo(twoBlocks);
        }
        assertThat(memory.used()).isZero();
    }

    @Test
    void messagesOfEveryLengthAroundTheGrowingBlocksComeOutWhole() throws IOException {
        // A block is allocated small and grown as the message fills it: every length across its
        // growth steps and the block boundary, in both framings, byte by byte and in one piece.
        for (int n : new int[] {1, 1023, 1024, 1025, 2049, 40_000, Message.BLOCK - 1, Message.BLOCK, Message.BLOCK + 1, 3 * Message.BLOCK + 7}) {
            StringBuilder sb = new StringBuilder(n);
            for (int i = 0; i < n; i++) sb.append((char) ('a' + i % 26));
            String msg = sb.toString();
            MessageMemory memory = new MessageMemory(Long.MAX_VALUE);
            FrameDecoder eom = new FrameDecoder(new ByteArrayInputStream(b(msg + "]]>]]>" + msg + "]]>]]>")), 1 << 20, memory);
            assertThat(s(eom.next())).as("end-of-message, %d bytes", n).isEqualTo(msg);
            assertThat(s(eom.next())).as("end-of-message, second, %d bytes", n).isEqualTo(msg);
            for (InputStream in : new InputStream[] {new ByteArrayInputStream(b("\n#" + n + "\n" + msg + "\n##\n")),
                    trickle("\n#" + n + "\n" + msg + "\n##\n")}) {
                FrameDecoder chunked = new FrameDecoder(in, 1 << 20, memory);
                chunked.useChunkedFraming();
                assertThat(s(chunked.next())).as("chunked, %d bytes", n).isEqualTo(msg);
            }
            assertThat(memory.used()).as("memory given back, %d bytes", n).isZero();
        }
    }

    @Test
    void messagesOverTheLimitAreRefused() {
        FrameDecoder eom = new FrameDecoder(new ByteArrayInputStream(b("x".repeat(100) + "]]>]]>")), 64);
        assertThatThrownBy(eom::next).isInstanceOf(FramingException.class).hasMessageContaining("larger");
        FrameDecoder ch = new FrameDecoder(new ByteArrayInputStream(b("\n#40\n" + "x".repeat(40) + "\n#40\n" + "y".repeat(40) + "\n##\n")), 64);
        ch.useChunkedFraming();
        assertThatThrownBy(ch::next).isInstanceOf(FramingException.class).hasMessageContaining("larger");
    }

    @Test
    void writerRoundTripsThroughTheDecoderInBothFramingsAndChunksLargeMessages() throws IOException {
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        MessageWriter w = new MessageWriter(wire, 8);
        w.write(b("<hello/>"));
        w.useChunkedFraming();
        String big = "<data>" + "z".repeat(30) + "</data>";
        try (var os = w.begin()) {
            for (byte x : b(big)) os.write(x);
        }
        w.write(b("<ok/>"));
        String text = wire.toString(StandardCharsets.UTF_8);
        assertThat(text).startsWith("<hello/>]]>]]>\n#8\n<data>zz\n#8\n");
        assertThat(text).endsWith("\n#5\n<ok/>\n##\n");

        FrameDecoder d = new FrameDecoder(new ByteArrayInputStream(wire.toByteArray()), 1 << 20);
        assertThat(s(d.next())).isEqualTo("<hello/>");
        d.useChunkedFraming();
        assertThat(s(d.next())).isEqualTo(big);
        assertThat(s(d.next())).isEqualTo("<ok/>");
    }
}
