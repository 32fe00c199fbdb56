// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Bounded waits for the tests: every wait a test makes ends, and when it ends unsatisfied it fails with what it
 * waited for (and, for a thread, where that thread stands), so a lost completion or wake-up fails the test instead of
 * hanging the build. (Regression: with one completion in a thousand lost, LoopbackStressTest spun for ever.)
 */
final class Waits {

    /**
     * The bound of a wait for something that normally takes milliseconds: generous for a loaded 2-core machine, yet
     * far below the JUnit default timeout of the module (junit-platform.properties), so the wait's own message wins.
     */
    static final Duration BOUND = Duration.ofSeconds(30);

    private Waits() {
    }

    /** A deadline for a loop that waits by polling: {@link #check} fails once it passed. */
    static final class Deadline {
        private final long end;
        private final Duration bound;
        private final Supplier<String> what;

        private Deadline(Duration bound, Supplier<String> what) {
            this.bound = bound;
            this.end = System.nanoTime() + bound.toNanos();
            this.what = what;
        }

        /** {@return whether the deadline passed} */
        boolean passed() {
            return System.nanoTime() - end > 0;
        }

        /**
         * Fails when the deadline passed.
         *
         * @throws AssertionError naming what was waited for
         */
        void check() {
            if (passed()) {
                throw new AssertionError("timed out after " + bound.toSeconds() + " s waiting for " + what.get());
            }
        }
    }

    /**
     * {@return a deadline {@code bound} from now}
     *
     * @param bound how long the wait may take
     * @param what what is waited for, computed when the wait fails (so it can report progress)
     */
    static Deadline deadline(Duration bound, Supplier<String> what) {
        return new Deadline(bound, what);
    }

    /**
     * {@return a deadline {@link #BOUND} from now}
     *
     * @param what what is waited for
     */
    static Deadline deadline(String what) {
        return new Deadline(BOUND, () -> what);
    }

    /**
     * Polls {@code condition} until it holds.
     *
     * @param condition what must become true
     * @param what what is waited for, for the failure
     */
    static void until(BooleanSupplier condition, String what) {
        Deadline d = deadline(what);
        while (!condition.getAsBoolean()) {
            d.check();
            Thread.yield();
        }
    }

    /**
     * Joins {@code thread}; if it is still running after {@link #BOUND}, interrupts it and fails with its stack.
     *
     * @param thread a thread the test started
     * @param what what the thread does, for the failure
     * @throws InterruptedException if the test thread is interrupted
     */
    static void join(Thread thread, String what) throws InterruptedException {
        join(thread, BOUND, what);
    }

    /**
     * Joins {@code thread} within {@code bound}; if it is still running then, interrupts it and fails with its stack.
     *
     * @param thread a thread the test started
     * @param bound how long to wait
     * @param what what the thread does, for the failure
     * @throws InterruptedException if the test thread is interrupted
     */
    static void join(Thread thread, Duration bound, String what) throws InterruptedException {
        if (thread.join(bound)) {
            return;
        }
        String stack = Arrays.stream(thread.getStackTrace()).map(f -> "\n\tat " + f).collect(Collectors.joining());
        thread.interrupt();
        throw new AssertionError("timed out after " + bound.toSeconds() + " s waiting for thread " + thread.getName()
                + " (" + what + ") to end; it stands at:" + stack);
    }

    /**
     * {@return the value of {@code future}, waited for at most {@link #BOUND}}
     *
     * @param <T> the value's type
     * @param future a task's result
     * @param what what the task does, for the failure
     * @throws InterruptedException if the test thread is interrupted
     * @throws ExecutionException if the task failed
     */
    static <T> T get(Future<T> future, String what) throws InterruptedException, ExecutionException {
        try {
            return future.get(BOUND.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            future.cancel(true);
            throw new AssertionError("timed out after " + BOUND.toSeconds() + " s waiting for " + what, e);
        }
    }

    /**
     * Awaits {@code latch} at most {@link #BOUND}.
     *
     * @param latch a latch
     * @param what what counts it down, for the failure
     * @throws InterruptedException if the test thread is interrupted
     */
    static void await(CountDownLatch latch, String what) throws InterruptedException {
        if (!latch.await(BOUND.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("timed out after " + BOUND.toSeconds() + " s waiting for " + what
                    + " (latch still at " + latch.getCount() + ")");
        }
    }
}
