package io.vrouter.core.migration;

import com.fasterxml.jackson.databind.JsonNode;
import io.vrouter.core.driver.DriverException;
import io.vrouter.core.driver.LiveMigration;
import io.vrouter.core.model.ModelJson;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.persistence.MoveJournal;
import io.vrouter.core.spi.NotSupportedException;
import io.vrouter.core.spi.VirtualRouters;
import io.vrouter.core.spi.VrException.Reason;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A move by the hypervisor (docs/adr/0023, decision 13), for a driver that offers {@link LiveMigration}:
 * the source sends the VR to the destination's {@code POST /migrations?arrival=hypervisor}, which admits
 * it as any move, tells its driver the machine is coming (so its provisioning adopts it) and answers 202
 * with where to send it; the source's driver migrates the machine; the source then asks the destination's
 * {@code POST /migrations/{i}/arrived} to wait for the VR up there. A migration that fails is told to the
 * destination's {@code POST /migrations/{i}/cancel}, whose change set then fails and is undone whole.
 */
public final class LiveMove {
    private static final Logger log = LoggerFactory.getLogger(LiveMove.class);
    /** The query value of {@code arrival} that asks the destination to expect the machine from the hypervisor. */
    public static final String BY_HYPERVISOR = "hypervisor";

    /** The destination's side: what it admitted, and where the source's hypervisor sends the machine. */
    public record Expected(Restore.Report report, Map<String, String> hypervisor) {
    }

    /**
     * The move's end is not known here: the destination may have its VR, or have it soon, and the machine
     * may be on either host. The source holds its copy and settles it as decision 17 says ({@link Moves}).
     */
    static final class Unsettled extends MigrationRefusedException {
        Unsettled(String message) {
            super(Reason.FAILED, message);
        }
    }

    /** The destination's moves whose machine is on its way, by vmIndex here. */
    public static final class Arriving {
        private final Map<Integer, Restore.Report> reports = new ConcurrentHashMap<>();

        /**
         * Admits the VR and expects its machine; see {@link LiveMove}. The source's {@code move} (none from
         * an older source) is recorded in {@code moves} before the answer, as a live one (decision 17).
         */
        public Expected expect(VirtualRouters view, RouterBackup incoming, Moves moves, String move) {
            LiveMigration live = view.liveMigration().orElseThrow(() -> new NotSupportedException("arrival",
                    "driver '" + view.driverName() + "' cannot take a VR from the hypervisor: it is made anew here when moved without"
                            + " arrival=hypervisor"));
            if (incoming.routers.size() != 1) return new Expected(Migration.receive(view, incoming), Map.of());
            Restore.Plan plan = Restore.plan(view.indices(), view::findByName, i -> view.getConfig(i).orElse(null), incoming);
            if (plan.created().size() != 1) return new Expected(Migration.receive(view, incoming), Map.of()); // refused there
            VmConfigEntry row = plan.created().get(0);
            Map<String, String> where;
            try {
                where = live.expectArrival(row);
            } catch (DriverException e) {
                throw new MigrationRefusedException(Reason.FAILED, "this router's hypervisor cannot receive VR " + row.vmName
                        + ": " + e.getMessage());
            }
            Restore.Report report;
            try {
                report = Migration.receive(view, incoming, moves, move, new java.util.ArrayList<>(), MoveJournal.LIVE);
                if (report.routers().get(0).vmIndex() != row.vmIndex) {
                    throw new MigrationRefusedException(Reason.FAILED, "VR " + row.vmName + " took vmIndex "
                            + report.routers().get(0).vmIndex() + " here, not " + row.vmIndex + " as expected; try again");
                }
            } catch (RuntimeException refused) {
                live.cancelArrival(row.vmIndex);
                throw refused;
            }
            reports.put(row.vmIndex, report);
            return new Expected(report, where);
        }

        /** The source's hypervisor did not send the machine: the VR's provisioning here fails, and is undone. */
        public void cancel(VirtualRouters view, int vmIndex) {
            view.liveMigration().ifPresent(l -> l.cancelArrival(vmIndex));
            reports.remove(vmIndex);
        }

