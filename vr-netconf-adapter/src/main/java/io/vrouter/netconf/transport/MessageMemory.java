package io.vrouter.netconf.transport;

/**
 * The heap that the NETCONF requests in progress may hold, shared by all sessions: a message's bytes
 * while it is read, and then an estimate of its parsed form until it is answered. A request that
 * would take more is refused with an rpc-error, so no message and no number of concurrent sessions
 * can exhaust the heap.
 */
public final class MessageMemory {
    private final long capacity;
    private long used;

    public MessageMemory(long capacity) {
        this.capacity = capacity;
    }

    /** A quarter of the largest heap: the server's own state (10,000 VRs: about 21 MB) keeps the rest. */
    public static MessageMemory quarterOfHeap() {
        return new MessageMemory(Runtime.getRuntime().maxMemory() / 4);
    }

    public long capacity() {
        return capacity;
    }

    /** What the requests in progress hold now. */
    public synchronized long used() {
        return used;
    }

    synchronized boolean reserve(long bytes) {
        if (used + bytes > capacity) return false;
        used += bytes;
        return true;
    }

    synchronized void release(long bytes) {
        used -= bytes;
    }
}
