package io.vrouter.core.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The hypervisor workers: a thread started only when no worker is idle, at most max, the rest queued (issue 22 item 6). */
class WorkerPoolTest {
    private final ThreadPoolExecutor pool = Executor.workerPool(4);

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    @Test
    void anIdleWorkerTakesTheNextTaskInsteadOfANewThread() {
        for (int i = 0; i < 10; i++) {
            idle();
            CompletableFuture.runAsync(() -> { }, pool).join();
        }
        assertThat(pool.getLargestPoolSize()).isEqualTo(1);
    }

    @Test
    void atMostMaxThreadsAndEveryTaskRuns() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch ran = new CountDownLatch(40);
        List<CompletableFuture<Void>> tasks = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            tasks.add(CompletableFuture.runAsync(() -> {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                ran.countDown();
            }, pool));
        }
        assertThat(pool.getPoolSize()).isEqualTo(4);
        assertThat(pool.getQueue()).hasSize(36);
        release.countDown();
        CompletableFuture.allOf(tasks.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
        assertThat(ran.getCount()).isZero();
        assertThat(pool.getLargestPoolSize()).isEqualTo(4);
    }

    @Test
    void refusedOnceShutDown() {
        pool.shutdown();
        assertThatThrownBy(() -> pool.execute(() -> { })).isInstanceOf(RejectedExecutionException.class);
    }

    /** Until a worker, if any, waits for a task (it is back in the queue's poll). */
    private void idle() {
        LinkedTransferQueue<Runnable> queue = (LinkedTransferQueue<Runnable>) pool.getQueue();
        while (pool.getPoolSize() > 0 && !queue.hasWaitingConsumer()) {
            Thread.onSpinWait();
        }
    }
}
