// SPDX-License-Identifier: Apache-2.0
package dat.tck.rules;

import static org.junit.jupiter.api.Assertions.fail;

import dat.api.DatCloseFlags;
import dat.api.DatIa;
import dat.tck.TckContext;
import dat.tck.TckEnvironment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Opens the IA of a rule with a bound: the open runs on a daemon thread of its own, so a provider whose
 * {@code open()} never returns fails the rule that asked (naming the bound) instead of hanging the run, and every
 * later rule of the run fails at once with the same reason. An IA that opens late is closed when it comes.
 */
final class IaOpener {

    private IaOpener() {
    }

    /**
     * {@return the IA {@code env} opens}
     *
     * @param env the provider under test
     * @param context the run's settings and state
     */
    static DatIa open(TckEnvironment env, TckContext context) {
        String hung = context.run().openHung();
        if (hung != null) {
            return fail("not run: " + hung);
        }
        long timeout = context.openTimeoutMillis();
        CompletableFuture<DatIa> opened = new CompletableFuture<>();
        Thread.ofPlatform().daemon().name("dat.tck open").start(() -> {
            try {
                opened.complete(env.openIa());
            } catch (Throwable t) {
                opened.completeExceptionally(t);
            }
        });
        try {
            return opened.get(timeout, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            String why = "the provider's open of the IA (TckEnvironment.openIa) did not return within " + timeout
                    + " ms (" + TckContext.OPEN_TIMEOUT_MS + ")";
            context.run().openHung(why + "; the later rules of this run are not run");
            var _ = opened.thenAccept(late -> late.close(DatCloseFlags.ABRUPT));
            return fail(why);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return fail("interrupted while waiting for the provider's open of the IA", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            return fail("the provider's open of the IA threw " + e.getCause(), e.getCause());
        }
    }
}
