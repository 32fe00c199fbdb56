// SPDX-License-Identifier: Apache-2.0
package dat.bench;

import dat.api.DatEvd;
import dat.api.DatEvent;
import dat.api.DatReturn;
import java.lang.foreign.MemorySegment;
import java.time.Duration;

/**
 * The far side of a ping-pong, on its own platform thread: started in {@code @Setup(Level.Trial)}, stopped in
 * {@code @TearDown(Level.Trial)} before the IA is closed. It busy-waits like the benchmark thread (so both ends pay
 * the same wake-up cost), but without a deadline: between JMH iterations it legitimately waits for the next ping.
 * It checks {@link #running()} on every empty poll, so {@link #stop()} reaches it within one spin. A failure is kept
 * and rethrown on the benchmark thread by {@link Spin#idle}, and again at tear-down.
 */
abstract class Responder implements Runnable {

    /** How long {@link #stop()} waits for the thread to leave its loop. */
    static final Duration STOP_GRACE = Duration.ofSeconds(5);

    private volatile boolean running = true;
    private volatile Throwable failure;
    private Thread thread;

    /**
     * Starts the thread.
     *
     * @param name its name
     */
    final void start(String name) {
        thread = Thread.ofPlatform().name(name).daemon(true).start(this);
    }

    @Override
    public final void run() {
        try {
            serve();
        } catch (RuntimeException | Error e) {
            failure = e;
        }
    }

    /** Echoes until {@link #running()} turns false. */
    abstract void serve();

    /** {@return whether to go on} */
    final boolean running() {
        return running;
    }

    /** Throws the responder's failure, if any, on the calling thread. */
    final void rethrow() {
        Throwable t = failure;
        if (t != null) {
            throw new IllegalStateException("the responder thread failed: " + t, t);
        }
    }

    /**
     * Stops the thread and waits for it, then rethrows its failure.
     *
     * @throws IllegalStateException when it failed or did not stop in time
     */
    final void stop() {
        running = false;
        if (thread == null) {
            return;
        }
        try {
            if (!thread.join(STOP_GRACE)) {
                throw new IllegalStateException(thread.getName() + " did not stop within " + STOP_GRACE);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while stopping " + thread.getName(), e);
        }
        rethrow();
    }

    /**
     * Busy-dequeues {@code evd} until a successful DTO completion arrives or the responder is stopped.
     *
     * @param evd the EVD
     * @param event receives the completion
     * @param call the DTO's DAT call
     * @return the transferred length, or -1 when stopped
     */
    final long completion(DatEvd evd, DatEvent event, String call) {
        int spins = 0;
        while (true) {
            int rc = evd.dequeue(event);
            if (rc == DatReturn.DAT_SUCCESS) {
                return Spin.completed(event, call);
            }
            if (rc != DatReturn.DAT_QUEUE_EMPTY) {
                throw new IllegalStateException("responder: dat_evd_dequeue after " + call + " returned "
                        + DatReturn.toString(rc));
            }
            if (!running) {
                return -1;
            }
            spins = pause(spins);
        }
    }

    /**
     * Spins until the byte at {@code offset} differs from {@code previous} or the responder is stopped.
     *
     * @param memory the buffer the benchmark thread RDMA-writes into
     * @param offset the flag byte
     * @param previous the last flag seen
     * @return the new flag, or {@code previous} when stopped
     */
    final byte awaitChange(MemorySegment memory, long offset, byte previous) {
        int spins = 0;
        while (true) {
            byte flag = Spin.readByte(memory, offset);
            if (flag != previous) {
                return flag;
            }
            if (!running) {
                return previous;
            }
            spins = pause(spins);
        }
    }

    private static int pause(int spins) {
        int next = spins + 1;
        if ((next & (Spin.CHECK_EVERY - 1)) == 0) {
            Thread.yield();
        } else {
            Thread.onSpinWait();
        }
        return next;
    }
}
