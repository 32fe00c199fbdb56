// SPDX-License-Identifier: Apache-2.0
package dat.registry;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * Calls into provider code with a time limit: each call runs on a daemon thread of its own, so a provider that never
 * returns costs the caller the limit and no more, and cannot keep the JVM alive; whatever it throws, errors such as
 * {@link StackOverflowError} and {@link OutOfMemoryError} included, comes back as a {@link Failure} with a one-line
 * reason rather than crossing into the registry.
 *
 * <p>The caller waits without reacting to interrupts (the wait is bounded anyway) and keeps its interrupt status.
 *
 * @param limit how long one call may take
 * @param limitSource how the user changes the limit, for reasons: {@code dat.registry.timeout.ms}
 */
record ProviderCalls(Duration limit, String limitSource) {

    /** A provider call that did not return a value in time. */
    static final class Failure extends Exception {
        private static final long serialVersionUID = 1L;

        /** What the provider threw, {@code null} when it timed out. */
        private final transient Throwable thrown;

        Failure(String reason, Throwable thrown) {
            super(reason, null, false, false);
            this.thrown = thrown;
        }

        /** {@return what the provider threw, {@code null} when it did not return in time} */
        Throwable thrown() {
            return thrown;
        }
    }

    /**
     * Runs {@code body} on a daemon thread and waits for it at most {@link #limit}.
     *
     * @param what the call as a reason names it: {@code info()}, {@code open(loopback0)}
     * @param body the call
     * @param late receives a value that arrives after the caller gave up (to close it), or {@code null}
     * @param <T> the value's type
     * @return what the call returned
     * @throws Failure when the call threw ({@code what threw <exception>}) or did not return in time
     *     ({@code what did not return within N ms (limit)})
     */
    <T> T call(String what, Callable<T> body, Consumer<? super T> late) throws Failure {
        return start(what, null, body, late).await();
    }

    /**
     * Starts {@code body} on a daemon thread; {@link Pending#await} waits for it at most {@link #limit} from now.
     * Calls started together run together: discovery asks every provider for its {@code info()} at once, so their
     * libraries load side by side and hung providers cost the limit once, not once each.
     *
     * @param what the call as a reason names it: {@code info()}
     * @param whose the provider the call is into, for the thread's name (a crash report names the thread), or
     *     {@code null} when {@code what} says it
     * @param body the call
     * @param late receives a value that arrives after the caller gave up (to close it), or {@code null}
     * @param <T> the value's type
     * @return the call under way
     */
    <T> Pending<T> start(String what, String whose, Callable<T> body, Consumer<? super T> late) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread worker = new Thread(() -> {
            T value;
            try {
                value = body.call();
            } catch (Throwable e) { // The boundary: whatever provider code throws becomes a reason.
                result.completeExceptionally(e);
                return;
            }
            if (!result.complete(value) && late != null && value != null) {
                late.accept(value);
            }
        }, "dat-registry " + (whose == null ? what : what + " of " + whose));
        worker.setDaemon(true);
        worker.setContextClassLoader(Thread.currentThread().getContextClassLoader());
        worker.start();
        return new Pending<>(what, result, System.nanoTime() + limit.toNanos());
    }

    /**
     * A provider call under way.
     *
     * @param <T> the value's type
     */
    final class Pending<T> {
        private final String what;
        private final CompletableFuture<T> result;
        private final long deadline;

        private Pending(String what, CompletableFuture<T> result, long deadline) {
            this.what = what;
            this.result = result;
            this.deadline = deadline;
        }

        /**
         * Waits for the call until {@link #limit} after it started.
         *
         * @return what the call returned
         * @throws Failure when the call threw ({@code what threw <exception>}) or did not return in time
         *     ({@code what did not return within N ms (limit)})
         */
        T await() throws Failure {
            boolean interrupted = false;
            try {
                while (true) {
                    try {
                        return result.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                    } catch (InterruptedException e) {
                        interrupted = true;
                    } catch (ExecutionException e) {
                        Throwable cause = e.getCause();
                        throw new Failure(what + " threw " + Discovery.describe(cause), cause);
                    } catch (TimeoutException e) {
                        // Claims the result, so a value arriving from now on goes to late; one already there wins.
                        if (result.completeExceptionally(e)) {
                            throw new Failure(what + " did not return within " + limit.toMillis() + " ms ("
                                    + limitSource + ")", null);
                        }
                    }
                }
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }
}
