package io.vrouter.snmp;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Remembers the SNMPv3 SETs of the last 150 seconds (RFC 3414's time window), by user, msgID and
 * content, so that a captured authenticated SET sent again within the window is dropped rather than
 * carried out twice: USM's timeliness check lets it through (RFC 3414 §3.2 step 7 accepts any message
 * inside the window). A manager gives every message, retransmissions included, a msgID of its own
 * (RFC 3412 §6.2), but two managers of one user may happen on the same msgID (processes forked from
 * one that had used Net-SNMP's library send the very same sequence): the content (the scoped PDU,
 * its request-id included) tells their SETs apart, while a replay repeats it byte for byte. At most
 * {@value #MAX_ENTRIES} are kept; past that, the oldest go first.
 */
final class ReplayWindow {
    static final long WINDOW_NANOS = TimeUnit.SECONDS.toNanos(150);
    static final int MAX_ENTRIES = 100_000;

    private final Map<String, Long> seen = new ConcurrentHashMap<>();

    /** True the first time a message is seen within the window; false for a replay. */
    boolean firstTime(String user, int msgId, byte[] scopedPdu) {
        long now = System.nanoTime();
        if (seen.size() >= MAX_ENTRIES) forgetOld(now);
        String key = user + '\0' + msgId + '\0' + sha256(scopedPdu);
        Long before = seen.putIfAbsent(key, now);
        if (before == null) return true;
        if (now - before > WINDOW_NANOS) {
            seen.put(key, now);
            return true;
        }
        return false;
    }

    private void forgetOld(long now) {
        seen.values().removeIf(t -> now - t > WINDOW_NANOS);
        if (seen.size() >= MAX_ENTRIES) {
            // Still full within the window: keep the newest half.
            long[] times = seen.values().stream().mapToLong(Long::longValue).sorted().toArray();
            long cut = times[times.length / 2];
            seen.values().removeIf(t -> t < cut);
        }
    }

    private static String sha256(byte[] bytes) {
        try {
            return Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
