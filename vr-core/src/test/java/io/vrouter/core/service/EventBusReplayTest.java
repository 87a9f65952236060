package io.vrouter.core.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.vrouter.core.model.VrEvent;
import io.vrouter.core.persistence.EventLog;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EventBusReplayTest {
    @TempDir
    Path dir;

    static VrEvent event(int vmIndex) {
        VrEvent e = new VrEvent();
        e.timestamp = Instant.now().toString();
        e.type = VrEvent.Type.CONFIG_CHANGED;
        e.vmIndex = vmIndex;
        e.vmName = "vr" + vmIndex;
        return e;
    }

    /** Records what a subscriber is told, in order: event sequences, "complete", and gaps. */
    static final class Recorder implements EventBus.Subscriber {
        final List<Long> events = new CopyOnWriteArrayList<>();
        final List<String> said = new CopyOnWriteArrayList<>();
        volatile int eventsBeforeComplete = -1;

        @Override
        public void event(VrEvent e) {
            events.add(e.sequence);
        }

        @Override
        public void replayComplete() {
            eventsBeforeComplete = events.size();
            said.add("complete");
        }

        @Override
        public void replayGap(long firstAskedFor, Optional<Long> oldestKept) {
            said.add("gap " + firstAskedFor + " " + oldestKept.map(String::valueOf).orElse("none"));
        }
    }

    EventBus bus(int maxEvents) {
        EventBus bus = new EventBus();
        bus.recordTo(EventLog.open(dir, maxEvents, Duration.ofDays(1)));
        return bus;
    }

    @Test
    void sequenceNumbersGoOnAcrossRestartsAndAResumeGetsWhatWasMissed() throws Exception {
        try (EventBus bus = bus(1_000)) {
            for (int i = 1; i <= 10; i++) bus.publish(event(i));
        }
        try (EventBus bus = bus(1_000)) {
            Recorder r = new Recorder();
            try (AutoCloseable sub = bus.subscribe(new EventBus.Replay.After(7), r)) {
                bus.publish(event(11));
            }
            assertThat(r.events).containsExactly(8L, 9L, 10L, 11L);
            assertThat(r.eventsBeforeComplete).isEqualTo(3);
            assertThat(r.said).containsExactly("complete");
        }
    }

    @Test
    void aReplayWhilePublishersRunMissesNothingAndRepeatsNothing() throws Exception {
        try (EventBus bus = bus(100_000)) {
            for (int i = 1; i <= 2_000; i++) bus.publish(event(i));
            CountDownLatch started = new CountDownLatch(1);
            Thread publisher = new Thread(() -> {
                started.countDown();
                for (int i = 0; i < 5_000; i++) bus.publish(event(i));
            });
            publisher.start();
            started.await();
            Recorder r = new Recorder();
            try (AutoCloseable sub = bus.subscribe(new EventBus.Replay.After(100), r)) {
                publisher.join();
            }
            assertThat(r.events).hasSize(7_000 - 100);
            for (int i = 0; i < r.events.size(); i++) assertThat(r.events.get(i)).isEqualTo(101L + i);
        }
    }

    @Test
    void aResumeOlderThanTheLogIsToldOfTheGapBeforeWhatIsLeft() throws Exception {
        try (EventBus bus = bus(10)) {
            for (int i = 1; i <= 30; i++) bus.publish(event(i));
        }
        try (EventBus bus = bus(10)) {
            Recorder r = new Recorder();
            bus.subscribe(new EventBus.Replay.After(5), r).close();
            assertThat(r.said).containsExactly("gap 6 21", "complete");
            assertThat(r.events).containsExactly(21L, 22L, 23L, 24L, 25L, 26L, 27L, 28L, 29L, 30L);
        }
    }

    @Test
    void aReplaySinceATimeGivesTheEventsFromThen() throws Exception {
        try (EventBus bus = bus(1_000)) {
            for (int i = 1; i <= 3; i++) bus.publish(event(i));
            Thread.sleep(20);
            Instant from = Instant.now();
            for (int i = 4; i <= 5; i++) bus.publish(event(i));
            Recorder r = new Recorder();
            bus.subscribe(new EventBus.Replay.Since(from), r).close();
            assertThat(r.events).containsExactly(4L, 5L);
            assertThat(r.said).containsExactly("complete");
        }
    }

    @Test
    void withoutALogTheRecentEventsStillReplayFromMemory() throws Exception {
        try (EventBus bus = new EventBus()) {
            for (int i = 1; i <= 5; i++) bus.publish(event(i));
            Recorder r = new Recorder();
            bus.subscribe(new EventBus.Replay.After(3), r).close();
            assertThat(r.events).containsExactly(4L, 5L);
        }
    }

    @Test
    void eventsFromManyPublishersReachEverySubscriberAndTheLogInSequenceOrder() throws Exception {
        try (EventBus bus = bus(100_000)) {
            Recorder first = new Recorder();
            Recorder second = new Recorder();
            bus.subscribe(first::event);
            bus.subscribe(second::event);
            List<Thread> publishers = new java.util.ArrayList<>();
            for (int t = 0; t < 8; t++) {
                Thread p = new Thread(() -> {
                    for (int i = 0; i < 1_000; i++) bus.publish(event(i));
                });
                publishers.add(p);
                p.start();
            }
            for (Thread p : publishers) p.join();
            for (Recorder r : List.of(first, second)) {
                assertThat(r.events).hasSize(8_000);
                for (int i = 0; i < r.events.size(); i++) assertThat(r.events.get(i)).isEqualTo(i + 1L);
            }
            List<VrEvent> logged = bus.replayLog().orElseThrow().read();
            assertThat(logged).hasSize(8_000);
            for (int i = 0; i < logged.size(); i++) assertThat(logged.get(i).sequence).isEqualTo(i + 1L);
        }
    }

    @Test
    void anEventPublishedByAListenerReachesEveryListenerAfterTheOneBeingDelivered() throws Exception {
        try (EventBus bus = bus(1_000)) {
            bus.subscribe(e -> {
                if (e.vmIndex == 1) bus.publish(event(2));
            });
            Recorder later = new Recorder();
            bus.subscribe(later::event);
            bus.publish(event(1));
            assertThat(later.events).containsExactly(1L, 2L);
        }
    }

    @Test
    void aPublisherDeliversUpToItsOwnEventAndLeavesLaterOnesToTheirPublishers() throws Exception {
        try (EventBus bus = bus(1_000)) {
            Recorder r = new Recorder();
            bus.subscribe(r::event);
            long first = bus.post(event(1));
            bus.post(event(2));
            bus.deliver(first);
            assertThat(r.events).containsExactly(1L);
            assertThat(bus.replayLog().orElseThrow().read()).extracting(e -> e.sequence).containsExactly(1L);
            bus.deliver();
            assertThat(r.events).containsExactly(1L, 2L);
        }
    }
}
