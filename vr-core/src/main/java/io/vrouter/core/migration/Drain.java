package io.vrouter.core.migration;

import com.fasterxml.jackson.databind.JsonNode;
import io.vrouter.core.model.ModelJson;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.spi.ConflictException;
import io.vrouter.core.spi.ValidationException;
import io.vrouter.core.spi.VirtualRouters;
import io.vrouter.core.spi.VrException;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Draining the router for maintenance (ADR 0023): it is marked drained at once (it takes no new VR
 * from then on, until opened), then every VR it has is moved to a peer, one {@link Migration} (one
 * change set) each, in vmIndex order, on a thread of its own. Each VR goes to the peer with the most
 * free capacity as the peers' own REST says it ({@code GET /api/v1/hypervisor}: memory not committed
 * yet, then fewest VRs), or among the peers named; a peer that refuses it passes it to the next. The
 * VRs' events tell the progress; the {@link Report} says where each went, or why not. One drain at a
 * time, shared by every interface.
 */
public final class Drain {
    private static final Logger log = LoggerFactory.getLogger(Drain.class);

    /** One VR of a drain: moved to which peer and vmIndex there, or why not (problem). */
    public record VrOutcome(int vmIndex, String vmName, String peer, Integer peerIndex, String problem) {
    }

    /**
     * What a drain did, or does: whether the router is drained (since when), whether its drain runs,
     * the peers it moves to, how many VRs it has to move, how many it moved and could not, and each VR's outcome.
     */
    public record Report(boolean drained, String since, boolean draining, String started, String ended, List<String> peers,
                         int total, int moved, int notMoved, List<VrOutcome> routers) {
    }

    private final Map<String, PeerClient> peers;
    /** The last drain, null: none since the server started. Guarded by this. */
    private Run last;

    public Drain(Map<String, PeerClient> peers) {
        this.peers = peers;
    }

    private static final class Run {
        final List<String> peers;
        final List<Integer> indices;
        final List<VrOutcome> outcomes = Collections.synchronizedList(new ArrayList<>());
        final CompletableFuture<Void> done = new CompletableFuture<>();
        final Instant started = Instant.now();
        volatile Instant ended;

        Run(List<String> peers, List<Integer> indices) {
            this.peers = peers;
            this.indices = indices;
        }
    }

    /**
     * Drains the router: marks it drained and starts moving its VRs to {@code named} (null or empty:
     * every peer). Returns at once; {@link #await} waits for the end.
     *
     * @throws ValidationException when a name is no peer, or the router has none
     * @throws ConflictException when a drain runs already, or the router is drained with no VR left
     */
    public synchronized Report start(VirtualRouters view, List<String> named) {
        List<String> to = check(view, named);
        List<Integer> indices = new ArrayList<>(view.indices());
        view.setDrained(true);
        Run run = new Run(List.copyOf(to), List.copyOf(indices));
        last = run;
        Thread t = new Thread(() -> drain(view, run), "drain");
        t.setDaemon(true);
        t.start();
        log.info("draining: {} VRs to peers {}", indices.size(), to);
        return report(view);
    }

    /**
     * What {@link #start} would refuse, checked without starting (SNMP tells a refusal before its SET
     * commits); the peers it would move to.
     *
     * @throws ValidationException when a name is no peer, or the router has none
     * @throws ConflictException when a drain runs already, or the router is drained with no VR left
     */
    public synchronized List<String> check(VirtualRouters view, List<String> named) {
        if (last != null && !last.done.isDone()) {
            throw new ConflictException(VrException.Reason.IN_USE, null, "a drain is under way (since " + last.started
                    + ", " + last.outcomes.size() + " of " + last.indices.size() + " VRs done): wait for its report");
        }
        List<String> to = new ArrayList<>(named == null || named.isEmpty() ? peers.keySet() : named);
        if (peers.isEmpty()) {
            throw new ValidationException("peers", "this router has no peers to move its VRs to: declare them as settings peer.NAME");
        }
        for (String p : to) {
            if (!peers.containsKey(p)) {
                throw new ValidationException("peers", "'" + p + "' is no peer of this router (its peers: "
                        + String.join(", ", peers.keySet()) + ")");
            }
        }
        Optional<Instant> since = view.drainedSince();
        if (since.isPresent() && view.indices().isEmpty()) {
            throw new ConflictException(VrException.Reason.STATE, null, "this router is drained already (since " + since.get()
                    + ") and has no VR left to move; open it to take VRs again");
        }
        return to;
    }

    /**
     * Opens the router: it takes new VRs again.
     *
     * @throws ConflictException while a drain runs (it would move away what is made meanwhile)
     */
    public synchronized void open(VirtualRouters view) {
        if (last != null && !last.done.isDone()) {
            throw new ConflictException(VrException.Reason.IN_USE, null, "a drain is under way (since " + last.started
                    + ", " + last.outcomes.size() + " of " + last.indices.size() + " VRs done): open the router once it has ended");
        }
        view.setDrained(false);
    }

