package io.vrouter.core.migration;

import com.fasterxml.jackson.databind.JsonNode;
import io.vrouter.core.driver.LiveMigration;
import io.vrouter.core.model.ModelJson;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.persistence.MoveJournal;
import io.vrouter.core.spi.ChangeSet;
import io.vrouter.core.spi.ConflictException;
import io.vrouter.core.spi.NotFoundException;
import io.vrouter.core.spi.ValidationException;
import io.vrouter.core.spi.VrException;
import io.vrouter.core.spi.VrException.Reason;
import io.vrouter.core.spi.VirtualRouters;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Moves one VR to a peer: the source sends the VR's row and identity (a {@link RouterBackup} of one VR)
 * to the destination's {@code POST /api/v1/migrations}, which admits it as any creation there (its
 * tenants and quotas, its capacity, its names) and makes it, waiting until it is up; only then does
 * the source remove its copy. A refusal, an unreachable peer or a destination that fails midway
 * (its change set undone whole) leaves the VR running here and nothing there. Both sides write the move
 * in their data directory first ({@link Moves}): a source that does not hear how it ended, or restarts in
 * the middle, holds its copy and asks the peer until it knows, so one copy runs in the end.
 */
public final class Migration {
    /** What the destination path of a move is on a peer's REST interface. */
    public static final String INCOMING = "/api/v1/migrations";
    /** How long the destination may take to make the VR and bring it up. */
    public static final Duration DESTINATION_WAIT = Duration.ofMinutes(2);

    /**
     * A move done: the VR's name, its vmIndex here (now gone) and on the peer, and what became of the far
     * end of each of its VXLAN links ({@link FarEnds}; a far end not told does not undo the move).
     */
    public record Moved(String vmName, String peer, int vmIndex, int peerIndex, List<FarEnds.FarEnd> farEnds) {
    }

    private Migration() {
    }

    /**
     * Moves the VR to the peer named {@code peerName}, one of {@code peers} (this router's settings
     * {@code peer.NAME}), returning once it runs on the peer and is gone from here: {@link #begin} and
     * {@link Begun#finish()} on this thread, for every interface that answers at the end.
     *
     * @throws ValidationException when it names no peer of this router
     * @throws MigrationRefusedException when the peer refused it or could not be asked (nothing changed)
     */
    public static Moved move(VirtualRouters view, int vmIndex, Map<String, PeerClient> peers, String peerName) {
        return begin(view, vmIndex, peers, peerName).finish();
    }

    /**
     * A move's local part, what it is accepted on: the peer is one of this router's, the VR exists and
     * is not moving already; it is {@code migrating} from here on (its changes and a second move are
     * refused). {@link Begun#finish} does the rest, on this thread or another.
     *
     * @throws ValidationException when it names no peer of this router
     */
    public static Begun begin(VirtualRouters view, int vmIndex, Map<String, PeerClient> peers, String peerName) {
        if (peerName == null) throw new ValidationException("peer", "name the peer to move the VR to");
        PeerClient client = peers.get(peerName);
        if (client == null) {
            throw new ValidationException("peer", "'" + peerName + "' is no peer of this router (its peers: "
                    + (peers.isEmpty() ? "none; declare them as settings peer.NAME" : String.join(", ", peers.keySet())) + ")");
        }
        return begin(view, vmIndex, client, peers);
    }

    /** {@link #begin(VirtualRouters, int, Map, String)} to this peer, telling {@code peers} (every peer of this router) where the VR's VXLAN far ends now point. */
    public static Begun begin(VirtualRouters view, int vmIndex, PeerClient peer, Map<String, PeerClient> peers) {
        VmConfigEntry row = view.getConfig(vmIndex).orElseThrow(() -> new NotFoundException("no VR " + vmIndex));
        // migrating from here on: its changes and a second move are refused until the move ends, either way
        view.beginMigration(vmIndex, peer.peer().name());
        return new Begun(view, vmIndex, peer, peers, row);
    }

    /** A move accepted here ({@link #begin}): its VR held as {@code migrating} until {@link Begun#finish()} ends it. */
    public static final class Begun {
        private final VirtualRouters view;
        private final int vmIndex;
        private final PeerClient peer;
        private final Map<String, PeerClient> peers;
        private final VmConfigEntry row;

