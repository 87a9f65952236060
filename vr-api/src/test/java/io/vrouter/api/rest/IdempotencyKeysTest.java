package io.vrouter.api.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vrouter.core.model.VirtualRouter;
import io.vrouter.core.spi.ConflictException;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The kept Idempotency-Keys across releases (every line states its format) and across a kill -9. */
class IdempotencyKeysTest {
    private static final String FORMAT_1_LINE = "{\"user\":\"admin\",\"key\":\"k1\",\"fingerprint\":\"9efd\","
            + "\"at\":\"2026-11-25T20:24:50Z\",\"status\":201,\"location\":null,\"preferenceApplied\":null,"
            + "\"type\":\"router\",\"body\":{\"vmIndex\":1,\"vmName\":\"edge\"}}";

    @TempDir
    Path dir;

    @Test
    void aFormat1LineIsReadAndKeptInTheCurrentFormat() throws Exception {
        Path file = dir.resolve(IdempotencyKeys.FILE);
        Files.writeString(file, FORMAT_1_LINE + "\n");
        new IdempotencyKeys(dir, Duration.ofDays(36500), 100).close();
        assertThat(Files.readString(file)).startsWith("{\"format\":2,\"user\":\"admin\",\"key\":\"k1\",")
                .contains("\"body\":{\"vmIndex\":1,\"vmName\":\"edge\"}");
    }

    @Test
    void aLineInANewerFormatIsRefusedNamingTheFileLineAndVersion() throws Exception {
        Path file = dir.resolve(IdempotencyKeys.FILE);
        String newer = FORMAT_1_LINE.replace("{\"user\"", "{\"format\":3,\"user\"");
        Files.writeString(file, FORMAT_1_LINE + "\n" + newer + "\n");
        assertThatThrownBy(() -> new IdempotencyKeys(dir, Duration.ofDays(36500), 100))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith(file + " line 2 is in format 3, which this release of vrouter does not read");
        assertThat(Files.readString(file)).isEqualTo(FORMAT_1_LINE + "\n" + newer + "\n");
    }

    /**
     * Issue 39: the server killed after a creation was carried out (its journal record written) and
     * before its answer was kept left the key unknown, and the creation sent again was refused with a
     * 409 for the names it had itself taken. The kill is the data directory copied at that moment.
     */
    @Test
    void aCreationCarriedOutAndKilledBeforeItsAnswerWasKeptAnswersWithItsVrsWhenSentAgain() throws Exception {
        Path killed = Files.createDirectories(dir.resolve("as-kill-9-left-it"));
        VirtualRouter made = new VirtualRouter();
        made.vmIndex = 7;
        made.vmName = "edge";
        IdempotencyKeys keys = new IdempotencyKeys(dir, Duration.ofHours(1), 100);
        keys.once("k", "alice", "POST", "/api/v1/routers", "edge", () -> {
            copy(dir.resolve(IdempotencyKeys.FILE), killed.resolve(IdempotencyKeys.FILE));
            return Response.accepted(made).build();
        }, Optional::empty);

        IdempotencyKeys restarted = new IdempotencyKeys(killed, Duration.ofHours(1), 100);
        Response again = restarted.once("k", "alice", "POST", "/api/v1/routers", "edge", () -> {
            throw new ConflictException("vmName", "a VR named 'edge' already exists (vmIndex 7)");
        }, () -> Optional.of(Response.accepted(made).build()));
        assertThat(again.getStatus()).isEqualTo(202);
        assertThat(again.getHeaderString("Idempotent-Replayed")).isEqualTo("true");
        assertThat(((VirtualRouter) again.getEntity()).vmIndex).isEqualTo(7);
        // Kept now: a third sending replays it without looking for the VRs again.
        Response third = restarted.once("k", "alice", "POST", "/api/v1/routers", "edge",
                () -> Response.status(500).build(), () -> Optional.of(Response.serverError().build()));
        assertThat(third.getStatus()).isEqualTo(202);
        assertThat(third.getHeaderString("Idempotent-Replayed")).isEqualTo("true");
        restarted.close();

        // A creation refused is settled before the refusal goes out: sent again after a restart, the names
        // that refused it (another request's VRs) are not taken for its own.
        assertThatThrownBy(() -> keys.once("r", "alice", "POST", "/api/v1/routers", "taken", () -> {
            throw new ConflictException("vmName", "a VR named 'taken' already exists (vmIndex 3)");
        }, Optional::empty)).isInstanceOf(ConflictException.class);
        keys.close();
        IdempotencyKeys afterRefusal = new IdempotencyKeys(dir, Duration.ofHours(1), 100);
        assertThat(afterRefusal.once("r", "alice", "POST", "/api/v1/routers", "taken", () -> Response.status(409).build(),
                () -> Optional.of(Response.accepted().build())).getStatus()).isEqualTo(409);
        afterRefusal.close();
    }

    private static void copy(Path from, Path to) {
        try {
            Files.copy(from, to);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
