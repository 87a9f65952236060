package io.vrouter.core.migration;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The moves answered when accepted (REST's migrate, ADR 0023 decision 14): each {@link Migration.Begun} finishes on
 * a thread of its own, and the last {@link #KEPT} are kept with their end, by a number, for whoever
 * asks afterwards. In memory: a restart forgets them (the VRs' events say where each went).
 */
public final class AcceptedMoves {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(AcceptedMoves.class);

    /** How many moves are kept, the latest. */
    public static final int KEPT = 200;

    /** A move as it is read: {@code migrating}, {@code moved} (with its vmIndex on the peer) or {@code refused} (why). */
    public record State(long id, int vmIndex, String vmName, String peer, String state, Integer peerIndex,
                        String problem, String started, String ended) {
    }

    /** One move under way or ended. */
    public static final class Move {
        private final long id;
        private final Migration.Begun begun;
        private final Instant started = Instant.now();
        private final CompletableFuture<Migration.Moved> end = new CompletableFuture<>();
        private volatile Instant ended;

        private Move(long id, Migration.Begun begun) {
            this.id = id;
            this.begun = begun;
        }

        public long id() {
            return id;
        }

        /** Whether it ended within {@code wait}. */
        public boolean await(Duration wait) throws InterruptedException {
            try {
                end.get(wait.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException stillMoving) {
                return false;
            } catch (ExecutionException refused) {
                // ended
            }
            return true;
        }

        /** Where it went, once ended; the refusal, as {@link Migration#move} throws it, when it did not move. */
        public Migration.Moved moved() {
            try {
                return end.join();
            } catch (CompletionException e) {
                if (e.getCause() instanceof RuntimeException r) throw r;
                throw e;
            }
        }

        public State state() {
            String state = "migrating";
            Integer peerIndex = null;
            String problem = null;
            if (end.isDone()) {
                try {
                    peerIndex = end.join().peerIndex();
                    state = "moved";
                } catch (CompletionException e) {
                    state = "refused";
                    // a refusal says why in its own words; a fault's text is the server's log's, not the client's
                    problem = e.getCause() instanceof io.vrouter.core.spi.VrException v ? v.getMessage()
                            : "the move failed (the server's log says why); the VR stays here";
                }
            }
            Instant at = ended;
            return new State(id, begun.vmIndex(), begun.vmName(), begun.peer(), state, peerIndex, problem,
                    started.toString(), at == null ? null : at.toString());
        }
    }

    private final AtomicLong ids = new AtomicLong();
    private final Map<Long, Move> kept = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Move> eldest) {
            return size() > KEPT;
        }
    };

    /** Finishes the move on a thread of its own, keeping it. */
    public Move start(Migration.Begun begun) {
        Move m = new Move(ids.incrementAndGet(), begun);
        synchronized (kept) {
            kept.put(m.id, m);
        }
        Thread t = new Thread(() -> {
            try {
                Migration.Moved moved = begun.finish();
                m.ended = Instant.now();
                m.end.complete(moved);
            } catch (RuntimeException | Error e) {
                // a refusal (VrException) or a fault: either way its end, for whoever waits or asks
                if (!(e instanceof io.vrouter.core.spi.VrException)) LOG.error("move {} of VR {} failed", m.id, begun.vmName(), e);
                m.ended = Instant.now();
                m.end.completeExceptionally(e);
            }
        }, "migrate-" + m.id + "-" + begun.vmName());
        t.setDaemon(true);
        t.start();
        return m;
    }

    public Optional<Move> get(long id) {
        synchronized (kept) {
            return Optional.ofNullable(kept.get(id));
        }
    }

    /** The moves kept, oldest first. */
    public List<State> all() {
        List<Move> moves;
        synchronized (kept) {
            moves = new ArrayList<>(kept.values());
        }
        List<State> out = new ArrayList<>(moves.size());
        for (Move m : moves) out.add(m.state());
        return out;
    }
}
