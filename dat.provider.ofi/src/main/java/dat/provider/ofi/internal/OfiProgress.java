// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The IA's progress thread: runs {@link OfiIa#backgroundStep} under the IA's lock, and sleeps between steps that
 * find nothing, from 50 us up to 2 ms, so an idle IA costs little and a busy one is served at once. It never blocks
 * in libfabric: the endpoints' events are read with {@code fi_eq_read} and {@code fi_cq_read}, which return at once.
 * What it is for: the connection events (the EQs) and the progress of CQs nobody polls; a CQ its consumer read in
 * the last {@link #POLLED_NANOS} is the consumer's, so a polling consumer and this thread do not take turns on the
 * lock for the same completions.
 *
 * <p><b>It never queues on the lock behind a consumer.</b> A thread parked on the lock costs the consumer an unpark (a
 * futex call, and on two cores a context switch) at every unlock until it gets the lock, and a consumer polling
 * {@code dat_evd_dequeue} retakes the lock at once (on ofi-tcp-lo, with the IA-wide wait condition of the time,
 * several futex calls per 64-byte round trip). So the thread only tries the lock; when a consumer holds it, or
 * dequeued in the last {@link #POLLED_NANOS}, the thread asks for its step ({@link OfiIa#wantStep}) and backs off, and
 * the consumer's next {@code dat_evd_dequeue} takes the step on its way out. Only a request left unserved for
 * {@link #MAX_UNSERVED} tries in a row (a consumer inside the IA that never dequeues) makes the thread wait for the
 * lock, so connection events are read whatever the consumer does.
 *
 * <p><b>A polling consumer takes the whole step too.</b> While a consumer spins on {@code dat_evd_dequeue}, it takes
 * the IA's step itself every {@link #STEP_NANOS} ({@link OfiIa#stepIfDue}), besides the steps the thread asks for
 * every {@link #MAX_SLEEP_NANOS}. With the asks alone, one round trip in a hundred took a millisecond (ofi-tcp-lo,
 * 64 B ping-pong across two processes pinned to one CPU each: p99 0.8 to 1.1 ms); with the consumer's own steps,
 * 37 to 47 us. Why was not isolated. The thread still looks every 2 ms: a consumer that stops dequeuing to spin on
 * memory (an RDMA write landing, which on tcp needs a CQ read to move) is progressed again 1 to 3 ms after its last
 * dequeue; a thread that slept 20 ms while a consumer polled made a 64 B write ping-pong on ofi-tcp-lo take 10 ms.
 *
 * <p><b>It backs off from a consumer dequeuing back to back.</b> Each look is a wake-up on the consumer's CPU when they
 * share one (a JVM pinned to one CPU, as bench/compare.sh runs both sides of a ping-pong), and costs the round trip
 * under way tens of microseconds: on a 64 B ofi-shm-shm-rdm ping-pong the looks every 2 ms were the p99.9 of 20 us
 * (5 us when they came every 20 ms). So while the consumer made {@link #TIGHT_DEQUEUES} dequeues or more since each
 * look, the sleep doubles up to {@link #MAX_POLLED_SLEEP_NANOS}; a consumer that dequeued fewer times, such as one
 * spinning on memory for a write to land between its dequeues, brings it back to 2 ms, and a {@code dat_evd_wait}
 * going to sleep wakes the thread ({@link #wake}).
 */
final class OfiProgress implements Runnable {

    private static final long MIN_SLEEP_NANOS = 50_000;
    private static final long MAX_SLEEP_NANOS = 2_000_000;
    /** How long a consumer's read of a CQ keeps the thread off it. */
    static final long POLLED_NANOS = 1_000_000;
    /** How often a polling consumer takes the IA's whole step (the connection events, CQs nobody polls). */
    static final long STEP_NANOS = 1_000_000;
    /**
     * Dequeues between two looks that mark a consumer dequeuing back to back: it makes hundreds of thousands in a
     * 2 ms sleep, one spinning on memory between its dequeues a handful.
     */
    static final long TIGHT_DEQUEUES = 64;
    /** The longest sleep while a consumer dequeues back to back. */
    static final long MAX_POLLED_SLEEP_NANOS = 16_000_000;
    /** Tries in a row that found the lock held and the last step request unserved, before the thread waits for it. */
    static final int MAX_UNSERVED = 8;

    private final OfiIa ia;
    private final Thread thread;
    private volatile boolean stopped;

    OfiProgress(OfiIa ia) {
        this.ia = ia;
        this.thread = Thread.ofPlatform().daemon().name("dat-ofi-progress-" + ia.name()).unstarted(this);
    }

    void start() {
        thread.start();
    }

    /** How often the thread looked and found a consumer dequeuing or the lock held (OfiProgressTest). */
    private final AtomicLong looks = new AtomicLong();

    /** {@return how often the thread looked and left the step to a consumer} */
    long looks() {
        return looks.get();
    }

    /** Ends the thread's sleep now (a CNO to trigger, a {@code dat_evd_wait} going to sleep). */
    void wake() {
        LockSupport.unpark(thread);
    }

    /** {@return the thread (OfiProgressTest watches whether it queues on the IA's lock)} */
    Thread thread() {
        return thread;
    }

    /** Stops the thread and waits for it, so nothing of the IA is touched after. */
    void stop() {
        stopped = true;
        LockSupport.unpark(thread);
        if (Thread.currentThread() != thread) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        // A stopped thread leaves nothing to the consumers (OfiProgressTest and OfiCreditTest take its steps by hand).
        ia.delegate(false);
    }

    @Override
    public void run() {
        long sleep = MIN_SLEEP_NANOS;
        long polledSleep = MAX_SLEEP_NANOS;
        long dequeuesSeen = 0;
        int unserved = 0;
        while (!stopped) {
            boolean found;
            boolean busy;
            if (unserved < MAX_UNSERVED) {
                // A consumer dequeuing now takes the step itself: the thread does not even try the lock, which a
                // consumer finding it held parks on (a futex call and a context switch, a millisecond or more when
                // its CPU is busy).
                long now = System.nanoTime();
                boolean polled = ia.consumerActive(now);
                ia.delegate(polled);
                long dequeues = ia.dequeues();
                polledSleep = polled && dequeues - dequeuesSeen >= TIGHT_DEQUEUES
                        ? Math.min(MAX_POLLED_SLEEP_NANOS, polledSleep * 2) : MAX_SLEEP_NANOS;
                dequeuesSeen = dequeues;
                if (polled || !ia.lock.tryLock()) {
                    unserved = ia.wantStep() ? unserved + 1 : 0;
                    sleep = Math.min(MAX_SLEEP_NANOS, sleep * 2);
                    LockSupport.parkNanos(polled ? polledSleep : sleep);
                    looks.incrementAndGet();
                    continue;
                }
            } else {
                ia.delegate(false);
                ia.lock.lock();
            }
            unserved = 0;
            try {
                if (stopped) {
                    return;
                }
                found = ia.backgroundStep(System.nanoTime() - POLLED_NANOS);
                busy = found || ia.busy();
                ia.takeCnoTriggers();
            } catch (RuntimeException e) {
                found = false;
                busy = false;
                if (OfiConfig.TRACE) {
                    OfiConfig.trace("progress step failed: " + e);
                }
            } finally {
                ia.lock.unlock();
            }
            ia.fireCnoTriggers();
            // Busy (something found, or a CQ left to its polling consumer): the next step comes soon.
            sleep = busy ? MIN_SLEEP_NANOS : Math.min(MAX_SLEEP_NANOS, sleep * 2);
            if (!found) {
                LockSupport.parkNanos(sleep);
            }
        }
    }
}
