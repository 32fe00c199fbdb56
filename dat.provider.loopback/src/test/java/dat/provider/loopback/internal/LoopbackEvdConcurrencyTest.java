// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dat.api.Dat;
import dat.api.DatCloseFlags;
import dat.api.DatDtoStatus;
import dat.api.DatEvdFlags;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatException;
import dat.api.DatIa;
import dat.api.DatReturn;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The EVD's lock-free ring under several producer and consumer threads: every event is dequeued exactly once,
 * each producer's events come out in its order, every reaper runs exactly once, overflow is counted exactly and
 * reported once per episode, and a waiter is never left asleep.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LoopbackEvdConcurrencyTest {

    private static final int PRODUCERS = 4;
    /** Cookie layout: producer in the high half, sequence number in the low half. */
    private static final int PRODUCER_SHIFT = 32;

    /** A large async EVD, so the overflow reports themselves do not overflow. */
    private final DatIa ia = new LoopbackProvider().open("loopback0", "", LoopbackConfig.MAX_EVD_QLEN);
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    @AfterEach
    void close() throws InterruptedException {
        for (Thread t : threads) {
            t.interrupt();
            t.join(5000);
        }
        ia.close(DatCloseFlags.ABRUPT);
    }

    private Thread start(String name, Runnable body) {
        Thread t = Thread.ofPlatform().name(name).daemon().start(() -> {
            try {
                body.run();
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
            }
        });
        threads.add(t);
        return t;
    }

    private void join() throws Throwable {
        for (Thread t : threads) {
            Waits.join(t, t.getName());
        }
        if (failure.get() != null) {
            throw failure.get();
        }
    }

    private static long cookie(int producer, int seq) {
        return ((long) producer << PRODUCER_SHIFT) | seq;
    }

    /** Per-event reapers, so that "exactly once" is checked event by event, not as a total. */
    private static Reaper[][] reapers(AtomicIntegerArray reaped, int perProducer) {
        Reaper[][] r = new Reaper[PRODUCERS][perProducer];
        for (int p = 0; p < PRODUCERS; p++) {
            for (int i = 0; i < perProducer; i++) {
                int index = p * perProducer + i;
                r[p][i] = () -> reaped.incrementAndGet(index);
            }
        }
        return r;
    }

    /**
     * Takes events until {@code done} and the EVD is empty, in a tight loop (so consumers really race for the
     * head), logging each cookie; {@link ConsumerLog#check} verifies the log afterwards.
     */
    private Runnable consumer(LoopbackEvd evd, AtomicBoolean done, ConsumerLog log) {
        return () -> {
            DatEvent e = new DatEvent();
            while (true) {
                boolean finished = done.get();
                int rc = evd.dequeue(e);
                if (rc == DatReturn.DAT_QUEUE_EMPTY) {
                    if (finished) {
                        return;
                    }
                    Thread.onSpinWait();
                    continue;
                }
                if (rc != DatReturn.DAT_SUCCESS || e.type() != DatEventType.DTO_COMPLETION || e.evd() != evd
                        || e.dtoStatus() != DatDtoStatus.SUCCESS || e.transferredLength() != (int) e.userCookie()) {
                    fail("rc " + rc + ", event " + e);
                }
                log.cookies[log.count++] = e.userCookie();
            }
        };
    }

    /** What one consumer took, in order. */
    private static final class ConsumerLog {
        final long[] cookies;
        int count;

        ConsumerLog(int capacity) {
            cookies = new long[capacity];
        }

        /**
         * Each producer's events in its order (a consumer's takes are ordered in time, so FIFO means increasing),
         * and each event taken once over all logs.
         *
         * @return the sum of the cookies taken
         */
        long check(AtomicIntegerArray seen, int perProducer) {
            int[] last = new int[PRODUCERS];
            Arrays.fill(last, -1);
            long sum = 0;
            for (int k = 0; k < count; k++) {
                long c = cookies[k];
                int p = (int) (c >>> PRODUCER_SHIFT);
                int seq = (int) c;
                int previous = last[p];
                assertTrue(seq > previous, () -> "producer " + p + ": " + seq + " after " + previous);
                last[p] = seq;
                assertEquals(1, seen.incrementAndGet(p * perProducer + seq), () -> "taken twice: " + seq + " of " + p);
                sum += c;
            }
            return sum;
        }
    }

    @Test
    void producersAndConsumersSeeEveryEventOnceInProducerOrder() throws Throwable {
        int perProducer = 50_000;
        LoopbackEvd evd = (LoopbackEvd) ia.createEvd(64, null, DatEvdFlags.DTO);
        AtomicIntegerArray seen = new AtomicIntegerArray(PRODUCERS * perProducer);
        AtomicIntegerArray reaped = new AtomicIntegerArray(PRODUCERS * perProducer);
        Reaper[][] reaper = reapers(reaped, perProducer);
        AtomicLong accepted = new AtomicLong();
        AtomicLong dropped = new AtomicLong();
        AtomicLong acceptedSum = new AtomicLong();
        ConsumerLog log0 = new ConsumerLog(PRODUCERS * perProducer);
        ConsumerLog log1 = new ConsumerLog(PRODUCERS * perProducer);
        AtomicBoolean done = new AtomicBoolean();
        AtomicLong overflowReports = new AtomicLong();
        AtomicBoolean drainAsync = new AtomicBoolean(true);

        Thread asyncDrainer = Thread.ofPlatform().daemon().start(() -> {
            DatEvent e = new DatEvent();
            while (true) {
                boolean last = !drainAsync.get();
                if (ia.asyncEvd().dequeue(e) == DatReturn.DAT_SUCCESS) {
                    if (e.type() == DatEventType.ASYNC_ERROR_EVD_OVERFLOW && e.asyncHandle() == evd) {
                        overflowReports.incrementAndGet();
                    }
                } else if (last) {
                    return;
                } else {
                    Thread.onSpinWait();
                }
            }
        });
        CyclicBarrier go = new CyclicBarrier(PRODUCERS);
        List<Thread> producers = new ArrayList<>();
        for (int p = 0; p < PRODUCERS; p++) {
            int id = p;
            producers.add(start("producer-" + p, () -> {
                await(go);
                for (int i = 0; i < perProducer; i++) {
                    long c = cookie(id, i);
                    if (evd.postDto(null, c, DatDtoStatus.SUCCESS, i, true, reaper[id][i])) {
                        accepted.incrementAndGet();
                        acceptedSum.addAndGet(c);
                    } else {
                        dropped.incrementAndGet();
                        // Let the consumers run (two cores may be all there is): most events must get through.
                        Thread.yield();
                    }
                }
            }));
        }
        start("consumer-0", consumer(evd, done, log0));
        start("consumer-1", consumer(evd, done, log1));
        for (Thread t : producers) {
            Waits.join(t, "a producer posting its events");
        }
        done.set(true);
        join();
        drainAsync.set(false);
        Waits.join(asyncDrainer, "the async EVD's drainer");
        long dequeuedSum = log0.check(seen, perProducer) + log1.check(seen, perProducer);
        long dequeued = (long) log0.count + log1.count;

        long posted = (long) PRODUCERS * perProducer;
        assertEquals(posted, accepted.get() + dropped.get());
        assertEquals(accepted.get(), dequeued, "every queued event dequeued");
        assertEquals(acceptedSum.get(), dequeuedSum, "cookie checksum");
        for (int i = 0; i < posted; i++) {
            int index = i;
            assertEquals(1, reaped.get(i), () -> "reaper of event " + index);
        }
        // Each report opens an episode; the first needs no dequeue, each further one needs one before it.
        if (dropped.get() > 0) {
            assertTrue(overflowReports.get() >= 1, "overflow with no report");
        }
        assertTrue(overflowReports.get() <= dropped.get(), "more reports than lost events");
        assertTrue(overflowReports.get() <= dequeued + 1, "more episodes than dequeues");
    }

    @Test
    void overflowIsReportedOncePerEpisodeUnderConcurrentProducers() throws Throwable {
        int qlen = 16;
        int perRound = 8;
        int rounds = 300;
        LoopbackEvd evd = (LoopbackEvd) ia.createEvd(qlen, null, DatEvdFlags.DTO);
        AtomicLong accepted = new AtomicLong();
        AtomicLong dropped = new AtomicLong();
        AtomicLong reaped = new AtomicLong();
        Reaper count = reaped::incrementAndGet;
        CyclicBarrier start = new CyclicBarrier(PRODUCERS + 1);
        CyclicBarrier end = new CyclicBarrier(PRODUCERS + 1);
        for (int p = 0; p < PRODUCERS; p++) {
            start("producer-" + p, () -> {
                for (int r = 0; r < rounds; r++) {
                    await(start);
                    for (int i = 0; i < perRound; i++) {
                        if (evd.postDto(null, i, DatDtoStatus.SUCCESS, 0, true, count)) {
                            accepted.incrementAndGet();
                        } else {
                            dropped.incrementAndGet();
                        }
                    }
                    await(end);
                }
            });
        }
        DatEvent e = new DatEvent();
        long dequeued = 0;
        for (int r = 0; r < rounds; r++) {
            long before = accepted.get();
            await(start);
            await(end);
            // Round 0 fills the empty ring; later rounds find the one slot the last dequeue freed.
            assertEquals(r == 0 ? qlen : 1, accepted.get() - before, "events queued in round " + r);
            assertEquals(DatReturn.DAT_SUCCESS, ia.asyncEvd().dequeue(e), "no overflow report in round " + r);
            assertEquals(DatEventType.ASYNC_ERROR_EVD_OVERFLOW, e.type());
            assertSame(evd, e.asyncHandle());
            assertEquals(DatReturn.DAT_QUEUE_EMPTY, ia.asyncEvd().dequeue(e), "two reports in round " + r);
            assertEquals(DatReturn.DAT_SUCCESS, evd.dequeue(e));
            dequeued++;
        }
        join();
        long posted = (long) rounds * PRODUCERS * perRound;
        assertEquals(posted, accepted.get() + dropped.get());
        assertEquals(qlen + rounds - 1, accepted.get());
        assertEquals(dropped.get() + dequeued, reaped.get(), "reaped: every drop and every dequeue");
    }

    @Test
    void waiterWakesExactlyWhenTheThresholdIsMetByOtherThreads() throws Throwable {
        int iterations = 10_000;
        int threshold = 4;
        LoopbackEvd evd = (LoopbackEvd) ia.createEvd(64, null, DatEvdFlags.DTO);
        AtomicInteger round = new AtomicInteger(-1);
        for (int p = 0; p < 2; p++) {
            int id = p;
            start("producer-" + p, () -> {
                for (int r = 0; r < iterations; r++) {
                    for (int spins = 0; round.get() < r; spins++) {
                        EventRing.backoff(spins);
                    }
                    // Three unsignalled events and one signalled: only the fourth may complete the wait.
                    evd.postDto(null, cookie(id, 2 * r), DatDtoStatus.SUCCESS, 0, false, null);
                    evd.postDto(null, cookie(id, 2 * r + 1), DatDtoStatus.SUCCESS, 0, id == 1, null);
                }
            });
        }
        DatEvent e = new DatEvent();
        for (int r = 0; r < iterations; r++) {
            round.set(r);
            long start = System.nanoTime();
            int rc = evd.await(TimeUnit.SECONDS.toMicros(5), threshold, e);
            long waited = System.nanoTime() - start;
            int iteration = r;
            assertEquals(DatReturn.DAT_SUCCESS, rc, () -> "iteration " + iteration + ": " + DatReturn.toString(rc));
            // The events are posted at once; a wait that ends only on its 5 s timeout's re-test lost its wake-up. The
            // 4 s bound leaves room for scheduling stalls on a loaded 2-core machine while still catching that.
            assertTrue(waited < TimeUnit.SECONDS.toNanos(4), () -> "lost wake-up in iteration " + iteration
                    + ": woke after "
                    + TimeUnit.NANOSECONDS.toMillis(waited) + " ms");
            assertEquals(threshold - 1, e.nmore(), () -> "woke before the threshold in iteration " + iteration);
            for (int i = 1; i < threshold; i++) {
                assertEquals(DatReturn.DAT_SUCCESS, evd.dequeue(e));
            }
            assertEquals(DatReturn.DAT_QUEUE_EMPTY, evd.dequeue(e));
        }
        join();
    }

    @Test
    void unsignalledEventsAloneNeverCompleteAWait() throws Throwable {
        LoopbackEvd evd = (LoopbackEvd) ia.createEvd(16, null, DatEvdFlags.DTO);
        DatEvent e = new DatEvent();
        AtomicInteger rc = new AtomicInteger(Integer.MIN_VALUE);
        Thread w = start("waiter", () -> rc.set(evd.await(Dat.DAT_TIMEOUT_INFINITE, 2, e)));
        Waits.until(() -> evd.dequeue(new DatEvent()) == DatReturn.DAT_INVALID_STATE, "the waiter to wait");
        for (int i = 0; i < 5; i++) {
            evd.postDto(null, i, DatDtoStatus.SUCCESS, 0, false, null);
        }
        w.join(200);
        assertEquals(Integer.MIN_VALUE, rc.get(), "five unsignalled events woke the waiter");
        evd.postDto(null, 5, DatDtoStatus.SUCCESS, 0, true, null);
        join();
        assertEquals(DatReturn.DAT_SUCCESS, rc.get());
        assertEquals(0, e.userCookie());
        assertEquals(5, e.nmore());
    }

    @Test
    void resizeUnderLoadLosesAndDuplicatesNothing() throws Throwable {
        int perProducer = 50_000;
        LoopbackEvd evd = (LoopbackEvd) ia.createEvd(256, null, DatEvdFlags.DTO);
        AtomicIntegerArray seen = new AtomicIntegerArray(PRODUCERS * perProducer);
        AtomicIntegerArray reaped = new AtomicIntegerArray(PRODUCERS * perProducer);
        Reaper[][] reaper = reapers(reaped, perProducer);
        AtomicLong accepted = new AtomicLong();
        AtomicLong acceptedSum = new AtomicLong();
        ConsumerLog log = new ConsumerLog(PRODUCERS * perProducer);
        AtomicBoolean done = new AtomicBoolean();
        // Producers start after the resizer's first success, so the test never passes without having resized (on 2
        // cores the producers could otherwise finish before the resizer runs); later resizes race with the load.
        CountDownLatch firstResize = new CountDownLatch(1);
        List<Thread> producers = new ArrayList<>();
        for (int p = 0; p < PRODUCERS; p++) {
            int id = p;
            producers.add(start("producer-" + p, () -> {
                try {
                    firstResize.await();
                } catch (InterruptedException e) {
                    throw new IllegalStateException("interrupted before the first resize", e);
                }
                for (int i = 0; i < perProducer; i++) {
                    long c = cookie(id, i);
                    if (evd.postDto(null, c, DatDtoStatus.SUCCESS, i, true, reaper[id][i])) {
                        accepted.incrementAndGet();
                        acceptedSum.addAndGet(c);
                    }
                }
            }));
        }
        start("consumer", consumer(evd, done, log));
        AtomicInteger resizes = new AtomicInteger();
        start("resizer", () -> {
            int[] sizes = {1024, 8, 300, 64, 4096};
            for (int k = 0; !done.get(); k++) {
                try {
                    evd.resize(sizes[k % sizes.length]);
                    resizes.incrementAndGet();
                    firstResize.countDown();
                } catch (DatException refused) {
                    assertEquals(DatReturn.INVALID_STATE, refused.type(), refused::getMessage);
                }
                Thread.yield();
            }
        });
        for (Thread t : producers) {
            Waits.join(t, "a producer posting its events");
        }
        done.set(true);
        join();
        assertTrue(resizes.get() > 0, "no resize happened");
        long dequeuedSum = log.check(seen, perProducer);
        assertEquals(accepted.get(), log.count, "every queued event dequeued");
        assertEquals(acceptedSum.get(), dequeuedSum, "cookie checksum");
        for (int i = 0; i < PRODUCERS * perProducer; i++) {
            int index = i;
            assertEquals(1, reaped.get(i), () -> "reaper of event " + index);
        }
    }

    @Test
    void freeWhileProducersPostReapsEveryEventOnce() throws Throwable {
        int perProducer = 50_000;
        LoopbackEvd evd = (LoopbackEvd) ia.createEvd(512, null, DatEvdFlags.DTO);
        AtomicIntegerArray reaped = new AtomicIntegerArray(PRODUCERS * perProducer);
        Reaper[][] reaper = reapers(reaped, perProducer);
        AtomicInteger posts = new AtomicInteger();
        for (int p = 0; p < PRODUCERS; p++) {
            int id = p;
            start("producer-" + p, () -> {
                for (int i = 0; i < perProducer; i++) {
                    evd.postDto(null, cookie(id, i), DatDtoStatus.SUCCESS, i, true, reaper[id][i]);
                    posts.incrementAndGet();
                }
            });
        }
        start("consumer", () -> {
            DatEvent e = new DatEvent();
            while (evd.dequeue(e) != DatReturn.DAT_INVALID_HANDLE) {
                Thread.onSpinWait();
            }
        });
        Waits.until(() -> posts.get() >= PRODUCERS * perProducer / 4, "a quarter of the posts");
        evd.close();
        join();
        assertEquals(DatReturn.DAT_INVALID_HANDLE, evd.dequeue(new DatEvent()));
        for (int i = 0; i < PRODUCERS * perProducer; i++) {
            int index = i;
            assertEquals(1, reaped.get(i), () -> "reaper of event " + index);
        }
    }

    @Test
    void onlyOneWaiterAndDequeueRefusedWhileItWaits() throws Throwable {
        LoopbackEvd evd = (LoopbackEvd) ia.createEvd(8, null, DatEvdFlags.SOFTWARE);
        AtomicInteger first = new AtomicInteger(Integer.MIN_VALUE);
        start("waiter", () -> first.set(evd.await(Dat.DAT_TIMEOUT_INFINITE, 1, new DatEvent())));
        Waits.until(() -> evd.dequeue(new DatEvent()) == DatReturn.DAT_INVALID_STATE, "the waiter to wait");
        assertEquals(DatReturn.DAT_INVALID_STATE, evd.await(0, 1, new DatEvent()), "a second waiter");
        assertEquals(DatReturn.DAT_INVALID_STATE, evd.poll(ev -> fail("polled while waiting"), 4));
        assertEquals(DatReturn.DAT_SUCCESS, evd.postSoftwareEvent(42));
        join();
        assertEquals(DatReturn.DAT_SUCCESS, first.get());
        assertEquals(DatReturn.DAT_QUEUE_EMPTY, evd.dequeue(new DatEvent()), "the waiter took the event");
        assertNull(failure.get());
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