        private Begun(VirtualRouters view, int vmIndex, PeerClient peer, Map<String, PeerClient> peers, VmConfigEntry row) {
            this.view = view;
            this.vmIndex = vmIndex;
            this.peer = peer;
            this.peers = peers;
            this.row = row;
        }

        public int vmIndex() {
            return vmIndex;
        }

        public String vmName() {
            return row.vmName;
        }

        public String peer() {
            return peer.peer().name();
        }

        /**
         * Sends the VR to the peer and, once it runs there, removes it here; the VR's last event here
         * says which (its deletion: where it went; back from {@code migrating}: why not).
         *
         * @throws MigrationRefusedException when the peer refused it or could not be asked (nothing changed)
         */
        public Moved finish() {
            return finish("");
        }

        /** {@link #finish()}, {@code note} added to what the VR's last event says (a drain's progress). */
        public Moved finish(String note) {
            int peerIndex;
            MoveJournal.Leaving leaving = null;
            boolean unknown = false; // the peer may have the VR: the copy here stays held until it says (Moves)
            String destinationAnswer;
            try {
                RouterBackup one = RouterBackup.of(view, List.of(vmIndex));
                Optional<LiveMigration> live = view.liveMigration();
                if (live.isPresent()) {
                    // a driver whose hypervisor moves the machine moves it (decision 13); such drivers have no VXLAN links
                    leaving = peer.moves().leave(view, row, peer(), MoveJournal.LIVE); // on disk before the peer hears of it (decision 17)
                    try {
                        peerIndex = LiveMove.send(row, one, peer, live.get(), leaving.move());
                    } catch (LiveMove.Unsettled e) {
                        unknown = true;
                        throw e;
                    }
                    destinationAnswer = null;
                } else {
                    leaving = peer.moves().leave(view, row, peer(), null); // on disk before the peer hears of it
                    PeerClient.Answer answer;
                    try {
                        answer = peer.post(INCOMING + "?wait=" + DESTINATION_WAIT.toSeconds() + "s&move=" + leaving.move(),
                                one.toJson(), DESTINATION_WAIT.plusSeconds(10));
                    } catch (PeerClient.Unreachable e) {
                        unknown = e.maybeDelivered();
                        throw new MigrationRefusedException(Reason.FAILED, e.getMessage() + (unknown ? unknown(peer, row)
                                : "; VR " + row.vmName + " stays here"));
                    }
                    if (answer.status() != 201) {
                        // 202 (still being made there) and a failure there: it may have it, or have it soon
                        unknown = answer.status() == 202 || answer.status() >= 500;
                        throw unknown ? new MigrationRefusedException(Reason.FAILED, "peer " + peer() + " answered "
                                + answer.status() + ": " + detail(answer) + unknown(peer, row)) : refusal(peer, row, answer);
                    }
                    peerIndex = peerIndex(answer, row);
                    destinationAnswer = answer.body();
                }
            } catch (RuntimeException notMoved) {
                if (unknown) {
                    peer.moves().settleLater(view, leaving, peer, true);
                } else {
                    view.endMigration(vmIndex, false, notMoved.getMessage() + note);
                    if (leaving != null) peer.moves().settled(leaving, peer, false);
                }
                throw notMoved;
            }
            // The VR runs there: its far ends are told before its copy here goes, and one not told is said, not undone.
            List<FarEnds.FarEnd> farEnds = destinationAnswer == null ? List.of()
                    : FarEnds.tell(row, destinationAnswer, peers, peer());
            try {
                view.endMigration(vmIndex, true, "moved to peer " + peer() + " (vmIndex " + peerIndex + " there)" + note)
                        .completion().join();
            } finally {
                if (leaving != null) peer.moves().settled(leaving, peer, true);
            }
            return new Moved(row.vmName, peer(), vmIndex, peerIndex, farEnds);
        }
    }

