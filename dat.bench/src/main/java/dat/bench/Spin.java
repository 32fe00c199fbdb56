// SPDX-License-Identifier: Apache-2.0
package dat.bench;

import dat.api.DatDtoStatus;
import dat.api.DatEvd;
import dat.api.DatEvent;
import dat.api.DatEventHandler;
import dat.api.DatEventType;
import dat.api.DatReturn;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;

/**
 * The benchmarks' checks and bounded busy-waits. A failed post or an error completion throws (JMH then fails the
 * benchmark instead of timing a fast error path), and no wait spins for ever: past {@link #TIMEOUT_NANOS} it throws.
 *
 * <p>Waiting is {@link Thread#onSpinWait()} on every empty poll; only every {@link #CHECK_EVERY}-th empty poll reads
 * the clock, looks at the peer thread's failure and {@link Thread#yield() yields}. A healthy round trip completes
 * long before that (a thousand spins are some tens of microseconds), so the timed path never reads the clock; on
 * this 2-core machine, where a spinning peer may be descheduled by the JIT or GC threads, the yield hands the core
 * back instead of burning a whole time slice. Nothing here allocates unless it throws.
 */
final class Spin {

    /** System property: how long any wait may take before the benchmark fails, in milliseconds. */
    static final String TIMEOUT_PROPERTY = "dat.bench.timeoutMillis";
    /** Default of {@link #TIMEOUT_PROPERTY}. */
    static final long TIMEOUT_MILLIS_DEFAULT = 10_000;
    /** {@link #TIMEOUT_PROPERTY} in nanoseconds. */
    static final long TIMEOUT_NANOS = TimeUnit.MILLISECONDS.toNanos(
            Long.getLong(TIMEOUT_PROPERTY, TIMEOUT_MILLIS_DEFAULT));
    /** Empty polls between two clock reads (a power of two). */
    static final int CHECK_EVERY = 1 << 10;

    /**
     * Acquire reads of the flag byte a peer RDMA-writes: keeps the spinning read from being hoisted out of the loop.
     * Only the flag is read, never the payload, so no ordering beyond the flag itself is needed.
     */
    private static final VarHandle BYTE = ValueLayout.JAVA_BYTE.varHandle();

    private Spin() {
    }

    /**
     * @param rc a data-path status
     * @param call the DAT call that returned it
     * @throws IllegalStateException unless it is {@code DAT_SUCCESS}
     */
    static void check(int rc, String call) {
        if (rc != DatReturn.DAT_SUCCESS) {
            throw new IllegalStateException(call + " returned " + DatReturn.toString(rc));
        }
    }

    /**
     * Checks that {@code event} is a successful DTO completion.
     *
     * @param event the event just dequeued
     * @param call the DTO's DAT call
     * @return its transferred length
     */
    static long completed(DatEvent event, String call) {
        if (event.type() != DatEventType.DTO_COMPLETION || event.dtoStatus() != DatDtoStatus.SUCCESS) {
            throw new IllegalStateException(call + " completed with " + event);
        }
        return event.transferredLength();
    }

    /**
     * Busy-dequeues {@code evd} until a successful DTO completion arrives.
     *
     * @param evd the EVD
     * @param event receives the completion
     * @param call the DTO's DAT call, for messages
     * @param peer the thread that is to cause the completion, or {@code null}: its failure ends the wait
     * @return the transferred length
     */
    static long completion(DatEvd evd, DatEvent event, String call, Responder peer) {
        int rc = evd.dequeue(event);
        if (rc == DatReturn.DAT_SUCCESS) {
            return completed(event, call);
        }
        long deadline = 0;
        int spins = 0;
        while (true) {
            if (rc != DatReturn.DAT_QUEUE_EMPTY) {
                throw new IllegalStateException("dat_evd_dequeue after " + call + " returned "
                        + DatReturn.toString(rc));
            }
            deadline = idle(++spins, deadline, call, peer);
            rc = evd.dequeue(event);
            if (rc == DatReturn.DAT_SUCCESS) {
                return completed(event, call);
            }
        }
    }

    /**
     * Busy-polls {@code evd} until {@code count} successful DTO completions were handled.
     *
     * @param evd the EVD
     * @param reaper counts and checks the completions
     * @param count how many to take
     * @param call the DTOs' DAT call, for messages
     */
    static void reap(DatEvd evd, Reaper reaper, int count, String call) {
        reaper.reset();
        long deadline = 0;
        int spins = 0;
        while (true) {
            int n = evd.poll(reaper, count - reaper.count);
            if (n < 0) {
                throw new IllegalStateException("dat_evd_poll after " + call + " returned " + DatReturn.toString(n));
            }
            reaper.verify(call);
            if (reaper.count == count) {
                return;
            }
            if (n == 0) {
                deadline = idle(++spins, deadline, call, null);
            }
        }
    }

    /**
     * Spins until the byte at {@code offset} of {@code memory} is {@code expected}.
     *
     * @param memory the buffer a peer RDMA-writes into
     * @param offset the flag byte
     * @param expected the value to wait for
     * @param call what is awaited, for messages
     * @param peer the writing thread, or {@code null}
     */
    static void awaitByte(MemorySegment memory, long offset, byte expected, String call, Responder peer) {
        long deadline = 0;
        int spins = 0;
        while ((byte) BYTE.getAcquire(memory, offset) != expected) {
            deadline = idle(++spins, deadline, call, peer);
        }
    }

    /**
     * {@return the flag, read with acquire semantics}
     *
     * @param memory a buffer
     * @param offset the flag byte
     */
    static byte readByte(MemorySegment memory, long offset) {
        return (byte) BYTE.getAcquire(memory, offset);
    }

    /**
     * One empty poll's pause.
     *
     * @param spins empty polls so far, including this one
     * @param deadline the deadline, or 0 before the first clock read
     * @param what the awaited DTO, for the timeout message
     * @param peer whose failure ends the wait, or {@code null}
     * @return the deadline
     */
    static long idle(int spins, long deadline, String what, Responder peer) {
        if ((spins & (CHECK_EVERY - 1)) != 0) {
            Thread.onSpinWait();
            return deadline;
        }
        if (peer != null) {
            peer.rethrow();
        }
        long now = System.nanoTime();
        if (deadline == 0) {
            return now + TIMEOUT_NANOS;
        }
        if (now - deadline > 0) {
            throw new IllegalStateException("no completion of " + what + " within "
                    + TimeUnit.NANOSECONDS.toMillis(TIMEOUT_NANOS) + " ms (-D" + TIMEOUT_PROPERTY + " sets the limit)");
        }
        Thread.yield();
        return deadline;
    }

    /**
     * A {@link DatEvd#poll} handler that counts successful DTO completions and remembers the first bad event, so
     * {@link #verify} can throw outside the provider's poll loop. Reused; allocates nothing.
     */
    static final class Reaper implements DatEventHandler {
        int count;
        long bytes;
        private final DatEvent bad = new DatEvent();
        private boolean failed;

        void reset() {
            count = 0;
            bytes = 0;
            failed = false;
        }

        @Override
        public void onEvent(DatEvent event) {
            if (event.type() == DatEventType.DTO_COMPLETION && event.dtoStatus() == DatDtoStatus.SUCCESS) {
                count++;
                bytes += event.transferredLength();
            } else if (!failed) {
                failed = true;
                bad.copyFrom(event);
            }
        }

        void verify(String call) {
            if (failed) {
                throw new IllegalStateException(call + " completed with " + bad);
            }
        }
    }
}