    /** Whether the last drain ended within {@code wait} (true when there is none). */
    public boolean await(Duration wait) throws InterruptedException {
        Run run;
        synchronized (this) {
            run = last;
        }
        if (run == null) return true;
        try {
            run.done.get(wait.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException stillDraining) {
            return false;
        } catch (java.util.concurrent.ExecutionException cannotHappen) {
            return true;
        }
    }

    /** The router's drained state and its last drain. */
    public Report report(VirtualRouters view) {
        Run run;
        synchronized (this) {
            run = last;
        }
        Optional<Instant> since = view.drainedSince();
        String drainedSince = since.map(Instant::toString).orElse(null);
        if (run == null) return new Report(since.isPresent(), drainedSince, false, null, null, List.of(), 0, 0, 0, List.of());
        List<VrOutcome> outcomes;
        synchronized (run.outcomes) {
            outcomes = List.copyOf(run.outcomes);
        }
        int moved = (int) outcomes.stream().filter(o -> o.problem() == null).count();
        Instant ended = run.ended;
        return new Report(since.isPresent(), drainedSince, !run.done.isDone(), run.started.toString(),
                ended == null ? null : ended.toString(), run.peers, run.indices.size(), moved, outcomes.size() - moved, outcomes);
    }

    private void drain(VirtualRouters view, Run run) {
        try {
            int n = 0;
            for (int vmIndex : run.indices) {
                n++;
                run.outcomes.add(moveOne(view, run.peers, vmIndex, "; drain " + n + " of " + run.indices.size()));
            }
        } catch (RuntimeException | Error e) {
            log.error("drain stopped", e);
        } finally {
            run.ended = Instant.now();
            run.done.complete(null);
            log.info("drain ended: {}", report(view));
        }
    }

    /** Moves one VR to the first of the peers, best first, that takes it. */
    private VrOutcome moveOne(VirtualRouters view, List<String> to, int vmIndex, String note) {
        Optional<VmConfigEntry> row = view.getConfig(vmIndex);
        if (row.isEmpty()) return new VrOutcome(vmIndex, null, null, null, "removed meanwhile");
        String name = row.get().vmName;
        List<String> refusals = new ArrayList<>();
        for (String peer : ranked(to, row.get())) {
            try {
                Migration.Moved m = Migration.begin(view, vmIndex, peers.get(peer), peers).finish(note);
                return new VrOutcome(vmIndex, name, m.peer(), m.peerIndex(), null);
            } catch (MigrationRefusedException refused) {
                refusals.add(refused.getMessage()); // this peer's refusal: the next may take it
            } catch (VrException here) {
                // this router's refusal (removed or changing meanwhile): no peer would change that
                return new VrOutcome(vmIndex, name, null, null, here.getMessage());
            }
        }
        return new VrOutcome(vmIndex, name, null, null, String.join("; ", refusals));
    }

    /** What a peer says it can take, as its REST's hypervisor answers; empty: it does not answer. */
    private record Room(String peer, long freeMemory, int vrs) {
    }

    /**
     * The peers, the likeliest to take this VR first: those whose memory not committed yet holds it (a
     * host without a limit holds any), by most free memory, then fewest VRs (so VRs spread over equal
     * peers), then name; those that did not answer last (their refusal is then said).
     */
    List<String> ranked(List<String> to, VmConfigEntry row) {
        List<Room> rooms = new ArrayList<>();
        List<String> silent = new ArrayList<>();
        for (String p : to) {
            Optional<Room> r = room(p);
            if (r.isPresent()) rooms.add(r.get());
            else silent.add(p);
        }
        long memory = row.vmConfigMemory == null ? 0 : row.vmConfigMemory;
        rooms.sort(Comparator.comparing((Room r) -> r.freeMemory() < memory).thenComparing(Room::freeMemory, Comparator.reverseOrder())
                .thenComparingInt(Room::vrs).thenComparing(Room::peer));
        List<String> out = new ArrayList<>();
        for (Room r : rooms) out.add(r.peer());
        out.addAll(silent);
        return out;
    }

    private Optional<Room> room(String peer) {
        try {
            PeerClient.Answer a = peers.get(peer).get("/api/v1/hypervisor");
            if (a.status() != 200) return Optional.empty();
            JsonNode h = ModelJson.mapper().readTree(a.body());
            long free = h.hasNonNull("vmHvMemory") ? h.get("vmHvMemory").asLong() - h.path("vmCommittedMemory").asLong()
                    : Long.MAX_VALUE;
            return Optional.of(new Room(peer, free, h.path("vmConfiguredVMs").asInt()));
        } catch (PeerClient.Unreachable | IOException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
