// SPDX-License-Identifier: Apache-2.0
package dat.cli;

import dat.api.DatCompletionFlags;
import dat.api.DatDtoStatus;
import dat.api.DatEvd;
import dat.api.DatEvent;
import dat.api.DatEventType;
import dat.api.DatReturn;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * Runs a {@link PerfPlan} over a connected {@link PerfSession} and watches it.
 *
 * <p>Threads: the measuring client runs on its own platform thread ({@code dat-perf-client}), the responder
 * (echo, or receive-and-count) on another ({@code dat-perf-responder}) when the test needs one; the calling
 * thread is the watchdog. It hands finished rows to the caller as they come, and aborts the run when one size
 * (warm-up and timed part) takes longer than the plan's timeout. It sleeps until one of those is due: a finished
 * size, a failure and a worker's end wake it, the size's deadline ends its sleep, and it looks on its own only every
 * {@link #WATCH_MAX}. A watchdog that looked every 10 ms was a wake-up a hundred times a second on a CPU a measuring
 * worker spins on, each one a preempted round trip (with the ofi provider's progress thread, the Watchdog's polls and
 * the JIT, about 230 preemptions a second of each side of a pinned ofi-shm-shm-rdm ping-pong, in
 * {@code /proc/<pid>/task/<tid>/schedstat}). Both workers busy-poll with
 * {@code dat_evd_dequeue} and {@link Thread#onSpinWait()} (yielding after {@link #SPINS_BEFORE_YIELD} empty polls),
 * and check {@link #state} on every empty poll, so an abort reaches them within one spin. A worker stuck inside a
 * provider call is left to the caller, which then
 * closes the IA abruptly under it.
 */
final class PerfEngine {

    /** {@link #state}: measuring. */
    static final int RUNNING = 0;
    /** {@link #state}: the client is done; the responder stops at its next empty poll. */
    static final int STOP = 1;
    /** {@link #state}: a failure or the watchdog ended the run; both workers stop at their next empty poll. */
    static final int ABORT = 2;
    /** The longest sleep of the watchdog between the wake-ups it is given. */
    static final long WATCH_MAX = TimeUnit.SECONDS.toNanos(1);
    /**
     * Empty polls spent in {@link Thread#onSpinWait()} before a waiting worker starts to {@link Thread#yield()}
     * between polls: some tens of microseconds, far above a healthy round trip, so a dedicated core never yields,
     * while on a machine with fewer free cores than spinning threads (two workers, the JIT, other processes) a
     * worker whose peer was descheduled hands its core over instead of burning its time slice.
     */
    static final int SPINS_BEFORE_YIELD = 1 << 10;
    /** Receives the pingpong server keeps posted: it answers before it re-posts the one a message consumed. */
    static final int PINGPONG_SERVER_RECEIVES = 2;
    /** How long a stopped worker gets to leave its loop before the caller closes the IA under it. */
    static final Duration STOP_GRACE = Duration.ofSeconds(2);

    /**
     * Reads the flag byte a peer RDMA-writes into the last byte of a buffer, and clears it once per size.
     * Acquire/release access keeps the spinning read from being hoisted out of the loop; no ordering with the payload
     * is needed, as the payload is never read.
     */
    static final VarHandle FLAG = ValueLayout.JAVA_BYTE.varHandle();

    /** {@return the write pingpong's tag after {@code previous}: 1..127, never 0 and never {@code previous}} */
    static byte nextTag(byte previous) {
        return (byte) (previous >= 127 || previous < 1 ? 1 : previous + 1);
    }

    /** {@link #RUNNING}, {@link #STOP} or {@link #ABORT}; written by any thread, polled by the workers. */
    volatile int state = RUNNING;
    private final AtomicReference<String> failure = new AtomicReference<>();
    private volatile int sizeIndex = -1;
    private volatile long sizeStartNanos;
    private volatile int completed;
    private final PerfResult[] results;
    private final PerfPlan plan;
    private final PerfSession session;
    private Thread client;
    private Thread responder;
    /** The thread in {@link #run}: woken by a finished size, a failure and a worker's end. */
    private volatile Thread watcher;
    /** The watched worker returned from its loop (set before it wakes the watcher). */
    private volatile boolean watchedEnded;
    private boolean preposted;

    PerfEngine(PerfPlan plan, PerfSession session) {
        this.plan = plan;
        this.session = session;
        this.results = new PerfResult[plan.sizes().length];
    }

    /** {@return whether the test needs a thread on the server side: RDMA streams and reads run one-sided} */
    boolean needsResponder() {
        return plan.op() == PerfPlan.Op.SEND || (plan.test() == PerfPlan.Test.PINGPONG
                && plan.op() == PerfPlan.Op.WRITE);
    }

    /**
     * Pre-posts receives, starts the workers of the session's sides and watches them until the client is done or
     * the run is aborted, then stops the responder. On the serving node of a two-node run there is no client: the
     * watchdog follows the responder, and a one-sided test (nothing to answer) returns at once. Every worker is
     * joined, for at most {@link #STOP_GRACE} each.
     *
     * @param onRow called on this thread with each size's result, in order, as soon as it is measured
     * @return whether both workers have ended; when not, the caller must close the IA before the memory
     */
    boolean run(Consumer<PerfResult> onRow) {
        prepost();
        watcher = Thread.currentThread();
        boolean clientWatched = session.client != null;
        if (clientWatched) {
            client = Thread.ofPlatform().name("dat-perf-client").daemon(true)
                    .unstarted(watched(new PerfClient(plan, this, session), true));
        }
        if (needsResponder() && session.server != null) {
            responder = Thread.ofPlatform().name("dat-perf-responder").daemon(true)
                    .unstarted(watched(new PerfResponder(plan, this, session), !clientWatched));
            responder.start();
        }
        if (client == null && responder == null) {
            return true;
        }
        if (client != null) {
            client.start();
        }
        int reported = 0;
        while (!watchedEnded) {
            LockSupport.parkNanos(this, untilDeadline());
            reported = forward(reported, onRow);
            int index = sizeIndex;
            if (state == RUNNING && index >= 0 && System.nanoTime() - sizeStartNanos > plan.timeoutNanos()) {
                fail("size " + PerfPlan.sizeName(plan.sizes()[index]) + " (" + plan.warmups()[index]
                        + " warm-up + " + plan.iters()[index] + " iterations) did not finish within "
                        + TimeUnit.NANOSECONDS.toSeconds(plan.timeoutNanos())
                        + " s; aborted by the watchdog (--timeout sets the limit per size)");
            }
            if (Thread.currentThread().isInterrupted()) {
                fail("interrupted");
            }
            if (state == ABORT) {
                break;
            }
        }
        forward(reported, onRow);
        if (state == RUNNING) {
            state = STOP;
        }
        return joinWorkers();
    }

    /** {@return {@code work}, which when {@code watched} marks its end and wakes the watchdog} */
    private Runnable watched(Runnable work, boolean watched) {
        if (!watched) {
            return work;
        }
        return () -> {
            try {
                work.run();
            } finally {
                watchedEnded = true;
                LockSupport.unpark(watcher);
            }
        };
    }

    /** {@return how long the watchdog sleeps: until the current size's deadline, at most {@link #WATCH_MAX}} */
    private long untilDeadline() {
        if (state != RUNNING || sizeIndex < 0) {
            return WATCH_MAX;
        }
        return Math.min(WATCH_MAX, Math.max(0, sizeStartNanos + plan.timeoutNanos() - System.nanoTime()));
    }

    /** Wakes the watchdog, when it runs. */
    private void wakeWatcher() {
        Thread w = watcher;
        if (w != null) {
            LockSupport.unpark(w);
        }
    }

    /** {@return whether both workers have ended, waiting up to {@link #STOP_GRACE} for each} */
    boolean joinWorkers() {
        boolean ended = true;
        for (Thread t : new Thread[] {client, responder}) {
            if (t == null) {
                continue;
            }
            try {
                ended &= t.join(STOP_GRACE);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                ended &= !t.isAlive();
            }
        }
        return ended;
    }

    private int forward(int reported, Consumer<PerfResult> onRow) {
        int done = completed;
        for (int i = reported; i < done; i++) {
            onRow.accept(results[i]);
        }
        return done;
    }

    /**
     * Receives must be waiting before the first message: the client keeps one posted for echoes and
     * acknowledgements, the server {@link #PINGPONG_SERVER_RECEIVES} for a pingpong echo or
     * {@link PerfSession#RECV_DEPTH} for a stream. Done
     * once, by {@link #run} or before it by the serving node of a two-node run, which must have its receives posted
     * before it tells the client to start.
     */
    void prepost() {
        if (preposted || plan.op() != PerfPlan.Op.SEND) {
            return;
        }
        preposted = true;
        if (session.client != null) {
            post(session.client, 1);
        }
        if (session.server != null) {
            int wanted = plan.test() == PerfPlan.Test.PINGPONG ? PINGPONG_SERVER_RECEIVES : PerfSession.RECV_DEPTH;
            // An EP that holds one receive still works: the client's next message then waits for the re-post.
            int depth = Math.min(wanted, session.server.ep.query().epAttr().maxRecvDtos());
            post(session.server, depth);
        }
    }

    private static void post(PerfSession.Side side, int count) {
        for (int i = 0; i < count; i++) {
            int rc = side.ep.postRecv(1, side.rxIov, i, DatCompletionFlags.DEFAULT);
            if (rc != DatReturn.DAT_SUCCESS) {
                throw new PerfCommand.PerfException("pre-posting receive " + (i + 1) + " of " + count
                        + ": dat_ep_post_recv returned " + DatReturn.toString(rc));
            }
        }
    }

    /** Called by the client before each size: restarts the watchdog's clock. */
    void beginSize(int index) {
        sizeStartNanos = System.nanoTime();
        sizeIndex = index;
    }

    /** Called by the client after each size; the volatile write publishes the result to the watchdog. */
    void complete(int index, PerfResult result) {
        results[index] = result;
        completed = index + 1;
        wakeWatcher();
    }

    /**
     * Records the first failure and aborts the run.
     *
     * @param message what went wrong
     */
    void fail(String message) {
        failure.compareAndSet(null, message);
        state = ABORT;
        wakeWatcher();
    }

    /** {@return the first failure, or {@code null}} */
    String failure() {
        return failure.get();
    }

    /**
     * A worker's busy-poll loop over one EVD, with a reusable event: allocates nothing while completions
     * succeed. Each worker owns one.
     */
    static final class Poller {
        /** The last event dequeued. */
        final DatEvent event = new DatEvent();
        private final PerfEngine engine;
        private final int haltAt;
        private final String who;

        /**
         * @param engine the run
         * @param haltAt the {@link #state} from which this worker stops: {@link #STOP} for the responder,
         *     {@link #ABORT} for the client
         * @param who the worker's name, for messages
         */
        Poller(PerfEngine engine, int haltAt, String who) {
            this.engine = engine;
            this.haltAt = haltAt;
            this.who = who;
        }

        /** {@return whether the worker must leave its loop} */
        boolean halted() {
            return engine.state >= haltAt;
        }

        /**
         * Spins until {@code evd} yields a successful DTO completion.
         *
         * @param evd the EVD
         * @param call the DTO's DAT call, for the failure message
         * @return {@code true} with the completion in {@link #event}; {@code false} when halted or failed (the
         *     failure is recorded)
         */
        boolean await(DatEvd evd, String call) {
            int spins = 0;
            while (true) {
                int rc = evd.dequeue(event);
                if (rc == DatReturn.DAT_SUCCESS) {
                    return completed(call);
                }
                if (rc != DatReturn.DAT_QUEUE_EMPTY) {
                    engine.fail(who + ": dat_evd_dequeue after " + call + " returned " + DatReturn.toString(rc));
                    return false;
                }
                if (engine.state >= haltAt) {
                    return false;
                }
                spins = idle(spins);
            }
        }

        /**
         * Checks the event just dequeued.
         *
         * @param call the DTO's DAT call
         * @return whether it is a successful DTO completion; when not, the failure is recorded
         */
        boolean completed(String call) {
            if (event.type() == DatEventType.DTO_COMPLETION && event.dtoStatus() == DatDtoStatus.SUCCESS) {
                return true;
            }
            engine.fail(who + ": " + call + " completed with " + event);
            return false;
        }

        /**
         * {@return whether the post succeeded; when not, the failure is recorded}
         *
         * @param rc a post's status
         * @param call the DAT call
         */
        boolean posted(int rc, String call) {
            if (rc == DatReturn.DAT_SUCCESS) {
                return true;
            }
            int type = rc & DatReturn.TYPE_MASK;
            boolean unsupported = type == DatReturn.MODEL_NOT_SUPPORTED.type()
                    || type == DatReturn.NOT_IMPLEMENTED.type();
            engine.fail(who + ": " + call + " returned " + DatReturn.toString(rc)
                    + (unsupported ? " (the provider does not support this operation)" : ""));
            return false;
        }

        /**
         * Spins until the byte at {@code offset} of {@code memory} differs from {@code previous}.
         *
         * @param memory the buffer the peer writes into
         * @param offset the flag's offset
         * @param previous the flag last seen there (0 when the size started)
         * @return the new flag, or {@code previous} when halted
         */
        byte awaitChange(MemorySegment memory, long offset, byte previous) {
            int spins = 0;
            while (true) {
                byte flag = (byte) FLAG.getAcquire(memory, offset);
                if (flag != previous) {
                    return flag;
                }
                if (engine.state >= haltAt) {
                    return previous;
                }
                spins = idle(spins);
            }
        }

        /**
         * Waits a moment between two empty polls: {@link Thread#onSpinWait()}, or {@link Thread#yield()} once
         * {@link #SPINS_BEFORE_YIELD} polls in a row found nothing.
         *
         * @param spins empty polls so far
         * @return empty polls including this one
         */
        static int idle(int spins) {
            if (spins < SPINS_BEFORE_YIELD) {
                Thread.onSpinWait();
                return spins + 1;
            }
            Thread.yield();
            return spins;
        }

        /**
         * Records a failure.
         *
         * @param message what went wrong
         */
        void fail(String message) {
            engine.fail(who + ": " + message);
        }
    }
}
