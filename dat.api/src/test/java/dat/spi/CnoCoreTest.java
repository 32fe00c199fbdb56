// SPDX-License-Identifier: Apache-2.0
package dat.spi;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

import dat.api.Dat;
import dat.api.DatEvd;
import dat.api.DatException;
import dat.api.DatReturn;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** dat_cno_wait and the agent, independent of any provider. */
class CnoCoreTest {

    /** The bound of every wait here, for what takes microseconds: generous for a loaded 2-core machine. */
    private static final Duration BOUND = Duration.ofSeconds(30);

    /** Joins {@code t} within {@link #BOUND}, or interrupts it and fails naming {@code what}. */
    private static void join(Thread t, String what) throws InterruptedException {
        if (!t.join(BOUND)) {
            t.interrupt();
            fail("timed out after " + BOUND.toSeconds() + " s waiting for " + what + " to return");
        }
    }

    private static DatEvd evd() {
        return (DatEvd) Proxy.newProxyInstance(DatEvd.class.getClassLoader(), new Class<?>[] {DatEvd.class},
                (proxy, method, args) -> method.getName().equals("hashCode") ? 1 : null);
    }

    @Test
    void aWaiterGetsTheFirstEvdThatTriggered() throws InterruptedException {
        CnoCore core = new CnoCore(null);
        DatEvd first = evd();
        DatEvd second = evd();
        AtomicReference<DatEvd> woke = new AtomicReference<>();
        Thread waiter = Thread.ofPlatform().start(() -> woke.set(core.await(10_000_000)));
        core.trigger(first);
        core.trigger(second);
        join(waiter, "the waiter of a triggered CNO");
        assertSame(first, woke.get());
    }

    @Test
    void anAgentIsCalledInsteadOfWaking() {
        AtomicReference<DatEvd> called = new AtomicReference<>();
        CnoCore core = new CnoCore(called::set);
        DatEvd e = evd();
        core.trigger(e);
        assertSame(e, called.get());
        DatException timeout = assertThrows(DatException.class, () -> core.await(1000));
        assertSame(DatReturn.TIMEOUT_EXPIRED, timeout.type(), "a trigger handed to the agent wakes no waiter");
        core.modifyAgent(null);
        core.trigger(e);
        assertSame(e, core.await(0));
    }

    @Test
    void closeAndBadTimeoutsAreReported() throws InterruptedException {
        CnoCore core = new CnoCore(null);
        assertSame(DatReturn.INVALID_PARAMETER, assertThrows(DatException.class, () -> core.await(-1)).type());
        AtomicReference<DatException> failure = new AtomicReference<>();
        Thread waiter = Thread.ofPlatform().start(() -> {
            try {
                core.await(Dat.DAT_TIMEOUT_INFINITE);
            } catch (DatException e) {
                failure.set(e);
            }
        });
        long deadline = System.nanoTime() + BOUND.toNanos();
        while (waiter.getState() != Thread.State.WAITING) {
            if (System.nanoTime() - deadline > 0) {
                fail("timed out after " + BOUND.toSeconds() + " s waiting for the waiter to block in dat_cno_wait;"
                        + " it is " + waiter.getState());
            }
            Thread.onSpinWait();
        }
        core.close();
        join(waiter, "the waiter, woken by dat_cno_free");
        assertSame(DatReturn.INVALID_HANDLE, failure.get().type(), "dat_cno_free wakes the waiter");
        Thread.currentThread().interrupt();
        assertSame(DatReturn.INVALID_HANDLE, assertThrows(DatException.class, () -> core.await(1)).type());
        Thread.interrupted();
    }
}
