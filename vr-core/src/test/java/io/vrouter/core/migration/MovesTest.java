package io.vrouter.core.migration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vrouter.core.config.Caller;
import io.vrouter.core.config.Credentials.Role;
import io.vrouter.core.driver.sim.LatencyProfile;
import io.vrouter.core.driver.sim.SimulatedDriver;
import io.vrouter.core.metrics.VrMetrics;
import io.vrouter.core.model.VmConfigEntry;
import io.vrouter.core.persistence.ConfigStore;
import io.vrouter.core.persistence.MoveJournal;
import io.vrouter.core.service.VirtualRouterService;
import io.vrouter.core.spi.ChangeSet;
import io.vrouter.core.spi.ConflictException;
import io.vrouter.core.spi.VirtualRouters;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The moves' record in the data directory (ADR 0023, decision 10): a destination records an arrival on
 * disk before the VR's creation, answers arrived once it is made, and refuses a move it told its source
 * it has none of; the file states its format and a later format is refused by name.
 */
class MovesTest {
    private static final Caller PROVIDER = new Caller("inp", null, Role.OPERATOR, "test", "192.0.2.1");

    @TempDir
    Path dir;
    private final List<VirtualRouterService> services = new ArrayList<>();

    @AfterEach
    void stop() {
        services.forEach(VirtualRouterService::close);
    }

    private VirtualRouters router(String name) throws Exception {
        Path data = dir.resolve(name);
        Files.createDirectories(data);
        VirtualRouterService s = new VirtualRouterService(new SimulatedDriver(LatencyProfile.NONE, data.resolve("sim-host.journal")),
                new ConfigStore(data), VrMetrics.inMemory());
        services.add(s);
        s.start();
        return s.as(PROVIDER);
    }

    /** One VR made on a router of its own, as a source sends it. */
    private RouterBackup sent(String name) throws Exception {
        VirtualRouters a = router("source-of-" + name);
        VmConfigEntry c = new VmConfigEntry();
        c.vmName = name;
        c.vmIndex = 4;
        a.apply(ChangeSet.builder().create(c).build()).completion().join();
        return RouterBackup.read(RouterBackup.of(a, List.of(4)).toJson());
    }

    @Test
    void anArrivalIsOnDiskBeforeTheVrIsMadeAndArrivedOnceItIs() throws Exception {
        VirtualRouters b = router("b");
        Moves moves = new Moves(MoveJournal.open(dir.resolve("b")));
        RouterBackup one = sent("mover");

        Migration.receive(b, one, moves, "m1", new java.util.ArrayList<>()).completion().join();

        MoveJournal reread = MoveJournal.open(dir.resolve("b"));
        assertThat(reread.arriving()).singleElement().satisfies(a -> {
            assertThat(a.move()).isEqualTo("m1");
            assertThat(a.vmName()).isEqualTo("mover");
            assertThat(a.vmUuid()).isEqualTo(one.routers.get(0).vmUUID);
        });
        Moves.Where where = moves.where(b, "m1");
        assertThat(where.state()).isEqualTo(Moves.Arrival.arrived);
        assertThat(b.getConfig(where.vmIndex()).orElseThrow().vmName).isEqualTo("mover");
        assertThat(b.get(where.vmIndex()).orElseThrow().vmEntry.vmUUID).isEqualTo(one.routers.get(0).vmUUID);

        moves.forgetArrival(b, "m1");
        assertThat(MoveJournal.open(dir.resolve("b")).arriving()).isEmpty();
        assertThat(Files.readString(dir.resolve("b/migrations.json"))).startsWith("{\"format\":1,");
    }

    @Test
    void aMoveTheSourceWasToldIsAbsentIsRefusedWhenItComesLate() throws Exception {
        VirtualRouters b = router("b");
        Moves moves = new Moves(MoveJournal.open(dir.resolve("b")));

        assertThat(moves.where(b, "late").state()).isEqualTo(Moves.Arrival.absent);

        assertThatThrownBy(() -> Migration.receive(b, sent("mover"), moves, "late", new java.util.ArrayList<>())).isInstanceOf(ConflictException.class)
                .hasMessageContaining("move late was settled already");
        assertThat(b.findByName("mover")).isEmpty();
        assertThat(moves.journal().arriving()).isEmpty();
    }

    @Test
    void aLiveMoveIsWrittenInFormat2WithItsKindAndTheFileIsFormat1AgainWithoutOne() throws Exception {
        MoveJournal j = MoveJournal.open(dir);
        j.add(new MoveJournal.Leaving("m1", 3, "x", null, "b", "2026-12-02T00:00:00Z", MoveJournal.LIVE));

        assertThat(Files.readString(dir.resolve("migrations.json"))).startsWith("{\"format\":2,").contains("\"kind\":\"live\"");
        assertThat(MoveJournal.open(dir).leaving()).singleElement().satisfies(l -> assertThat(l.live()).isTrue());

        j.forget("m1");
        assertThat(Files.readString(dir.resolve("migrations.json"))).startsWith("{\"format\":1,");
    }

    @Test
    void theFormerReleasesFileIsReadItsMovesMadeAnew() throws Exception {
        Files.writeString(dir.resolve("migrations.json"), "{\"format\":1,\"leaving\":[{\"move\":\"m1\",\"vmIndex\":3,"
                + "\"vmName\":\"x\",\"vmUuid\":null,\"peer\":\"b\",\"since\":\"2026-12-01T00:00:00Z\"}],\"arriving\":[{\"move\":"
                + "\"m2\",\"vmIndex\":4,\"vmName\":\"y\",\"vmUuid\":null,\"since\":\"2026-12-01T00:00:00Z\"}]}");

        MoveJournal j = MoveJournal.open(dir);

        assertThat(j.leaving()).singleElement().satisfies(l -> {
            assertThat(l.move()).isEqualTo("m1");
            assertThat(l.live()).isFalse();
        });
        assertThat(j.arriving()).singleElement().satisfies(a -> assertThat(a.live()).isFalse());
    }

    @Test
    void aLaterFormatIsRefusedByName() throws Exception {
        Files.writeString(dir.resolve("migrations.json"), "{\"format\":3,\"leaving\":[],\"arriving\":[],\"more\":1}");

        assertThatThrownBy(() -> MoveJournal.open(dir)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("migrations.json is in format 3");
    }
}
