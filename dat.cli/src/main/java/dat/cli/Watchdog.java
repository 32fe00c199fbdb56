// SPDX-License-Identifier: Apache-2.0
package dat.cli;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.ToIntFunction;

/**
 * Bounds each step of a command that calls into a provider ({@code --timeout}): the command runs on a daemon
 * thread ({@value #THREAD_NAME}) and names each step as it begins ({@link #step}); the calling thread watches, and
 * when a step outlives its limit it gives up with one line saying what was being done ("opening IA x0 of provider
 * hang did not return within 5 s"), interrupts the worker and returns. A provider call that never returns keeps
 * only that daemon thread, which {@link DatCommand#main} ends with the JVM.
 *
 * <p>The watching thread sleeps until the current step's bound runs out, and is woken by the next step and by the
 * command's end; with no bound (the measuring run) it looks only every {@link #LOOK_MAX_NANOS}. It used to look
 * every 20 ms, a wake-up fifty times a second on whatever CPU a benchmark pins the command to.
 *
 * <p>A step whose own code already waits with a bound (a connect with a deadline, the measuring run with its
 * per-size watchdog) is given that bound plus {@link #GRACE_NANOS}, so its own, more precise message wins; only a
 * provider call stuck beyond it reaches this one.
 */
final class Watchdog {

    /** The worker thread's name. */
    static final String THREAD_NAME = "dat-command";
    /** Added to a step's own bound, so the step's own timeout message comes first. */
    static final long GRACE_NANOS = TimeUnit.SECONDS.toNanos(5);
    /** The longest sleep of the watching thread between the wake-ups it is given. */
    static final long LOOK_MAX_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final long limitNanos;
    private volatile String doing = "starting";
    private volatile long stepStart = System.nanoTime();
    /** The current step's limit; 0 while no limit applies. */
    private volatile long stepLimit;
    /** The thread that watches: woken by each step's beginning and by the command's end. */
    private final Thread watcher = Thread.currentThread();

    private Watchdog(long limitNanos) {
        this.limitNanos = limitNanos;
        this.stepLimit = limitNanos;
    }

    /**
     * Runs {@code work} on a daemon thread, each of its steps bounded.
     *
     * @param limitSeconds the bound of each step ({@code --timeout})
     * @param work the command's body; calls {@link #step} before each provider call that could block
     * @return what {@code work} returned
     * @throws CommandFailure when a step did not return within its bound, or failed with an exception other than a
     *     {@link CommandFailure} (the message names the step)
     */
    static int run(long limitSeconds, ToIntFunction<Watchdog> work) {
        Watchdog watchdog = new Watchdog(TimeUnit.SECONDS.toNanos(limitSeconds));
        CompletableFuture<Integer> result = new CompletableFuture<>();
        Thread worker = Thread.ofPlatform().name(THREAD_NAME).daemon(true).unstarted(() -> {
            try {
                result.complete(work.applyAsInt(watchdog));
            } catch (Throwable e) {
                // Any Throwable: a provider's StackOverflowError or OutOfMemoryError ends this command, not the JVM.
                result.completeExceptionally(e);
            } finally {
                LockSupport.unpark(watchdog.watcher);
            }
        });
        worker.start();
        while (!result.isDone()) {
            String overdue = watchdog.overdue();
            if (overdue != null) {
                worker.interrupt();
                throw new CommandFailure(overdue);
            }
            if (Thread.currentThread().isInterrupted()) {
                worker.interrupt();
                throw new CommandFailure(watchdog.doing + " was interrupted");
            }
            LockSupport.parkNanos(watchdog, watchdog.untilOverdue());
        }
        if (result.state() == Future.State.FAILED) {
            throw watchdog.failed(result.exceptionNow());
        }
        return result.resultNow();
    }

    /**
     * Begins a step bounded by {@code --timeout}.
     *
     * @param what what the step does, for the message: "opening IA x0 of provider p"
     */
    void step(String what) {
        begin(what, limitNanos);
    }

    /**
     * Begins a step that bounds its own waits by {@code ownBoundNanos}; bounded here by that plus
     * {@link #GRACE_NANOS}, or not at all for 0.
     *
     * @param what what the step does
     * @param ownBoundNanos the step's own bound, or 0 when it watches itself throughout (the measuring run)
     */
    void step(String what, long ownBoundNanos) {
        begin(what, ownBoundNanos == 0 ? 0 : saturatedAdd(ownBoundNanos, GRACE_NANOS));
    }

    private void begin(String what, long bound) {
        stepLimit = 0;
        doing = what;
        stepStart = System.nanoTime();
        stepLimit = bound;
        LockSupport.unpark(watcher);
    }

    /** {@return how long the watching thread may sleep: until the current step is overdue, at most a second} */
    private long untilOverdue() {
        long bound = stepLimit;
        if (bound <= 0) {
            return LOOK_MAX_NANOS;
        }
        // One nanosecond past the bound, so the look after the sleep finds the step overdue.
        return Math.max(0, Math.min(LOOK_MAX_NANOS, stepStart + bound - System.nanoTime() + 1));
    }

    /** {@return the message for a step past its bound, or {@code null}} */
    private String overdue() {
        long bound = stepLimit;
        String what = doing;
        if (bound > 0 && System.nanoTime() - stepStart > bound) {
            return what + " did not return within " + TimeUnit.NANOSECONDS.toSeconds(bound) + " s (--timeout)";
        }
        return null;
    }

    /** {@return a failure of the current step, in one line: the command's own as it is, any other with the step} */
    private RuntimeException failed(Throwable e) {
        if (e instanceof CommandFailure f) {
            return f;
        }
        return new CommandFailure(doing + " failed: " + DatCommand.describe(e), e);
    }

    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return sum < 0 ? Long.MAX_VALUE : sum;
    }
}
