package io.vrouter.netconf.transport;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * One message as the {@link FrameDecoder} read it, in blocks whose memory is reserved from the
 * {@link MessageMemory} as they fill, and held until {@link #close()}. A message over the size limit,
 * or one the memory could not take, is read to its end but not kept: it is {@link #refused()}, and
 * only its first block is kept (where the rpc's message-id is).
 */
public final class Message implements AutoCloseable {
    static final int BLOCK = 64 * 1024;
    private static final int FIRST_ALLOCATION = 1024;

    /** Why a message was not kept. */
    public enum Refusal {
        /** Larger than {@code netconf.max-message-bytes}. */
        TOO_BIG,
        /** The memory for requests is taken by other sessions' requests. */
        NO_MEMORY
    }

    private final MessageMemory memory;
    private final List<byte[]> blocks = new ArrayList<>();
    /** The bytes read, and of them those kept. */
    private long length;
    private long stored;
    private long reserved;
    private Refusal refusal;

    Message(MessageMemory memory) {
        this.memory = memory;
    }

    void append(int b) {
        length++;
        if (refusal != null) return;
        int at = (int) (stored % BLOCK);
        if (at == 0 && !newBlock()) return;
        room(at, 1)[at] = (byte) b;
        stored++;
    }

    void append(byte[] buf, int off, int len) {
        length += len;
        for (int done = 0; done < len && refusal == null; ) {
            int at = (int) (stored % BLOCK);
            if (at == 0 && !newBlock()) return;
            int n = Math.min(len - done, BLOCK - at);
            System.arraycopy(buf, off + done, room(at, n), at, n);
            stored += n;
            done += n;
        }
    }

    private boolean newBlock() {
        if (!reserve(BLOCK)) {
            refuse(Refusal.NO_MEMORY);
            return false;
        }
        blocks.add(new byte[FIRST_ALLOCATION]);
        return true;
    }

    /**
     * The last block, grown to take {@code n} more bytes at {@code at}. A block is reserved whole
     * but allocated as it fills: nearly every rpc has a few hundred bytes, and a whole block
     * allocated (and zeroed) for each would cost more than the little copying of a growing one.
     */
    private byte[] room(int at, int n) {
        byte[] last = blocks.get(blocks.size() - 1);
        if (at + n > last.length) {
            last = java.util.Arrays.copyOf(last, Math.min(BLOCK, Math.max(at + n, 2 * last.length)));
            blocks.set(blocks.size() - 1, last);
        }
        return last;
    }

    /** Reserves more memory for this message (its parsed form), released with it. */
    public boolean reserve(long bytes) {
        if (!memory.reserve(bytes)) return false;
        reserved += bytes;
        return true;
    }

    /** Stops keeping the message: all but the first block go. */
    void refuse(Refusal why) {
        if (refusal != null) return;
        refusal = why;
        while (blocks.size() > 1) blocks.remove(blocks.size() - 1);
        stored = Math.min(stored, BLOCK);
        long keep = blocks.isEmpty() ? 0 : BLOCK;
        memory.release(reserved - keep);
        reserved = keep;
    }

    /** Drops the last bytes read (the end-of-message marker). */
    void dropLast(int n) {
        length -= n;
        if (refusal == null) stored -= n;
    }

    public long length() {
        return length;
    }

    /** Null when the message was kept whole. */
    public Refusal refused() {
        return refusal;
    }

    /** The message; for a refused one, as much of its beginning as was kept. */
    public InputStream stream() {
        List<InputStream> parts = new ArrayList<>();
        long left = stored;
        for (byte[] b : blocks) {
            int n = (int) Math.min(left, BLOCK);
            parts.add(new ByteArrayInputStream(b, 0, n));
            left -= n;
        }
        return new SequenceInputStream(Collections.enumeration(parts));
    }

    /** The bytes of a kept message. */
    public byte[] bytes() {
        try {
            return stream().readAllBytes();
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    boolean isBlank() {
        try (InputStream in = stream()) {
            for (int b = in.read(); b >= 0; b = in.read()) {
                if (b != ' ' && b != '\n' && b != '\r' && b != '\t') return false;
            }
            return true;
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        blocks.clear();
        memory.release(reserved);
        reserved = 0;
    }
}