    private static String unknown(PeerClient peer, VmConfigEntry row) {
        return "; whether it has VR " + row.vmName + " is not known: it stays migrating here, and this router asks peer "
                + peer.peer().name() + " until it answers, then removes it here or lets it go";
    }

    static MigrationRefusedException refusal(PeerClient peer, VmConfigEntry row, PeerClient.Answer answer) {
        String name = peer.peer().name();
        String detail = detail(answer);
        String stays = "; VR " + row.vmName + " stays here";
        return switch (answer.status()) {
            case 400 -> new MigrationRefusedException(Reason.INVALID, "peer " + name + " refused the VR: " + detail + stays);
            case 409 -> new MigrationRefusedException(Reason.STATE, "peer " + name + " refused the VR: " + detail + stays);
            case 401 -> new MigrationRefusedException(Reason.FAILED, "peer " + name + " refused this router's login as user '"
                    + peer.peer().user() + "' (setting peer." + name + ".user and .password)" + stays);
            case 403 -> new MigrationRefusedException(Reason.FAILED, "user '" + peer.peer().user() + "' may not move VRs to peer "
                    + name + " (it must be one of the provider's operators there): " + detail + stays);
            case 202 -> new MigrationRefusedException(Reason.FAILED, "peer " + name + " did not bring the VR up within "
                    + DESTINATION_WAIT.toSeconds() + " s; it is removed there when it fails, and stays here" + stays);
            default -> new MigrationRefusedException(Reason.FAILED, "peer " + name + " answered " + answer.status() + ": "
                    + detail + stays);
        };
    }

    /** The peer's problem details' detail, or its body. */
    static String detail(PeerClient.Answer answer) {
        try {
            JsonNode p = ModelJson.mapper().readTree(answer.body());
            if (p != null && p.hasNonNull("detail")) return p.get("detail").asText();
        } catch (IOException notJson) {
            // its body, then
        }
        String body = answer.body() == null ? "" : answer.body().strip();
        return body.length() > 300 ? body.substring(0, 300) + "..." : body;
    }

    static int peerIndex(PeerClient.Answer answer, VmConfigEntry row) {
        try {
            return ModelJson.mapper().readTree(answer.body()).get("routers").get(0).get("vmIndex").asInt();
        } catch (IOException | NullPointerException e) {
            throw new MigrationRefusedException(Reason.FAILED, "the peer's answer names no vmIndex for " + row.vmName
                    + ": " + answer.body());
        }
    }

    /**
     * The destination's side: makes the one VR of {@code incoming} here, refusing it when its name is
     * taken (a migration never merges into an existing VR).
     */
    public static Restore.Report receive(VirtualRouters view, RouterBackup incoming) {
        return receive(view, incoming, null, null, new java.util.ArrayList<>());
    }

    /**
     * The same, the arrival of the source's {@code move} recorded in {@code moves} first (none from a source
     * that names no move); a VXLAN end of the VR whose far end is a VR here becomes a peer link with it, both
     * ends in the set that makes the VR ({@link FarEnds#joinHere}), and is added to {@code joined}.
     */
    public static Restore.Report receive(VirtualRouters view, RouterBackup incoming, Moves moves, String move,
                                         List<FarEnds.Underlay> joined) {
        return receive(view, incoming, moves, move, joined, null);
    }

    /** The same, the move's {@code kind} recorded ({@link MoveJournal#LIVE} for a move by the hypervisor). */
    static Restore.Report receive(VirtualRouters view, RouterBackup incoming, Moves moves, String move,
                                  List<FarEnds.Underlay> joined, String kind) {
        if (incoming.routers.size() != 1) throw new ValidationException("routers", "a migration carries exactly one VR");
        String name = incoming.routers.get(0).vmName;
        if (name != null && view.findByName(name).isPresent()) {
            throw new ConflictException(VrException.Reason.NOT_UNIQUE, "vmName", "vmName " + name + " is taken on this router");
        }
        java.util.function.BiConsumer<Restore.Plan, ChangeSet.Builder> join =
                (plan, set) -> joined.addAll(FarEnds.joinHere(view, plan, set));
        return move == null || moves == null ? Restore.run(view, incoming, join) : moves.arrive(view, incoming, move, kind, join);
    }
}
