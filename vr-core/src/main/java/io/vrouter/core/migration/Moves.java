package io.vrouter.core.migration;

import com.fasterxml.jackson.databind.JsonNode;
import io.vrouter.core.driver.DriverException;
import io.vrouter.core.driver.LiveMigration;
import io.vrouter.core.driver.LiveMigration.Whereabouts;
import io.vrouter.core.model.ModelJson;
import io.vrouter.core.model.OperState;
import io.vrouter.core.model.VirtualRouter;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.persistence.MoveJournal;
import io.vrouter.core.persistence.MoveJournal.Arriving;
import io.vrouter.core.persistence.MoveJournal.Leaving;
import io.vrouter.core.spi.ChangeSet;
import io.vrouter.core.spi.ConflictException;
import io.vrouter.core.spi.VrException;
import io.vrouter.core.spi.VirtualRouters;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This router's moves under way (ADR 0023, decision 10), on disk in its {@link MoveJournal}, and how
 * one is finished when its source did not hear how it ended (a destination killed or cut off before it
 * answered, a source killed before it removed its copy). The destination's journal decides: the move
 * happened when the destination has the VR made. So the source, the only side that can hold a second
 * copy, asks: it keeps its copy held ({@code migrating}) and asks the destination every
 * {@link #ASK_EVERY} until it answers, then removes its copy (arrived) or lets it go (absent). The
 * destination, asked about a move it does not have, refuses that move from then on, so a request of it
 * still on its way cannot make a second copy after the source was told there is none.
 */
public final class Moves implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Moves.class);
    /** How often a source asks its peer about a move whose end it did not hear. */
    static final Duration ASK_EVERY = Duration.ofSeconds(2);

    /** What a destination has of a move: its VR made, being made, or none (and never will). */
    public enum Arrival { arrived, arriving, absent }

    /** A destination's answer to {@code GET /migrations/{move}}: the move's state, and the VR's vmIndex there. */
    public record Where(String move, Arrival state, Integer vmIndex) {
    }

    private final MoveJournal journal;
    /** Moves the destination told their source it has none of: arriving later, they are refused. */
    private final Set<String> givenUp = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService asker = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "vrouter-move-settler");
        t.setDaemon(true);
        return t;
    });

    /** The moves recorded in {@code journal}; in memory only when null. */
    public Moves(MoveJournal journal) {
        this.journal = journal == null ? MoveJournal.inMemory() : journal;
    }

    public MoveJournal journal() {
        return journal;
    }

    // ---------------------------------------------------------------- the source

    /** Records the VR as leaving for the peer, on disk, before the peer hears of it; {@code kind}: see {@link MoveJournal#LIVE}. */
    Leaving leave(VirtualRouters view, VmConfigEntry row, String peer, String kind) {
        String uuid = view.get(row.vmIndex).map(vr -> vr.vmEntry == null ? null : vr.vmEntry.vmUUID).orElse(null);
        Leaving l = new Leaving(UUID.randomUUID().toString(), row.vmIndex, row.vmName, uuid, peer, Instant.now().toString(), kind);
        journal.add(l);
        return l;
    }

    /** The move is over here, its copy here removed ({@code moved}) or kept: forgotten, and the peer told to forget its side. */
    void settled(Leaving l, PeerClient peer, boolean moved) {
        journal.forget(l.move());
        // a live move kept here may have left an arrival there (its 202 answered): forgotten too
        if (!(moved || l.live()) || peer == null) return;
        try {
            peer.delete(Migration.INCOMING + "/arrivals/" + l.move());
        } catch (PeerClient.Unreachable e) {
            // its record of the arrival stays: it answers "arrived" if asked, which is true
            log.info("could not tell peer {} that move {} of VR {} is over: {}", l.peer(), l.move(), l.vmName(), e.getMessage());
        }
    }

    /**
     * Keeps the VR held ({@code migrating}) and asks the peer about the move until it answers, then
     * removes the copy here or lets it go. {@code held}: the VR is held already.
     */
    void settleLater(VirtualRouters view, Leaving l, PeerClient peer, boolean held) {
        log.warn("VR {} ({}): whether peer {} has it is not known; it stays migrating here, and peer {} is asked every {} s"
                + " until it answers (move {})", l.vmIndex(), l.vmName(), l.peer(), l.peer(), ASK_EVERY.toSeconds(), l.move());
        asker.execute(() -> settle(view, l, peer, held, 1));
    }

    /**
     * At start-up, before any interface listens: finishes the moves this router was sending when it
     * stopped. A VR no longer here (its removal was on disk) is forgotten; another is held again and
     * its peer asked.
     */
    public void resume(VirtualRouters view, Map<String, PeerClient> peers) {
        for (Leaving l : journal.leaving()) {
            PeerClient peer = peers.get(l.peer());
            boolean here = view.getConfig(l.vmIndex()).map(c -> l.vmName().equals(c.vmName)).orElse(false);
            if (!here) {
                log.info("move {} of VR {} to peer {} had ended before the restart: its copy here is gone", l.move(),
                        l.vmName(), l.peer());
                settled(l, peer, true);
                continue;
            }
            boolean held = hold(view, l);
            if (peer == null) {
                log.error("VR {} ({}) was moving to peer {}, which the settings no longer name: it stays migrating here"
                        + " until peer.{} is set again and the server restarted", l.vmIndex(), l.vmName(), l.peer(), l.peer());
                continue;
            }
            settleLater(view, l, peer, held);
        }
    }

    private static boolean hold(VirtualRouters view, Leaving l) {
        try {
            view.beginMigration(l.vmIndex(), l.peer());
            return true;
        } catch (VrException busy) {
            return false; // its start-up run is not over: held at the next try
        }
    }

    private void settle(VirtualRouters view, Leaving l, PeerClient peer, boolean held, int attempt) {
        if (asker.isShutdown()) return;
        String problem;
        try {
            if (!held && l.live()) endStartupWait(view, l);
            if (!held) held = hold(view, l);
            Whereabouts machine = held && l.live() ? whereabouts(view, l, peer) : null;
            if (machine == Whereabouts.LEAVING) throw new Retry("this host's hypervisor is still moving its machine");
            PeerClient.Answer a = peer.get(Migration.INCOMING + "/arrivals/" + l.move());
            Arrival state = a.status() == 200 ? arrival(a) : null;
            // a live move: the machine is one; its copy here goes only when it left, stays only when it is here
            if (machine == Whereabouts.HERE && state == Arrival.arrived || machine == Whereabouts.GONE && state == Arrival.absent) {
                throw new Retry("peer " + l.peer() + " says " + state + ", and this host's hypervisor that the machine is "
                        + (machine == Whereabouts.HERE ? "here" : "not here") + ": look for it on both hosts");
            }
            if (held && state == Arrival.arrived) {
                try {
                    view.endMigration(l.vmIndex(), true);
                    log.info("VR {} ({}) runs on peer {}: removed here (move {})", l.vmIndex(), l.vmName(), l.peer(), l.move());
                } catch (VrException refused) {
                    log.error("{}", refused.getMessage());
                }
                settled(l, peer, true);
                return;
            }
            if (held && state == Arrival.absent) {
                view.endMigration(l.vmIndex(), false);
                log.info("VR {} ({}) is not on peer {}: it stays here (move {})", l.vmIndex(), l.vmName(), l.peer(), l.move());
                settled(l, peer, false);
                return;
            }
            problem = !held ? "the VR is still being brought to its row here" : state == Arrival.arriving
                    ? "peer " + l.peer() + " is still making it" : "peer " + l.peer() + " answered " + a.status() + " " + a.body();
        } catch (Retry r) {
            problem = r.getMessage();
        } catch (PeerClient.Unreachable e) {
            problem = e.getMessage();
        } catch (RuntimeException e) {
            problem = e.toString();
        }
        if (attempt == 1 || attempt % 30 == 0) {
            log.warn("VR {} ({}) stays migrating: {} (asked {} times)", l.vmIndex(), l.vmName(), problem, attempt);
        }
        boolean heldNow = held;
        asker.schedule(() -> settle(view, l, peer, heldNow, attempt + 1), ASK_EVERY.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * A live move's VR whose machine had left when this router restarted is being provisioned by the
     * start-up, which waits for the machine rather than make a second one ({@link #beforeStart}): the
     * wait ends here once the hypervisor says it is gone, the VR then failed here and held as any.
     */
    private static void endStartupWait(VirtualRouters view, Leaving l) {
        view.liveMigration().ifPresent(live -> {
            try {
                if (live.whereabouts(l.vmIndex()) == Whereabouts.GONE) live.cancelArrival(l.vmIndex());
            } catch (DriverException e) {
                log.warn("VR {} ({}): where its machine is cannot be told yet: {}", l.vmIndex(), l.vmName(), e.getMessage());
            }
        });
    }

    /** A settling to try again later, for the reason given. */
    private static final class Retry extends RuntimeException {
        Retry(String problem) {
            super(problem, null, false, false);
        }
    }

    /**
     * A live move's machine, as this host's hypervisor sees it (decision 17). Still here and not
     * leaving: the destination is told it will not come (its making there fails and is undone, so it
     * then answers absent).
     */
    private static Whereabouts whereabouts(VirtualRouters view, Leaving l, PeerClient peer) throws PeerClient.Unreachable {
        LiveMigration live = view.liveMigration().orElseThrow(() -> new Retry("driver '" + view.driverName()
                + "' of this router no longer moves machines: where VR " + l.vmName() + "'s machine is cannot be told"));
        Whereabouts w;
        try {
            w = live.whereabouts(l.vmIndex());
        } catch (DriverException e) {
            throw new Retry("this host's hypervisor cannot tell where VR " + l.vmName() + "'s machine is: " + e.getMessage());
        }
        if (w == Whereabouts.HERE) {
            PeerClient.Answer a = peer.post(Migration.INCOMING + "/arrivals/" + l.move() + "/cancel", new byte[0],
                    Duration.ofSeconds(30));
            if (a.status() != 204) throw new Retry("peer " + l.peer() + " answered " + a.status() + " to the cancel: " + a.body());
        }
        return w;
    }

    private static Arrival arrival(PeerClient.Answer a) {
        try {
            JsonNode state = ModelJson.mapper().readTree(a.body()).get("state");
            return state == null ? null : Arrival.valueOf(state.asText());
        } catch (IOException | IllegalArgumentException e) {
            return null;
        }
    }

    // ---------------------------------------------------------------- the destination

    /**
     * Makes the VR of the move here as {@link Restore#run} does, its arrival on disk before its creation
     * is journaled; refused when its source was told already that it is not here.
     */
    Restore.Report arrive(VirtualRouters view, RouterBackup incoming, String move, String kind,
                          java.util.function.BiConsumer<Restore.Plan, ChangeSet.Builder> alsoInTheSet) {
        synchronized (givenUp) {
            if (givenUp.contains(move) || journal.arriving(move).isPresent()) {
                throw new ConflictException(VrException.Reason.STATE, "move", "move " + move + " was settled already:"
                        + " its source was told how it ended");
            }
            boolean[] recorded = {false};
            try {
                return Restore.run(view, incoming, (plan, set) -> {
                    alsoInTheSet.accept(plan, set);
                    VmConfigEntry row = plan.created().get(0);
                    journal.add(new Arriving(move, row.vmIndex, row.vmName, incoming.routers.get(0).vmUUID,
                            Instant.now().toString(), kind));
                    recorded[0] = true;
                });
            } catch (RuntimeException refused) {
                if (recorded[0]) journal.forget(move);
                throw refused;
            }
        }
    }

    /** What this router has of the move: see {@link Arrival}. Absent, the move is refused from now on. */
    public Where where(VirtualRouters view, String move) {
        synchronized (givenUp) {
            Optional<Arriving> a = journal.arriving(move);
            Optional<VirtualRouter> vr = a.filter(x -> view.getConfig(x.vmIndex()).map(c -> x.vmName().equals(c.vmName))
                    .orElse(false)).flatMap(x -> view.get(x.vmIndex()));
            if (vr.isEmpty()) {
                givenUp.add(move);
                a.ifPresent(x -> forget(view, x));
                return new Where(move, Arrival.absent, null);
            }
            OperState state = vr.get().vmEntry == null ? null : vr.get().vmEntry.vmOperState;
            if (state == OperState.PREPARING) return new Where(move, Arrival.arriving, a.get().vmIndex());
            if (a.get().live() && state != OperState.RUNNING) {
                // its machine was not adopted (the arrival cancelled or not come in time): the VR failed here, nothing runs
                givenUp.add(move);
                forget(view, a.get());
                return new Where(move, Arrival.absent, null);
            }
            return new Where(move, Arrival.arrived, a.get().vmIndex());
        }
    }

    /**
     * The source's hypervisor will not send the machine of this live move (decision 17): its arrival is
     * cancelled, and its VR's making here fails. Returns the VR's vmIndex here, when the move was recorded.
     */
    public Optional<Integer> cancelArrival(VirtualRouters view, String move) {
        Optional<Arriving> a = journal.arriving(move).filter(Arriving::live);
        a.ifPresent(x -> view.liveMigration().ifPresent(l -> l.cancelArrival(x.vmIndex())));
        return a.map(Arriving::vmIndex);
    }

    /** The source has settled the move: its arrival here is forgotten. */
    public void forgetArrival(VirtualRouters view, String move) {
        journal.arriving(move).ifPresent(a -> forget(view, a));
    }

    private void forget(VirtualRouters view, Arriving a) {
        journal.forget(a.move());
        view.keepUuid(a.vmIndex(), a.vmName(), null);
    }

    /**
     * Before the start-up provisions what is missing on the host: the VRs arriving keep their vmUUID,
     * should their creation have been cut short (a kill before the host made them). The VRs of live moves
     * (decision 17), arriving or leaving, have their machine expected again by the driver: a provisioning of
     * one whose machine is not here adopts it should it come, and never makes a second one.
     */
    public void beforeStart(VirtualRouters view) {
        for (Leaving l : journal.leaving()) {
            if (l.live()) view.liveMigration().ifPresent(live -> live.expectAgain(l.vmIndex(), l.vmName()));
        }
        for (Arriving a : journal.arriving()) {
            if (a.live()) view.liveMigration().ifPresent(l -> l.expectAgain(a.vmIndex(), a.vmName()));
            if (a.vmUuid() == null) continue;
            try {
                view.keepUuid(a.vmIndex(), a.vmName(), UUID.fromString(a.vmUuid()));
            } catch (IllegalArgumentException notAUuid) {
                log.warn("move {}: '{}' is no UUID, VR {} gets a new one if it is made again", a.move(), a.vmUuid(), a.vmName());
            }
        }
    }

    @Override
    public void close() {
        asker.shutdownNow();
    }
}
