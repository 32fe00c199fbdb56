// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import java.util.concurrent.locks.LockSupport;

/**
 * The IA's progress thread: runs {@link OfiIa#backgroundStep} under the IA's lock, and sleeps between steps that
 * find nothing, from 50 us up to 2 ms, so an idle IA costs little and a busy one is served at once. It never blocks
 * in libfabric: the endpoints' events are read with {@code fi_eq_read} and {@code fi_cq_read}, which return at once.
 * What it is for: the connection events (the EQs) and the progress of CQs nobody polls; a CQ its consumer read in
 * the last {@link #POLLED_NANOS} is the consumer's, so a polling consumer and this thread do not take turns on the
 * lock for the same completions.
 */
final class OfiProgress implements Runnable {

    private static final long MIN_SLEEP_NANOS = 50_000;
    private static final long MAX_SLEEP_NANOS = 2_000_000;
    /** How long a consumer's read of a CQ keeps the thread off it. */
    static final long POLLED_NANOS = 1_000_000;

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
    }

    @Override
    public void run() {
        long sleep = MIN_SLEEP_NANOS;
        while (!stopped) {
            boolean found;
            boolean busy;
            ia.lock.lock();
            try {
                if (stopped) {
                    return;
                }
                found = ia.backgroundStep(System.nanoTime() - POLLED_NANOS);
                busy = found || ia.leftToConsumer();
            } catch (RuntimeException e) {
                found = false;
                busy = false;
                if (OfiConfig.TRACE) {
                    OfiConfig.trace("progress step failed: " + e);
                }
            } finally {
                ia.lock.unlock();
            }
            // Busy (something found, or a CQ left to its polling consumer): the next step comes soon.
            sleep = busy ? MIN_SLEEP_NANOS : Math.min(MAX_SLEEP_NANOS, sleep * 2);
            if (!found) {
                LockSupport.parkNanos(sleep);
            }
        }
    }
}