        /** The move whose machine the source's hypervisor sent, or null when none is on its way. */
        public Restore.Report arrived(int vmIndex) {
            return reports.remove(vmIndex);
        }
    }

    private LiveMove() {
    }

    /**
     * The source's side, within {@link Migration#move}: returns the VR's vmIndex on the peer once it
     * runs there. Throws when it does not, the machine still here, or {@link Unsettled} when that is not
     * known (the source's {@code move}, journaled, is then settled as decision 17 says).
     */
    static int send(VmConfigEntry row, RouterBackup one, PeerClient peer, LiveMigration live, String move) {
        String stays = "; VR " + row.vmName + " stays here";
        PeerClient.Answer answer;
        try {
            answer = peer.post(Migration.INCOMING + "?arrival=" + BY_HYPERVISOR + "&move=" + move, one.toJson(), Duration.ofSeconds(60));
        } catch (PeerClient.Unreachable e) {
            if (e.maybeDelivered()) throw new Unsettled(e.getMessage() + unsettled(row, peer)); // it may expect the VR
            throw new MigrationRefusedException(Reason.FAILED, e.getMessage() + stays);
        }
        // a 502 is its hypervisor's refusal, known; another failure there may have come after it recorded the VR
        if (answer.status() >= 500 && answer.status() != 502) throw new Unsettled("peer " + peer.peer().name() + " answered " + answer.status() + ": "
                + Migration.detail(answer) + unsettled(row, peer));
        if (answer.status() != 202) throw Migration.refusal(peer, row, answer);
        int peerIndex = Migration.peerIndex(answer, row);
        try {
            live.migrate(row.vmIndex, hypervisor(answer));
        } catch (DriverException | RuntimeException e) {
            try {
                peer.post(Migration.INCOMING + "/" + peerIndex + "/cancel", new byte[0], Duration.ofSeconds(30));
            } catch (PeerClient.Unreachable u) {
                log.warn("peer {} not told that VR {} will not come (its wait for it ends on its own): {}", peer.peer().name(),
                        row.vmName, u.getMessage());
            }
            throw new MigrationRefusedException(Reason.FAILED, "the hypervisor did not move VR " + row.vmName + " to peer "
                    + peer.peer().name() + ": " + e.getMessage() + stays);
        }
        // the machine left: from here on the VR stays held until the destination says it runs there
        try {
            answer = peer.post(Migration.INCOMING + "/" + peerIndex + "/arrived?wait=" + Migration.DESTINATION_WAIT.toSeconds() + "s",
                    new byte[0], Migration.DESTINATION_WAIT.plusSeconds(10));
        } catch (PeerClient.Unreachable e) {
            throw new Unsettled("the hypervisor moved VR " + row.vmName + " to peer " + peer.peer().name() + ": "
                    + e.getMessage() + unsettled(row, peer));
        }
        if (answer.status() != 201) {
            throw new Unsettled("the hypervisor moved VR " + row.vmName + " to peer " + peer.peer().name() + ", which did not"
                    + " confirm it runs there (" + answer.status() + " " + answer.body() + ")" + unsettled(row, peer));
        }
        return peerIndex;
    }

    private static String unsettled(VmConfigEntry row, PeerClient peer) {
        return "; VR " + row.vmName + " stays migrating here, and this router asks peer " + peer.peer().name()
                + " until it answers, then removes it here or lets it go, as its hypervisor says where the machine is";
    }

    /** The destination driver's answer, passed unread to this router's driver. */
    private static Map<String, String> hypervisor(PeerClient.Answer answer) {
        Map<String, String> out = new LinkedHashMap<>();
        try {
            JsonNode h = ModelJson.mapper().readTree(answer.body()).path("hypervisor");
            h.fields().forEachRemaining(e -> out.put(e.getKey(), e.getValue().asText()));
        } catch (IOException e) {
            // an empty answer: the driver refuses it by name
        }
        return out;
    }
}
