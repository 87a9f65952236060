package io.vrouter.core.persistence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vrouter.core.model.VrEvent;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EventLogTest {
    @TempDir
    Path dir;

    static VrEvent event(long sequence, Instant at) {
        VrEvent e = new VrEvent();
        e.sequence = sequence;
        e.timestamp = at.toString();
        e.type = VrEvent.Type.STATE_CHANGED;
        e.vmIndex = (int) sequence;
        e.vmName = "vr" + sequence;
        return e;
    }

    static List<Long> sequences(EventLog log) {
        return log.read().stream().map(e -> e.sequence).toList();
    }

    @Test
    void anAppendOnAnInterruptedThreadIsKeptAndTheLogStaysOpen() {
        Instant now = Instant.now();
        try (EventLog log = EventLog.open(dir, 100, Duration.ofDays(1))) {
            log.append(event(1, now));
            Thread.currentThread().interrupt();
            try {
                log.append(event(2, now));
            } finally {
                assertThat(Thread.interrupted()).isTrue();
            }
            log.append(event(3, now));
        }
        try (EventLog log = EventLog.open(dir, 100, Duration.ofDays(1))) {
            assertThat(sequences(log)).containsExactly(1L, 2L, 3L);
        }
    }

    @Test
    void eventsOutliveAReopenAndTheLogKeepsItsCreationTime() {
        Instant now = Instant.now();
        Instant created;
        try (EventLog log = EventLog.open(dir, 100, Duration.ofDays(1))) {
            created = log.created();
            for (long s = 1; s <= 5; s++) log.append(event(s, now));
        }
        try (EventLog log = EventLog.open(dir, 100, Duration.ofDays(1))) {
            assertThat(sequences(log)).containsExactly(1L, 2L, 3L, 4L, 5L);
            assertThat(log.lastSequence()).isEqualTo(5);
            assertThat(log.oldestSequence()).contains(1L);
            assertThat(log.created()).isEqualTo(created);
            assertThat(log.agedAt()).isEmpty();
            assertThat(log.read().get(2).vmName).isEqualTo("vr3");
        }
    }

    /** An event's vmUUID is kept; a log written before events carried one still loads, without it (issue 23 item 4). */
    @Test
    void theVmUuidIsKeptAndOlderEventsWithoutOneStillLoad() throws Exception {
        Instant now = Instant.now();
        Files.writeString(dir.resolve(EventLog.FILE), "{\"vrouterEventLog\":{\"created\":\"" + now + "\",\"lastSequence\":1}}\n"
                + "{\"sequence\":1,\"timestamp\":\"" + now + "\",\"type\":\"deleted\",\"vmIndex\":1,\"vmName\":\"old\"}\n",
                StandardCharsets.UTF_8);
        VrEvent e = event(2, now);
        e.vmUUID = "7b1e8f2a-3c4d-4e5f-8a9b-0c1d2e3f4a5b";
        try (EventLog log = EventLog.open(dir, 100, Duration.ofDays(1))) {
            log.append(e);
        }
        try (EventLog log = EventLog.open(dir, 100, Duration.ofDays(1))) {
            List<VrEvent> read = log.read();
            assertThat(read).extracting(x -> x.vmName + " " + x.vmUUID).containsExactly("old null", "vr2 " + e.vmUUID);
        }
    }

    @Test
    void aTornLastLineIsDroppedAndLaterAppendsReadBack() throws Exception {
        Instant now = Instant.now();
        try (EventLog log = EventLog.open(dir, 100, Duration.ofDays(1))) {
            for (long s = 1; s <= 3; s++) log.append(event(s, now));
        }
        Files.writeString(dir.resolve(EventLog.FILE), "{\"sequence\":4,\"timesta", StandardCharsets.UTF_8,
                StandardOpenOption.APPEND);
        try (EventLog log = EventLog.open(dir, 100, Duration.ofDays(1))) {
            assertThat(sequences(log)).containsExactly(1L, 2L, 3L);
            log.append(event(4, now));
        }
        try (EventLog log = EventLog.open(dir, 100, Duration.ofDays(1))) {
            assertThat(sequences(log)).containsExactly(1L, 2L, 3L, 4L);
        }
    }

    @Test
    void aBatchIsAppendedInOrderAndABatchLargerThanTheLimitLeavesTheNewest() {
        Instant now = Instant.now();
        try (EventLog log = EventLog.open(dir, 100, Duration.ofDays(1))) {
            log.append(List.of(event(1, now), event(2, now), event(3, now)));
            log.append(event(4, now));
            assertThat(sequences(log)).containsExactly(1L, 2L, 3L, 4L);
            List<VrEvent> many = new java.util.ArrayList<>();
            for (long s = 5; s <= 1_004; s++) many.add(event(s, now));
            log.append(many);
            assertThat(log.lastSequence()).isEqualTo(1_004L);
        }
        try (EventLog log = EventLog.open(dir, 100, Duration.ofDays(1))) {
            assertThat(sequences(log)).hasSize(100).startsWith(905L).endsWith(1_004L);
            assertThat(log.oldestSequence()).contains(905L);
        }
    }

    @Test
    void theLogKeepsAboutMaxEventsAndSaysWhenItDroppedSome() {
        Instant now = Instant.now();
        try (EventLog log = EventLog.open(dir, 100, Duration.ofDays(1))) {
            for (long s = 1; s <= 1_000; s++) log.append(event(s, now));
            List<Long> kept = sequences(log);
            assertThat(kept.size()).isBetween(100, 100 + 64);
            assertThat(kept.get(kept.size() - 1)).isEqualTo(1_000L);
            assertThat(log.oldestSequence()).contains(kept.get(0));
            assertThat(log.agedAt()).isPresent();
        }
        try (EventLog log = EventLog.open(dir, 100, Duration.ofDays(1))) {
            assertThat(sequences(log)).hasSize(100).startsWith(901L).endsWith(1_000L);
        }
    }

    @Test
    void eventsOlderThanTheAgeLimitAreDroppedButTheSequenceGoesOn() {
        Instant now = Instant.parse("2026-11-23T12:00:00Z");
        try (EventLog log = EventLog.open(dir, 100, Duration.ofHours(1), Clock.fixed(now, ZoneOffset.UTC))) {
            log.append(event(1, now.minus(Duration.ofHours(3))));
            log.append(event(2, now.minus(Duration.ofHours(2))));
        }
        Clock later = Clock.fixed(now, ZoneOffset.UTC);
        try (EventLog log = EventLog.open(dir, 100, Duration.ofHours(1), later)) {
            assertThat(log.read()).isEmpty();
            assertThat(log.oldestSequence()).isEmpty();
            assertThat(log.lastSequence()).isEqualTo(2);
            assertThat(log.agedAt()).contains(now);
            log.append(event(3, now));
        }
        try (EventLog log = EventLog.open(dir, 100, Duration.ofHours(1), later)) {
            assertThat(sequences(log)).containsExactly(3L);
        }
    }

    @Test
    void theHeaderStatesTheFormatAndANewerOneIsRefusedNamingTheFileAndVersion() throws Exception {
        Path file = dir.resolve(EventLog.FILE);
        EventLog.open(dir, 100, Duration.ofDays(1)).close();
        assertThat(Files.readString(file)).startsWith("{\"vrouterEventLog\":{\"format\":2,");
        Files.writeString(file, "{\"vrouterEventLog\":{\"format\":3,\"created\":\"2026-01-01T00:00:00Z\"}}\n");
        assertThatThrownBy(() -> EventLog.open(dir, 100, Duration.ofDays(1)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith(file + " line 1 is in format 3, which this release of vrouter does not read");
        assertThat(Files.readString(file)).contains("\"format\":3");
    }

    @Test
    void openingALogWithLinesToDropWritesNothingUntilTheFirstAppend() throws Exception {
        Instant now = Instant.now();
        Instant then = now.minus(Duration.ofDays(2));
        try (EventLog log = EventLog.open(dir, 100, Duration.ofDays(1), Clock.fixed(then, ZoneOffset.UTC))) {
            log.append(event(1, then)); // too old by the time of the next opening
            for (long s = 2; s <= 3; s++) log.append(event(s, now));
            assertThat(log.agedAt()).isEmpty();
        }
        Path file = dir.resolve(EventLog.FILE);
        Files.writeString(file, "{\"sequence\":4,\"timesta", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        byte[] bytes = Files.readAllBytes(file);
        java.nio.file.attribute.FileTime modified = Files.getLastModifiedTime(file);
        try (EventLog log = EventLog.open(dir, 100, Duration.ofDays(1))) {
            // As a start-up that is then refused for a damaged file elsewhere leaves it.
            assertThat(sequences(log)).containsExactly(2L, 3L);
            assertThat(log.agedAt()).isPresent();
            assertThat(Files.readAllBytes(file)).isEqualTo(bytes);
            assertThat(Files.getLastModifiedTime(file)).isEqualTo(modified);
            log.append(event(4, now));
            assertThat(sequences(log)).containsExactly(2L, 3L, 4L);
        }
        try (EventLog log = EventLog.open(dir, 100, Duration.ofDays(1))) {
            assertThat(sequences(log)).containsExactly(2L, 3L, 4L);
            assertThat(log.agedAt()).isPresent();
        }
    }
}
