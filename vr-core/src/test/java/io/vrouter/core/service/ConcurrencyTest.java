package io.vrouter.core.service;

import static io.vrouter.core.service.ServiceFixture.vr;
import static org.assertj.core.api.Assertions.assertThat;

import io.vrouter.core.model.OperState;
import io.vrouter.core.spi.ConflictException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConcurrencyTest {
    @TempDir
    Path dir;

    @Test
    void indicesAreUniqueWhenManyThreadsCreateAtOnce() throws Exception {
        int threads = 8;
        int perThread = 50;
        try (ServiceFixture f = new ServiceFixture(dir)) {
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            CountDownLatch go = new CountDownLatch(1);
            List<Future<List<Integer>>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                results.add(pool.submit((Callable<List<Integer>>) () -> {
                    go.await();
                    List<Integer> mine = new ArrayList<>();
                    for (int k = 0; k < perThread; k++) {
                        mine.add(SingleVr.create(f.service, vr("t" + thread + "-" + k)).accepted().vmIndex);
                    }
                    return mine;
                }));
            }
            go.countDown();
            Set<Integer> all = new HashSet<>();
            for (Future<List<Integer>> r : results) all.addAll(r.get());
            pool.shutdown();
            assertThat(all).hasSize(threads * perThread);
            assertThat(f.service.indices()).containsExactlyInAnyOrderElementsOf(all);
        }
    }

    @Test
    void theSameNameFromManyThreadsIsCreatedOnce() throws Exception {
        try (ServiceFixture f = new ServiceFixture(dir)) {
            ExecutorService pool = Executors.newFixedThreadPool(8);
            CountDownLatch go = new CountDownLatch(1);
            AtomicInteger won = new AtomicInteger();
            AtomicInteger conflicts = new AtomicInteger();
            List<Future<?>> all = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                all.add(pool.submit(() -> {
                    go.await();
                    try {
                        SingleVr.create(f.service, vr("contested"));
                        won.incrementAndGet();
                    } catch (ConflictException e) {
                        conflicts.incrementAndGet();
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> x : all) x.get();
            pool.shutdown();
            assertThat(won.get()).isEqualTo(1);
            assertThat(conflicts.get()).isEqualTo(7);
        }
    }

    @Test
    void anIndexIsNeverReusedWhileItsVrExists() throws Exception {
        try (ServiceFixture f = new ServiceFixture(dir)) {
            Set<Integer> live = ConcurrentHashMap.newKeySet();
            for (int k = 0; k < 20; k++) live.add(SingleVr.create(f.service, vr("a" + k)).accepted().vmIndex);
            // Remove every other one while creating more from another thread.
            ExecutorService pool = Executors.newFixedThreadPool(2);
            Future<?> remover = pool.submit(() -> {
                for (int k = 0; k < 20; k += 2) {
                    int i = f.service.findByName("a" + k).orElseThrow();
                    SingleVr.remove(f.service, i).await(Duration.ofSeconds(10));
                    live.remove(i);
                }
                return null;
            });
            List<Integer> created = new ArrayList<>();
            for (int k = 0; k < 30; k++) created.add(SingleVr.create(f.service, vr("b" + k)).accepted().vmIndex);
            remover.get();
            pool.shutdown();
            assertThat(new HashSet<>(created)).hasSize(30).doesNotContainAnyElementsOf(live);
            assertThat(f.service.list(io.vrouter.core.spi.RouterQuery.all()).total).isEqualTo(40);
            for (int i : created) {
                var done = f.service.get(i).orElseThrow();
                assertThat(done.operState()).isIn(OperState.PREPARING, OperState.RUNNING);
            }
        }
    }
}
